import { trackedMkdtemp } from '../support/temp_dirs.js'
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLI_COMMAND, runCli } from './support/run_cli.js'

type Answer = { jsonrpc: string; id?: unknown; method?: string; params?: Record<string, unknown>; result?: unknown; error?: { code: number; message: string } }

const MAX = 10 * 2 ** 20

/** `toolsmith mcp` spawned with raw pipes: lines in, lines out, no SDK in between. */
class RawServer {
  readonly child: ChildProcessWithoutNullStreams
  readonly received: Answer[] = []
  #buffer = ''
  #waiters: (() => void)[] = []
  exited: number | null | undefined

  constructor(root: string) {
    this.child = spawn(CLI_COMMAND.command, [...CLI_COMMAND.args, 'mcp', '--root', root, '--timeout-ms', '20000'], { stdio: ['pipe', 'pipe', 'pipe'] })
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.#buffer += chunk
      let end: number
      while ((end = this.#buffer.indexOf('\n')) !== -1) {
        const line = this.#buffer.slice(0, end)
        this.#buffer = this.#buffer.slice(end + 1)
        this.received.push(JSON.parse(line) as Answer)
      }
      for (const wake of this.#waiters.splice(0)) wake()
    })
    this.child.stderr.resume()
    this.child.on('exit', (code) => {
      this.exited = code
      for (const wake of this.#waiters.splice(0)) wake()
    })
  }

  write(line: string): void {
    this.child.stdin.write(`${line}\n`)
  }

  send(message: Record<string, unknown>): void {
    this.write(JSON.stringify({ jsonrpc: '2.0', ...message }))
  }

  /** The first received message matching `match`, waiting (bounded) for it. */
  async next(match: (answer: Answer) => boolean, timeoutMs = 30_000): Promise<Answer> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const index = this.received.findIndex(match)
      if (index !== -1) return this.received.splice(index, 1)[0]!
      if (this.exited !== undefined) throw new Error(`server exited (${this.exited}) before answering`)
      if (Date.now() > deadline) throw new Error(`no answer in ${timeoutMs} ms; received ${JSON.stringify(this.received).slice(0, 500)}`)
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve)
        setTimeout(resolve, 200)
      })
    }
  }

  byId(id: unknown): Promise<Answer> {
    return this.next((a) => a.id === id && a.method === undefined)
  }

  async initialize(): Promise<void> {
    this.send({ id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })
    expect((await this.byId('init')).result).toMatchObject({ serverInfo: { name: 'toolsmith' } })
    this.send({ method: 'notifications/initialized' })
  }

  /** Still serving: a ping is answered. */
  async expectServing(tag: string): Promise<void> {
    this.send({ id: `ping-${tag}`, method: 'ping' })
    expect(await this.byId(`ping-${tag}`)).toEqual({ jsonrpc: '2.0', id: `ping-${tag}`, result: {} })
  }

  close(): void {
    this.child.stdin.end()
  }
}

let root: string
let server: RawServer

beforeAll(async () => {
  root = realpathSync(trackedMkdtemp(join(tmpdir(), 'toolsmith-mcp-raw-')))
  writeFileSync(join(root, 'notes.txt'), 'alpha\nbeta\n')
  server = new RawServer(root)
  await server.initialize()
})

afterAll(() => {
  server?.close()
})

