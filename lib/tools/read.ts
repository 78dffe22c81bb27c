/**
 * `read`: the text of one file inside the sandbox.
 *
 * @module
 */
import { Tool, kitDefinition } from '../core/tool.js'
import { BUILTIN_INPUT_JSON_SCHEMAS } from './builtin_json_schemas.js'
import { validator, type ObjectSchema } from '../validation.js'
import { lazyObject } from '../utils/lazy_object.js'
import { onFirstUse } from '../utils/first_use.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import type { ReadArgs } from './builtin_args.js'

export type { ReadArgs } from './builtin_args.js'

const readSchema: ObjectSchema<ReadArgs> = lazyObject(() => validator.object<ReadArgs>({
  // Empty strings are allowed here so the tool answers TOOL_PATH_INVALID itself.
  path: validator.string().allow('').required().description('File path, relative to the sandbox root (or absolute inside it)'),
  // max: the JSON Schema says what joi's number.unsafe rule enforces anyway, so clients see the same bound.
  offset: validator.number().integer().min(1).max(Number.MAX_SAFE_INTEGER).description('First line to return, 1-based (default 1)'),
  limit: validator.number().integer().min(1).max(Number.MAX_SAFE_INTEGER).description('How many lines to return (default: to the end of the file, within the byte limit)'),
  lineNumbers: validator.boolean().description('Prefix each line with its number and a tab, like `cat -n` (default false)'),
}))

/**
 * The built-in `read` tool: returns a UTF-8 text file's content, whole or by
 * line range.
 *
 * @remarks
 * `offset` (first line, 1-based) and `limit` (line count) select lines; the
 * file is streamed, so a range of a 1 GiB file costs one pass up to the
 * range and a fixed 1 MiB buffer. Without them a file within
 * `maxOutputBytes` comes back whole, exactly as it is; a larger one comes
 * back as its first lines that fit, followed by a note (`[… … …]` on its own
 * line) with the file's line count and the `offset` to continue from. A
 * range cut by the limit ends with such a note too; a range past the end of
 * the file returns only a note saying how many lines the file has.
 * `lineNumbers: true` prefixes each line with its number and a tab, like
 * `cat -n`.
 *
 * Refuses, with an `E_TOOL_*` error: paths outside the root
 * (`TOOL_PATH_ESCAPE`), missing files (`TOOL_FILE_NOT_FOUND`), directories,
 * FIFOs, sockets and devices (`TOOL_NOT_A_FILE`, without ever blocking) and
 * files with a NUL byte in their first 8 KiB (`TOOL_BINARY_FILE`). Invalid
 * UTF-8 is decoded with U+FFFD. The result is never over `maxOutputBytes`.
 * `sideEffect: false`, `idempotent: true`.
 *
 * @example
 * ```ts
 * const read = new ReadTool(new Sandbox({ rootDir: '/srv/work' }))
 * await read.executor(createDispatchContext())({ path: 'README.md' })
 * await read.executor(createDispatchContext())({ path: 'big.log', offset: 5_000_000, limit: 100 })
 * ```
 */
export class ReadTool extends Tool<any, ReadArgs> {
  /**
   * @param sandbox - The sandbox whose root and limits apply.
   */
  constructor(sandbox: Sandbox) {
    const cap = sandbox.maxOutputBytes
    super(kitDefinition({
      name: 'read',
      description:
        'Read a UTF-8 text file inside the sandbox. `path` is relative to the sandbox root. ' +
        '`offset` (first line, 1-based) and `limit` (number of lines) read part of a file of any size; ' +
        `without them a file over ${cap} bytes returns its first lines and a note with the line count and the offset to continue from. ` +
        '`lineNumbers: true` numbers the lines like `cat -n`. Binary files and directories are refused.',
      inputSchema: readSchema,
      sideEffect: false,
      idempotent: true,
      roles: { path: 'path' },
      // All four parameters are declared on purpose: see Tool's idempotency-key warning.
      handler: async (args, _ctx, _meta, call) => (await loadReadRun()).readFileHandler(sandbox, args, call),
    }, { inputJsonSchema: BUILTIN_INPUT_JSON_SCHEMAS.read }))
  }
}

/**
 * The half of `read` that runs a call, loaded by the first call:
 * `import 'toolsmith'` then compiles none of it.
 */
const loadReadRun = onFirstUse(() => import('./read_run.js'))
