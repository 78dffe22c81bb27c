// Every permission decision lands in the call's journal row (`permissionJson`),
// in every journal (JSONL, SQLite, a real PostgreSQL this file starts), through
// the claiming path too, and survives a resume; databases made by the previous
// version (schema before `permission_json`) are upgraded, not refused.
import { startPostgres, type TestPostgres } from '../support/postgres.js'
import { OLD_SQLITE_SCHEMA, oldPostgresMigration } from '../support/previous_journal_schema.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'
import Database from 'better-sqlite3'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pgDriver from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  E_JOURNAL_UNAVAILABLE,
  JsonlJournal,
  Permissions,
  PostgresJournal,
  SqliteJournal,
  Tool,
  TurnRunner,
  scriptedModel,
  validator,
  type ApprovalRequest,
  type ClaimingJournal,
  type ModelResponse,
  type PermissionDecisionEvent,
  type ToolCallPermission,
  type ToolCallRow,
  type TurnEvent,
  type TurnIdentity,
} from '../../lib/index.js'

let pg: TestPostgres
let schemaCount = 0
const closers: (() => unknown)[] = []

beforeAll(async () => {
  pg = await startPostgres()
}, 120_000)

afterAll(async () => {
  for (const close of closers) await close()
  await pg?.stop()
}, 60_000)

function tempFile(name: string): string {
  return join(trackedMkdtemp(join(tmpdir(), 'toolsmith-permission-records-')), name)
}

async function postgresJournal(options: { migrate?: boolean; schema?: string } = {}): Promise<PostgresJournal> {
  const journal = new PostgresJournal(pg.url, { schema: options.schema ?? `records_${process.pid}_${schemaCount++}` })
  closers.push(() => journal.close())
  if (options.migrate !== false) await journal.migrate()
  return journal
}

const stores: [string, () => Promise<ClaimingJournal>][] = [
  ['JsonlJournal', async () => new JsonlJournal(tempFile('j.jsonl'))],
  [
    'SqliteJournal',
    async () => {
      const journal = new SqliteJournal(tempFile('j.db'))
      closers.push(() => journal.close())
      return journal
    },
  ],
  ['PostgresJournal', () => postgresJournal()],
]

/** A tool that records its runs; `sideEffect` tools are non-idempotent, so a durable turn claims them. */
function tool(name: string, sideEffect: boolean, runs: string[]): Tool {
  return new Tool({
    name,
    description: `The ${name} tool`,
    inputSchema: validator.object({ n: validator.number().required() }),
    sideEffect,
    idempotent: !sideEffect,
    handler: async ({ n }: { n: number }, _ctx, _meta, _call) => {
      runs.push(`${name} ${n}`)
      return `${name} ${n} done`
    },
  })
}

const policy = {
  rules: [
    { name: 'looking is fine', tool: 'look', decision: 'allow' as const },
    { name: 'ask before charging', tool: 'charge', decision: 'ask' as const, reason: 'it costs money' },
    { name: 'ask before deploying', tool: 'deploy', decision: 'ask' as const },
    { name: 'never wipe', tool: 'wipe', decision: 'deny' as const, reason: 'there is no backup' },
  ],
}

/** Approves charges (remembered for the turn, so the second charge is not asked about) and declines deploys. */
function permissions(asked: ApprovalRequest[]): Permissions {
  return new Permissions({
    policy,
    approve: (request) => {
      asked.push(request)
      return request.toolName === 'charge'
        ? { decision: 'allow', note: 'within budget', remember: true }
        : { decision: 'deny', note: 'not on a Friday' }
    },
  })
}

/** One answer with a call of every kind, in this order (so `seq` 0…6). */
const CALLS: ModelResponse = {
  toolCalls: [
    { id: 'look', name: 'look', args: { n: 1 } },
    { id: 'bad', name: 'look', args: { n: 'not a number' } },
    { id: 'charge1', name: 'charge', args: { n: 1 } },
    { id: 'charge2', name: 'charge', args: { n: 2 } },
    { id: 'deploy', name: 'deploy', args: { n: 1 } },
    { id: 'wipe', name: 'wipe', args: { n: 1 } },
    { id: 'stamp', name: 'stamp', args: { n: 1 } },
  ],
}

