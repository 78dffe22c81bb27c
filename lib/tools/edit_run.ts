/**
 * What an `edit` call does: read the file, apply the patch, replace the
 * file atomically. Loaded by the first call (see `loadEditRun` in `edit.ts`).
 *
 * @module
 */
import { isUtf8 } from 'node:buffer'
import { E_TOOL_BINARY_FILE, E_TOOL_FILE_TOO_LARGE, E_TOOL_PATCH_TOO_LARGE } from '../exceptions.js'
import type { ToolCallInfo } from '../core/tool.js'
import { abandonReplacement, commitReplacement, prepareReplacement } from '../sandbox/files/atomic_write.js'
import { readRegularFile } from '../sandbox/files/read_file.js'
import { assertAsJudged, assertSingleName, judgedPathIn, type JudgedPath } from '../sandbox/files/judged_path.js'
import { assertFilePathInput, resolveInRoot, type ResolvedPath } from '../sandbox/files/paths.js'
import { assertNotProtected } from '../sandbox/files/protected_paths.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import { assertNotAborted } from './cancel.js'
import { decodeText } from './read_run.js'
import { applyFilePatch, parseFilePatch } from './unified_diff.js'
import type { EditArgs } from './builtin_args.js'

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
