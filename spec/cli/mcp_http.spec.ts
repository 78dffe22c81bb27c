// `toolsmith mcp --http` and `createMcpHttpHandler`: Streamable HTTP served to
// clients of 2026-07-28 and of 2025-11-25, and who may reach it (path, Host,
// Origin, bearer token). Every request goes to 127.0.0.1.
import { type ChildProcess, spawn } from 'node:child_process'
import { request as httpRequest } from 'node:http'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createMcpHttpHandler, createTools, E_INVALID_OPTIONS, MCP_IDEMPOTENCY_KEY_META } from '../../lib/index.js'
import { CLI_COMMAND, runCli } from './support/run_cli.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'

type CallResult = { isError?: boolean; content: { type: string; text?: string }[] }
const text = (result: unknown): string => (result as CallResult).content.map((c) => c.text ?? '').join('')
const TOKEN = 'a-long-enough-test-secret-0123456789'

/** Start `toolsmith mcp --http 127.0.0.1:0 …` and read the URL it announces. */
async function startServer(args: string[], env: Record<string, string> = {}): Promise<{ url: string; child: ChildProcess; stderr: () => string }> {
  const child = spawn(CLI_COMMAND.command, [...CLI_COMMAND.args, 'mcp', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
      const match = /serving MCP on (http:\S+)/.exec(stderr)
      if (match) resolve(match[1]!)
    })
    child.once('exit', (code) => reject(new Error(`toolsmith mcp --http exited with ${code} before listening: ${stderr}`)))
  })
  return { url, child, stderr: () => stderr }
}

function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode)
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code))
    child.kill('SIGTERM')
  })
}

/** A raw request with headers `fetch` would not let us set (Host). */
function rawPost(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let data = ''
      res.setEncoding('utf8').on('data', (chunk) => (data += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
})

describe('toolsmith mcp --http', () => {
  let root: string
  let server: Awaited<ReturnType<typeof startServer>>

  beforeAll(async () => {
    root = join(trackedMkdtemp(join(tmpdir(), 'toolsmith-mcp-http-')), 'root')
    mkdirSync(root)
    writeFileSync(join(root, 'notes.txt'), 'alpha\nbeta\n')
    server = await startServer(['--root', root, '--http', '127.0.0.1:0'])
  }, 60_000)

  afterAll(async () => {
    if (server) expect(await stop(server.child)).toBe(0)
  })

  const clients = [
    ['the v2 client on 2026-07-28', () => new Client({ name: 'modern', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } }), 'modern'],
    ['the v2 client on 2025-11-25', () => new Client({ name: 'legacy', version: '1' }), 'legacy'],
  ] as const

  it.each(clients)('%s lists the five tools and calls them', async (_label, make, era) => {
    const client = make()
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)))
    try {
      expect(client.getProtocolEra()).toBe(era)
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name).sort()).toEqual(['bash', 'edit', 'grep', 'read', 'write'])
      const file = `${era}.txt`
      expect(text(await client.callTool({ name: 'write', arguments: { path: file, content: `${era}\n` } }))).toMatch(/ok|wrote/i)
      expect(readFileSync(join(root, file), 'utf8')).toBe(`${era}\n`)
      expect(text(await client.callTool({ name: 'read', arguments: { path: file } }))).toBe(`${era}\n`)
      const denied = (await client.callTool({ name: 'read', arguments: { path: '../outside' } })) as CallResult
      expect(denied.isError).toBe(true)
    } finally {
      await client.close()
    }
  }, 60_000)

  it('the v1 client (2025-11-25) lists and calls over HTTP', async () => {
    const client = new V1Client({ name: 'v1', version: '1' })
    await client.connect(new V1Transport(new URL(server.url)))
    try {
      expect((await client.listTools()).tools).toHaveLength(5)
      expect(text(await client.callTool({ name: 'bash', arguments: { cmd: 'cat', args: ['notes.txt'] } }))).toContain('alpha')
    } finally {
      await client.close()
    }
  }, 60_000)

  it('refuses a browser Origin that is not localhost with 403, and serves localhost origins', async () => {
    const refused = await rawPost(server.url, { origin: 'https://evil.example' }, INITIALIZE)
    expect(refused.status).toBe(403)
    const allowed = await rawPost(server.url, { origin: 'http://localhost:3000' }, INITIALIZE)
    expect(allowed.status).toBe(200)
    expect(allowed.body).toContain('"protocolVersion"')
  })

  it('refuses a Host header naming another machine (DNS rebinding) with 403', async () => {
    const rebound = await rawPost(server.url, { host: 'attacker.example:80' }, INITIALIZE)
    expect(rebound.status).toBe(403)
  })

  it('answers 404 off the MCP path', async () => {
    const response = await fetch(server.url.replace(/\/mcp$/, '/other'), { method: 'POST', body: INITIALIZE })
    expect(response.status).toBe(404)
  })
})

