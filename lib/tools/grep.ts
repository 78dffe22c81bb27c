/**
 * `grep`: search files inside the sandbox with the ripgrep binary shipped by
 * `@vscode/ripgrep` (no `rg` on `PATH` needed).
 *
 * @module
 */
import { Tool, kitDefinition } from '../core/tool.js'
import { BUILTIN_INPUT_JSON_SCHEMAS } from './builtin_json_schemas.js'
import { validator, type ObjectSchema } from '../validation.js'
import { lazyObject } from '../utils/lazy_object.js'
import { onFirstUse } from '../utils/first_use.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import type { GrepArgs } from './builtin_args.js'

export type { GrepArgs } from './builtin_args.js'

const grepSchema: ObjectSchema<GrepArgs> = lazyObject(() => validator.object<GrepArgs>({
  pattern: validator
    .string()
    .allow('')
    .max(8192)
    .pattern(/^[^\0]*$/, 'no NUL bytes')
    .required()
    .description('Regular expression (ripgrep / Rust syntax) to search for'),
  path: validator.string().allow('').default('.').description('Directory or file to search, relative to the sandbox root'),
}))

/**
 * The built-in `grep` tool: `file:line:text` lines for every match, `""`
 * when there is none.
 *
 * @remarks
 * Runs the bundled `rg` with exactly `--no-config --no-ignore
 * [--ignore-file RULES] -n -H --no-heading -e PATTERN -- PATH`; printed paths
 * are relative to the root (`src/a.ts:3:…`). The checked target is opened
 * (`O_NOFOLLOW`, re-checked through its descriptor) and rg searches that
 * descriptor, not the path, so swapping the path for a symlink after the
 * check cannot redirect it. Symlinks met during rg's walk are not followed
 * (`-L` is never passed, nor `--pre`); an entry swapped for one while rg
 * walks would be (rg has no `O_NOFOLLOW` walk), so a directory search is
 * kept only when no directory on a printed path changed while rg ran, and
 * otherwise runs again in a mount namespace holding only that directory
 * (bubblewrap, where it runs; see `search_jail`, `grep_walk_check`). rg reads no ignore file itself: the
 * rules of the `.gitignore`, `.ignore` and `.rgignore` files inside the root
 * (never a symlinked one, never one above the root, no `.git` exclude or
 * global excludes) are gathered by the kit and passed as `RULES`, with
 * ripgrep's meaning; hidden files are skipped. Output over `maxOutputBytes`
 * is cut at a line end with a `[… N bytes truncated …]` marker. Errors: `TOOL_FILE_NOT_FOUND` (missing
 * path), `TOOL_NOT_A_FILE` (a FIFO, socket or device), `TOOL_PATH_ESCAPE`, `TOOL_GREP_FAILED` (rg exit 2, e.g. a bad regex,
 * with rg's message), `TOOL_TIMEOUT` after `timeoutMs`, `TOOL_ABORTED`.
 * `sideEffect: false`, `idempotent: true`.
 */
export class GrepTool extends Tool<any, GrepArgs> {
  /**
   * @param sandbox - The sandbox whose root and limits apply.
   */
  constructor(sandbox: Sandbox) {
    super(kitDefinition({
      name: 'grep',
      description:
        'Search file contents inside the sandbox with ripgrep. Returns matching lines as `path:line:text` (paths relative to the sandbox root), ' +
        'or an empty string when nothing matches. `pattern` is a regular expression; `path` (default ".") is a directory or file.',
      inputSchema: grepSchema,
      sideEffect: false,
      idempotent: true,
      // rg skips hidden names: a rule about something below a dot-folder cannot be reached by the search.
      roles: { searchRoot: 'path' },
      handler: async (args, _ctx, _meta, call) => (await loadGrepRun()).grepHandler(sandbox, args, call),
    }, { inputJsonSchema: BUILTIN_INPUT_JSON_SCHEMAS.grep }))
  }
}

/**
 * The half of `grep` that runs a call, loaded by the first call:
 * `import 'toolsmith'` then compiles none of it.
 */
const loadGrepRun = onFirstUse(() => import('./grep_run.js'))
