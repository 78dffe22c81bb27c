/**
 * `edit`: apply a unified diff to one existing file inside the sandbox.
 *
 * @module
 */
import { isUtf8 } from 'node:buffer'
import { applyPatch, parsePatch, type StructuredPatch } from 'diff'
import { E_TOOL_BINARY_FILE, E_TOOL_FILE_TOO_LARGE, E_TOOL_PATCH_FAILED, E_TOOL_PATCH_TOO_LARGE } from '../exceptions.js'
import { Tool } from '../core/tool.js'
import { sha256Hex } from '../utils/hash.js'
import { validator, type ObjectSchema } from '../validation.js'
import { openParentDirectory, readRegularFile, releaseDirectory, writeFileAtomic } from '../sandbox/files.js'
import { assertFilePathInput, resolveInRoot, type ResolvedPath } from '../sandbox/paths.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import { assertNotAborted } from './cancel.js'
import { decodeText } from './read.js'

/** Arguments of `edit`. */
export interface EditArgs {
  /** The file to patch; it must exist. */
  path: string
  /** A unified diff for that one file. */
  patch: string
}

/** What events, logs and journals record for an `edit` call instead of its patch. */
export interface RedactedEditArgs {
  /** The file path as given. */
  path: string
  /** UTF-8 size of the patch. */
  patchBytes: number
  /** SHA-256 of the patch, hex. */
  patchHash: string
}

const editSchema: ObjectSchema<EditArgs> = validator.object<EditArgs>({
  path: validator.string().allow('').required().description('The existing file to patch, relative to the sandbox root'),
  patch: validator
    .string()
    .allow('')
    .required()
    .description('A unified diff of that one file (---/+++ headers optional, at least one @@ hunk)'),
})

function patchFailed(path: string, message: string, extra: Record<string, unknown> = {}, cause?: unknown): E_TOOL_PATCH_FAILED {
  return new E_TOOL_PATCH_FAILED(`Patch not applied to ${JSON.stringify(path)}: ${message}; the file is unchanged`, {
    ...(cause === undefined ? {} : { cause }),
    details: { path, ...extra },
  })
}

/** Parse the patch, insisting on exactly one file with at least one hunk. */
function parseSingleFilePatch(path: string, patch: string): StructuredPatch {
  let parsed: StructuredPatch[]
  try {
    parsed = parsePatch(patch)
  } catch (error) {
    throw patchFailed(path, `it is not a valid unified diff (${error instanceof Error ? error.message : String(error)})`, {}, error)
  }
  const withContent = parsed.filter((file) => file.hunks.length > 0 || file.isBinary || file.isRename || file.isCopy)
  if (withContent.length === 0) {
    throw patchFailed(path, 'it contains no hunks (a unified diff needs at least one "@@ -a,b +c,d @@" section)')
  }
  if (parsed.length > 1) {
    const names = parsed.map((file) => file.newFileName ?? file.oldFileName ?? '?')
    throw patchFailed(path, `it patches ${parsed.length} files (${names.join(', ')}); edit applies one file's diff per call`, {
      files: names,
    })
  }
  const file = parsed[0]!
  if (file.isBinary) throw patchFailed(path, 'it is a binary patch')
  return file
}

function hunkHeader(hunk: StructuredPatch['hunks'][number]): string {
  return `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`
}

/** Find which hunk makes the patch fail: the first prefix of hunks that does not apply. */
function firstFailingHunk(source: string, file: StructuredPatch): number {
  for (let count = 1; count <= file.hunks.length; count++) {
    if (applyPatch(source, { ...file, hunks: file.hunks.slice(0, count) }) === false) return count - 1
  }
  return file.hunks.length - 1
}

/**
 * The built-in `edit` tool: applies a unified diff to an existing file and
 * returns `"ok"`.
 *
 * @remarks
 * Uses `diff.applyPatch` (exact context, no fuzz) with line-ending
 * conversion, so an LF patch applies to a CRLF file and the file stays CRLF.
 * Refuses, leaving the file untouched: a patch over `maxOutputBytes`
 * (`TOOL_PATCH_TOO_LARGE`), a missing file (`TOOL_FILE_NOT_FOUND`), a file over
 * the limit (`TOOL_FILE_TOO_LARGE`) or binary (`TOOL_BINARY_FILE`), and an
 * empty, malformed or multi-file patch or a hunk that does not match
 * (`TOOL_PATCH_FAILED`, naming the first failing hunk and its header). The
 * result is written back atomically. Events and journals record
 * `{ path, patchBytes, patchHash }`. `sideEffect: true`, `idempotent: false`.
 */
