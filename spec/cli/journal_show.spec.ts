// `toolsmith journal show` (a journal's rows and turn checkpoints, as text
// and as one JSON document) and `journal audit --json` (a summary and the
// decisions, valid JSON when there are none), against real JSONL, SQLite and
// PostgreSQL journals, through the real command.
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { JsonlJournal, Permissions, PostgresJournal, SqliteJournal, Tool, TurnRunner, scriptedModel, validator, type ClaimingJournal } from '../../lib/index.js'
import { startPostgres, type TestPostgres } from '../support/postgres.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'
import { runCli, errorLines } from './support/run_cli.js'

let pg: TestPostgres

beforeAll(async () => {
  pg = await startPostgres()
}, 120_000)

afterAll(async () => {
  await pg?.stop()
}, 60_000)

/**
 * One attempt of a turn: `look` (read-only), `charge` 1 (a side effect that
 * succeeds) and `charge` 2 (one that fails). A second attempt of the same
 * iteration replays both charges from their claims instead of running them.
 */
async function turn(journal: ClaimingJournal, runId: string, attempt: number, gated: boolean): Promise<void> {
  const tool = (name: string) =>
    new Tool({
      name,
      description: name,
      inputSchema: validator.object({ n: validator.number().required() }),
      sideEffect: name !== 'look',
      idempotent: name === 'look',
      handler: async ({ n }: { n: number }) => {
        if (n === 2) throw new Error('card declined')
        return `${name} ${n}`
      },
    })
  await new TurnRunner({
    model: scriptedModel([
      {
        toolCalls: [
          { id: 'a', name: 'look', args: { n: 1 } },
          { id: 'b', name: 'charge', args: { n: 1 } },
          { id: 'c', name: 'charge', args: { n: 2 } },
        ],
      },
      { text: 'done' },
    ]),
    tools: ['look', 'charge'].map(tool),
    journal,
    identity: { runId, nodeId: 'pay', iteration: 0, attempt },
    ...(gated ? { permissions: new Permissions({ policy: { default: 'allow', rules: [] } }) } : {}),
  }).run('pay the bill')
}

const TIME = String.raw`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z`

