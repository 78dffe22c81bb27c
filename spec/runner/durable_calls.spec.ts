import { trackedMkdtemp } from '../support/temp_dirs.js'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  E_INVALID_OPTIONS,
  FileSpoolStore,
  InMemorySpoolStore,
  JsonlJournal,
  Permissions,
  SqliteJournal,
  TOOL_OUTCOME_UNKNOWN,
  Tool,
  TurnRunner,
  scriptedModel,
  validator,
  type ClaimingJournal,
  type ModelResponse,
  type TurnEvent,
  type TurnIdentity,
} from '../../lib/index.js'

function tempFile(name: string): string {
  return join(trackedMkdtemp(join(tmpdir(), 'toolsmith-durable-')), name)
}

const stores: [string, () => ClaimingJournal][] = [
  ['SqliteJournal', () => new SqliteJournal(tempFile('j.db'))],
  ['JsonlJournal', () => new JsonlJournal(tempFile('j.jsonl'))],
]

/** A non-idempotent tool whose handler bodies are counted. */
function counter(options: { fail?: boolean; bytes?: number; reconcile?: Tool['reconcile'] } = {}) {
  const runs: string[] = []
  const tool = new Tool({
    name: 'charge',
    description: 'Charge a card',
    inputSchema: validator.object({ amount: validator.number().required() }),
    sideEffect: true,
    idempotent: false,
    ...(options.reconcile ? { reconcile: options.reconcile } : {}),
    handler: async ({ amount }: { amount: number }, _ctx, _meta, call) => {
      runs.push(`${amount}:${call.idempotencyKey.slice(0, 8)}`)
      if (options.fail) throw new Error(`card declined for ${amount}`)
      return options.bytes ? 'x'.repeat(options.bytes) : `charged ${amount}`
    },
  })
  return { tool, runs }
}

function calls(...amounts: number[]): ModelResponse {
  return { toolCalls: amounts.map((amount, i) => ({ id: `c${i}`, name: 'charge', args: { amount } })) }
}

const identity = (attempt: number): TurnIdentity => ({ runId: 'run-1', nodeId: 'pay', iteration: 0, attempt })

