// Ctrl-C (SIGINT) ends every command with exit code 130, after the command
// cleaned up: the sandboxed bash command and its process group are killed,
// and the journal's row is finished. Real processes, real signals.
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { trackedMkdtemp } from '../support/temp_dirs.js'
import { CLI_COMMAND } from './support/run_cli.js'

function project(): string {
  return fs.realpathSync(trackedMkdtemp(path.join(os.tmpdir(), 'toolsmith-cli-interrupt-')))
}

/** PIDs of the `sleep SECONDS` processes running on the host (argv exactly that). */
function sleepers(seconds: string): number[] {
  const found: number[] = []
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    let argv: string[]
    try {
      argv = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean)
    } catch {
      continue // gone meanwhile
    }
    if (argv.length === 2 && path.basename(argv[0]!) === 'sleep' && argv[1] === seconds) found.push(Number(entry))
  }
  return found
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

function start(args: string[]): { child: ChildProcess; exited: Promise<{ code: number | null; signal: string | null }>; output: () => { stdout: string; stderr: string } } {
  const child = spawn(CLI_COMMAND.command, [...CLI_COMMAND.args, ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))
  onTestFinished(() => void child.kill('SIGKILL'))
  return { child, exited, output: () => ({ stdout, stderr }) }
}

// A duration no other test uses, so the sleep found is this test's.
let unique = 0
function marker(): string {
  unique++
  return `${600 + unique}.${process.pid % 1000}`
}

describe('toolsmith call: Ctrl-C', () => {
  it('kills the running bash command, finishes the journal row, and exits 130', async () => {
    const root = project()
    const seconds = marker()
    const journal = path.join(root, 'calls.jsonl')
    const run = start(['call', 'bash', JSON.stringify({ cmd: 'sleep', args: [seconds] }), '--root', root, '--journal', journal])
    await until('the sleep to start', () => (sleepers(seconds).length > 0 ? true : undefined))
    run.child.kill('SIGINT')
    expect(await run.exited).toEqual({ code: 130, signal: null })
    await until('the sleep to be gone', () => (sleepers(seconds).length === 0 ? true : undefined), 10_000)
    expect(run.output().stderr).toMatch(/TOOL_ABORTED: /)
    // The journal is consistent: the call's row is finished, as an error.
    const rows = fs
      .readFileSync(journal, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { toolName: string; status: string; finishedAtMs: number | null })
    expect(rows.at(-1)).toMatchObject({ toolName: 'bash', status: 'error', finishedAtMs: expect.any(Number) })
  }, 120_000)
})

describe('toolsmith mcp: Ctrl-C', () => {
  it('aborts a running bash call, kills the command, and exits 130', async () => {
    const root = project()
    const seconds = marker()
    const run = start(['mcp', '--root', root])
    const send = (message: object): void => void run.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`)
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'interrupt', version: '1' } } })
    await until('the initialize answer', () => (run.output().stdout.includes('"id":1') ? true : undefined))
    send({ method: 'notifications/initialized' })
    send({ id: 2, method: 'tools/call', params: { name: 'bash', arguments: { cmd: 'sleep', args: [seconds] } } })
    await until('the sleep to start', () => (sleepers(seconds).length > 0 ? true : undefined))
    run.child.kill('SIGINT')
    expect(await run.exited).toEqual({ code: 130, signal: null })
    await until('the sleep to be gone', () => (sleepers(seconds).length === 0 ? true : undefined), 10_000)
  }, 120_000)

  it('an idle server exits 130 too', async () => {
    const run = start(['mcp', '--root', project()])
    const send = (message: object): void => void run.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`)
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'interrupt', version: '1' } } })
    await until('the initialize answer', () => (run.output().stdout.includes('"id":1') ? true : undefined))
    run.child.kill('SIGINT')
    expect(await run.exited).toEqual({ code: 130, signal: null })
  }, 60_000)
})

describe('toolsmith mcp --http: Ctrl-C', () => {
  it('stops serving and exits 130', async () => {
    const run = start(['mcp', '--http', '127.0.0.1:0', '--root', project()])
    await until('the serving line', () => (run.output().stderr.includes('serving MCP on http://') ? true : undefined))
    run.child.kill('SIGINT')
    expect(await run.exited).toEqual({ code: 130, signal: null })
  }, 60_000)
})

describe('a command without a stop of its own: Ctrl-C', () => {
  it('journal migrate waiting on a silent server exits 130 (not killed by the signal)', async () => {
    // A "database" that accepts the connection and never answers: migrate waits.
    const sockets: net.Socket[] = []
    const server = net.createServer((socket) => void sockets.push(socket))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    onTestFinished(() => {
      for (const socket of sockets) socket.destroy()
      server.close()
    })
    const { port } = server.address() as net.AddressInfo
    const run = start(['journal', 'migrate', '--postgres', `postgres://spec:secret@127.0.0.1:${port}/db`])
    await until('the connection', () => (sockets.length > 0 ? true : undefined))
    run.child.kill('SIGINT')
    expect(await run.exited).toEqual({ code: 130, signal: null })
  }, 60_000)
})
