/**
 * `write`: create or replace one file inside the sandbox, atomically.
 *
 * @module
 */
import { Tool, kitDefinition } from '../core/tool.js'
import { BUILTIN_INPUT_JSON_SCHEMAS } from './builtin_json_schemas.js'
import { sha256Hex } from '../utils/hash.js'
import { validator, type ObjectSchema } from '../validation.js'
import { lazyObject } from '../utils/lazy_object.js'
import { onFirstUse } from '../utils/first_use.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import type { WriteArgs, RedactedWriteArgs } from './builtin_args.js'

export type { WriteArgs, RedactedWriteArgs } from './builtin_args.js'

const writeSchema: ObjectSchema<WriteArgs> = lazyObject(() => validator.object<WriteArgs>({
  path: validator.string().allow('').required().description('Destination file path, relative to the sandbox root'),
  content: validator.string().allow('').required().description('The complete new content of the file (UTF-8)'),
}))

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
    super(kitDefinition({
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
      handler: async (args, _ctx, _meta, call) => (await loadWriteRun()).writeFileHandler(sandbox, args, call),
    }, { inputJsonSchema: BUILTIN_INPUT_JSON_SCHEMAS.write }))
  }
}

/**
 * The half of `write` that runs a call, loaded by the first call:
 * `import 'toolsmith'` then compiles none of it.
 */
const loadWriteRun = onFirstUse(() => import('./write_run.js'))
