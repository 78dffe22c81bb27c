import { tmpdir } from 'node:os'
import path from 'node:path'
import { PassThrough } from 'node:stream'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it, vi } from 'vitest'
import { E_INVALID_OPTIONS, McpStdioServerTransport, Tool, createMcpServer, createTools, validator } from '../../lib/index.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'
import { createTicketTool } from './support/custom_tools.js'

/** A transport on two in-process pipes, and what it wrote. */
function pipes(options?: { maxMessageBytes?: number }) {
  const stdin = new PassThrough()
  const stdout = new PassThrough()
  const transport = new McpStdioServerTransport(stdin, stdout, options)
  const written: unknown[] = []
  let rest = ''
  stdout.setEncoding('utf8').on('data', (chunk: string) => {
    rest += chunk
    const lines = rest.split('\n')
    rest = lines.pop()!
    for (const line of lines) written.push(JSON.parse(line))
  })
  const messages: JSONRPCMessage[] = []
  const errors: Error[] = []
  transport.onmessage = (m) => messages.push(m as JSONRPCMessage)
  transport.onerror = (e) => errors.push(e)
  return { stdin, stdout, transport, written, messages, errors }
}

const tick = () => new Promise((resolve) => setImmediate(resolve))

describe('McpStdioServerTransport framing', () => {
  it('reassembles a line split across chunks, splits several lines in one chunk, skips blank lines and a \\r', async () => {
    const { stdin, transport, messages, written } = pipes()
    await transport.start()
    const line = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })
    for (const piece of [line.slice(0, 5), line.slice(5, 20), line.slice(20)]) stdin.write(piece)
    stdin.write('\n\n   \r\n')
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'é', method: 'ping' })}\r\n${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`)
    await tick()
    expect(messages).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 'é', method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ])
    expect(written).toEqual([])
    await transport.close()
  })

  it('a multi-byte character split between chunks is decoded whole', async () => {
    const { stdin, transport, messages } = pipes()
    await transport.start()
    const bytes = Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id: 'ключ', method: 'ping' })}\n`)
    const cut = bytes.indexOf(Buffer.from('ю')) + 1 // inside the two bytes of "ю"
    stdin.write(bytes.subarray(0, cut))
    stdin.write(bytes.subarray(cut))
    await tick()
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 'ключ', method: 'ping' }])
    await transport.close()
  })

  it('drops a malformed notification or response without answering (JSON-RPC forbids it) and reports it', async () => {
    const { stdin, transport, messages, written, errors } = pipes()
    await transport.start()
    stdin.write('{"jsonrpc":"2.0","method":"notifications/progress","params":"x"}\n')
    stdin.write('{"jsonrpc":"2.0","id":3,"error":{"code":"bad"}}\n')
    await tick()
    expect(messages).toEqual([])
    expect(written).toEqual([])
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/^Dropped a message: Invalid params: "params" of notifications\/progress must be an object/),
      expect.stringMatching(/^Dropped a message: Invalid response 3: /),
    ])
    await transport.close()
  })

  it('discards a line over maxMessageBytes as it streams, answers -32600 once, and reads the next line', async () => {
    const { stdin, transport, messages, written } = pipes({ maxMessageBytes: 64 })
    await transport.start()
    const long = `{"jsonrpc":"2.0","method":"tools/call","params":{"text":"${'a'.repeat(500)}"},"id":9}`
    for (let i = 0; i < long.length; i += 50) stdin.write(long.slice(i, i + 50))
    stdin.write('\n{"jsonrpc":"2.0","id":10,"method":"ping"}\n')
    await tick()
    expect(written).toEqual([
      { jsonrpc: '2.0', id: 9, error: { code: -32600, message: `Invalid Request: the message is ${long.length} bytes, over the limit of 64 bytes per message; it was discarded` } },
    ])
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 10, method: 'ping' }])
    // Exactly at the limit is accepted.
    const exact = JSON.stringify({ jsonrpc: '2.0', id: 11, method: 'x'.repeat(64 - 37) })
    expect(exact).toHaveLength(64)
    stdin.write(`${exact}\n`)
    await tick()
    expect(messages).toHaveLength(2)
    await transport.close()
  })

  it('settled() waits for the answers of the requests it handed on, or their cancellation', async () => {
    const { stdin, transport } = pipes()
    await transport.start()
    await expect(transport.settled()).resolves.toBeUndefined()
    stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n')
    await tick()
    let settled = false
    void transport.settled().then(() => (settled = true))
    await transport.send({ jsonrpc: '2.0', id: 1, result: {} })
    await tick()
    expect(settled).toBe(false)
    stdin.write('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}\n')
    await tick()
    expect(settled).toBe(true)
    await transport.close()
  })

  it("rewrites only the SDK's zod dump (-32603 + a JSON issue list) to -32602; other errors go out as they are", async () => {
    const { transport, written } = pipes()
    await transport.start()
    const dump = JSON.stringify([{ code: 'invalid_type', path: ['params', 'level'], message: 'Invalid input' }], null, 2)
    await transport.send({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: dump } })
    await transport.send({ jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'Internal error' } })
    await transport.send({ jsonrpc: '2.0', id: 3, error: { code: -32603, message: '[not json' } })
    await transport.send({ jsonrpc: '2.0', id: 4, error: { code: -32000, message: dump } })
    await tick()
    expect(written).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid params: params.level: Invalid input' } },
      { jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'Internal error' } },
      { jsonrpc: '2.0', id: 3, error: { code: -32603, message: '[not json' } },
      { jsonrpc: '2.0', id: 4, error: { code: -32000, message: dump } },
    ])
    await transport.close()
  })

  it('close() stops reading and calls onclose once', async () => {
    const { stdin, transport, messages } = pipes()
    const onclose = vi.fn()
    transport.onclose = onclose
    await transport.start()
    await transport.close()
    await transport.close()
    stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
    await tick()
    expect(messages).toEqual([])
    expect(onclose).toHaveBeenCalledTimes(1)
    expect(stdin.listenerCount('data')).toBe(0)
  })

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('maxMessageBytes %s → E_INVALID_OPTIONS', (max) => {
    expect(() => new McpStdioServerTransport(new PassThrough(), new PassThrough(), { maxMessageBytes: max })).toThrow(E_INVALID_OPTIONS)
  })
})