describe('toolsmith mcp --http with a bearer token', () => {
  let server: Awaited<ReturnType<typeof startServer>> | undefined
  afterEach(async () => {
    if (server) await stop(server.child)
    server = undefined
  })

  it('refuses to bind beyond loopback without TOOLSMITH_MCP_TOKEN (usage error, exit 2)', async () => {
    const run = await runCli(['mcp', '--root', tmpdir(), '--http', '0.0.0.0:0'], { env: { TOOLSMITH_MCP_TOKEN: '' } })
    // An empty variable is no token either.
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/TOOLSMITH_MCP_TOKEN/)
    const unset = { ...process.env } as Record<string, string>
    delete unset.TOOLSMITH_MCP_TOKEN
    const run2 = await runCli(['mcp', '--root', tmpdir(), '--http', '0.0.0.0:0'], { env: unset })
    expect(run2.code).toBe(2)
    expect(run2.stderr).toMatch(/reachable beyond this machine: set TOOLSMITH_MCP_TOKEN/)
  }, 60_000)

  it('with the token set, a request without it gets 401 and a client sending it is served', async () => {
    server = await startServer(['--root', tmpdir(), '--http', '127.0.0.1:0'], { TOOLSMITH_MCP_TOKEN: TOKEN })
    const anonymous = await rawPost(server.url, {}, INITIALIZE)
    expect(anonymous.status).toBe(401)
    const wrong = await rawPost(server.url, { authorization: `Bearer ${TOKEN}x` }, INITIALIZE)
    expect(wrong.status).toBe(401)
    const client = new Client({ name: 'authed', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }))
    expect((await client.listTools()).tools).toHaveLength(5)
    await client.close()
  }, 60_000)

  it('bound on 0.0.0.0 with a token, it is served on 127.0.0.1 to a client with the token', async () => {
    server = await startServer(['--root', tmpdir(), '--http', '0.0.0.0:0'], { TOOLSMITH_MCP_TOKEN: TOKEN })
    const url = server.url.replace('0.0.0.0', '127.0.0.1')
    expect((await rawPost(url, {}, INITIALIZE)).status).toBe(401)
    expect((await rawPost(url, { authorization: `Bearer ${TOKEN}` }, INITIALIZE)).status).toBe(200)
  }, 60_000)

  it('rejects a bad --http value as a usage error', async () => {
    const run = await runCli(['mcp', '--http', 'not-a-port'])
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/--http takes \[HOST:\]PORT/)
  }, 30_000)
})

describe('createMcpHttpHandler (library, web-standard fetch)', () => {
  it('serves keyed calls once on a JSONL journal: the repeat replays the recorded result', async () => {
    const dir = trackedMkdtemp(join(tmpdir(), 'toolsmith-mcp-http-lib-'))
    const root = join(dir, 'root')
    mkdirSync(root)
    writeFileSync(join(root, 'log.txt'), 'log\n')
    const { JsonlJournal } = await import('../../lib/index.js')
    const journal = new JsonlJournal(join(dir, 'journal.jsonl'))
    const handler = createMcpHttpHandler(Object.values(createTools({ rootDir: root, isolation: { filesystem: false } })), {
      name: 'lib',
      version: '1.0.0',
      journal,
    })
    const client = new Client({ name: 'lib', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    // The handler's fetch, in process: no socket at all.
    await client.connect(new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), { fetch: (input, init) => handler.fetch(new Request(input, init)) }))
    const call = { name: 'edit', arguments: { path: 'log.txt', patch: '@@ -1 +1,2 @@\n log\n+ran\n' }, _meta: { [MCP_IDEMPOTENCY_KEY_META]: 'http-once' } }
    const first = await client.callTool(call)
    const second = await client.callTool(call)
    expect(text(second)).toBe(text(first))
    expect(readFileSync(join(root, 'log.txt'), 'utf8')).toBe('log\nran\n')
    await client.close()
    await handler.close()
  }, 60_000)

  it('checks its options', () => {
    expect(() => createMcpHttpHandler([], { name: 'x', version: '1', bearerToken: 'short' })).toThrow(E_INVALID_OPTIONS)
    expect(() => createMcpHttpHandler([], { name: 'x', version: '1', path: 'mcp' })).toThrow(/path must be a string starting with "\/"/)
  })
})
