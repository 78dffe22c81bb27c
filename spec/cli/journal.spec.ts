// `toolsmith journal migrate` against a real PostgreSQL this file starts itself.
import { startPostgres, type TestPostgres } from '../support/postgres.js'
import { oldPostgresMigration } from '../support/previous_journal_schema.js'
import pgDriver from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { trackedMkdtemp } from '../support/temp_dirs.js'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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
  type ClaimingJournal,
} from '../../lib/index.js'
import { runCli, errorLines } from './support/run_cli.js'

let pg: TestPostgres

beforeAll(async () => {
  pg = await startPostgres()
}, 120_000)

afterAll(async () => {
  await pg?.stop()
}, 60_000)

describe('toolsmith journal migrate', () => {
  it('creates the tables a PostgresJournal then uses, and can run again', async () => {
    for (let i = 0; i < 2; i++) {
      const run = await runCli(['journal', 'migrate', '--postgres', pg.url, '--schema', 'cli_journal'])
      expect(run.stderr).toBe('')
      expect(run.code).toBe(0)
      expect(run.stdout).toMatch(/^Journal schema "cli_journal" is ready at postgres@127\.0\.0\.1:\d+\/postgres \(tables tool_calls, tool_claims, turn_checkpoints, turn_checkpoint_deltas\)\n$/)
      expect(run.stdout).not.toContain(pg.password)
    }
    const journal = new PostgresJournal(pg.url, { schema: 'cli_journal' })
    try {
      expect(await journal.list()).toEqual([])
    } finally {
      await journal.close()
    }
  }, 60_000)

  it('upgrades a schema made by the previous version: adds permission_json, keeps the rows, and can run again', async () => {
    const client = new pgDriver.Client({ connectionString: pg.url })
    await client.connect()
    try {
      for (const statement of oldPostgresMigration('cli_old')) await client.query(statement)
      await client.query(
        'INSERT INTO "cli_old".tool_calls (run_id, node_id, iteration, attempt, seq, tool_name, input_json, output_json, ' +
          "started_at_ms, finished_at_ms, status, call_id, idempotency_key) VALUES ('r-old', 'n', 0, 1, 0, 'read', '{}', '\"x\"', 1, 2, 'success', 'c', 'k')",
      )
    } finally {
      await client.end()
    }
    const journal = new PostgresJournal(pg.url, { schema: 'cli_old' })
    try {
      // Before the upgrade the journal says what to run.
      await expect(journal.list()).rejects.toThrow(E_JOURNAL_UNAVAILABLE)
      await expect(journal.list()).rejects.toThrow(/run `toolsmith journal migrate --postgres URL`/)
      for (let i = 0; i < 2; i++) {
        const run = await runCli(['journal', 'migrate', '--postgres', pg.url, '--schema', 'cli_old'])
        expect(run.stderr).toBe('')
        expect(run.code).toBe(0)
      }
      expect(await journal.list()).toEqual([expect.objectContaining({ runId: 'r-old', outputJson: '"x"', permissionJson: null })])
      await journal.record({
        runId: 'r-new', nodeId: 'n', iteration: 0, attempt: 1, seq: 0, toolName: 'read', inputJson: '{}', outputJson: '"y"',
        startedAtMs: 3, finishedAtMs: 4, status: 'success', errorJson: null, callId: 'c2', idempotencyKey: 'k2',
        permissionJson: '{"decision":"allow"}',
      })
      expect((await journal.list({ runId: 'r-new' }))[0]!.permissionJson).toBe('{"decision":"allow"}')
    } finally {
      await journal.close()
    }
  }, 60_000)

  it('reads the URL from TOOLSMITH_JOURNAL_URL when --postgres is not given', async () => {
    const run = await runCli(['journal', 'migrate'], { env: { TOOLSMITH_JOURNAL_URL: pg.url } })
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('Journal schema "toolsmith" is ready')
  }, 60_000)

  it('prints the SQL without connecting', async () => {
    const run = await runCli(['journal', 'migrate', '--print-sql'])
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('CREATE TABLE IF NOT EXISTS "toolsmith".tool_claims')
    expect(run.stdout).toContain('ALTER TABLE "toolsmith".tool_calls ADD COLUMN IF NOT EXISTS permission_json text')
  }, 60_000)

  it("fails in one line, without the password, on wrong credentials (exit 1) and on a URL that is not PostgreSQL's (exit 2: usage)", async () => {
    for (const [url, code, pattern] of [
      [pg.url.replace(pg.password, 'wrong-s3cr3t'), 1, /^toolsmith: E_JOURNAL_UNAVAILABLE: /],
      ['mysql://root:wrong-s3cr3t@localhost/x', 2, /^toolsmith: Not a PostgreSQL URL.*\(see "toolsmith journal --help"\)$/],
      // libpq takes a password in the query string too: never printed either.
      ['postgres:///db?password=wrong-s3cr3t', 2, /^toolsmith: PostgreSQL URL without a host: postgres:\/\/\/db\?password=\*\*\* /],
      ['mysql://h/x?sslpassword=wrong-s3cr3t', 2, /^toolsmith: Not a PostgreSQL URL: mysql:\/\/h\/x\?sslpassword=\*\*\*;/],
    ] as const) {
      for (const sub of code === 2 ? ['migrate', 'audit'] : ['migrate']) {
        const run = await runCli(['journal', sub, '--postgres', url])
        expect(run.code).toBe(code)
        const lines = errorLines(run.stderr)
        expect(lines).toHaveLength(1)
        expect(lines[0]).toMatch(pattern)
        expect(run.stderr).not.toContain('wrong-s3cr3t')
      }
    }
  }, 60_000)

  it('exits 2 on usage errors', async () => {
    for (const [args, text] of [
      [['journal'], 'journal needs a subcommand: migrate'],
      [['journal', 'drop'], 'Unknown journal subcommand "drop"'],
      [['journal', 'migrate'], 'journal migrate needs --postgres URL'],
    ] as const) {
      const run = await runCli([...args], { env: { TOOLSMITH_JOURNAL_URL: '' } })
      expect(run.code).toBe(2)
      expect(run.stderr).toContain(text)
    }
  }, 60_000)
})

