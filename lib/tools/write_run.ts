/**
 * What a `write` call does: the checks, then the atomic replace. Loaded by
 * the first call (see `loadWriteRun` in `write.ts`).
 *
 * @module
 */
import { E_TOOL_CONTENT_TOO_LARGE } from '../exceptions.js'
import type { ToolCallInfo } from '../core/tool.js'
import { writeFileAtomic } from '../sandbox/files/atomic_write.js'
import { assertAsJudged, judgedPathIn } from '../sandbox/files/judged_path.js'
import { assertFilePathInput, resolveInRoot } from '../sandbox/files/paths.js'
import { assertNotProtected } from '../sandbox/files/protected_paths.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import { assertNotAborted } from './cancel.js'
import type { WriteArgs } from './builtin_args.js'

/**
 * The `write` tool's handler, as a function of its sandbox: what
 * `WriteTool` runs after validation.
 *
 * @param sandbox - The sandbox whose root and limits apply.
 * @param args - Validated args.
 * @param call - The call (its abort signal is honoured).
 * @returns The tool's result text.
 * @internal
 */
export async function writeFileHandler(sandbox: Sandbox, { path, content }: WriteArgs, call: ToolCallInfo): Promise<string> {
  assertFilePathInput(path)
  const data = Buffer.from(content, 'utf8')
  if (data.length > sandbox.maxOutputBytes) {
    throw new E_TOOL_CONTENT_TOO_LARGE(
      `The content is ${data.length} bytes, over the ${sandbox.maxOutputBytes}-byte limit; write the file in smaller pieces or generate it with bash`,
      { details: { path, contentBytes: data.length, limit: sandbox.maxOutputBytes } },
    )
  }
  // A permission gate's judged path (if any): the write goes exactly there.
  const judged = await judgedPathIn(call, 'path', path, sandbox)
  const resolved = await resolveInRoot(sandbox, path)
  sandbox.credentials.assertAllowed(resolved, 'write')
  assertAsJudged(judged, resolved)
  // Never create or change what runs code on the host later (readOnlyPaths), judged by the real path.
  assertNotProtected(sandbox.protectedPaths, resolved)
  assertNotAborted(call.signal, `writing ${JSON.stringify(path)}`)
  await writeFileAtomic(resolved, data)
  return 'ok'
}
