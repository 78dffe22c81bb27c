// `serveMcpStdio` from the public barrel, on in-process streams, with the v2 client on
// each revision it serves: 2026-07-28 (pinned) and 2025-11-25 (the handshake); a
// `traceparent` in a 2026-07-28 request's `_meta` reaches the call's span.
import { PassThrough } from 'node:stream'
import { Client, type JSONRPCMessage, ReadBuffer, serializeMessage, type Transport } from '@modelcontextprotocol/client'
import { context, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveMcpStdio, Tool, validator, type McpStdioServing } from '../../lib/index.js'

const greet = new Tool({
  name: 'greet',
  description: 'Greet someone',
  inputSchema: validator.object({ who: validator.string().required() }),
  handler: async ({ who }: { who: string }) => `hello ${who}`,
})

/** The client's end of a pair of pipes whose other end `serveMcpStdio` reads and writes. */
class PipeClientTransport implements Transport {
  onmessage?: Transport['onmessage']
  onclose?: () => void
  onerror?: (error: Error) => void
  readonly #buffer = new ReadBuffer()

  constructor(
    private readonly toServer: PassThrough,
    private readonly fromServer: PassThrough,
  ) {}

  async start(): Promise<void> {
    this.fromServer.on('data', (chunk: Buffer) => {
      this.#buffer.append(chunk)
      for (let message = this.#buffer.readMessage(); message !== null; message = this.#buffer.readMessage()) this.onmessage?.(message)
    })
    this.fromServer.on('end', () => this.onclose?.())
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.toServer.write(serializeMessage(message))
  }

  async close(): Promise<void> {
    this.toServer.end()
    this.onclose?.()
  }
}

function serve(legacy?: boolean): { serving: McpStdioServing; transport: PipeClientTransport } {
  const stdin = new PassThrough()
  const stdout = new PassThrough()
  const serving = serveMcpStdio([greet], { name: 'spec', version: '1.0.0', stdin, stdout, ...(legacy === undefined ? {} : { legacy }) })
  return { serving, transport: new PipeClientTransport(stdin, stdout) }
}

const exporter = new InMemorySpanExporter()
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  trace.setGlobalTracerProvider(provider)
})
afterAll(async () => {
  trace.disable()
  context.disable()
  await provider.shutdown()
})

describe('serveMcpStdio', () => {
  for (const [era, revision, options] of [
    ['modern', '2026-07-28', { versionNegotiation: { mode: { pin: '2026-07-28' } } }],
    ['legacy', '2025-11-25', {}],
  ] as const) {
    it(`serves a ${era} client (${revision}); closing the client's input ends the serving`, async () => {
      const { serving, transport } = serve()
      const client = new Client({ name: 'spec-client', version: '1.0.0' }, options)
      await client.connect(transport)
      expect(client.getProtocolEra()).toBe(era)
      expect(client.getNegotiatedProtocolVersion()).toBe(revision)
      expect(client.getServerVersion()).toMatchObject({ name: 'spec', version: '1.0.0' })
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['greet'])
      expect((await client.callTool({ name: 'greet', arguments: { who: 'ada' } })).content).toEqual([{ type: 'text', text: 'hello ada' }])
      await client.close()
      await serving.closed
    })
  }

  it("a 2026-07-28 request's _meta.traceparent makes the call's span a child of the client's", async () => {
    exporter.reset()
    const { serving, transport } = serve()
    const client = new Client({ name: 'spec-client', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await client.connect(transport)
    try {
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736'
      const spanId = '00f067aa0ba902b7'
      await client.callTool({ name: 'greet', arguments: { who: 'ada' }, _meta: { traceparent: `00-${traceId}-${spanId}-01` } })
      const spans = exporter.getFinishedSpans().filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool')
      expect(spans).toHaveLength(1)
      expect(spans[0]!.spanContext().traceId).toBe(traceId)
      expect(spans[0]!.parentSpanContext?.spanId).toBe(spanId)
    } finally {
      await client.close()
      await serving.close()
    }
  })

  it('legacy: false refuses a 2025 client with the revisions it serves, and still serves 2026-07-28', async () => {
    const refused = serve(false)
    const legacy = new Client({ name: 'spec-client', version: '1.0.0' })
    await expect(legacy.connect(refused.transport)).rejects.toThrow(/Unsupported protocol version: 2025-11-25/)
    await refused.serving.close()

    const { serving, transport } = serve(false)
    const modern = new Client({ name: 'spec-client', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await modern.connect(transport)
    expect((await modern.callTool({ name: 'greet', arguments: { who: 'bo' } })).content).toEqual([{ type: 'text', text: 'hello bo' }])
    await modern.close()
    await serving.close()
  })
})