/** A turn whose calls meet every kind of decision, journaled in `journal` under run `runId`. */
async function auditedTurn(journal: ClaimingJournal, runId: string): Promise<void> {
  const tool = (name: string) =>
    new Tool({
      name,
      description: name,
      inputSchema: validator.object({ n: validator.number().required() }),
      sideEffect: name !== 'look',
      idempotent: true,
      handler: async ({ n }: { n: number }) => `${name} ${n}`,
    })
  await new TurnRunner({
    model: scriptedModel([
      {
        toolCalls: [
          { id: 'a', name: 'look', args: { n: 1 } },
          { id: 'b', name: 'charge', args: { n: 1 } },
          { id: 'c', name: 'charge', args: { n: 2 } },
          { id: 'd', name: 'deploy', args: { n: 1 } },
          { id: 'e', name: 'wipe', args: { n: 1 } },
          { id: 'f', name: 'look', args: { n: 'bad' } },
        ],
      },
      { text: 'done' },
    ]),
    tools: ['look', 'charge', 'deploy', 'wipe'].map(tool),
    journal,
    identity: { runId, nodeId: 'ship', iteration: 0, attempt: 1 },
    permissions: new Permissions({
      policy: {
        rules: [
          { name: 'looking is fine', tool: 'look', decision: 'allow' },
          { name: 'ask before charging', tool: 'charge', decision: 'ask', reason: 'it costs money' },
          { name: 'ask before deploying', tool: 'deploy', decision: 'ask' },
          { name: 'never wipe', tool: 'wipe', decision: 'deny', reason: 'there is no backup' },
        ],
      },
      approverName: 'on-call',
      approve: ({ toolName }) => (toolName === 'charge' ? { decision: 'allow', remember: true, note: 'within budget' } : { decision: 'deny', note: 'frozen' }),
    }),
  }).run('ship it')
}

