// Three `toolsmith mcp --http` replicas behind HAProxy on one PostgreSQL
// journal (scripts/replica_set.mjs, the deployment docs/deployment.md
// describes): many concurrent keyed `bash` calls go through the balancer while
// one replica is SIGKILLed. Every call is answered or fails with an error a
// client may retry; retrying those with the same key converges; and no call's
// side effect (its key appended to a file) happens twice.
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { Client, SdkError, SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MCP_IDEMPOTENCY_KEY_META } from '../../lib/index.js'
import { startReplicas, type ReplicaSet } from '../../scripts/replica_set.mjs'
import { trackedMkdtemp } from '../support/temp_dirs.js'

const CALLS = 90
const CONCURRENCY = 9
/** Calls answered before one replica is killed: the rest run across the kill. */
const KILL_AFTER = 25

/** What a call ended with. */
type Outcome =
  | { kind: 'ok' }
  /** A tool-level failure: its `CODE: message` text. */
  | { kind: 'tool-error'; text: string }
  /** No MCP answer: the balancer's 502/503/504, or the connection failed. */
  | { kind: 'retryable'; why: string }

/** The failures a client may resend with the same key: the request may not have reached a replica, or its answer was lost. */
function retryable(error: unknown): string | undefined {
  if (error instanceof SdkHttpError && [502, 503, 504].includes(error.status)) return `HTTP ${error.status}`
  if (error instanceof SdkError && ['CONNECTION_CLOSED', 'SEND_FAILED'].includes(error.code)) return error.code
  if (error instanceof TypeError && /fetch failed/.test(error.message)) return `fetch failed: ${String(error.cause)}`
  return undefined
}

async function call(client: Client, key: string): Promise<Outcome> {
  try {
    const result = (await client.callTool({
      name: 'bash',
      // The side effect sits mid-call, so a kill can land before it, during the sleeps, or after.
      arguments: { cmd: 'sh', args: ['-c', 'sleep 0.05; echo "$1" >> effects.log; sleep 0.2', 'sh', key] },
      _meta: { [MCP_IDEMPOTENCY_KEY_META]: key },
    })) as { isError?: boolean; content: { text?: string }[] }
    if (result.isError !== true) return { kind: 'ok' }
    return { kind: 'tool-error', text: result.content.map((c) => c.text ?? '').join('') }
  } catch (error) {
    const why = retryable(error)
    if (why === undefined) throw error
    return { kind: 'retryable', why }
  }
}

/** Every process id under `pid` (its children, theirs…), from /proc. */
function descendants(pid: number): Set<number> {
  const parents = new Map<number, number>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]))
    } catch {
      // Exited meanwhile.
    }
  }
  const found = new Set<number>([pid])
  for (let grew = true; grew; ) {
    grew = false
    for (const [child, parent] of parents) {
      if (found.has(parent) && !found.has(child)) {
        found.add(child)
        grew = true
      }
    }
  }
  found.delete(pid)
  return found
}

/** Whether process `pid`'s command line holds `text`. */
function cmdlineHas(pid: number, text: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text)
  } catch {
    return false
  }
}