describe('toolsmith mcp over a raw stdio pipe: every malformed line is answered and the server keeps serving', () => {
  it('invalid JSON → -32700 with id null', async () => {
    server.write('{"jsonrpc":"2.0","id":1,"method":"tools/list"')
    const answer = await server.next((a) => a.error?.code === -32700)
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } })
    expect(answer.error!.message).toMatch(/^Parse error: /)
    await server.expectServing('parse')
  })

  it.each([
    ['no "jsonrpc"', '{"id":"j1","method":"tools/list"}', 'j1', /"jsonrpc" must be "2.0", got none/],
    ['"jsonrpc": "1.0"', '{"jsonrpc":"1.0","id":"j2","method":"tools/list"}', 'j2', /"jsonrpc" must be "2.0", got "1.0"/],
    ['a null id', '{"jsonrpc":"2.0","id":null,"method":"tools/list"}', null, /"id" must be a string or an integer/],
    ['an object id', '{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}', null, /"id" must be a string or an integer/],
    ['a fractional id', '{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}', null, /"id" must be a string or an integer/],
    ['[]', '[]', null, /an empty array is not a message/],
    ['a batch', '[{"jsonrpc":"2.0","id":"b1","method":"tools/list"},{"jsonrpc":"2.0","id":"b2","method":"ping"}]', null, /batches are not supported/],
    ['a number', '42', null, /a message is a JSON object, got number/],
    ['a method that is not a string', '{"jsonrpc":"2.0","id":"m1","method":7}', 'm1', /"method" must be a string/],
    ['neither method nor result', '{"jsonrpc":"2.0","id":"n1"}', 'n1', /needs a "method"/],
    ['an unknown member', '{"jsonrpc":"2.0","id":"u1","method":"tools/list","extra":true}', 'u1', /Invalid Request: .*extra/],
  ])('%s → -32600, one line', async (_label, line, id, message) => {
    const before = server.received.length
    server.write(line)
    const answer = await server.next((a) => a.error?.code === -32600)
    expect(answer.id).toEqual(id)
    expect(answer.error!.message).toMatch(message)
    expect(answer.error!.message).not.toContain('\n')
    // Exactly one answer per line, even for a batch.
    await server.expectServing(`after-${String(id)}-${before}`)
    expect(server.received.filter((a) => a.error?.code === -32600)).toEqual([])
  })

  it('a request whose params are not an object → -32602', async () => {
    server.write('{"jsonrpc":"2.0","id":"p1","method":"tools/list","params":[1,2]}')
    expect(await server.byId('p1')).toMatchObject({ error: { code: -32602, message: expect.stringMatching(/"params" of tools\/list must be an object, got an array/) } })
  })

  it.each([
    ['no params', undefined, /tools\/call needs "params"/],
    ['arguments a string', { name: 'read', arguments: 'notes.txt' }, /"params.arguments" must be an object .* got a string/],
    ['arguments an array', { name: 'read', arguments: ['notes.txt'] }, /"params.arguments" must be an object .* got an array/],
    ['name a number', { name: 5, arguments: {} }, /"params.name" must be a string .* got a number/],
    ['an unknown tool', { name: 'nope', arguments: {} }, /^Unknown tool: nope$/],
    ['an idempotency key that is a number', { name: 'read', arguments: { path: 'notes.txt' }, _meta: { 'io.github.toolsmith/idempotency-key': 42 } }, /"params._meta\["io.github.toolsmith\/idempotency-key"\]" must be a string, got a number/],
    ['an empty idempotency key', { name: 'read', arguments: { path: 'notes.txt' }, _meta: { 'io.github.toolsmith/idempotency-key': '' } }, /idempotency-key"\]" must not be empty/],
    ['an idempotency key of 257 characters', { name: 'read', arguments: { path: 'notes.txt' }, _meta: { 'io.github.toolsmith/idempotency-key': 'k'.repeat(257) } }, /must be at most 256 characters, got 257/],
    ['an idempotency key with a newline', { name: 'read', arguments: { path: 'notes.txt' }, _meta: { 'io.github.toolsmith/idempotency-key': 'a\nb' } }, /must not contain control characters/],
  ])('a malformed tools/call (%s) → -32602 with one clear line', async (label, params, message) => {
    const id = `call-${label}`
    server.send({ id, method: 'tools/call', ...(params === undefined ? {} : { params }) })
    const answer = await server.byId(id)
    expect(answer.error?.code).toBe(-32602)
    expect(answer.error!.message).toMatch(message)
    expect(answer.error!.message).not.toMatch(/\n|MCP error|invalid_type/)
  })

  it('params an SDK-owned handler refuses (initialize) → -32602 with one line, not -32603 and a zod dump', async () => {
    server.send({ id: 'init-bad', method: 'initialize', params: { capabilities: {} } })
    const answer = await server.byId('init-bad')
    expect(answer.error).toEqual({
      code: -32602,
      message: 'Invalid params: params.protocolVersion: Invalid input: expected string, received undefined; params.clientInfo: Invalid input: expected object, received undefined',
    })
  })

  it('an unknown method → -32601', async () => {
    server.send({ id: 'x1', method: 'resources/list' })
    expect(await server.byId('x1')).toMatchObject({ error: { code: -32601, message: 'Method not found: resources/list' } })
  })

  it('a valid call after all of that still works', async () => {
    server.send({ id: 'ok', method: 'tools/call', params: { name: 'read', arguments: { path: 'notes.txt' } } })
    expect((await server.byId('ok')).result).toEqual({ content: [{ type: 'text', text: 'alpha\nbeta\n' }] })
    expect(server.exited).toBeUndefined()
  })
})

describe('toolsmith mcp: the maximum message size (10 MiB)', () => {
  const big = 'x'.repeat(MAX + 1024)

  it.each([
    ['last (as the TypeScript SDK writes it)', (content: string) => `{"method":"tools/call","params":{"name":"write","arguments":{"path":"big.txt","content":"${content}"}},"jsonrpc":"2.0","id":77}`, 77],
    ['first (as the Python SDK writes it)', (content: string) => `{"jsonrpc":"2.0","id":"py-1","method":"tools/call","params":{"name":"write","arguments":{"path":"big.txt","content":"${content}"}}}`, 'py-1'],
    ['only nested', (content: string) => `{"jsonrpc":"2.0","method":"tools/call","params":{"id":5,"name":"write","arguments":{"path":"big.txt","content":"${content}"}},"meta":{"id":6}}`, null],
  ])('a line over it is discarded and answered -32600, with the id when it is %s', async (_label, build, id) => {
    server.write(build(big))
    const answer = await server.next((a) => a.error?.code === -32600, 60_000)
    expect(answer.id).toEqual(id)
    expect(answer.error!.message).toMatch(new RegExp(`the message is \\d+ bytes, over the limit of ${MAX} bytes per message`))
    await server.expectServing(`oversize-${String(id)}`)
    expect(server.exited).toBeUndefined()
  })

  it('a line just under it is served', async () => {
    const content = 'y'.repeat(MAX - 300)
    server.send({ id: 'near', method: 'tools/call', params: { name: 'read', arguments: { path: 'notes.txt', pad: content } } })
    const answer = await server.byId('near')
    // Served (the read tool refuses the unknown argument: a result, not a protocol error).
    expect(answer.error).toBeUndefined()
    expect(answer.result).toMatchObject({ isError: true })
  })
})

