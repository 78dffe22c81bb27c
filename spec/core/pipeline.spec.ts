import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { afterAll, describe, expect, it } from 'vitest'
import {
  Permissions,
  SqliteJournal,
  Tool,
  createCallContext,
  createDispatchContext,
  validator,
  type ToolCallPermission,
} from '../../lib/index.js'
import { removeTrackedDirs, trackedMkdtemp } from '../support/temp_dirs.js'

afterAll(() => removeTrackedDirs())

function journal(): SqliteJournal {
  return new SqliteJournal(join(trackedMkdtemp(join(tmpdir(), 'toolsmith-pipeline-')), 'j.db'))
}

/** A non-idempotent side effect whose handler runs are counted. */
function charge() {
  const runs: number[] = []
  const tool = new Tool({
    name: 'charge',
    description: 'Charge a card',
    inputSchema: validator.object({ amount: validator.number().required(), card: validator.string() }),
    sideEffect: true,
    idempotent: false,
    redact: ({ amount }: { amount: number }) => ({ amount }),
    handler: async ({ amount }: { amount: number }, _ctx, _meta, _call) => {
      runs.push(amount)
      if (amount < 0) throw new Error('refunds are not charges')
      return `charged ${amount}`
    },
  })
  return { tool, runs }
}

describe('the call pipeline: tool.executor(ctx) with a journal on the context', () => {
  it('records every call — allowed, denied (with its decision), invalid and failed — with redacted args', async () => {
    const store = journal()
    const { tool } = charge()
    const permissions = new Permissions({
      policy: { default: 'allow', rules: [{ name: 'no big charges', tool: 'charge', match: { when: (args: { amount: number }) => args.amount >= 1000 }, decision: 'deny', reason: 'too much' }] },
    })
    const ctx = createDispatchContext({ journal: store, permissions, run: { runId: 'r1', nodeId: 'billing' } })
    const run = tool.executor(ctx)
    await expect(run({ amount: 5, card: '4111-secret' })).resolves.toBe('charged 5')
    await expect(run({ amount: 1000 })).rejects.toMatchObject({ code: 'TOOL_DENIED' })
    await expect(run({ amount: 'five', card: '4111-secret' })).rejects.toMatchObject({ code: 'E_INVALID_TOOL_ARGS' })
    await expect(run({ amount: -1 })).rejects.toMatchObject({ code: 'E_TOOL_DOWNSTREAM_ERROR' })

    const rows = await store.list({ runId: 'r1' })
    expect(rows.map((r) => [r.seq, r.nodeId, r.status, r.inputJson])).toEqual([
      [0, 'billing', 'success', '{"amount":5}'],
      [1, 'billing', 'error', '{"amount":1000}'],
      [2, 'billing', 'error', '"[invalid args not recorded]"'],
      [3, 'billing', 'error', '{"amount":-1}'],
    ])
    expect(JSON.stringify(rows)).not.toContain('4111-secret')
    expect(rows[0]!.outputJson).toBe('"charged 5"')
    const decisions = rows.map((r) => (r.permissionJson ? (JSON.parse(r.permissionJson) as ToolCallPermission) : null))
    expect(decisions[0]).toMatchObject({ decision: 'allow', policyDecision: 'allow', approver: 'policy' })
    expect(decisions[1]).toMatchObject({ decision: 'deny', rule: { index: 0, name: 'no big charges' }, reason: 'too much' })
    expect(decisions[2]).toBeNull() // invalid args never met the gate
    expect(JSON.parse(rows[1]!.errorJson!)).toMatchObject({ code: 'TOOL_DENIED' })
    expect(JSON.parse(rows[3]!.errorJson!)).toMatchObject({ code: 'E_TOOL_DOWNSTREAM_ERROR' })
    store.close()
  })

  it('defaults the row coordinates to the context: runId = ctx.id, nodeId "call", iteration 0, attempt 1', async () => {
    const store = journal()
    const { tool } = charge()
    const ctx = createDispatchContext({ journal: store, id: 'turn-7' })
    await tool.executor(createCallContext(ctx, { toolCallId: 'a' }))({ amount: 1 })
    await tool.executor(createCallContext(ctx, { toolCallId: 'b' }))({ amount: 2 })
    const rows = await store.list()
    expect(rows.map(({ runId, nodeId, iteration, attempt, seq, replayed }) => ({ runId, nodeId, iteration, attempt, seq, replayed }))).toEqual([
      { runId: 'turn-7', nodeId: 'call', iteration: 0, attempt: 1, seq: 0, replayed: false },
      { runId: 'turn-7', nodeId: 'call', iteration: 0, attempt: 1, seq: 1, replayed: false },
    ])
    store.close()
  })

  it('makes a keyed call durable: the same key again replays the recorded result without running the handler', async () => {
    const store = journal()
    const { tool, runs } = charge()
    // Two contexts (two server processes, two turns) sharing one journal.
    const first = createDispatchContext({ journal: store })
    const second = createDispatchContext({ journal: store })
    const keyed = (ctx: typeof first, id: string) => createCallContext(ctx, { toolCallId: id, idempotencyScope: 'order-42' })
    await expect(tool.executor(keyed(first, 'a'))({ amount: 7 })).resolves.toBe('charged 7')
    await expect(tool.executor(keyed(second, 'b'))({ amount: 7 })).resolves.toBe('charged 7')
    await expect(tool.executor(keyed(first, 'c'))({ amount: 7 })).resolves.toBe('charged 7')
    expect(runs).toEqual([7])
    expect((await store.list()).map((r) => r.replayed)).toEqual([false, true, true])
    // Without a key the call is not durable: it runs again.
    await tool.executor(createCallContext(first, { toolCallId: 'd' }))({ amount: 7 })
    expect(runs).toEqual([7, 7])
    store.close()
  })

  it('answers a call whose claim was left by a dead worker with TOOL_OUTCOME_UNKNOWN, without running it', async () => {
    const store = journal()
    const { tool, runs } = charge()
    const ctx = createCallContext(createDispatchContext({ journal: store }), { toolCallId: 'x', idempotencyScope: 'order-43' })
    const prepared = await tool.executor(ctx).prepare({ amount: 9 })
    await store.claim({
      claimKey: prepared.idempotencyKey,
      owner: 'elsewhere:1234:dead',
      leaseMs: 1,
      flags: { sideEffect: true, idempotent: false },
      row: {
        runId: 'old', nodeId: 'call', iteration: 0, attempt: 1, seq: 0, toolName: 'charge', inputJson: '{"amount":9}', outputJson: null,
        startedAtMs: 1_700_000_000_000, finishedAtMs: 1_700_000_000_000, status: 'error', errorJson: null,
        callId: prepared.callId, idempotencyKey: prepared.idempotencyKey,
      },
    })
    // The lease (1 ms) has to lapse on the store's clock.
    for (let i = 0; i < 100 && !(await store.getClaim(prepared.idempotencyKey))?.leaseExpired; i++) await new Promise((r) => setTimeout(r, 10))
    await expect(tool.executor(ctx)({ amount: 9 })).rejects.toMatchObject({ code: 'TOOL_OUTCOME_UNKNOWN' })
    expect(runs).toEqual([])
    const rows = await store.list({ toolName: 'charge' })
    expect(rows.at(-1)).toMatchObject({ status: 'error', replayed: false })
    expect(JSON.parse(rows.at(-1)!.errorJson!)).toMatchObject({ code: 'TOOL_OUTCOME_UNKNOWN' })
    store.close()
  })

  it('records nothing and adds nothing when the context has no journal', async () => {
    const { tool, runs } = charge()
    const ctx = createDispatchContext()
    expect(ctx.journal).toBeUndefined()
    expect(ctx.run).toBeUndefined()
    await tool.executor(createCallContext(ctx, { toolCallId: 'a', idempotencyScope: 'k' }))({ amount: 1 })
    await tool.executor(createCallContext(ctx, { toolCallId: 'b', idempotencyScope: 'k' }))({ amount: 1 })
    expect(runs).toEqual([1, 1])
  })
})