/** A client transport on the other ends of the same pipes, for the SDK Client. */
function clientSide(toServer: PassThrough, fromServer: PassThrough): Transport {
  let rest = ''
  const transport: Transport = {
    start: async () => {
      fromServer.setEncoding('utf8').on('data', (chunk: string) => {
        rest += chunk
        const lines = rest.split('\n')
        rest = lines.pop()!
        for (const line of lines) transport.onmessage?.(JSON.parse(line) as JSONRPCMessage)
      })
    },
    send: async (message) => void toServer.write(`${JSON.stringify(message)}\n`),
    close: async () => transport.onclose?.(),
  }
  return transport
}

describe('createMcpServer on McpStdioServerTransport, driven by the SDK Client', () => {
  it('serves, sends progress for a slow call when asked (progressIntervalMs), and refuses a bad option', async () => {
    const slow = new Tool({
      name: 'slow',
      description: 'Takes a while',
      inputSchema: validator.object({ ms: validator.number().integer().required() }),
      handler: ({ ms }) => new Promise<string>((resolve) => setTimeout(() => resolve('done'), ms)),
    })
    const server = createMcpServer([slow, createTicketTool()], { name: 's', version: '1', progressIntervalMs: 20 })
    const toServer = new PassThrough()
    const fromServer = new PassThrough()
    await server.connect(new McpStdioServerTransport(toServer, fromServer))
    const client = new Client({ name: 'c', version: '1' })
    await client.connect(clientSide(toServer, fromServer))
    const seen: { progress: number; message?: string }[] = []
    const result = await client.callTool({ name: 'slow', arguments: { ms: 1000 } }, undefined, { onprogress: (p) => seen.push(p) })
    expect(result.content).toEqual([{ type: 'text', text: 'done' }])
    expect(seen.length).toBeGreaterThanOrEqual(2)
    expect(seen.map((p) => p.progress)).toEqual(seen.map((_p, i) => i + 1))
    expect(seen[0]!.message).toMatch(/^slow running for \d+\.\d s$/)
    // A fast call finishes before the first tick: no notification, and no timer left behind.
    const before = seen.length
    await client.callTool({ name: 'create_ticket', arguments: { title: 'quick one' } }, undefined, { onprogress: (p) => seen.push(p) })
    await new Promise((resolve) => setTimeout(resolve, 60))
    expect(seen).toHaveLength(before)
    await client.close()

    expect(() => createMcpServer([slow], { name: 's', version: '1', progressIntervalMs: 0 })).toThrow(E_INVALID_OPTIONS)
    expect(() => createMcpServer([slow], { name: 's', version: '1', progressIntervalMs: Number.POSITIVE_INFINITY })).not.toThrow()
  })
})

