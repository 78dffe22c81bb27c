// The CLI loads a command's modules only when that command runs: start-up is
// most of what an MCP client waits for from `toolsmith mcp`, and `--version`
// or `--help` need none of the kit. Observed with a module resolve hook
// (every file URL the program resolves is written to a file), not timed.
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { trackedMkdtemp } from '../support/temp_dirs.js'
import { CLI_COMMAND } from './support/run_cli.js'

const DEPENDENCIES = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> }).dependencies

/** The repository files (relative to the root) and packages one run of the CLI resolves. */
function resolvedBy(args: string[]): { code: number | null; stderr: string; files: string[]; packages: string[] } {
  const dir = trackedMkdtemp(join(tmpdir(), 'toolsmith-lazy-'))
  const log = join(dir, 'resolved.txt')
  writeFileSync(log, '')
  const hooks = `import { appendFileSync } from 'node:fs'
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context)
  if (result.url.startsWith('file:')) appendFileSync(${JSON.stringify(log)}, result.url + '\\n')
  return result
}`
  const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)})`
  const result = spawnSync(CLI_COMMAND.command, ['--import', `data:text/javascript,${encodeURIComponent(register)}`, ...CLI_COMMAND.args, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
    input: '',
    timeout: 120_000,
  })
  const urls = readFileSync(log, 'utf8').split('\n').filter(Boolean)
  const root = new URL('../../', import.meta.url).href
  const files = urls.filter((url) => url.startsWith(root) && !url.includes('/node_modules/')).map((url) => url.slice(root.length))
  const packages = urls.flatMap((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? [])
  return { code: result.status, stderr: result.stderr, files: [...new Set(files)], packages: [...new Set(packages)] }
}

describe('toolsmith loads only the command it runs', () => {
  it('--version resolves no command module, no sandbox, no tool and no dependency', () => {
    const run = resolvedBy(['--version'])
    expect(run.code, run.stderr).toBe(0)
    expect(run.files).toContain('lib/cli/main.ts')
    for (const file of ['lib/cli/mcp.ts', 'lib/cli/call.ts', 'lib/cli/demo.ts', 'lib/cli/doctor.ts', 'lib/cli/journal.ts', 'lib/cli/describe.ts', 'lib/sandbox/sandbox.ts', 'lib/tools/index.ts']) {
      expect(run.files, file).not.toContain(file)
    }
    // The kit's dependencies (tsx and its esbuild are the test's loader).
    expect(run.packages.filter((name) => name in DEPENDENCIES)).toEqual([])
  }, 150_000)

  it('`mcp` loads mcp.ts but not the demo, `call`, `doctor` or `diff`', () => {
    const run = resolvedBy(['mcp', '--root', trackedMkdtemp(join(tmpdir(), 'toolsmith-lazy-root-'))])
    // stdin is empty: the server answers nothing and exits 0 once input ends.
    expect(run.code, run.stderr).toBe(0)
    expect(run.files).toContain('lib/cli/mcp.ts')
    for (const file of ['lib/cli/demo.ts', 'lib/cli/demo_model.ts', 'lib/cli/call.ts', 'lib/cli/journal_audit.ts', 'lib/cli/doctor.ts']) {
      expect(run.files, file).not.toContain(file)
    }
    expect(run.packages).not.toContain('diff')
  }, 150_000)
})
