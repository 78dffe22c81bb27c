/**
 * `toolsmith mcp --http` replicas behind HAProxy on one PostgreSQL journal
 * (scripts/replica_set.mjs, docs/deployment.md), driven by the MCP SDK v2
 * client over Streamable HTTP: calls/s through the balancer for 1, 2 and 4
 * replicas at one fixed concurrency, and what a keyed call's claim costs.
 *
 * The three replica sets run side by side on one embedded PostgreSQL and are
 * sampled interleaved, so the machine's drift lands on each alike. On a
 * machine with fewer cores than replicas the extra replicas share cores:
 * the rows report what this machine gives, not a scaling law.
 *
 * @module
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import path from 'node:path'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { MCP_IDEMPOTENCY_KEY_META } from '../../lib/index.js'
import { startEmbeddedPostgres, startReplicas, type ReplicaSet } from '../../scripts/replica_set.mjs'
import { BENCH_TMP } from '../fixtures.js'
import { interleave, metric, timed } from '../harness.js'
import { makeRow, type Figure, type Row } from '../figure.js'

/** Calls in flight at once, for every replica count. */
const CONCURRENCY = 16
const COUNTS = [1, 2, 4] as const

type CallResult = { isError?: boolean; content: { text?: string }[] }

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'bench-replicas', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  return client
}

async function check(result: Promise<unknown>): Promise<void> {
  const answer = (await result) as CallResult
  if (answer.isError === true) throw new Error(`tool call failed: ${answer.content.map((c) => c.text ?? '').join('')}`)
}

/** `calls` calls of `one`, `CONCURRENCY` in flight at a time. */
async function pool(calls: number, one: () => Promise<void>): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < calls) {
      next++
      await one()
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
}

export const mcpReplicasFigure: Figure = {
  id: 'mcp-replicas',
  title: 'toolsmith mcp --http replicas behind HAProxy on one PostgreSQL journal',
  async run(config) {
    const root = path.join(BENCH_TMP, 'mcp-replicas')
    mkdirSync(root, { recursive: true })
    writeFileSync(path.join(root, 'small.ts'), 'export const value = 1\n'.repeat(25))
    config.log('mcp-replicas: starting PostgreSQL and 1 + 2 + 4 replicas behind three HAProxy instances')
    const postgres = await startEmbeddedPostgres()
    const sets = new Map<number, ReplicaSet>()
    const clients = new Map<number, Client>()
    try {
      for (const replicas of COUNTS) {
        const set = await startReplicas({ replicas, root, journal: postgres.url })
        sets.set(replicas, set)
        clients.set(replicas, await connect(set.url))
      }
      // The 1-replica set's replica without the balancer: what HAProxy adds.
      const direct = await connect(sets.get(1)!.replicas[0]!.url)
      clients.set(0, direct)
      const calls = config.quick ? 160 : 480
      const plan = { warmup: 1, samples: config.quick ? 3 : 9 }
      const read = (client: Client) => () => check(client.callTool({ name: 'read', arguments: { path: 'small.ts' } }))
      const batch = async (client: Client) => ({ ms: (await timed(() => pool(calls, read(client)))).ms })
      const throughput = await interleave(
        { direct: () => batch(direct), one: () => batch(clients.get(1)!), two: () => batch(clients.get(2)!), four: () => batch(clients.get(4)!) },
        plan,
      )

      // The claim: a non-idempotent call with a key (claimed, then completed, in
      // PostgreSQL) against the same call without one (only recorded). One replica,
      // one call at a time: the cost of the claim itself, not of contention.
      const client = clients.get(1)!
      let n = 0
      const bashTrue = (keyed: boolean) => () =>
        check(
          client.callTool({
            name: 'bash',
            arguments: { cmd: 'true' },
            ...(keyed ? { _meta: { [MCP_IDEMPOTENCY_KEY_META]: `bench-${process.pid}-${Date.now()}-${n++}` } } : {}),
          }),
        )
      const reps = config.quick ? 10 : 30
      const claim = await interleave({ unkeyed: () => timed(bashTrue(false), reps), keyed: () => timed(bashTrue(true), reps) }, { warmup: 1, samples: config.quick ? 5 : 15 })

      const perSecond = (values: number[]) => Math.round(calls / (values.sort((a, b) => a - b)[values.length >> 1]! / 1000))
      const values = { direct: metric(throughput.direct, 'ms'), one: metric(throughput.one, 'ms'), two: metric(throughput.two, 'ms'), four: metric(throughput.four, 'ms') }
      const via = `SDK v2 client → HAProxy roundrobin → toolsmith mcp --http (node --import tsx) --journal postgres://…`
      const row = (id: string, label: string, subject: number[], replicas: number): Row =>
        makeRow({
          id,
          figure: `MCP over HTTP: ${calls} reads, ${CONCURRENCY} in flight, ${label}`,
          subject: `${replicas} replicas: ${via}`,
          baseline: `1 replica: ${via}`,
          unit: 'ms',
          subjectValues: subject,
          baselineValues: values.one,
          target: { kind: 'report' },
          note: `ms per ${calls} calls; ≈ ${perSecond([...subject])} calls/s vs ${perSecond([...values.one])} calls/s with 1 replica, on ${availableParallelism()} cores`,
        })
      return [
        makeRow({
          id: 'mcp-replicas-balancer',
          figure: `MCP over HTTP: ${calls} reads, ${CONCURRENCY} in flight, through HAProxy vs direct`,
          subject: `1 replica: ${via}`,
          baseline: 'the same replica, the client connected to it directly',
          unit: 'ms',
          subjectValues: values.one,
          baselineValues: values.direct,
          target: { kind: 'report' },
          note: `ms per ${calls} calls; ≈ ${perSecond([...values.one])} calls/s through HAProxy vs ${perSecond([...values.direct])} calls/s direct`,
        }),
        row('mcp-replicas-2', '2 replicas vs 1', values.two, 2),
        row('mcp-replicas-4', '4 replicas vs 1', values.four, 4),
        makeRow({
          id: 'mcp-replicas-claim',
          figure: `MCP over HTTP: bash { cmd: "true" } ×${reps}, keyed vs unkeyed`,
          subject: `tools/call with _meta["${MCP_IDEMPOTENCY_KEY_META}"] (a new key each call: claimed and completed in PostgreSQL)`,
          baseline: 'the same tools/call without a key (recorded in PostgreSQL, not claimed)',
          unit: 'ms',
          subjectValues: metric(claim.keyed, 'ms'),
          baselineValues: metric(claim.unkeyed, 'ms'),
          target: { kind: 'report' },
          note: 'ms per sequential call through the balancer to 1 replica; subject − baseline is the claim',
        }),
      ]
    } finally {
      for (const c of clients.values()) await c.close().catch(() => undefined)
      for (const set of sets.values()) await set.stop().catch(() => undefined)
      await postgres.stop().catch(() => undefined)
    }
  },
}