export class EditTool extends Tool<any, EditArgs> {
  /**
   * @param sandbox - The sandbox whose root and limits apply.
   */
  constructor(sandbox: Sandbox) {
    super({
      name: 'edit',
      description:
        'Apply a unified diff (like `diff -u` or `git diff` output, for ONE file) to an existing file inside the sandbox. ' +
        'Context lines must match the current file exactly. Returns "ok"; on a mismatch nothing is changed and the error names the failing hunk.',
      inputSchema: editSchema,
      sideEffect: true,
      idempotent: false,
      redact: ({ path, patch }): RedactedEditArgs => ({
        path,
        patchBytes: Buffer.byteLength(patch),
        patchHash: sha256Hex(patch),
      }),
      // All four parameters are declared on purpose: see Tool's idempotency-key warning.
      handler: async ({ path, patch }, _ctx, _meta, call) => {
        assertFilePathInput(path)
        const patchBytes = Buffer.byteLength(patch)
        if (patchBytes > sandbox.maxOutputBytes) {
          throw new E_TOOL_PATCH_TOO_LARGE(
            `The patch is ${patchBytes} bytes, over the ${sandbox.maxOutputBytes}-byte limit; split it into several edits`,
            { details: { path, patchBytes, limit: sandbox.maxOutputBytes } },
          )
        }
        const resolved = await resolveInRoot(sandbox, path)
        // Open (and check) the directory the result goes into while the file is read and patched.
        const parent = resolved.stats?.isFile() === true ? openParentDirectory(resolved) : undefined
        parent?.catch(() => undefined) // its error, if any, is raised by writeFileAtomic
        let patched: string
        try {
          patched = await patchedContent(resolved, sandbox.maxOutputBytes, path, patch, call.signal)
        } catch (error) {
          releaseDirectory(parent)
          throw error
        }
        await writeFileAtomic(resolved, Buffer.from(patched, 'utf8'), parent)
        return 'ok'
      },
    })
  }
}

/** Read the file, check it is UTF-8 text, and apply the patch (nothing is written). */
async function patchedContent(resolved: ResolvedPath, limit: number, path: string, patch: string, signal: AbortSignal): Promise<string> {
  const { bytes, remainder } = await readRegularFile(resolved, limit)
  if (remainder > 0) {
    throw new E_TOOL_FILE_TOO_LARGE(`${JSON.stringify(path)} grew past the ${limit}-byte limit while being read`, {
      details: { path, limit },
    })
  }
  const source = decodeText(bytes, 0, limit, path)
  // isUtf8 ⇔ the decoded text re-encodes to exactly these bytes, without encoding 150 KB to find out.
  if (!isUtf8(bytes)) {
    // Writing back a lossy decoding would corrupt every invalid byte, not just the patched lines.
    throw new E_TOOL_BINARY_FILE(`${JSON.stringify(path)} is not valid UTF-8; edit only patches UTF-8 text files`, {
      details: { path },
    })
  }
  const file = parseSingleFilePatch(path, patch)
  const patched = applyPatch(source, file, { autoConvertLineEndings: true })
  if (patched === false) {
    const index = firstFailingHunk(source, file)
    const hunk = file.hunks[index]!
    const expected = hunk.lines.filter((line) => !line.startsWith('+') && !line.startsWith('\\')).map((line) => line.slice(1))
    throw patchFailed(
      path,
      `hunk ${index + 1} of ${file.hunks.length} (${hunkHeader(hunk)}) does not match the current content: ` +
        `the lines it expects (${JSON.stringify(expected.slice(0, 6).join('\n'))}${expected.length > 6 ? '…' : ''}) ` +
        'were not found; read the file again and rebuild the patch from its current content',
      { hunk: index + 1, hunks: file.hunks.length, header: hunkHeader(hunk) },
    )
  }
  assertNotAborted(signal, `writing ${JSON.stringify(path)}`)
  return patched
}