const latency = expect.any(Number)
/** The record each call's row must hold, by seq. */
const EXPECTED: (ToolCallPermission | null)[] = [
  { decision: 'allow', policyDecision: 'allow', rule: { index: 0, name: 'looking is fine' }, approver: 'policy', latencyMs: latency },
  null, // args failed validation: no gate judged the call
  { decision: 'allow', policyDecision: 'ask', rule: { index: 1, name: 'ask before charging' }, reason: 'it costs money', approver: 'approve', note: 'within budget', latencyMs: latency },
  { decision: 'allow', policyDecision: 'ask', rule: { index: 1, name: 'ask before charging' }, reason: 'it costs money', approver: 'remembered', note: 'within budget', latencyMs: latency },
  { decision: 'deny', policyDecision: 'ask', rule: { index: 2, name: 'ask before deploying' }, approver: 'approve', note: 'not on a Friday', latencyMs: latency },
  { decision: 'deny', policyDecision: 'deny', rule: { index: 3, name: 'never wipe' }, reason: 'there is no backup', approver: 'policy', latencyMs: latency },
  { decision: 'allow', policyDecision: 'allow', rule: null, approver: 'policy', latencyMs: latency },
]

function record(row: ToolCallRow): ToolCallPermission | null {
  return row.permissionJson == null ? null : (JSON.parse(row.permissionJson) as ToolCallPermission)
}

function bySeq(rows: ToolCallRow[]): ToolCallRow[] {
  return [...rows].sort((a, b) => a.seq - b.seq)
}

function decisionEvents(events: TurnEvent[]): PermissionDecisionEvent[] {
  return events.filter((e): e is Extract<TurnEvent, { type: 'permission-decision' }> => e.type === 'permission-decision')
}

const identity: TurnIdentity = { runId: 'audit-1', nodeId: 'ship', iteration: 0, attempt: 1 }