const TIME = String.raw`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z`
const MS = String.raw`[\d.]+ ms`
/** The report's lines for {@link auditedTurn}, in seq order. */
function expectedLines(runId: string): RegExp[] {
  const at = (seq: number) => `${TIME}  ${runId} ship#0 attempt 1 seq ${seq}  `
  return [
    new RegExp(`^${at(0)}ALLOW  look \\{"n":1\\}  policy says allow, rules\\[0\\] \\("looking is fine"\\), ${MS}$`),
    new RegExp(`^${at(1)}ALLOW  charge \\{"n":1\\}  ask, approved by on-call, rules\\[1\\] \\("ask before charging"\\) \\(reason: it costs money; note: within budget\\), ${MS}$`),
    new RegExp(`^${at(2)}ALLOW  charge \\{"n":2\\}  ask, approved earlier in the turn \\(remembered\\), rules\\[1\\] \\("ask before charging"\\) \\(reason: it costs money; note: within budget\\), ${MS}$`),
    new RegExp(`^${at(3)}DENY   deploy \\{"n":1\\}  ask, declined by on-call, rules\\[2\\] \\("ask before deploying"\\) \\(note: frozen\\), ${MS}$`),
    new RegExp(`^${at(4)}DENY   wipe \\{"n":1\\}  policy says deny, rules\\[3\\] \\("never wipe"\\) \\(reason: there is no backup\\), ${MS}$`),
  ]
}
const SUMMARY = '5 calls judged: 3 allowed (1 by policy, 1 approved, 1 remembered), 2 denied (1 by policy, 1 declined); 1 without a decision'

