// `toolsmith journal migrate` against a real PostgreSQL this file starts itself.
import { startPostgres, type TestPostgres } from '../support/postgres.js'
import { oldPostgresMigration } from '../support/previous_journal_schema.js'
import pgDriver from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { E_JOURNAL_UNAVAILABLE, PostgresJournal } from '../../lib/index.js'
import { runCli } from './support/run_cli.js'

let pg: TestPostgres

beforeAll(async () => {
  pg = await startPostgres()
}, 120_000)

afterAll(async () => {
  await pg?.stop()
}, 60_000)

function errorLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.trim() !== '' && !/^\((node:\d+|Use `node)/.test(line))
}

describe('toolsmith journal migrate', () => {
  it('creates the tables a PostgresJournal then uses, and can run again', async () => {
    for (let i = 0; i < 2; i++) {
      const run = await runCli(['journal', 'migrate', '--postgres', pg.url, '--schema', 'cli_journal'])
      expect(run.stderr).toBe('')
      expect(run.code).toBe(0)
      expect(run.stdout).toMatch(/^Journal schema "cli_journal" is ready at postgres@127\.0\.0\.1:\d+\/postgres \(tables tool_calls, tool_claims, turn_checkpoints\)\n$/)
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

  it('fails in one line, without the password, on wrong credentials and bad URLs (exit 1)', async () => {
    for (const url of [pg.url.replace(pg.password, 'wrong-s3cr3t'), 'mysql://root:wrong-s3cr3t@localhost/x']) {
      const run = await runCli(['journal', 'migrate', '--postgres', url])
      expect(run.code).toBe(1)
      const lines = errorLines(run.stderr)
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^toolsmith: (E_JOURNAL_UNAVAILABLE|E_INVALID_OPTIONS): /)
      expect(run.stderr).not.toContain('wrong-s3cr3t')
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