describe.each(stores)('permission records in %s', (_name, make) => {
  it('records every decision in its call\'s row: allowed, approved, remembered, declined, denied, default; none without a gate', async () => {
    const journal = await make()
    const runs: string[] = []
    const asked: ApprovalRequest[] = []
    const events: TurnEvent[] = []
    const tools = [tool('look', false, runs), tool('charge', true, runs), tool('deploy', true, runs), tool('wipe', true, runs), tool('stamp', true, runs)]
    const runner = new TurnRunner({
      model: scriptedModel([CALLS, { text: 'done' }]),
      tools,
      journal,
      identity,
      permissions: permissions(asked),
      onEvent: (e) => events.push(e),
    })
    await runner.run('ship it')
    expect(runs.sort()).toEqual(['charge 1', 'charge 2', 'look 1', 'stamp 1'])
    expect(asked.map((r) => `${r.toolName} ${JSON.stringify(r.args)}`)).toEqual(['charge {"n":1}', 'deploy {"n":1}'])

    const rows = bySeq(await journal.list({ runId: 'audit-1' }))
    expect(rows.map((r) => [r.seq, r.toolName, r.status])).toEqual([
      [0, 'look', 'success'],
      [1, 'look', 'error'],
      [2, 'charge', 'success'],
      [3, 'charge', 'success'],
      [4, 'deploy', 'error'],
      [5, 'wipe', 'error'],
      [6, 'stamp', 'success'],
    ])
    expect(rows.map(record)).toEqual(EXPECTED)
    // The record is the turn's permission-decision event without the ids the row has.
    const decided = decisionEvents(events)
    expect(decided).toHaveLength(6)
    for (const event of decided) {
      const row = rows.find((r) => r.callId === event.callId)!
      const { type: _type, toolName, turnId: _turnId, callId: _callId, toolCallId: _toolCallId, latencyMs, ...rest } = event as PermissionDecisionEvent & { type: string }
      expect(row.toolName).toBe(toolName)
      expect(record(row)).toEqual({ ...rest, latencyMs: expect.closeTo(latencyMs, 3) })
    }
    // A denial still says why in errorJson; a refused durable call left no claim behind
    // (a later attempt asks again), but its row is there to audit.
    expect(JSON.parse(rows[5]!.errorJson!)).toMatchObject({ code: 'TOOL_DENIED', details: { approver: 'policy' } })
    expect(await journal.getClaim(rows[5]!.idempotencyKey)).toBeUndefined()
    expect(await journal.getClaim(rows[4]!.idempotencyKey)).toBeUndefined()
    // A completed durable call's claim keeps the decision too: a replay hands it on.
    expect(record((await journal.getClaim(rows[2]!.idempotencyKey))!.row as ToolCallRow)).toEqual(EXPECTED[2])
  }, 30_000)

  it('keeps the records through a resume: replayed calls carry the decision of the run that made them', async () => {
    const journal = await make()
    const runs: string[] = []
    const asked: ApprovalRequest[] = []
    const tools = () => [tool('look', false, runs), tool('charge', true, runs), tool('deploy', true, runs), tool('wipe', true, runs), tool('stamp', true, runs)]
    // The worker dies after the calls ran, before the model's next answer.
    const crashed = new TurnRunner({
      model: scriptedModel([CALLS, () => { throw new Error('worker died') }]),
      tools: tools(),
      journal,
      identity,
      permissions: permissions(asked),
    })
    await expect(crashed.run('ship it')).rejects.toThrow('worker died')
    const before = bySeq(await journal.list({ runId: 'audit-1' }))
    expect(before.map(record)).toEqual(EXPECTED)

    asked.length = 0
    runs.length = 0
    const resumed = await new TurnRunner({ model: scriptedModel([{ text: 'shipped' }]), tools: tools(), journal, permissions: permissions(asked) }).resume('audit-1')
    expect(resumed.text).toBe('shipped')
    // The charges and the stamp were not run again, nor asked about: they were replayed.
    expect(runs.sort()).toEqual(['look 1'])
    expect(asked.map((r) => r.toolName)).toEqual(['deploy'])

    const all = await journal.list({ runId: 'audit-1' })
    const after = bySeq(all.slice(before.length))
    // The rows written before the crash are untouched.
    expect(bySeq(all.slice(0, before.length))).toEqual(before)
    expect(after.map((r) => [r.seq, r.toolName, r.status, r.replayed])).toEqual([
      [0, 'look', 'success', false],
      [1, 'look', 'error', false],
      [2, 'charge', 'success', true],
      [3, 'charge', 'success', true],
      [4, 'deploy', 'error', false],
      [5, 'wipe', 'error', false],
      [6, 'stamp', 'success', true],
    ])
    // Replayed: the very record of the run that made the call (approver, note, latency).
    for (const seq of [2, 3, 6]) expect(after[seq]!.permissionJson).toBe(before[seq]!.permissionJson)
    // Judged again by this run's gate: a fresh record of the same decision.
    expect(after.map(record)).toEqual(EXPECTED)
  }, 30_000)
})

// ---------------------------------------------------------------------------
// Upgrades: databases made by the previous version (before `permission_json`)
// ---------------------------------------------------------------------------

const OLD_ROW = ['old-run', 'n', 0, 1, 0, 'look', '{"n":1}', '"look 1 done"', 1000, 1005, 'success', null, 'c-old', 'k-old'] as const

/** A short durable turn: one approved charge. */
async function approvedCharge(journal: ClaimingJournal, runId: string): Promise<ToolCallRow[]> {
  const runs: string[] = []
  await new TurnRunner({
    model: scriptedModel([{ toolCalls: [{ id: 'c', name: 'charge', args: { n: 5 } }] }, { text: 'ok' }]),
    tools: [tool('charge', true, runs)],
    journal,
    identity: { runId, nodeId: 'n', iteration: 0, attempt: 1 },
    permissions: permissions([]),
  }).run('charge 5')
  expect(runs).toEqual(['charge 5'])
  return await journal.list({ runId })
}

