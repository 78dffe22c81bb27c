// Turn checkpoints in PostgreSQL (a server this file starts itself): no
// failed-validation password or write content in any row, resume finishes
// the turn, each step appends a delta (WAL bytes per step do not grow with the
// turn), a schema of the previous version resumes after `migrate`, and a
// broken chain is E_JOURNAL_CORRUPT.
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pgDriver from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { E_JOURNAL_CORRUPT, E_JOURNAL_UNAVAILABLE, PostgresJournal, TurnRunner, createTools, scriptedModel, type Message } from '../../lib/index.js'
import { CONTENT, PASSWORD, assistantArgs, firstAnswer, growthTurn, interruptedTurn, threeStepTurn } from '../support/checkpoint_turns.js'
import { startPostgres, type TestPostgres } from '../support/postgres.js'
import { oldPostgresMigration } from '../support/previous_journal_schema.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'

let pg: TestPostgres
let admin: pgDriver.Client
const journals: PostgresJournal[] = []
let schemaCount = 0

beforeAll(async () => {
  pg = await startPostgres()
  admin = new pgDriver.Client({ connectionString: pg.url })
  await admin.connect()
}, 120_000)

afterAll(async () => {
  for (const journal of journals) await journal.close()
  await admin?.end()
  await pg?.stop()
}, 60_000)

async function freshJournal(options: { migrate?: boolean; schema?: string } = {}): Promise<PostgresJournal> {
  const journal = new PostgresJournal(pg.url, { schema: options.schema ?? `ckpt_${process.pid}_${schemaCount++}` })
  journals.push(journal)
  if (options.migrate !== false) await journal.migrate()
  return journal
}

/** Every row of every table of the journal's schema, as text. */
async function rowsText(schema: string): Promise<string> {
  const tables = await admin.query<{ table_name: string }>('SELECT table_name FROM information_schema.tables WHERE table_schema = $1', [schema])
  const out: string[] = []
  for (const { table_name } of tables.rows) out.push(JSON.stringify((await admin.query(`SELECT * FROM "${schema}"."${table_name}"`)).rows))
  return out.join('\n')
}

const tempDir = (): string => trackedMkdtemp(join(tmpdir(), 'toolsmith-pgckpt-'))

