import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  E_INVALID_OPTIONS,
  FileSpoolStore,
  SpooledArtifact,
  Tool,
  createDispatchContext,
  createMcpServer,
  toAiSdkTools,
  toolResultToText,
  validator,
} from '../../lib/index.js'

/** Review 2, finding #4: a large artifact result must reach MCP / AI SDK clients bounded, never read whole. */
const LINES = 100_000
const LINE = (i: number) => `line ${i} ${'x'.repeat(190)}` // ~200 bytes: ~20 MB in all
const store = new FileSpoolStore()
let artifact: SpooledArtifact
let total = 0

beforeAll(async () => {
  artifact = new SpooledArtifact(
    await store.write(
      'log',
      (function* () {
        for (let i = 0; i < LINES; i++) yield `${LINE(i)}\n`
      })(),
    ),
  )
  total = await artifact.byteLength()
  expect(total).toBeGreaterThan(19_000_000)
  // Loading the whole artifact is what the fix avoids: make it fail loudly if anyone does.
  artifact.asString = async () => {
    throw new Error('asString() called on a 20 MB artifact')
  }
  artifact.reader.readAll = async () => {
    throw new Error('readAll() called on a 20 MB artifact')
  }
})
afterAll(() => store.clear())

const bigLog = () =>
  new Tool({
    name: 'log',
    description: 'build log',
    inputSchema: validator.object({}),
    handler: async () => artifact,
  })

function expectBounded(text: string, maxBytes: number): void {
  const match = /\n\[… (\d+) bytes truncated …\]$/.exec(text)
  expect(match).not.toBeNull()
  const shown = text.slice(0, match!.index)
  expect(Buffer.byteLength(shown)).toBeLessThanOrEqual(maxBytes)
  expect(Buffer.byteLength(shown) + Number(match![1])).toBe(total)
  expect(shown.startsWith(`${LINE(0)}\n${LINE(1)}\n`)).toBe(true)
}

describe('result byte cap', () => {
  it('an MCP client calling a tool that returns a 20 MB file-backed artifact gets the first 200,000 bytes and a marker', async () => {
    const server = createMcpServer([bigLog()], { name: 's', version: '1' })
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await server.connect(serverSide)
    const client = new Client({ name: 'c', version: '1' })
    await client.connect(clientSide)
    try {
      const result = (await client.callTool({ name: 'log', arguments: {} })) as { content: { text: string }[]; isError?: boolean }
      expect(result.isError).toBeFalsy()
      expectBounded(result.content[0]!.text, 200_000)
    } finally {
      await client.close()
    }
  })

  it('createMcpServer honours maxResultBytes and refuses a bad one', async () => {
    const server = createMcpServer([bigLog()], { name: 's', version: '1', maxResultBytes: 5_000 })
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await server.connect(serverSide)
    const client = new Client({ name: 'c', version: '1' })
    await client.connect(clientSide)
    try {
      const result = (await client.callTool({ name: 'log', arguments: {} })) as { content: { text: string }[] }
      expectBounded(result.content[0]!.text, 5_000)
    } finally {
      await client.close()
    }
    expect(() => createMcpServer([bigLog()], { name: 's', version: '1', maxResultBytes: 0 })).toThrow(E_INVALID_OPTIONS)
  })

  it("toAiSdkTools' execute returns the same bounded text, with maxResultBytes overridable", async () => {
    const ctx = createDispatchContext()
    // A text tool's execute resolves to a string (the type also allows a structured tool's object).
    expectBounded((await toAiSdkTools([bigLog()], ctx).log!.execute({}, { toolCallId: '1' })) as string, 200_000)
    expectBounded((await toAiSdkTools([bigLog()], ctx, { maxResultBytes: 1_000 }).log!.execute({}, { toolCallId: '2' })) as string, 1_000)
    expect(() => toAiSdkTools([bigLog()], ctx, { maxResultBytes: 1.5 })).toThrow(E_INVALID_OPTIONS)
  })

  it('cuts strings and bytes on a UTF-8 boundary with the same marker; small results pass unchanged', async () => {
    const text = '€'.repeat(10) // 30 bytes
    expect(await toolResultToText(text, { maxBytes: 7 })).toBe('€€\n[… 24 bytes truncated …]')
    expect(await toolResultToText(Buffer.from(text), { maxBytes: 7 })).toBe('€€\n[… 24 bytes truncated …]')
    expect(await toolResultToText(text, { maxBytes: 30 })).toBe(text)
    expect(await toolResultToText(text)).toBe(text)
    expect(await toolResultToText('x'.repeat(200_001))).toBe(`${'x'.repeat(200_000)}\n[… 1 bytes truncated …]`)
    expect(await toolResultToText('x'.repeat(200_000))).toBe('x'.repeat(200_000))
    await expect(toolResultToText('x', { maxBytes: -1 })).rejects.toThrow(E_INVALID_OPTIONS)
  })

  it('bounds a single huge line of an artifact too', async () => {
    const one = new SpooledArtifact(await store.write('one-line', 'y'.repeat(1_000_000)))
    expect(await toolResultToText(one, { maxBytes: 10 })).toBe('yyyyyyyyyy\n[… 999990 bytes truncated …]')
  })
})
