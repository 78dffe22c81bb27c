// Every MCP revision toolsmith serves, with real clients of each: the v2 TypeScript
// client on 2026-07-28 (pinned, and by `auto` negotiation) and on 2025-11-25, the v1
// client on 2025-11-25 and 2025-06-18, and the Python `mcp` client on 2026-07-28
// (pinned, and in its default `auto` mode) and 2025-11-25. Each lists the five tools
// and calls every one of them against `toolsmith mcp` over stdio and over Streamable
// HTTP, and the files on disk show the calls ran.
import { type ChildProcess, execFile, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpTransportV2 } from '@modelcontextprotocol/client'
import { StdioClientTransport as StdioTransportV2 } from '@modelcontextprotocol/client/stdio'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport as StdioTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport as HttpTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport as TransportV1, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { trackedMkdtemp } from '../support/temp_dirs.js'
import { startHttp, stopHttp } from './support/mcp_http_cli.js'
import { CLI_COMMAND } from './support/run_cli.js'

const FIVE = ['bash', 'edit', 'grep', 'read', 'write']
const PYTHON = resolve('.cache/py-mcp/bin/python')
const PYTHON_SETUP = 'bash scripts/ci/python_mcp.sh'
const PYTHON_CLIENT = resolve('spec/cli/fixtures/mcp_python_client.py')

/** Where a client reaches the server: the command to spawn (stdio) or the URL (HTTP). */
type Target = { kind: 'stdio'; args: string[] } | { kind: 'http'; url: string }

/** What a client did: the revision it ended on, the tools it listed, each call's text. */
interface Outcome {
  revision: string | undefined
  tools: string[]
  results: Record<string, { isError: boolean; text: string }>
}

/** The five calls, in `dir` under the server's root; the same ones the Python fixture makes. */
function calls(dir: string): [string, Record<string, unknown>][] {
  const file = `${dir}/f.txt`
  return [
    ['write', { path: file, content: 'one\ntwo\n' }],
    ['read', { path: file }],
    ['edit', { path: file, patch: `--- a/${file}\n+++ b/${file}\n@@ -1,2 +1,2 @@\n one\n-two\n+deux\n` }],
    ['grep', { pattern: 'deux', path: dir }],
    ['bash', { cmd: 'cat', args: [file] }],
  ]
}

type CallTool = (name: string, args: Record<string, unknown>) => Promise<unknown>

async function callAll(dir: string, callTool: CallTool): Promise<Outcome['results']> {
  const results: Outcome['results'] = {}
  for (const [name, args] of calls(dir)) {
    const result = (await callTool(name, args)) as { isError?: boolean; content: { type: string; text?: string }[] }
    results[name] = { isError: result.isError === true, text: result.content.map((block) => block.text ?? '').join('') }
  }
  return results
}

/** The v2 client: pinned to 2026-07-28, in `auto` mode (`server/discover` first), or in its default (the 2025-11-25 handshake). */
async function v2Client(target: Target, dir: string, mode: 'pin' | 'auto' | 'default'): Promise<Outcome> {
  const modern = mode !== 'default'
  const negotiation = mode === 'pin' ? { mode: { pin: '2026-07-28' } } : { mode: 'auto' as const }
  const client = new ClientV2({ name: 'eras-v2', version: '1.0.0' }, modern ? { versionNegotiation: negotiation } : {})
  const transport =
    target.kind === 'stdio'
      ? new StdioTransportV2({ command: CLI_COMMAND.command, args: target.args, stderr: 'ignore' })
      : new HttpTransportV2(new URL(target.url))
  await client.connect(transport)
  try {
    expect(client.getProtocolEra()).toBe(modern ? 'modern' : 'legacy')
    const { tools } = await client.listTools()
    const results = await callAll(dir, (name, args) => client.callTool({ name, arguments: args }))
    return { revision: client.getNegotiatedProtocolVersion(), tools: tools.map((t) => t.name), results }
  } finally {
    await client.close()
  }
}

/**
 * A v1 client transport that can ask for another revision in `initialize`
 * (the v1 `Client` always asks for its latest) and records the revision the
 * server answered with (the v1 `Client` does not expose it).
 */
class AskingTransport implements TransportV1 {
  revision: string | undefined
  onmessage?: TransportV1['onmessage']
  onclose?: () => void
  onerror?: (error: Error) => void

  constructor(
    private readonly inner: TransportV1,
    private readonly ask: string | undefined,
  ) {}

  get sessionId(): string | undefined {
    return this.inner.sessionId
  }

  async start(): Promise<void> {
    this.inner.onmessage = (message, extra) => {
      const result = (message as { result?: { protocolVersion?: unknown } }).result
      if (typeof result?.protocolVersion === 'string') this.revision = result.protocolVersion
      this.onmessage?.(message, extra)
    }
    this.inner.onclose = () => this.onclose?.()
    this.inner.onerror = (error) => this.onerror?.(error)
    await this.inner.start()
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const asked =
      this.ask !== undefined && 'method' in message && message.method === 'initialize'
        ? { ...message, params: { ...message.params, protocolVersion: this.ask } }
        : message
    return this.inner.send(asked as JSONRPCMessage, options)
  }

  close(): Promise<void> {
    return this.inner.close()
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version)
  }
}

