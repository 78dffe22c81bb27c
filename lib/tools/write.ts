/**
 * `write`: create or replace one file inside the sandbox, atomically.
 *
 * @module
 */
import { E_TOOL_CONTENT_TOO_LARGE } from '../exceptions.js'
import { Tool, type ToolCallInfo } from '../core/tool.js'
import { sha256Hex } from '../utils/hash.js'
import { validator, type ObjectSchema } from '../validation.js'
import { writeFileAtomic } from '../sandbox/files/atomic_write.js'
import { assertAsJudged, judgedPathIn } from '../sandbox/files/judged_path.js'
import { assertFilePathInput, resolveInRoot } from '../sandbox/files/paths.js'
import { assertNotProtected } from '../sandbox/files/protected_paths.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import { assertNotAborted } from './cancel.js'

/** Arguments of `write`. */
export interface WriteArgs {
  /** Destination path, relative to the sandbox root or absolute inside it. */
  path: string
  /** The complete new content of the file. */
  content: string
}

/** What events, logs and journals record for a `write` call instead of its content. */
export interface RedactedWriteArgs {
  /** The destination path as given. */
  path: string
  /** UTF-8 size of the content. */
  contentBytes: number
  /** SHA-256 of the content, hex. */
  contentHash: string
}

const writeSchema: ObjectSchema<WriteArgs> = validator.object<WriteArgs>({
  path: validator.string().allow('').required().description('Destination file path, relative to the sandbox root'),
  content: validator.string().allow('').required().description('The complete new content of the file (UTF-8)'),
})

/**
 * The built-in `write` tool: creates or replaces a file and returns `"ok"`.
 *
 * @remarks
 * Content over `maxOutputBytes` is refused (`TOOL_CONTENT_TOO_LARGE`) before
 * the disk is touched. Missing parent directories are created. The file is
 * written to a temp file beside it and renamed into place, so it is never
 * seen half-written; an existing file keeps its mode. Refuses paths outside
 * the root, dangling symlinks, hard-linked files (`TOOL_PATH_ESCAPE`) and
 * non-regular targets (`TOOL_NOT_A_FILE`), and protected paths — the
 * sandbox's `readOnlyPaths`, files that run code on the host later, such as
 * `.git/config` at any depth (`TOOL_PATH_PROTECTED`). Events and journals record
 * `{ path, contentBytes, contentHash }`, never the content.
 * `sideEffect: true`, `idempotent: false`.
 */
export class WriteTool extends Tool<any, WriteArgs> {
  /**
   * @param sandbox - The sandbox whose root and limits apply.
   */
  constructor(sandbox: Sandbox) {
    super({
      name: 'write',
      description:
        'Create or overwrite a file inside the sandbox with the given content (parent directories are created). ' +
        'Returns "ok". Use edit for small changes to an existing file.',
      inputSchema: writeSchema,
      sideEffect: true,
      idempotent: false,
      roles: { path: 'path' },
      redact: ({ path, content }): RedactedWriteArgs => ({
        path,
        contentBytes: Buffer.byteLength(content),
        contentHash: sha256Hex(content),
      }),
      // All four parameters are declared on purpose: see Tool's idempotency-key warning.
      handler: (args, _ctx, _meta, call) => writeFileHandler(sandbox, args, call),
    })
  }
}

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
