/**
 * `edit`: apply a unified diff to one existing file inside the sandbox.
 *
 * @module
 */
import { isUtf8 } from 'node:buffer'
import { E_TOOL_BINARY_FILE, E_TOOL_FILE_TOO_LARGE, E_TOOL_PATCH_TOO_LARGE } from '../exceptions.js'
import { Tool, type ToolCallInfo } from '../core/tool.js'
import { sha256Hex } from '../utils/hash.js'
import { validator, type ObjectSchema } from '../validation.js'
import { abandonReplacement, commitReplacement, prepareReplacement } from '../sandbox/files/atomic_write.js'
import { readRegularFile } from '../sandbox/files/read_file.js'
import { assertAsJudged, assertSingleName, judgedPathIn, type JudgedPath } from '../sandbox/files/judged_path.js'
import { assertFilePathInput, resolveInRoot, type ResolvedPath } from '../sandbox/files/paths.js'
import { assertNotProtected } from '../sandbox/files/protected_paths.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import { assertNotAborted } from './cancel.js'
import { decodeText } from './read.js'
import { applyFilePatch, parseFilePatch } from './unified_diff.js'

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

/**
 * The built-in `edit` tool: applies a unified diff to an existing file and
 * returns `"ok"`.
 *
 * @remarks
 * Uses `diff.parsePatch` and `diff.applyPatch` (exact context, no fuzz; a
 * hunk may match away from the line its header names). The file's own line
 * ending wins: added lines get it whatever the patch uses, untouched lines
 * keep theirs; in a file that mixes CRLF and LF, added lines get the more
 * frequent one (LF on a tie).
 * Refuses, leaving the file untouched: a patch over `maxOutputBytes`
 * (`TOOL_PATCH_TOO_LARGE`), a protected path (`readOnlyPaths`: `.git/config`
 * at any depth, shell startup files…; `TOOL_PATH_PROTECTED`), a missing
 * file (`TOOL_FILE_NOT_FOUND`), a file over
 * the limit (`TOOL_FILE_TOO_LARGE`) or binary (`TOOL_BINARY_FILE`), and
 * (`TOOL_PATCH_FAILED`) an empty, malformed or multi-file patch, a hunk with
 * no lines, hunks out of order, a hunk starting far past the end of the file,
 * a rename, copy, deletion or mode change, a hunk that does not match (naming
 * the first failing hunk and its header), or a search for hunks that would
 * take over 100,000 line comparisons besides the patch's own lines: no call
 * holds the event loop for long. The result is written back atomically. Events and journals
 * record `{ path, patchBytes, patchHash }`. `sideEffect: true`,
 * `idempotent: false`.
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
      roles: { path: 'path' },
      redact: ({ path, patch }): RedactedEditArgs => ({
        path,
        patchBytes: Buffer.byteLength(patch),
        patchHash: sha256Hex(patch),
      }),
      // All four parameters are declared on purpose: see Tool's idempotency-key warning.
      handler: (args, _ctx, _meta, call) => editFileHandler(sandbox, args, call),
    })
  }
}

/** Read the file, check it is UTF-8 text, and apply the patch (nothing is written). */
async function patchedContent(
  resolved: ResolvedPath,
  limit: number,
  path: string,
  patch: string,
  signal: AbortSignal,
  judged: JudgedPath | undefined,
): Promise<string> {
  const { bytes, remainder, stats } = await readRegularFile(resolved, limit)
  // Before anything of the content can reach a message (a patch that does not apply quotes lines).
  assertSingleName(judged, path, stats)
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
  const patched = applyFilePatch(path, source, parseFilePatch(path, patch))
  assertNotAborted(signal, `writing ${JSON.stringify(path)}`)
  return patched
}

/**
 * The `edit` tool's handler, as a function of its sandbox: what
 * `EditTool` runs after validation.
 *
 * @param sandbox - The sandbox whose root and limits apply.
 * @param args - Validated args.
 * @param call - The call (its abort signal is honoured).
 * @returns The tool's result text.
 * @internal
 */
export async function editFileHandler(sandbox: Sandbox, { path, patch }: EditArgs, call: ToolCallInfo): Promise<string> {
  assertFilePathInput(path)
  const patchBytes = Buffer.byteLength(patch)
  if (patchBytes > sandbox.maxOutputBytes) {
    throw new E_TOOL_PATCH_TOO_LARGE(
      `The patch is ${patchBytes} bytes, over the ${sandbox.maxOutputBytes}-byte limit; split it into several edits`,
      { details: { path, patchBytes, limit: sandbox.maxOutputBytes } },
    )
  }
  // A permission gate's judged path (if any): the edit reads and replaces exactly that file.
  const judged = await judgedPathIn(call, 'path', path, sandbox)
  const resolved = await resolveInRoot(sandbox, path)
  sandbox.credentials.assertAllowed(resolved, 'edit')
  assertAsJudged(judged, resolved)
  // Never create or change what runs code on the host later (readOnlyPaths), judged by the real path.
  assertNotProtected(sandbox.protectedPaths, resolved)
  // Open (and check) the directory and create the temp file, with the file's
  // mode and owner, while the file is read and patched: those round trips
  // then cost nothing. Not for a path that is no file (the read words that
  // refusal). Its own error, if any, is raised by commitReplacement, after
  // the read's and the patch's.
  const replacement = resolved.stats?.isFile() === true ? prepareReplacement(resolved) : undefined
  replacement?.catch(() => undefined)
  let patched: string
  try {
    patched = await patchedContent(resolved, sandbox.maxOutputBytes, path, patch, call.signal, judged)
  } catch (error) {
    // Awaited: a failed edit has left no temp file behind when it answers.
    if (replacement !== undefined) await abandonReplacement(replacement)
    throw error
  }
  await commitReplacement(resolved, Buffer.from(patched, 'utf8'), replacement ?? prepareReplacement(resolved))
  return 'ok'
}