/** The v1 client (`@modelcontextprotocol/sdk`), on its latest revision or asking for `ask`. */
async function v1Client(target: Target, dir: string, ask?: string): Promise<Outcome> {
  const client = new ClientV1({ name: 'eras-v1', version: '1.0.0' })
  const inner =
    target.kind === 'stdio'
      ? new StdioTransportV1({ command: CLI_COMMAND.command, args: target.args, stderr: 'ignore' })
      : new HttpTransportV1(new URL(target.url))
  const transport = new AskingTransport(inner, ask)
  await client.connect(transport)
  try {
    const { tools } = await client.listTools()
    const results = await callAll(dir, (name, args) => client.callTool({ name, arguments: args }))
    return { revision: transport.revision, tools: tools.map((t) => t.name), results }
  } finally {
    await client.close()
  }
}

/** The Python `mcp` client (spec/cli/fixtures/mcp_python_client.py), `mode` "legacy" or "2026-07-28". */
async function pythonClient(target: Target, dir: string, mode: string): Promise<Outcome> {
  const where = target.kind === 'stdio' ? JSON.stringify([CLI_COMMAND.command, ...target.args]) : target.url
  const { stdout } = await promisify(execFile)(PYTHON, [PYTHON_CLIENT, mode, where, dir], { timeout: 120_000 })
  const printed = JSON.parse(stdout) as { protocolVersion: string; tools: string[]; results: Outcome['results'] }
  return { revision: printed.protocolVersion, tools: printed.tools, results: printed.results }
}

const CLIENTS: { name: string; revision: string; run: (target: Target, dir: string) => Promise<Outcome> }[] = [
  { name: 'v2 client pinned to 2026-07-28', revision: '2026-07-28', run: (t, d) => v2Client(t, d, 'pin') },
  { name: "v2 client in 'auto' negotiation", revision: '2026-07-28', run: (t, d) => v2Client(t, d, 'auto') },
  { name: 'v2 client, default (legacy) negotiation', revision: '2025-11-25', run: (t, d) => v2Client(t, d, 'default') },
  { name: 'v1 client', revision: '2025-11-25', run: (t, d) => v1Client(t, d) },
  { name: 'v1 client asking for 2025-06-18', revision: '2025-06-18', run: (t, d) => v1Client(t, d, '2025-06-18') },
  { name: 'Python mcp client on 2026-07-28', revision: '2026-07-28', run: (t, d) => pythonClient(t, d, '2026-07-28') },
  { name: "Python mcp client in 'auto' mode (its default)", revision: '2026-07-28', run: (t, d) => pythonClient(t, d, 'auto') },
  { name: 'Python mcp client, legacy mode', revision: '2025-11-25', run: (t, d) => pythonClient(t, d, 'legacy') },
]

/** Each client lists the five tools and calls all five, in its own folder: the file shows each call ran. */
async function expectEveryTool(root: string, target: Target, client: (typeof CLIENTS)[number], dir: string): Promise<void> {
  mkdirSync(join(root, dir), { recursive: true })
  const outcome = await client.run(target, dir)
  expect(outcome.revision).toBe(client.revision)
  expect([...outcome.tools].sort()).toEqual(FIVE)
  expect(outcome.results).toEqual({
    write: { isError: false, text: 'ok' },
    read: { isError: false, text: 'one\ntwo\n' },
    edit: { isError: false, text: 'ok' },
    grep: { isError: false, text: `${dir}/f.txt:2:deux\n` },
    bash: { isError: false, text: 'one\ndeux\n' },
  })
  expect(readFileSync(join(root, dir, 'f.txt'), 'utf8')).toBe('one\ndeux\n')
}

beforeAll(() => {
  // The Python client lives in a venv the CI script makes; make it here too when it is missing.
  if (existsSync(PYTHON)) return
  const made = spawnSync('bash', ['scripts/ci/python_mcp.sh'], { encoding: 'utf8', timeout: 280_000 })
  if (made.status !== 0 || !existsSync(PYTHON)) {
    throw new Error(`The Python mcp client is missing (${PYTHON}) and \`${PYTHON_SETUP}\` could not make it:\n${made.stderr}`)
  }
}, 300_000)

describe('toolsmith mcp over stdio: every client lists and calls the five tools on its revision', () => {
  let root: string
  beforeAll(() => {
    root = realpathSync(trackedMkdtemp(join(tmpdir(), 'toolsmith-eras-stdio-')))
  })

  for (const [index, client] of CLIENTS.entries()) {
    it(client.name, async () => {
      const target: Target = { kind: 'stdio', args: [...CLI_COMMAND.args, 'mcp', '--root', root, '--timeout-ms', '30000'] }
      await expectEveryTool(root, target, client, `c${index}`)
    })
  }
})

describe('toolsmith mcp --http: every client lists and calls the five tools on its revision', () => {
  let root: string
  let server: { url: string; child: ChildProcess }
  beforeAll(async () => {
    root = realpathSync(trackedMkdtemp(join(tmpdir(), 'toolsmith-eras-http-')))
    server = await startHttp(['--root', root, '--timeout-ms', '30000'])
  })
  afterAll(async () => {
    await stopHttp(server?.child)
  })

  for (const [index, client] of CLIENTS.entries()) {
    it(client.name, async () => {
      await expectEveryTool(root, { kind: 'http', url: server.url }, client, `c${index}`)
    })
  }
})
