// A file argument that is not a regular file (a FIFO, a socket, a device, a
// directory) is refused at once: one line on stderr, exit 2. Reading a FIFO
// waits for a writer forever, so every run here has a deadline: a hang is a
// failure (exit code null, killed), not a blocked test run.
import { execFileSync, spawn } from 'node:child_process'
import { constants, closeSync, openSync, realpathSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { E_INVALID_POLICY, loadPermissionPolicy } from '../../lib/index.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'
import { CLI_COMMAND, type CliRun, errorLines } from './support/run_cli.js'

/** Long enough for a slow start on a busy machine; a hang goes on far longer. */
const DEADLINE_MS = 60_000

let dir: string
let fifo: string
let socketPath: string
let server: Server

beforeAll(async () => {
  dir = realpathSync(trackedMkdtemp(join(tmpdir(), 'toolsmith-cli-nonregular-')))
  fifo = join(dir, 'fifo')
  execFileSync('mkfifo', [fifo])
  socketPath = join(dir, 'socket')
  server = createServer()
  await new Promise<void>((resolve) => server.listen(socketPath, resolve))
})

afterAll(async () => {
  // A reader still blocked on the FIFO (the old behaviour) is released: a
  // non-blocking open for writing succeeds only while someone reads.
  try {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK))
  } catch {
    // ENXIO: nobody is reading, as it should be.
  }
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

/** Run the CLI, killed after {@link DEADLINE_MS} (then `code` is null). */
function runWithDeadline(args: string[]): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(CLI_COMMAND.command, [...CLI_COMMAND.args, ...args], { stdio: ['pipe', 'pipe', 'pipe'], timeout: DEADLINE_MS, killSignal: 'SIGKILL' })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
    child.stdin.end('')
  })
}

/** Non-empty stderr lines, without Node's process warnings. */
const files = (): Record<string, [string, string]> => ({
  FIFO: [fifo, 'a FIFO (named pipe)'],
  socket: [socketPath, 'a socket'],
  device: ['/dev/zero', 'a character device'],
})

describe.concurrent('toolsmith refuses a file argument that is not a regular file (exit 2, one line, no hang)', () => {
  const cases: [string, string, (file: string) => string[], (file: string, what: string) => string][] = []
  for (const kind of ['FIFO', 'socket', 'device']) {
    cases.push(
      [kind, 'call --policy', (file) => ['call', 'read', '{"path":"x"}', '--policy', file, '--root', dir], (file, what) => `Permission policy ${file} is ${what}, not a regular file`],
      [kind, 'mcp --policy', (file) => ['mcp', '--policy', file, '--root', dir], (file, what) => `Permission policy ${file} is ${what}, not a regular file`],
      [kind, 'journal audit --jsonl', (file) => ['journal', 'audit', '--jsonl', file], (file, what) => `${file} is ${what}, not a JSONL journal`],
      [kind, 'journal audit --sqlite', (file) => ['journal', 'audit', '--sqlite', file], (file, what) => `${file} is ${what}, not a SQLite journal`],
      [kind, 'journal show --jsonl', (file) => ['journal', 'show', '--jsonl', file], (file, what) => `${file} is ${what}, not a JSONL journal`],
      [kind, 'demo --policy', (file) => ['demo', '--policy', file], (file, what) => `Permission policy ${file} is ${what}, not a regular file`],
    )
  }

  it.each(cases)('%s: %s', async (kind, _command, args, message) => {
    const [file, what] = files()[kind]!
    const run = await runWithDeadline(args(file))
    expect(run.code).toBe(2)
    expect(run.stdout).toBe('')
    expect(errorLines(run.stderr)).toEqual([expect.stringContaining(message(file, what))])
  }, DEADLINE_MS + 30_000)
})

describe('loadPermissionPolicy refuses a file that is not a regular file', () => {
  it.each(['FIFO', 'socket', 'device'])('%s: E_INVALID_POLICY, at once', async (kind) => {
    const [file, what] = files()[kind]!
    let timer: NodeJS.Timeout | undefined
    const hung = new Promise((resolve) => (timer = setTimeout(() => resolve('still waiting'), DEADLINE_MS)))
    const error = await Promise.race([loadPermissionPolicy(file).catch((e: unknown) => e), hung])
    clearTimeout(timer)
    expect(error).toBeInstanceOf(E_INVALID_POLICY)
    expect((error as Error).message).toBe(`Permission policy ${file} is ${what}, not a regular file`)
  }, DEADLINE_MS + 30_000)

  it('a directory: E_INVALID_POLICY naming what it is', async () => {
    const error = await loadPermissionPolicy(dir).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'E_INVALID_POLICY', message: `Permission policy ${dir} is a directory, not a regular file` })
  })
})
