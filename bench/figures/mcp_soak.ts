/**
 * The soak figure: a million small `tools/call`s through `createMcpServer`
 * on one connection, and how much the process grew doing them. A server
 * that leaks even 50 bytes per call (as `AbortSignal.any` did on Node 20,
 * nodejs/node#55351) grows ≈ 50 MiB per million calls; the target is
 * ≤ 16 MiB.
 *
 * This file is both the figure (parent side) and the child that runs one
 * soak (`node --expose-gc --import tsx mcp_soak.ts <arm> <calls>`), so each
 * sample is a fresh process whose heap no other figure touched.
 *
 * @module
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { metric, type Measurement } from '../harness.js'
import { makeRow, type Figure } from '../figure.js'

const THIS_FILE = fileURLToPath(import.meta.url)
const MIB = 2 ** 20
/** Requests kept in flight, as a busy client would (and so the run takes a minute, not ten). */
const IN_FLIGHT = 32
/** Calls before the first RSS reading: the JIT, the heap and the SDK's maps reach their steady size. */
const WARMUP_CALLS = 50_000

type SoakArm = 'subject' | 'baseline'

/**
 * Drive `arm` for `calls` calls over an in-memory transport pair with raw
 * JSON-RPC messages (no SDK client in the loop: its own bookkeeping is not
 * what is measured), then report the wall time and the RSS growth from the
 * end of the warm-up to the end, both read after two full GCs.
 */
async function soak(arm: SoakArm, calls: number): Promise<{ ms: number; rssMB: number; heapMB: number }> {
  const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js')
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await connect(arm, serverSide)

  const pending = new Map<number, () => void>()
  clientSide.onmessage = (message) => {
    const answer = message as { id?: number; result?: { content?: { text?: string }[] } }
    const text = answer.result?.content?.[0]?.text
    if (answer.id === undefined) return
    if (answer.id > 0 && text !== `echo ${answer.id % 1000}`) throw new Error(`bad answer to call ${answer.id}: ${JSON.stringify(message).slice(0, 200)}`)
    pending.get(answer.id)?.()
    pending.delete(answer.id)
  }
  await clientSide.start()
  const request = (id: number, method: string, params: Record<string, unknown>): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      pending.set(id, resolve)
      clientSide.send({ jsonrpc: '2.0', id, method, params }).catch(reject)
    })
  await request(0, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'soak', version: '1' } })
  await clientSide.send({ jsonrpc: '2.0', method: 'notifications/initialized' })

  let next = 1
  const run = async (count: number): Promise<void> => {
    const last = next + count
    const lane = async (): Promise<void> => {
      while (next < last) {
        const id = next++
        await request(id, 'tools/call', { name: 'echo', arguments: { text: `echo ${id % 1000}` } })
      }
    }
    await Promise.all(Array.from({ length: IN_FLIGHT }, lane))
  }
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc === undefined) throw new Error('run with --expose-gc')
  const settle = async (): Promise<NodeJS.MemoryUsage> => {
    gc()
    await new Promise((resolve) => setTimeout(resolve, 50))
    gc()
    return process.memoryUsage()
  }

  await run(WARMUP_CALLS)
  const before = await settle()
  const started = performance.now()
  await run(calls)
  const ms = performance.now() - started
  const after = await settle()
  await clientSide.close()
  return { ms, rssMB: (after.rss - before.rss) / MIB, heapMB: (after.heapUsed - before.heapUsed) / MIB }
}

/**
 * subject: `createMcpServer` with a long-lived context of the caller's (so
 * every call links that context's signal with the request's, the path that
 * leaked) and a one-field echo tool. baseline: the MCP SDK's `Server` with a
 * `tools/call` handler that answers the same text itself (the floor any
 * server on the SDK pays).
 */