describe('a running bash call’s output in progress notifications', () => {
  const serve = async (progressIntervalMs: number) => {
    const root = trackedMkdtemp(path.join(tmpdir(), 'toolsmith-mcp-output-'))
    const { bash } = createTools({ rootDir: root })
    const server = createMcpServer([bash], { name: 's', version: '1', progressIntervalMs })
    const toServer = new PassThrough()
    const fromServer = new PassThrough()
    await server.connect(new McpStdioServerTransport(toServer, fromServer))
    const client = new Client({ name: 'c', version: '1' })
    await client.connect(clientSide(toServer, fromServer))
    return client
  }

  it('sends the output as it arrives, before the answer, in notifications of its own', async () => {
    const client = await serve(60_000)
    const seen: { progress: number; message?: string }[] = []
    const result = await client.callTool(
      { name: 'bash', arguments: { cmd: 'sh', args: ['-c', 'echo first; sleep 1.5; echo second'] } },
      undefined,
      { onprogress: (p) => seen.push(p) },
    )
    expect(result.content).toEqual([{ type: 'text', text: 'first\nsecond\n' }])
    // Two notifications, not one at the end: "first" was sent while the command slept.
    expect(seen.map((p) => p.message)).toEqual(['first\n', 'second\n'])
    expect(seen.map((p) => p.progress)).toEqual([1, 2])
    await client.close()
  }, 30_000)

  it('caps one notification at 4 KB and says how much it left out; Infinity sends nothing', async () => {
    const client = await serve(60_000)
    const seen: { message?: string }[] = []
    await client.callTool(
      { name: 'bash', arguments: { cmd: 'sh', args: ['-c', "head -c 300000 /dev/zero | tr '\\0' a"] } },
      undefined,
      { onprogress: (p) => seen.push(p) },
    )
    // 300 KB cannot come in bursts small and slow enough to fit: some notification is cut.
    expect(seen.some((p) => p.message?.includes('bytes not shown'))).toBe(true)
    for (const { message } of seen) {
      expect(message).toMatch(/^a{1,4096}(\n\[… \d+ bytes not shown …\])?$/)
      if (message?.includes('not shown')) expect(message.indexOf('\n')).toBe(4096)
    }
    await client.close()

    const silent = await serve(Number.POSITIVE_INFINITY)
    const none: unknown[] = []
    const result = await silent.callTool({ name: 'bash', arguments: { cmd: 'sh', args: ['-c', 'echo quiet'] } }, undefined, { onprogress: (p) => none.push(p) })
    expect(result.content).toEqual([{ type: 'text', text: 'quiet\n' }])
    expect(none).toEqual([])
    await silent.close()
  }, 30_000)
})
