// Colour: on a terminal only, NO_COLOR (non-empty) turns it off, FORCE_COLOR
// forces it (0 forces it off). Real processes, on a pseudo-terminal where
// a terminal is the point (util-linux `script`).
import { spawn, spawnSync } from 'node:child_process'
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { colourOn, paint } from '../../lib/cli/io.js'
import { CLI_COMMAND, runCli } from './support/run_cli.js'

const RED = '\x1b[31m'
const DIM = '\x1b[2m'

/** The environment without any colour setting of the machine running the specs. */
function plainEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env }
  delete env.NO_COLOR
  delete env.FORCE_COLOR
  delete env.TERM
  return { ...env, TERM: 'xterm-256color', ...extra }
}

/** Run the CLI on a pseudo-terminal: stdout and stderr are a terminal, their output comes back together. */
function runOnTerminal(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const command = [CLI_COMMAND.command, ...CLI_COMMAND.args, ...args].map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ')
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'], env })
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, output }))
    child.stdin.end()
  })
}

const hasScript = spawnSync('script', ['--version']).status === 0

describe.runIf(hasScript).concurrent('toolsmith on a terminal', () => {
  it('colours an error red, its hint dim', async () => {
    const run = await runOnTerminal(['jurnal'], plainEnv({}))
    expect(run.code).toBe(2)
    expect(run.output).toContain(`toolsmith: ${RED}Unknown command "jurnal" — did you mean "journal"?`)
    expect(run.output).toContain(`${DIM}(see "toolsmith --help")`)
  })

  it.each([
    [{ NO_COLOR: '1' }, false],
    [{ NO_COLOR: '' }, true], // empty: not set (no-color.org)
    [{ FORCE_COLOR: '0' }, false],
    [{ NO_COLOR: '1', FORCE_COLOR: '1' }, true], // FORCE_COLOR wins, as in Node and chalk
    [{ TERM: 'dumb' }, false],
  ])('%j: colour %s', async (extra, coloured) => {
    const run = await runOnTerminal(['jurnal'], plainEnv(extra))
    expect(run.code).toBe(2)
    expect(run.output).toContain('Unknown command "jurnal"')
    expect(run.output.includes('\x1b[')).toBe(coloured)
  })
})

describe.concurrent('toolsmith not on a terminal', () => {
  it('prints no colour codes', async () => {
    const run = await runCli(['jurnal'], { env: plainEnv({}) as Record<string, string> })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('toolsmith: Unknown command "jurnal"')
    expect(run.stderr).not.toContain('\x1b[')
  })

  it('FORCE_COLOR=1 forces colour into a pipe', async () => {
    const run = await runCli(['jurnal'], { env: plainEnv({ FORCE_COLOR: '1' }) as Record<string, string> })
    expect(run.stderr).toContain(`toolsmith: ${RED}Unknown command "jurnal"`)
  })
})

describe('paint and colourOn', () => {
  const terminal = Object.assign(new PassThrough(), { isTTY: true })
  const pipe = new PassThrough()

  it('colour by tone on a terminal; the text untouched elsewhere', () => {
    const env = { TERM: 'xterm' }
    expect(paint(terminal, 'error', 'bad', env)).toBe('\x1b[31mbad\x1b[39m')
    expect(paint(terminal, 'warning', 'denied', env)).toBe('\x1b[33mdenied\x1b[39m')
    expect(paint(terminal, 'ok', 'ok', env)).toBe('\x1b[32mok\x1b[39m')
    expect(paint(terminal, 'dim', 'hint', env)).toBe('\x1b[2mhint\x1b[22m')
    expect(paint(pipe, 'error', 'bad', env)).toBe('bad')
  })

  it.each([
    [{}, true, false],
    [{ NO_COLOR: 'yes' }, false, false],
    [{ NO_COLOR: '' }, true, false],
    [{ FORCE_COLOR: '' }, true, true],
    [{ FORCE_COLOR: '3' }, true, true],
    [{ FORCE_COLOR: '0' }, false, false],
    [{ FORCE_COLOR: 'false' }, false, false],
    [{ TERM: 'dumb' }, false, false],
  ])('%j: terminal %s, pipe %s', (env, onTerminal, onPipe) => {
    expect(colourOn(terminal, env)).toBe(onTerminal)
    expect(colourOn(pipe, env)).toBe(onPipe)
  })
})
