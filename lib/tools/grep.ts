/**
 * `grep`: search files inside the sandbox with the ripgrep binary shipped by
 * `@vscode/ripgrep` (no `rg` on `PATH` needed).
 *
 * @module
 */
import { E_TOOL_FILE_NOT_FOUND, E_TOOL_GREP_FAILED } from '../exceptions.js'
import { Tool } from '../core/tool.js'
import { validator, type ObjectSchema } from '../validation.js'
import { buildSandboxEnv } from '../sandbox/environment.js'
import { resolveInRoot } from '../sandbox/paths.js'
import { runBounded } from '../sandbox/process.js'
import type { Sandbox } from '../sandbox/sandbox.js'

/** Arguments of `grep`. */
export interface GrepArgs {
  /** A ripgrep (Rust) regular expression; a leading `-` is searched as text. */
  pattern: string
  /**
   * Directory or file to search, relative to the sandbox root.
   *
   * @defaultValue '.'
   */
  path?: string
}

const grepSchema: ObjectSchema<GrepArgs> = validator.object<GrepArgs>({
  pattern: validator
    .string()
    .allow('')
    .max(8192)
    .pattern(/^[^\0]*$/, 'no NUL bytes')
    .required()
    .description('Regular expression (ripgrep / Rust syntax) to search for'),
  path: validator.string().allow('').default('.').description('Directory or file to search, relative to the sandbox root'),
})

let rgPathPromise: Promise<string> | undefined

/** Loaded on first use: importing `@vscode/ripgrep` resolves the platform binary. */
async function ripgrepPath(): Promise<string> {
  rgPathPromise ??= import('@vscode/ripgrep').then((module) => module.rgPath)
  return await rgPathPromise
}

/**
 * The exact argument list `grep` passes to ripgrep.
 *
 * @param pattern - The regular expression.
 * @param target - The path to search, relative to the root.
 * @returns `--no-config -n -H --no-heading -e PATTERN -- PATH`.
 * @internal
 */
export function ripgrepArgs(pattern: string, target: string): string[] {
  return ['--no-config', '-n', '-H', '--no-heading', '-e', pattern, '--', target]
}

/**
 * The built-in `grep` tool: `file:line:text` lines for every match, `""`
 * when there is none.
 *
 * @remarks
 * Runs the bundled `rg` with exactly `--no-config -n -H --no-heading -e
 * PATTERN -- PATH` in the sandbox root, so printed paths are relative to the
 * root (`src/a.ts:3:…`). Symlinks are not followed (`-L` is never passed,
 * nor `--pre`); `.gitignore`, `.ignore` and hidden-file rules apply as in
 * ripgrep. Output over `maxOutputBytes` is cut at a line end with a
 * `[… N bytes truncated …]` marker. Errors: `TOOL_FILE_NOT_FOUND` (missing
 * path), `TOOL_PATH_ESCAPE`, `TOOL_GREP_FAILED` (rg exit 2, e.g. a bad regex,
 * with rg's message), `TOOL_TIMEOUT` after `timeoutMs`, `TOOL_ABORTED`.
 * `sideEffect: false`, `idempotent: true`.
 */
export class GrepTool extends Tool<any, GrepArgs> {
  /**
   * @param sandbox - The sandbox whose root and limits apply.
   */
  constructor(sandbox: Sandbox) {
    super({
      name: 'grep',
      description:
        'Search file contents inside the sandbox with ripgrep. Returns matching lines as `path:line:text` (paths relative to the sandbox root), ' +
        'or an empty string when nothing matches. `pattern` is a regular expression; `path` (default ".") is a directory or file.',
      inputSchema: grepSchema,
      sideEffect: false,
      idempotent: true,
      handler: async ({ pattern, path = '.' }, _ctx, _meta, call) => {
        const resolved = await resolveInRoot(sandbox, path)
        if (resolved.stats === undefined) {
          throw new E_TOOL_FILE_NOT_FOUND(`${JSON.stringify(path)} does not exist; give a directory or file inside the sandbox root`, {
            details: { path },
          })
        }
        const result = await runBounded({
          file: await ripgrepPath(),
          args: ripgrepArgs(pattern, resolved.relative),
          cwd: resolved.root,
          env: buildSandboxEnv(process.env, sandbox.env),
          maxOutputBytes: sandbox.maxOutputBytes,
          timeoutMs: sandbox.timeoutMs,
          signal: call.signal,
          mergeStderr: false,
          mode: 'head',
          label: 'grep',
        })
        if (result.exitCode === 1 && result.outputBytes === 0) return ''
        if (result.exitCode !== 0) {
          const message = result.stderr.trim() || `rg exited with code ${result.exitCode ?? result.signal}`
          throw new E_TOOL_GREP_FAILED(`grep failed: ${message}`, {
            details: { exitCode: result.exitCode, signal: result.signal, output: result.output, stderr: result.stderr },
          })
        }
        // Searching "." makes rg print "./src/a.ts"; drop the "./" so paths read as root-relative.
        return resolved.relative === '.' ? result.output.replace(/^\.\//gm, '') : result.output
      },
    })
  }
}