describe('toolsmith journal audit', () => {
  it('prints every decision of a JSONL, SQLite or PostgreSQL journal, one line per call, and the counts', async () => {
    const dir = trackedMkdtemp(join(tmpdir(), 'toolsmith-audit-'))
    const jsonl = new JsonlJournal(join(dir, 'j.jsonl'))
    const sqlite = new SqliteJournal(join(dir, 'j.db'))
    const postgres = new PostgresJournal(pg.url, { schema: 'cli_audit' })
    try {
      await postgres.migrate()
      for (const journal of [jsonl, sqlite, postgres]) await auditedTurn(journal, 'run-a')
      await auditedTurn(jsonl, 'run-b')
    } finally {
      sqlite.close()
      await postgres.close()
    }
    for (const args of [
      ['--jsonl', join(dir, 'j.jsonl'), '--run', 'run-a'],
      ['--sqlite', join(dir, 'j.db')],
      ['--postgres', pg.url, '--schema', 'cli_audit'],
    ]) {
      const run = await runCli(['journal', 'audit', ...args])
      expect(run.stderr).toBe('')
      expect(run.code).toBe(0)
      const lines = run.stdout.trimEnd().split('\n')
      // Rows are in journal order; read-only calls may finish in any order, so match by seq.
      const calls = lines.slice(0, -1).sort((x, y) => Number(/ seq (\d+)/.exec(x)![1]) - Number(/ seq (\d+)/.exec(y)![1]))
      expect(calls).toHaveLength(5)
      for (const [i, line] of calls.entries()) expect(line).toMatch(expectedLines('run-a')[i]!)
      expect(lines.at(-1)).toBe(SUMMARY)
    }
    // Without --run: both runs.
    const both = await runCli(['journal', 'audit', '--jsonl', join(dir, 'j.jsonl')])
    expect(both.stdout.trimEnd().split('\n').at(-1)).toBe('10 calls judged: 6 allowed (2 by policy, 2 approved, 2 remembered), 4 denied (2 by policy, 2 declined); 2 without a decision')
    // --json: one document, the counts and one object per decision, the record as the journal keeps it.
    const json = await runCli(['journal', 'audit', '--sqlite', join(dir, 'j.db'), '--json'])
    expect(json.code).toBe(0)
    const { summary, decisions: entries } = JSON.parse(json.stdout) as { summary: unknown; decisions: { seq: number; toolName: string; input: unknown; permission: { decision: string; approver: string } }[] }
    expect(summary).toMatchObject({ judged: 5, allowed: { total: 3, byPolicy: 1, approved: 1, remembered: 1 }, denied: { total: 2, byPolicy: 1, declined: 1 }, withoutDecision: 1 })
    expect(entries.map((e) => [e.seq, e.toolName, e.input, e.permission.decision, e.permission.approver])).toEqual(
      expect.arrayContaining([
        [0, 'look', { n: 1 }, 'allow', 'policy'],
        [1, 'charge', { n: 1 }, 'allow', 'on-call'],
        [2, 'charge', { n: 2 }, 'allow', 'remembered'],
        [3, 'deploy', { n: 1 }, 'deny', 'on-call'],
        [4, 'wipe', { n: 1 }, 'deny', 'policy'],
      ]),
    )
    expect(entries).toHaveLength(5)
    expect(entries.find((e) => e.seq === 1)).toMatchObject({
      runId: 'run-a', nodeId: 'ship', iteration: 0, attempt: 1, status: 'success', replayed: false,
      permission: { policyDecision: 'ask', rule: { index: 1, name: 'ask before charging' }, reason: 'it costs money', note: 'within budget', latencyMs: expect.any(Number) },
    })
  }, 120_000)

  it('refuses a journal file that does not exist (nothing created), is a directory or is not a journal, and a command line naming no store or two (exit 2, one line, no raw errno)', async () => {
    const dir = trackedMkdtemp(join(tmpdir(), 'toolsmith-audit-'))
    const { existsSync, writeFileSync } = await import('node:fs')
    writeFileSync(join(dir, 'notes.txt'), 'not a journal\nat all\n')
    for (const [args, line] of [
      [['--sqlite', join(dir, 'nope.db')], `No SQLite journal at ${join(dir, 'nope.db')}`],
      [['--jsonl', join(dir, 'nope.jsonl')], `No JSONL journal at ${join(dir, 'nope.jsonl')}`],
      [['--jsonl', dir], `${dir} is a directory, not a JSONL journal`],
      [['--sqlite', dir], `${dir} is a directory, not a SQLite journal`],
      [['--sqlite', join(dir, 'notes.txt')], `${join(dir, 'notes.txt')} is not a SQLite journal (SQLITE_NOTADB: file is not a database)`],
      [['--jsonl', join(dir, 'notes.txt')], `${join(dir, 'notes.txt')} is not a JSONL journal: none of its lines is a journal row`],
    ] as const) {
      const run = await runCli(['journal', 'audit', ...args])
      expect(run.code, line).toBe(2)
      expect(errorLines(run.stderr)).toEqual([`toolsmith: ${line} (see "toolsmith journal --help")`])
    }
    expect(existsSync(join(dir, 'nope.db'))).toBe(false)
    expect(existsSync(join(dir, 'nope.jsonl'))).toBe(false)

    // A SQLite database that is not a journal is refused, and left exactly as it was (auditing only reads).
    const { default: Database } = await import('better-sqlite3')
    const other = join(dir, 'other.db')
    const db = new Database(other)
    db.exec('CREATE TABLE t (x INTEGER)')
    db.close()
    const objects = () => {
      const reader = new Database(other, { readonly: true })
      try {
        return reader.prepare('SELECT name FROM sqlite_master ORDER BY name').all()
      } finally {
        reader.close()
      }
    }
    const before = objects()
    const refused = await runCli(['journal', 'audit', '--sqlite', other])
    expect(refused.code).toBe(2)
    expect(errorLines(refused.stderr)).toEqual([`toolsmith: ${other} is not a SQLite journal: it has no tool_calls table (see "toolsmith journal --help")`])
    expect(objects()).toEqual(before)
    for (const [args, text] of [
      [['journal', 'audit'], 'journal audit needs a journal: --jsonl FILE, --sqlite FILE or --postgres URL'],
      [['journal', 'audit', '--jsonl', 'a', '--sqlite', 'b'], 'journal audit reads one journal; got --jsonl and --sqlite'],
      [['journal', 'migrate', '--json'], 'Option "--json" does not apply to "journal migrate"'],
      [['journal', 'audit', '--print-sql'], 'Option "--print-sql" does not apply to "journal audit"'],
    ] as const) {
      const run = await runCli([...args], { env: { TOOLSMITH_JOURNAL_URL: '' } })
      expect(run.code).toBe(2)
      expect(run.stderr).toContain(text)
    }
  }, 60_000)
})
