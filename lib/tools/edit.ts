/**
 * `edit`: apply a unified diff to one existing file inside the sandbox.
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
import type { EditArgs, RedactedEditArgs } from './builtin_args.js'

export type { EditArgs, RedactedEditArgs } from './builtin_args.js'

const editSchema: ObjectSchema<EditArgs> = lazyObject(() => validator.object<EditArgs>({
  path: validator.string().allow('').required().description('The existing file to patch, relative to the sandbox root'),
  patch: validator
    .string()
    .allow('')
    .required()
    .description('A unified diff of that one file (---/+++ headers optional, at least one @@ hunk)'),
}))

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
    super(kitDefinition({
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
      handler: async (args, _ctx, _meta, call) => (await loadEditRun()).editFileHandler(sandbox, args, call),
    }, { inputJsonSchema: BUILTIN_INPUT_JSON_SCHEMAS.edit }))
  }
}

/**
 * The half of `edit` that runs a call, loaded by the first call:
 * `import 'toolsmith'` then compiles none of it.
 */
const loadEditRun = onFirstUse(() => import('./edit_run.js'))