describe('toolsmith mcp: progress notifications', () => {
  it('a long bash call sends notifications/progress with the client token, none without one', async () => {
    server.send({ id: 'slow', method: 'tools/call', params: { name: 'bash', arguments: { cmd: 'sleep', args: ['2.5'] }, _meta: { progressToken: 'tok-1' } } })
    const result = await server.byId('slow')
    expect(result.result).toMatchObject({ content: [{ type: 'text' }] })
    const progress: Answer[] = []
    for (let p = server.received.findIndex((a) => a.method === 'notifications/progress'); p !== -1; p = server.received.findIndex((a) => a.method === 'notifications/progress')) {
      progress.push(server.received.splice(p, 1)[0]!)
    }
    expect(progress.length).toBeGreaterThanOrEqual(1)
    progress.forEach((note, i) => {
      expect(note.params).toMatchObject({ progressToken: 'tok-1', progress: i + 1 })
      expect(note.params!.message).toMatch(/^bash running for \d+(\.\d)? s$/)
    })

    server.send({ id: 'slow-quiet', method: 'tools/call', params: { name: 'bash', arguments: { cmd: 'sleep', args: ['1.5'] } } })
    await server.byId('slow-quiet')
    expect(server.received.filter((a) => a.method === 'notifications/progress')).toEqual([])
  })

  it('the SDK client gets them through onprogress', async () => {
    const client = new Client({ name: 'progress-spec', version: '1' })
    await client.connect(new StdioClientTransport({ command: CLI_COMMAND.command, args: [...CLI_COMMAND.args, 'mcp', '--root', root], stderr: 'ignore' }))
    try {
      // One list per call: on a busy machine the grep may itself run past the first tick.
      const grepSeen: { progress: number; message?: string }[] = []
      const result = await client.callTool({ name: 'grep', arguments: { pattern: 'beta' } }, undefined, { onprogress: (p) => grepSeen.push(p) })
      expect(result.isError).toBeFalsy()
      expect(grepSeen.every((p) => /^grep running for/.test(p.message ?? ''))).toBe(true)
      const seen: { progress: number; message?: string }[] = []
      const slow = await client.callTool({ name: 'bash', arguments: { cmd: 'sleep', args: ['2.2'] } }, undefined, {
        onprogress: (p) => seen.push(p),
        resetTimeoutOnProgress: true,
      })
      expect(slow.isError).toBeFalsy()
      expect(seen.length).toBeGreaterThanOrEqual(1)
      expect(seen[0]).toMatchObject({ progress: 1, message: expect.stringMatching(/^bash running for/) })
    } finally {
      await client.close()
    }
  })

  it('an SDK client request over the limit fails at once with the server\'s answer, and the client goes on', async () => {
    const client = new Client({ name: 'oversize-spec', version: '1' })
    await client.connect(new StdioClientTransport({ command: CLI_COMMAND.command, args: [...CLI_COMMAND.args, 'mcp', '--root', root], stderr: 'ignore' }))
    try {
      await expect(client.callTool({ name: 'write', arguments: { path: 'huge.txt', content: 'z'.repeat(MAX) } })).rejects.toThrow(
        /-32600.*over the limit of 10485760 bytes/,
      )
      expect((await client.listTools()).tools).toHaveLength(5)
    } finally {
      await client.close()
    }
  })
})

describe('toolsmith mcp with piped input', () => {
  it("the issue's repro: an unterminated JSON object gets -32700 and the command exits 0", async () => {
    const run = await runCli(['mcp', '--root', root], { input: '{"jsonrpc":"2.0","id":1,"method":"tools/list"\n' })
    expect(run.code).toBe(0)
    const answers = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as Answer)
    expect(answers).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error: /) } }])
  })

  it('answers every request read before the input ended, then exits', async () => {
    const lines = [
      { id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } } },
      { method: 'notifications/initialized' },
      { id: 2, method: 'tools/call', params: { name: 'bash', arguments: { cmd: 'sleep', args: ['0.5'] } } },
      { id: 3, method: 'tools/call', params: { name: 'read', arguments: { path: 'notes.txt' } } },
    ]
    const run = await runCli(['mcp', '--root', root], { input: `${lines.map((l) => JSON.stringify({ jsonrpc: '2.0', ...l })).join('\n')}\n` })
    expect(run.code).toBe(0)
    const ids = run.stdout.trim().split('\n').map((line) => (JSON.parse(line) as Answer).id)
    expect(ids.sort()).toEqual([1, 2, 3])
  })
})