describe.each(stores)('exactly-once calls with %s', (_name, make) => {
  it('replays a completed call on a retried attempt: same result, handler not run, row says replayed', async () => {
    const journal = make()
    const { tool, runs } = counter()
    const first = await new TurnRunner({ model: scriptedModel([calls(5, 7), { text: 'ok' }]), tools: [tool], journal, identity: identity(1) }).run('pay')
    const events: TurnEvent[] = []
    const second = await new TurnRunner({
      model: scriptedModel([calls(5, 7), { text: 'ok' }]),
      tools: [tool],
      journal,
      identity: identity(2),
      onEvent: (e) => events.push(e),
    }).run('pay')
    expect(runs).toHaveLength(2)
    const toolText = (r: typeof first) => r.messages.filter((m) => m.role === 'tool').map((m) => m.content)
    expect(toolText(second)).toEqual(toolText(first))
    expect(toolText(second)).toEqual(['charged 5', 'charged 7'])
    expect(events.filter((e) => e.type === 'tool-end').map((e) => (e as { replayed?: boolean }).replayed)).toEqual([true, true])
    const rows = await journal.list({ attempt: 2 })
    expect(rows.map((r) => [r.toolName, r.status, r.replayed])).toEqual([
      ['charge', 'success', true],
      ['charge', 'success', true],
    ])
  })

  it('replays a recorded error as the same failure text', async () => {
    const journal = make()
    const { tool, runs } = counter({ fail: true })
    const first = await new TurnRunner({ model: scriptedModel([calls(9), { text: 'no' }]), tools: [tool], journal, identity: identity(1) }).run('pay')
    const second = await new TurnRunner({ model: scriptedModel([calls(9), { text: 'no' }]), tools: [tool], journal, identity: identity(2) }).run('pay')
    expect(runs).toEqual([expect.stringMatching(/^9:/)])
    const failure = (r: typeof first) => r.messages.find((m) => m.role === 'tool')!
    expect(failure(second)).toEqual(failure(first))
    expect(failure(second).content).toContain('card declined for 9')
    expect(failure(second).isError).toBe(true)
  })

  it('runs a call the model deliberately repeats within one attempt, and replays each repeat on retry', async () => {
    const journal = make()
    const { tool, runs } = counter()
    await new TurnRunner({ model: scriptedModel([calls(1, 1), { text: 'ok' }]), tools: [tool], journal, identity: identity(1) }).run('pay')
    expect(runs).toHaveLength(2)
    await new TurnRunner({ model: scriptedModel([calls(1, 1, 1), { text: 'ok' }]), tools: [tool], journal, identity: identity(2) }).run('pay')
    // The first two repeats replay; the third is new and runs.
    expect(runs).toHaveLength(3)
    expect((await journal.list({ attempt: 2 })).map((r) => r.replayed)).toEqual([true, true, false])
  })

  it('reports a claim whose worker died as TOOL_OUTCOME_UNKNOWN instead of running it again', async () => {
    const journal = make()
    const { tool, runs } = counter()
    // A claim left by a worker on another machine whose lease has run out.
    const prepared = await tool.prepare({ amount: 3 }, { id: 'x', idempotencyScope: JSON.stringify({ iteration: 0, nodeId: 'pay', runId: 'run-1' }) })
    await journal.claim({
      claimKey: prepared.idempotencyKey,
      owner: 'elsewhere:1234:dead',
      leaseMs: 1,
      flags: { sideEffect: true, idempotent: false },
      row: {
        ...identity(1), seq: 0, toolName: 'charge', inputJson: '{"amount":3}', outputJson: null, startedAtMs: 1_700_000_000_000,
        finishedAtMs: 1_700_000_000_000, status: 'error', errorJson: null, callId: prepared.callId, idempotencyKey: prepared.idempotencyKey,
      },
    })
    await new Promise((r) => setTimeout(r, 5))
    const result = await new TurnRunner({ model: scriptedModel([calls(3), { text: 'checked' }]), tools: [tool], journal, identity: identity(2) }).run('pay')
    expect(runs).toEqual([])
    const message = result.messages.find((m) => m.role === 'tool')!
    expect(message.isError).toBe(true)
    expect(message.content).toMatch(/^TOOL_OUTCOME_UNKNOWN: charge \{"amount":3\} was started at 2023-11-14T22:13:20.000Z \(attempt 1, worker elsewhere:1234:dead\)/)
    expect(result.toolCalls[0]!.error).toBeInstanceOf(TOOL_OUTCOME_UNKNOWN)
    const [row] = await journal.list({ attempt: 2 })
    expect(JSON.parse(row!.errorJson!)).toMatchObject({ code: 'TOOL_OUTCOME_UNKNOWN', details: { toolName: 'charge', input: { amount: 3 } } })
  })

  it('lets a reconcile hook answer for a dead worker: applied returns its result, not applied runs the handler', async () => {
    for (const applied of [true, false]) {
      const journal = make()
      const seen: unknown[] = []
      const { tool, runs } = counter({
        reconcile: async (args, call) => {
          seen.push([args, call.owner])
          return applied ? { applied: true, result: 'found the charge in the ledger' } : { applied: false }
        },
      })
      const prepared = await tool.prepare({ amount: 4 }, { id: 'x', idempotencyScope: JSON.stringify({ iteration: 0, nodeId: 'pay', runId: 'run-1' }) })
      await journal.claim({
        claimKey: prepared.idempotencyKey, owner: 'elsewhere:1:dead', leaseMs: 1, flags: { sideEffect: true, idempotent: false },
        row: { ...identity(1), seq: 0, toolName: 'charge', inputJson: '{"amount":4}', outputJson: null, startedAtMs: 1, finishedAtMs: 1,
          status: 'error', errorJson: null, callId: prepared.callId, idempotencyKey: prepared.idempotencyKey },
      })
      await new Promise((r) => setTimeout(r, 5))
      const result = await new TurnRunner({ model: scriptedModel([calls(4), { text: 'ok' }]), tools: [tool], journal, identity: identity(2) }).run('pay')
      expect(seen).toEqual([[{ amount: 4 }, 'elsewhere:1:dead']])
      expect(result.messages.find((m) => m.role === 'tool')!.content).toBe(applied ? 'found the charge in the ledger' : 'charged 4')
      expect(runs).toHaveLength(applied ? 0 : 1)
      const claim = await journal.getClaim(prepared.idempotencyKey)
      expect(claim!.state).toBe('success')
      // A third attempt replays whatever the reconciliation settled on.
      const third = await new TurnRunner({ model: scriptedModel([calls(4), { text: 'ok' }]), tools: [tool], journal, identity: identity(3) }).run('pay')
      expect(third.messages.find((m) => m.role === 'tool')!.content).toBe(applied ? 'found the charge in the ledger' : 'charged 4')
      expect(runs).toHaveLength(applied ? 0 : 1)
    }
  })

  it('waits for a live claimant in the same process and replays its result', async () => {
    const journal = make()
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    let bodies = 0
    const slow = new Tool({
      name: 'deploy',
      description: 'Deploy',
      inputSchema: validator.object({}),
      sideEffect: true,
      idempotent: false,
      handler: async (_a, _c, _m, _call) => {
        bodies++
        await gate
        return 'deployed v2'
      },
    })
    const model = () => scriptedModel([{ toolCalls: [{ id: 'd', name: 'deploy', args: {} }] }, { text: 'done' }])
    const a = new TurnRunner({ model: model(), tools: [slow], journal, identity: identity(1) }).run('go')
    await new Promise((r) => setTimeout(r, 30))
    const b = new TurnRunner({ model: model(), tools: [slow], journal, identity: identity(1) }).run('go')
    await new Promise((r) => setTimeout(r, 30))
    release()
    const [ra, rb] = await Promise.all([a, b])
    expect(bodies).toBe(1)
    expect(rb.messages.find((m) => m.role === 'tool')!.content).toBe('deployed v2')
    expect(ra.messages.find((m) => m.role === 'tool')!.content).toBe('deployed v2')
  })

  it('replays a result too large for the journal from the spool store, whole', async () => {
    const journal = make()
    const spoolStore = new InMemorySpoolStore()
    const { tool, runs } = counter({ bytes: 300_000 })
    const options = { tools: [tool], journal, spoolStore, inlineBudgetBytes: 1_000 }
    await new TurnRunner({ ...options, model: scriptedModel([calls(2), { text: 'ok' }]), identity: identity(1) }).run('pay')
    const [row] = await journal.list({ attempt: 1 })
    expect(JSON.parse(row!.outputJson!)).toMatchObject({ truncated: true, bytes: 300_000, spoolId: expect.any(String) })
    const second = await new TurnRunner({ ...options, model: scriptedModel([calls(2), { text: 'ok' }]), identity: identity(2) }).run('pay')
    expect(runs).toHaveLength(1)
    expect(await second.toolCalls[0]!.results!.asString()).toBe('x'.repeat(300_000))
  })

  it('replays a large result spooled by another worker when both stores share a folder', async () => {
    const journal = make()
    const dir = trackedMkdtemp(join(tmpdir(), 'toolsmith-shared-spool-'))
    const { tool, runs } = counter({ bytes: 300_000 })
      const base = { tools: [tool], journal, inlineBudgetBytes: 1_000 }
      // Two stores on one folder: what two worker processes with the same `dir` have.
      await new TurnRunner({ ...base, spoolStore: new FileSpoolStore({ dir }), model: scriptedModel([calls(2), { text: 'ok' }]), identity: identity(1) }).run('pay')
      const second = await new TurnRunner({
        ...base,
        spoolStore: new FileSpoolStore({ dir }),
        model: scriptedModel([calls(2), { text: 'ok' }]),
        identity: identity(2),
      }).run('pay')
      expect(runs).toHaveLength(1)
      expect(await second.toolCalls[0]!.results!.asString()).toBe('x'.repeat(300_000))
  })

  it('resumes an interrupted turn from its checkpoint: no model step and no completed call is repeated', async () => {
    const journal = make()
    const { tool, runs } = counter()
    const asked: number[] = []
    const crashing = new TurnRunner({
      model: async ({ step }) => {
        asked.push(step)
        if (step === 0) return calls(10, 20)
        throw new Error('worker lost')
      },
      tools: [tool],
      journal,
      identity: identity(1),
    })
    await expect(crashing.run('pay twice')).rejects.toThrow('worker lost')
    expect(runs).toHaveLength(2)

    const seen: number[] = []
    const resumed = await new TurnRunner({
      model: async ({ step, messages }) => {
        seen.push(step)
        expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool'])
        return { text: 'paid both' }
      },
      tools: [tool],
      journal,
    }).resume('run-1')
    expect(seen).toEqual([1])
    expect(runs).toHaveLength(2)
    expect(resumed.text).toBe('paid both')
    expect(resumed.steps).toBe(2)
    // A finished turn resumes to its end without asking the model again.
    const again = await new TurnRunner({ model: async () => ({ text: 'never' }), tools: [tool], journal }).resume('run-1')
    expect(again.text).toBe('paid both')
  })

  it('does not keep the claim of a call the permission gate refused: a later attempt asks again and runs it', async () => {
    const journal = make()
    const { tool, runs } = counter()
    const deny = new Permissions({ policy: { rules: [{ tool: 'charge', decision: 'deny', reason: 'not today' }] } })
    const refused = await new TurnRunner({ model: scriptedModel([calls(8), { text: 'no' }]), tools: [tool], journal, identity: identity(1), permissions: deny }).run('pay')
    expect(refused.messages.find((m) => m.role === 'tool')!.content).toMatch(/^TOOL_DENIED: /)
    expect(runs).toEqual([])
    const allow = new Permissions({ policy: { default: 'allow', rules: [] } })
    const second = await new TurnRunner({ model: scriptedModel([calls(8), { text: 'ok' }]), tools: [tool], journal, identity: identity(2), permissions: allow }).run('pay')
    expect(second.messages.find((m) => m.role === 'tool')!.content).toBe('charged 8')
    expect(runs).toHaveLength(1)
    expect((await journal.list()).map((r) => [r.attempt, r.status, r.replayed])).toEqual([
      [1, 'error', false],
      [2, 'success', false],
    ])
  })

  it('refuses to resume a run it has no checkpoint of', async () => {
    const journal = make()
    const runner = new TurnRunner({ model: scriptedModel([]), tools: [], journal })
    await expect(runner.resume('nope')).rejects.toBeInstanceOf(E_INVALID_OPTIONS)
  })
})
