/**
 * `toolsmith call bash` prints the command's output as it arrives: with
 * `--stream` (any stdout) and on a terminal (a real pty through util-linux
 * `script`). Each command prints a line, then waits for a file the spec
 * creates only after it has read that line: the line cannot have come from
 * the finished call's result. No timing is asserted.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { trackedMkdtemp } from '../support/temp_dirs.js'
import { CLI_COMMAND, runCli } from './support/run_cli.js'

/** Prints "start", waits for `go` in the root, prints "end". Bounded by --timeout-ms if `go` never comes. */
const WAITS_FOR_GO = JSON.stringify({ cmd: 'sh', args: ['-c', 'echo start; while [ ! -e go ]; do sleep 0.05; done; echo end'] })

interface Watched {
  child: ChildProcessWithoutNullStreams
  /** Everything read from stdout so far. */
  stdout(): string
  /** Resolves when stdout contains `text`, or rejects when the process ends first. */
  seen(text: string): Promise<void>
  /** Resolves with the exit code. */
  exited: Promise<number | null>
}

function watch(command: string, args: string[], cwd?: string): Watched {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], cwd })
  let out = ''
  let stderr = ''
  const waiters: Array<() => void> = []
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk
    for (const check of waiters.splice(0)) check()
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
  return {
    child,
    stdout: () => out,
    seen: (text) =>
      new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (out.includes(text)) resolve()
          else waiters.push(check)
        }
        check()
        void exited.then(() => reject(new Error(`ended before printing ${JSON.stringify(text)}; stdout: ${JSON.stringify(out)}; stderr: ${JSON.stringify(stderr)}`)))
      }),
    exited,
  }
}

function tempRoot(): string {
  return realpathSync(trackedMkdtemp(join(tmpdir(), 'toolsmith-stream-')))
}

describe('toolsmith call bash: live output', () => {
  it('--stream prints the first line while the command still runs, then the rest, exit 0', async () => {
    const root = tempRoot()
    const run = watch(CLI_COMMAND.command, [...CLI_COMMAND.args, 'call', 'bash', WAITS_FOR_GO, '--root', root, '--stream', '--timeout-ms', '60000'])
    run.child.stdin.end()
    await run.seen('start\n')
    // Only now may the command end: "start" arrived before it did.
    writeFileSync(join(root, 'go'), '')
    expect(await run.exited).toBe(0)
    // Printed once: the streamed text is not repeated when the result comes.
    expect(run.stdout()).toBe('start\nend\n')
  }, 120_000)

  it('on a terminal (a pty through `script`) the output streams without --stream', async () => {
    if (spawnSync('script', ['--version']).status !== 0) throw new Error('util-linux `script` is needed for this spec')
    const root = tempRoot()
    const line = [CLI_COMMAND.command, ...CLI_COMMAND.args, 'call', 'bash', WAITS_FOR_GO, '--root', root, '--timeout-ms', '60000']
    const quoted = line.map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(' ')
    // -q: no banner; -f: flush as output comes; -e: exit with the command's code; the log goes nowhere.
    const run = watch('script', ['-qfec', quoted, '/dev/null'])
    await run.seen('start')
    writeFileSync(join(root, 'go'), '')
    expect(await run.exited).toBe(0)
    // The pty turns "\n" into "\r\n".
    expect(run.stdout().replaceAll('\r\n', '\n')).toBe('start\nend\n')
  }, 120_000)

  it("a failed command's streamed output is not printed twice; the kit's note still follows it", async () => {
    const root = tempRoot()
    const failed = await runCli(['call', 'bash', JSON.stringify({ cmd: 'sh', args: ['-c', 'echo compiling; exit 3'] }), '--root', root, '--stream'])
    expect(failed.code).toBe(1)
    expect(failed.stdout).toBe('compiling\n')
    expect(failed.stderr).toMatch(/^TOOL_COMMAND_FAILED: `sh` exited with code 3\./m)
    const noted = await runCli(['call', 'bash', JSON.stringify({ cmd: 'sh', args: ['-c', 'echo made; mkdir .git'] }), '--root', root, '--stream'])
    expect(noted.code).toBe(0)
    expect(noted.stdout).toMatch(/^made\n\[toolsmith\] This command created \.git .*\n$/)
  }, 120_000)

  it('shows the whole output, beyond --max-output-bytes (which cuts only the result), and the note after it', async () => {
    const root = tempRoot()
    const run = await runCli(['call', 'bash', JSON.stringify({ cmd: 'sh', args: ['-c', 'seq 1 3000; mkdir .git'] }), '--root', root, '--stream', '--max-output-bytes', '1000'])
    expect(run.code).toBe(0)
    const lines = run.stdout.split('\n')
    expect(lines.slice(0, 3000)).toEqual(Array.from({ length: 3000 }, (_, i) => String(i + 1)))
    expect(lines[3000]).toMatch(/^\[toolsmith\] This command created \.git /)
    expect(lines.slice(3001)).toEqual([''])
  }, 120_000)

  it('--stream and --json exclude each other (exit 2, as JSON)', async () => {
    const run = await runCli(['call', 'bash', '{"cmd":"true"}', '--root', tempRoot(), '--stream', '--json'])
    expect(run.code).toBe(2)
    expect(JSON.parse(run.stdout)).toEqual({
      ok: false,
      error: { code: 'E_CLI_USAGE', message: expect.stringContaining('--stream and --json exclude each other') },
      exitCode: 2,
    })
  }, 60_000)
})