async function connect(arm: SoakArm, transport: import('@modelcontextprotocol/sdk/shared/transport.js').Transport): Promise<void> {
  if (arm === 'subject') {
    const { Tool, createDispatchContext, createMcpServer, validator } = await import('../../lib/index.js')
    const echo = new Tool({
      name: 'echo',
      description: 'Echo the text',
      inputSchema: validator.object({ text: validator.string().required() }),
      handler: ({ text }) => text,
    })
    const server = createMcpServer([echo], { name: 'soak', version: '1', context: createDispatchContext() })
    await server.connect(transport)
    return
  }
  const { Server } = await import('@modelcontextprotocol/sdk/server/index.js')
  const { CallToolRequestSchema, ListToolsRequestSchema } = await import('@modelcontextprotocol/sdk/types.js')
  const server = new Server({ name: 'soak', version: '1' }, { capabilities: { tools: {} } })
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }))
  server.setRequestHandler(CallToolRequestSchema, (request) => ({
    content: [{ type: 'text' as const, text: String((request.params.arguments as { text?: unknown } | undefined)?.text) }],
  }))
  await server.connect(transport)
}

function inSoakChild(arm: SoakArm, calls: number): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', THIS_FILE, arm, String(calls)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) => {
      const last = out.trim().split('\n').pop() ?? ''
      if (code !== 0) return reject(new Error(`soak child ${arm} exited with ${code}`))
      try {
        resolve(JSON.parse(last) as Measurement)
      } catch {
        reject(new Error(`soak child ${arm} printed no result: ${last.slice(0, 200)}`))
      }
    })
  })
}

/** `mcp-soak`: RSS growth over a million calls on one connection, ≤ 16 MiB. */
export const mcpSoakFigure: Figure = {
  id: 'mcp-soak',
  title: 'createMcpServer: 1,000,000 small calls on one connection',
  async run(config) {
    const calls = config.quick ? 200_000 : 1_000_000
    // One sample per arm: a sample is already a minute of steady state in its own process.
    const baseline = await inSoakChild('baseline', calls)
    config.log(`mcp-soak baseline: ${baseline.ms.toFixed(0)} ms, RSS ${baseline.rssMB!.toFixed(1)} MiB, heap ${baseline.heapMB!.toFixed(1)} MiB`)
    const subject = await inSoakChild('subject', calls)
    config.log(`mcp-soak subject: ${subject.ms.toFixed(0)} ms, RSS ${subject.rssMB!.toFixed(1)} MiB, heap ${subject.heapMB!.toFixed(1)} MiB`)
    const scaled = config.quick ? `; quick: ${calls.toLocaleString('en')} calls` : ''
    const subjectLabel = "createMcpServer([echo], { context }) over InMemoryTransport, raw JSON-RPC, 32 in flight"
    const baselineLabel = "the SDK's Server answering tools/call itself, same transport and load"
    return [
      makeRow({
        id: 'mcp-soak-rss',
        figure: `${this.title}: RSS growth`,
        subject: subjectLabel,
        baseline: baselineLabel,
        unit: 'MB',
        subjectValues: metric([subject], 'rssMB'),
        baselineValues: metric([baseline], 'rssMB'),
        target: { kind: 'absolute', max: 16 },
        note: `MiB of RSS from after ${WARMUP_CALLS.toLocaleString('en')} warm-up calls to the end, both after two full GCs; heap growth ${subject.heapMB!.toFixed(1)} MiB (baseline ${baseline.heapMB!.toFixed(1)})${scaled}`,
      }),
      makeRow({
        id: 'mcp-soak-wall',
        figure: `${this.title}: wall`,
        subject: subjectLabel,
        baseline: baselineLabel,
        unit: 'ms',
        subjectValues: metric([subject], 'ms'),
        baselineValues: metric([baseline], 'ms'),
        target: { kind: 'report' },
        note: `${(subject.ms / calls * 1000).toFixed(1)} µs per call (baseline ${(baseline.ms / calls * 1000).toFixed(1)}): validation, callId, events and the signal link are the difference${scaled}`,
      }),
    ]
  },
}

if (process.argv[1] === THIS_FILE) {
  const [arm, callsText] = process.argv.slice(2)
  if (arm !== 'subject' && arm !== 'baseline') throw new Error(`usage: mcp_soak.ts subject|baseline <calls> (got ${arm})`)
  const result = await soak(arm, Number(callsText))
  process.stdout.write(`\n${JSON.stringify(result)}\n`)
  process.exit(0)
}