/** Resolve once `check` holds (polled: the condition is another process's doing). */
async function until<T>(check: () => T | undefined, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

const linesOf = (file: string): string[] => {
  try {
    return readFileSync(file, 'utf8').split('\n').filter((line) => line !== '')
  } catch {
    return []
  }
}

describe('replicas behind HAProxy on one PostgreSQL journal', () => {
  let set: ReplicaSet
  const clients: Client[] = []

  beforeAll(async () => {
    const root = join(trackedMkdtemp(join(tmpdir(), 'toolsmith-replicas-spec-')), 'root')
    set = await startReplicas({ replicas: 3, root })
    for (let i = 0; i < 3; i++) {
      const client = new Client({ name: `spec-client-${i}`, version: '1.0.0' })
      await client.connect(new StreamableHTTPClientTransport(new URL(set.url)))
      clients.push(client)
    }
  }, 240_000)

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined)
    await set?.stop()
  }, 60_000)

  it('answers every keyed call across a replica kill, and runs none twice', async () => {
    const keys = Array.from({ length: CALLS }, (_, i) => `order-${String(i).padStart(3, '0')}`)
    const outcomes = new Map<string, Outcome>()
    let answered = 0
    let killed: Promise<void> | undefined
    let next = 0
    const worker = async (w: number) => {
      while (next < keys.length) {
        const key = keys[next++]!
        outcomes.set(key, await call(clients[w % clients.length]!, key))
        // The kill starts once enough calls are answered, while the others are in flight.
        if (++answered === KILL_AFTER) killed = set.replicas[1]!.kill('SIGKILL')
      }
    }
    await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)))
    await killed
    expect(killed).toBeDefined()

    // Every call got an answer or a retryable error; the only tool-level
    // failure allowed is the one for a call whose replica died mid-run.
    expect(outcomes.size).toBe(CALLS)
    for (const [key, outcome] of outcomes) {
      if (outcome.kind === 'tool-error') expect([key, outcome.text]).toEqual([key, expect.stringMatching(/^TOOL_OUTCOME_UNKNOWN/)])
    }

    // Resend the unanswered ones with the same key until none is left.
    for (let round = 0; round < 5; round++) {
      const pending = [...outcomes].filter(([, o]) => o.kind === 'retryable').map(([key]) => key)
      if (pending.length === 0) break
      for (const [i, key] of pending.entries()) outcomes.set(key, await call(clients[i % clients.length]!, key))
    }
    const unanswered = [...outcomes].filter(([, o]) => o.kind === 'retryable')
    expect(unanswered).toEqual([])

    // At most once per key; exactly once for every key answered ok.
    const lines = readFileSync(join(set.root, 'effects.log'), 'utf8').split('\n').filter((line) => line !== '')
    const runs = new Map<string, number>()
    for (const line of lines) runs.set(line, (runs.get(line) ?? 0) + 1)
    expect([...runs].filter(([, n]) => n > 1)).toEqual([])
    expect([...runs.keys()].filter((key) => !outcomes.has(key))).toEqual([])
    const ok = [...outcomes].filter(([, o]) => o.kind === 'ok').map(([key]) => key)
    expect(ok.filter((key) => runs.get(key) !== 1)).toEqual([])
    // The surviving replicas carried the run: most calls succeeded.
    expect(ok.length).toBeGreaterThan(CALLS / 2)

    // A client that lost every answer resends everything: nothing runs again.
    const again = await Promise.all(keys.map((key, i) => call(clients[i % clients.length]!, key)))
    expect(again.filter((o) => o.kind === 'retryable')).toEqual([])
    expect(again.map((o) => o.kind)).toEqual(keys.map((key) => outcomes.get(key)!.kind))
    expect(readFileSync(join(set.root, 'effects.log'), 'utf8').split('\n').filter((line) => line !== '')).toHaveLength(lines.length)
  }, 300_000)

  it('does not resend an unkeyed call whose replica died holding it: the client gets no answer', async () => {
    const marker = `unkeyed-${process.pid}`
    const log = join(set.root, 'unkeyed.log')
    const answer = call(clients[0]!, marker).catch((error: unknown) => error)
    // Unkeyed: no `_meta` key, so the balancer must not resend it after a replica took it.
    const unkeyed = clients[1]!.callTool({ name: 'bash', arguments: { cmd: 'sh', args: ['-c', 'echo started >> unkeyed.log; sleep 120', 'sh', marker] } })
    const settled = unkeyed.then(
      (result) => ({ kind: 'answered' as const, result }),
      (error: unknown) => ({ kind: 'failed' as const, error }),
    )
    await answer
    await until(() => (linesOf(log).length > 0 ? true : undefined), 'the unkeyed call to start')
    // The replica running it: the one whose process tree holds the marker.
    const holder = await until(
      () => set.replicas.find((replica) => [...descendants(replica.pid)].some((pid) => cmdlineHas(pid, marker))),
      'the replica running the unkeyed call',
    )
    await holder.kill('SIGKILL')
    // A resend would start the command again (a second line) and hold the client for its 120 s.
    const outcome = await Promise.race([
      settled,
      until(() => (linesOf(log).length > 1 ? { kind: 'resent' as const } : undefined), 'a resend', 120_000),
    ])
    expect(outcome.kind).toBe('failed')
    const error = (outcome as { error: unknown }).error
    // No MCP answer: HAProxy's 502, or the client connection closed (as HAProxy
    // does when the replica died on a kept-alive connection). Either way the
    // outcome is unknown to the client, and the command ran once.
    expect(retryable(error)).toMatch(/^(HTTP 502|fetch failed)/)
    expect(linesOf(log)).toEqual(['started'])
  }, 300_000)
})