describe('toolsmith journal show', () => {
  it('lists the rows of a JSONL, SQLite or PostgreSQL journal by attempt and seq, with key, status, replays and turn checkpoints; --run filters; --json is one document', async () => {
    const dir = trackedMkdtemp(join(tmpdir(), 'toolsmith-show-'))
    const jsonl = new JsonlJournal(join(dir, 'j.jsonl'))
    const sqlite = new SqliteJournal(join(dir, 'j.db'))
    const postgres = new PostgresJournal(pg.url, { schema: 'cli_show' })
    try {
      await postgres.migrate()
      for (const journal of [jsonl, sqlite, postgres]) {
        await turn(journal, 'run-a', 1, true)
        await turn(journal, 'run-a', 2, true)
        await turn(journal, 'run-b', 1, false)
      }
    } finally {
      await jsonl.close()
      sqlite.close()
      await postgres.close()
    }
    for (const store of [
      ['--jsonl', join(dir, 'j.jsonl')],
      ['--sqlite', join(dir, 'j.db')],
      ['--postgres', pg.url, '--schema', 'cli_show'],
    ]) {
      const text = await runCli(['journal', 'show', ...store])
      expect(text.stderr, store[0]).toBe('')
      expect(text.code).toBe(0)
      const lines = text.stdout.trimEnd().split('\n')
      // One table per attempt, in order of first appearance, rows by seq.
      expect(lines.filter((line) => line.startsWith('run '))).toEqual([
        'run run-a  node pay#0  attempt 1',
        'run run-a  node pay#0  attempt 2',
        'run run-b  node pay#0  attempt 1',
      ])
      const header = lines.indexOf('run run-a  node pay#0  attempt 2') + 1
      expect(lines[header]).toMatch(/^ {2}seq +started +tool +status +ms +permission +key +input +result$/)
      expect(lines[header + 1]).toMatch(new RegExp(`^  0 +${TIME} +look +success +\\d+ +allow +[0-9a-f]{12} +\\{"n":1\\} +"look 1"$`))
      expect(lines[header + 2]).toMatch(new RegExp(`^  1 +${TIME} +charge +success \\(replayed\\) +\\d+ +allow +[0-9a-f]{12} +\\{"n":1\\} +"charge 1"$`))
      expect(lines[header + 3]).toMatch(new RegExp(`^  2 +${TIME} +charge +error \\(replayed\\) +\\d+ +allow +[0-9a-f]{12} +\\{"n":2\\} +\\{.*card declined`))
      const runB = lines.indexOf('run run-b  node pay#0  attempt 1')
      expect(lines[runB + 2]).toMatch(/^ {2}0 +\S+ +look +success +\d+ +- /)
      expect(lines).toContain('turns (latest checkpoint):')
      expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^  run run-a  node pay#0  attempt 2  2 steps, \\d+ messages, done, saved ${TIME}  "pay the bill"$`)))
      expect(lines).toContainEqual(expect.stringMatching(/^ {2}run run-b {2}node pay#0 {2}attempt 1 {2}2 steps, /))
      expect(lines.at(-1)).toBe('9 rows in 2 runs: 6 succeeded, 3 failed, 2 replayed; 2 turn checkpoints')

      const json = await runCli(['journal', 'show', ...store, '--json'])
      expect(json.code).toBe(0)
      const doc = JSON.parse(json.stdout) as { rows: Record<string, unknown>[]; turns: Record<string, unknown>[] }
      expect(doc.rows.map((r) => [r.runId, r.attempt, r.seq, r.toolName, r.status, r.replayed])).toEqual([
        ['run-a', 1, 0, 'look', 'success', false],
        ['run-a', 1, 1, 'charge', 'success', false],
        ['run-a', 1, 2, 'charge', 'error', false],
        ['run-a', 2, 0, 'look', 'success', false],
        ['run-a', 2, 1, 'charge', 'success', true],
        ['run-a', 2, 2, 'charge', 'error', true],
        ['run-b', 1, 0, 'look', 'success', false],
        ['run-b', 1, 1, 'charge', 'success', false],
        ['run-b', 1, 2, 'charge', 'error', false],
      ])
      const [, charged, declined] = doc.rows
      expect(charged).toMatchObject({ nodeId: 'pay', iteration: 0, input: { n: 1 }, output: 'charge 1', error: null, permission: { decision: 'allow', policyDecision: 'allow', rule: null, approver: 'policy' } })
      expect(charged!.idempotencyKey).toMatch(/^[0-9a-f]{64}$/)
      expect(charged!.callId).toMatch(/^[0-9a-f]{64}$/)
      expect(charged!.durationMs).toBe((charged!.finishedAtMs as number) - (charged!.startedAtMs as number))
      // The replay is the same call: same key.
      expect(doc.rows[4]!.idempotencyKey).toBe(charged!.idempotencyKey)
      expect(declined).toMatchObject({ output: null, error: { message: expect.stringContaining('card declined') } })
      expect(doc.rows[6]!.permission).toBeNull()
      expect(doc.turns).toEqual([
        { runId: 'run-a', nodeId: 'pay', iteration: 0, attempt: 2, prompt: 'pay the bill', steps: 2, messages: expect.any(Number), done: true, updatedAtMs: expect.any(Number) },
        { runId: 'run-b', nodeId: 'pay', iteration: 0, attempt: 1, prompt: 'pay the bill', steps: 2, messages: expect.any(Number), done: true, updatedAtMs: expect.any(Number) },
      ])

      const onlyB = await runCli(['journal', 'show', ...store, '--run', 'run-b', '--json'])
      const docB = JSON.parse(onlyB.stdout) as typeof doc
      expect(docB.rows.map((r) => r.runId)).toEqual(['run-b', 'run-b', 'run-b'])
      expect(docB.turns.map((t) => t.runId)).toEqual(['run-b'])
    }
  }, 180_000)

  it('shows the calls `toolsmith call --journal` recorded, a repeated key as replayed', async () => {
    const dir = trackedMkdtemp(join(tmpdir(), 'toolsmith-show-call-'))
    const journal = join(dir, 'calls.sqlite')
    for (let i = 0; i < 2; i++) {
      const run = await runCli(['call', 'write', '{"path":"out.txt","content":"hi\\n"}', '--root', dir, '--journal', journal, '--idempotency-key', 'deploy-42'])
      expect(run.code, run.stderr).toBe(0)
    }
    const show = await runCli(['journal', 'show', '--sqlite', journal])
    expect(show.code, show.stderr).toBe(0)
    const lines = show.stdout.trimEnd().split('\n')
    expect(lines.filter((line) => / write +success /.test(line))).toEqual([
      expect.stringMatching(/^ {2}0 +\S+ +write +success +\d+ +- +[0-9a-f]{12} +\{"contentBytes":3,/),
      expect.stringMatching(/^ {2}0 +\S+ +write +success \(replayed\) +\d+ +- +[0-9a-f]{12} +\{"contentBytes":3,/),
    ])
    // `call` writes no turn checkpoint.
    expect(lines.at(-1)).toBe('2 rows in 2 runs: 2 succeeded, 0 failed, 1 replayed; 0 turn checkpoints')
  }, 120_000)

  it('says so when there is nothing to show, and prints valid JSON', async () => {
    const dir = trackedMkdtemp(join(tmpdir(), 'toolsmith-show-empty-'))
    writeFileSync(join(dir, 'empty.jsonl'), '')
    const postgres = new PostgresJournal(pg.url, { schema: 'cli_show_empty' })
    try {
      await postgres.migrate()
    } finally {
      await postgres.close()
    }
    for (const store of [['--jsonl', join(dir, 'empty.jsonl')], ['--postgres', pg.url, '--schema', 'cli_show_empty']]) {
      const text = await runCli(['journal', 'show', ...store])
      expect(text.code).toBe(0)
      expect(text.stdout).toBe('The journal holds no rows.\n')
      const json = await runCli(['journal', 'show', ...store, '--json'])
      expect(json.code).toBe(0)
      expect(JSON.parse(json.stdout)).toEqual({ rows: [], turns: [] })
      const other = await runCli(['journal', 'show', ...store, '--run', 'nope'])
      expect(other.stdout).toBe('The journal holds no rows of run "nope".\n')
    }
  }, 120_000)

  it('refuses what journal audit refuses (exit 2, one line), and options that do not apply', async () => {
    const dir = trackedMkdtemp(join(tmpdir(), 'toolsmith-show-bad-'))
    writeFileSync(join(dir, 'notes.txt'), 'not a journal\n')
    for (const [args, line] of [
      [['--sqlite', join(dir, 'nope.db')], `No SQLite journal at ${join(dir, 'nope.db')}`],
      [['--jsonl', dir], `${dir} is a directory, not a JSONL journal`],
      [['--jsonl', join(dir, 'notes.txt')], `${join(dir, 'notes.txt')} is not a JSONL journal: none of its lines is a journal row`],
      [['--sqlite', join(dir, 'notes.txt')], `${join(dir, 'notes.txt')} is not a SQLite journal (SQLITE_NOTADB: file is not a database)`],
      [[], 'journal show needs a journal: --jsonl FILE, --sqlite FILE or --postgres URL'],
      [['--jsonl', 'a', '--sqlite', 'b'], 'journal show reads one journal; got --jsonl and --sqlite'],
      [['--print-sql'], 'Option "--print-sql" does not apply to "journal show"'],
    ] as const) {
      const run = await runCli(['journal', 'show', ...args], { env: { TOOLSMITH_JOURNAL_URL: '' } })
      expect(run.code, line).toBe(2)
      expect(errorLines(run.stderr)).toEqual([`toolsmith: ${line} (see "toolsmith journal --help")`])
    }
  }, 60_000)
})

describe('toolsmith journal audit --json', () => {
  it('prints one document: the counts of the text report, per tool, and the decisions; valid JSON when there are none', async () => {
    const dir = trackedMkdtemp(join(tmpdir(), 'toolsmith-audit-json-'))
    const file = join(dir, 'j.jsonl')
    const journal = new JsonlJournal(file)
    try {
      await turn(journal, 'run-a', 1, true)
      await turn(journal, 'run-b', 1, false)
    } finally {
      await journal.close()
    }
    const text = await runCli(['journal', 'audit', '--jsonl', file])
    expect(text.stdout.trimEnd().split('\n').at(-1)).toBe('3 calls judged: 3 allowed (3 by policy), 0 denied; 3 without a decision')
    const run = await runCli(['journal', 'audit', '--jsonl', file, '--json'])
    expect(run.code, run.stderr).toBe(0)
    const doc = JSON.parse(run.stdout)
    expect(doc.summary).toEqual({
      calls: 6,
      judged: 3,
      allowed: { total: 3, byPolicy: 3, approved: 0, remembered: 0 },
      denied: { total: 0, byPolicy: 0, declined: 0, remembered: 0, nobodyToAsk: 0 },
      withoutDecision: 3,
      byTool: { look: { allowed: 1, denied: 0, withoutDecision: 1 }, charge: { allowed: 2, denied: 0, withoutDecision: 2 } },
    })
    expect(doc.decisions).toHaveLength(3)
    expect(doc.decisions.every((d: { runId: string }) => d.runId === 'run-a')).toBe(true)

    // Only run-b, which no gate judged: no decision, still a document.
    const none = await runCli(['journal', 'audit', '--jsonl', file, '--run', 'run-b', '--json'])
    expect(none.code).toBe(0)
    expect(JSON.parse(none.stdout)).toMatchObject({ summary: { calls: 3, judged: 0, withoutDecision: 3 }, decisions: [] })
    writeFileSync(join(dir, 'empty.jsonl'), '')
    const empty = await runCli(['journal', 'audit', '--jsonl', join(dir, 'empty.jsonl'), '--json'])
    expect(empty.code).toBe(0)
    expect(JSON.parse(empty.stdout)).toEqual({
      summary: {
        calls: 0,
        judged: 0,
        allowed: { total: 0, byPolicy: 0, approved: 0, remembered: 0 },
        denied: { total: 0, byPolicy: 0, declined: 0, remembered: 0, nobodyToAsk: 0 },
        withoutDecision: 0,
        byTool: {},
      },
      decisions: [],
    })
  }, 120_000)
})