describe('PostgresJournal turn checkpoints', () => {
  it('no row holds the failed-validation password or the write content; resume finishes the turn, exactly with checkpointKey', async () => {
    for (const checkpointKey of [undefined, randomBytes(32)]) {
      const journal = await freshJournal()
      const dir = tempDir()
      const before = await interruptedTurn(journal, dir, checkpointKey ? { checkpointKey } : {})
      expect(await rowsText(journal.schema)).not.toContain(PASSWORD)
      expect(await rowsText(journal.schema)).not.toContain(CONTENT)
      let saw: Message[] = []
      const resumed = await new TurnRunner({
        model: async ({ messages }) => {
          saw = messages
          return { text: 'notes taken' }
        },
        tools: [createTools({ rootDir: dir }).write],
        journal,
        ...(checkpointKey ? { checkpointKey } : {}),
      }).resume('ckpt-run')
      expect(resumed.text).toBe('notes taken')
      expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe(CONTENT)
      if (checkpointKey) expect(saw).toEqual(before)
      else expect(assistantArgs(saw)).not.toEqual(firstAnswer().map((c) => c.args))
      expect(saw.filter((m) => m.role === 'tool')).toEqual(before.filter((m) => m.role === 'tool'))
      expect((await journal.list({ toolName: 'write', status: 'success' })).map((r) => r.replayed)).toEqual([false, true])
      expect(await rowsText(journal.schema)).not.toContain(PASSWORD)
      expect(await rowsText(journal.schema)).not.toContain(CONTENT)
    }
  }, 120_000)

  it('appends deltas: the WAL bytes a step adds at step 200 are within 1.5x of those at step 10', async () => {
    const journal = await freshJournal()
    // Background writes of the server itself must not land in one window only.
    for (const { table_name } of (await admin.query<{ table_name: string }>('SELECT table_name FROM information_schema.tables WHERE table_schema = $1', [journal.schema])).rows) {
      await admin.query(`ALTER TABLE "${journal.schema}"."${table_name}" SET (autovacuum_enabled = false, toast.autovacuum_enabled = false)`)
    }
    await admin.query('CHECKPOINT')
    const walBytes = async (): Promise<number> =>
      Number((await admin.query<{ b: string }>("SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint AS b")).rows[0]!.b)
    const { at10, at200 } = await growthTurn(journal, walBytes)
    console.log(`PostgresJournal: ${Math.round(at10)} WAL bytes per step at step 10, ${Math.round(at200)} at step 200`)
    expect(at10).toBeGreaterThan(0)
    expect(at200).toBeLessThanOrEqual(at10 * 1.5)
    expect(JSON.parse((await journal.loadTurn('ckpt-run'))!.messagesJson)).toHaveLength(1 + 200 * 3)
  }, 300_000)

  it('a schema of the previous version: E_JOURNAL_UNAVAILABLE naming `journal migrate` until migrated, then its whole checkpoint resumes and its clear-text row is dropped', async () => {
    const schema = `ckpt_old_${process.pid}`
    // The previous version's schema: the one before permission records, plus its permission_json columns.
    for (const statement of oldPostgresMigration(schema)) await admin.query(statement)
    for (const table of ['tool_calls', 'tool_claims']) await admin.query(`ALTER TABLE "${schema}".${table} ADD COLUMN permission_json text`)
    const messages: Message[] = [
      { role: 'user', content: 'take notes' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'w', name: 'write', args: { path: 'old.txt', content: CONTENT } }] },
    ]
    await admin.query(
      `INSERT INTO "${schema}".turn_checkpoints (run_id, node_id, iteration, attempt, prompt, messages_json, steps, state_json, done, updated_at_ms) ` +
        'VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
      ['old-run', 'fix', 0, 1, 'take notes', JSON.stringify(messages), 1, '{"claims":{},"seq":0}', false, Date.now()],
    )
    const dir = tempDir()
    const journal = await freshJournal({ schema, migrate: false })
    const runner = (): TurnRunner => new TurnRunner({ model: scriptedModel([{ text: 'written' }]), tools: [createTools({ rootDir: dir }).write], journal })
    const refused = await runner().resume('old-run').catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(E_JOURNAL_UNAVAILABLE)
    expect((refused as Error).message).toMatch(/turn_checkpoint_deltas" does not exist .*earlier version of toolsmith.*run `toolsmith journal migrate --postgres URL` or journal\.migrate\(\)/)
    expect((refused as Error).message).not.toContain(pg.password)

    await journal.migrate()
    const resumed = await runner().resume('old-run')
    expect(resumed.text).toBe('written')
    expect(readFileSync(join(dir, 'old.txt'), 'utf8')).toBe(CONTENT)
    expect((await admin.query(`SELECT * FROM "${schema}".turn_checkpoints`)).rows).toEqual([])
    expect(await rowsText(schema)).not.toContain(CONTENT)
    expect((await new TurnRunner({ model: scriptedModel([{ text: 'never' }]), tools: [], journal }).resume('old-run')).text).toBe('written')
  }, 120_000)

  it('a chain with a missing link fails with E_JOURNAL_CORRUPT', async () => {
    const journal = await freshJournal()
    await threeStepTurn(journal)
    await admin.query(`DELETE FROM "${journal.schema}".turn_checkpoint_deltas WHERE id = (SELECT MIN(id) + 1 FROM "${journal.schema}".turn_checkpoint_deltas)`)
    const error = await new TurnRunner({ model: scriptedModel([]), tools: [], journal }).resume('ckpt-run').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(E_JOURNAL_CORRUPT)
    expect((error as Error).message).toMatch(/^The checkpoint chain of run "ckpt-run" node "fix" iteration 0 cannot be rebuilt: record [0-9a-f-]+ is missing/)
  }, 60_000)
})