describe('a SQLite journal made by the previous version', () => {
  it('opens, gains permission_json in both tables, keeps its rows (permissionJson null) and records decisions', async () => {
    const file = tempFile('old.db')
    const old = new Database(file)
    old.exec(OLD_SQLITE_SCHEMA)
    old
      .prepare(
        'INSERT INTO tool_calls (run_id, node_id, iteration, attempt, seq, tool_name, input_json, output_json, started_at_ms, ' +
          'finished_at_ms, status, error_json, call_id, idempotency_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(...OLD_ROW)
    old.close()

    for (let open = 0; open < 2; open++) {
      // Twice: the second open finds the columns there and leaves them alone.
      const journal = new SqliteJournal(file)
      try {
        const [oldRow] = await journal.list({ runId: 'old-run' })
        expect(oldRow).toMatchObject({ toolName: 'look', outputJson: '"look 1 done"', replayed: false, permissionJson: null })
        if (open === 0) {
          const [charged] = await approvedCharge(journal, 'new-run')
          expect(record(charged!)).toEqual(EXPECTED[2])
          expect(record((await journal.getClaim(charged!.idempotencyKey))!.row as ToolCallRow)).toEqual(EXPECTED[2])
        } else {
          expect(record((await journal.list({ runId: 'new-run' }))[0]!)).toEqual(EXPECTED[2])
        }
      } finally {
        journal.close()
      }
    }
    const check = new Database(file, { readonly: true })
    for (const table of ['tool_calls', 'tool_claims']) {
      const columns = (check.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name)
      expect(columns.filter((c) => c === 'permission_json')).toHaveLength(1)
    }
    check.close()
  })
})

describe('a PostgreSQL journal made by the previous version', () => {
  it('fails with E_JOURNAL_UNAVAILABLE that says to run `toolsmith journal migrate`; migrate() adds the column idempotently and keeps the rows', async () => {
    const schema = `old_${process.pid}_${schemaCount++}`
    const client = new pgDriver.Client({ connectionString: pg.url })
    await client.connect()
    try {
      for (const statement of oldPostgresMigration(schema)) await client.query(statement)
      await client.query(
        `INSERT INTO "${schema}".tool_calls (run_id, node_id, iteration, attempt, seq, tool_name, input_json, output_json, started_at_ms, ` +
          'finished_at_ms, status, error_json, call_id, idempotency_key) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)',
        [...OLD_ROW],
      )
    } finally {
      await client.end()
    }

    const journal = await postgresJournal({ schema, migrate: false })
    const listed = await journal.list().catch((error: unknown) => error)
    expect(listed).toBeInstanceOf(E_JOURNAL_UNAVAILABLE)
    expect((listed as E_JOURNAL_UNAVAILABLE).message).toMatch(/permission_json.*earlier version of toolsmith.*run `toolsmith journal migrate --postgres URL` or journal\.migrate\(\)/)
    expect((listed as E_JOURNAL_UNAVAILABLE).message).not.toContain(pg.password)
    expect((listed as E_JOURNAL_UNAVAILABLE).details).toMatchObject({ driverCode: '42703' })
    // A durable turn stops at its first claim rather than run a call it cannot record.
    await expect(approvedCharge(journal, 'stopped')).rejects.toBeInstanceOf(E_JOURNAL_UNAVAILABLE)

    await Promise.all([journal.migrate(), journal.migrate()])
    await journal.migrate()
    const [oldRow] = await journal.list({ runId: 'old-run' })
    expect(oldRow).toMatchObject({ toolName: 'look', outputJson: '"look 1 done"', startedAtMs: 1000, permissionJson: null })
    const [charged] = await approvedCharge(journal, 'new-run')
    expect(record(charged!)).toEqual(EXPECTED[2])
  }, 60_000)
})
