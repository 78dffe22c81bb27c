/**
 * The PostgreSQL side of `PostgresJournal`: the slice of `pg` it uses, the
 * driver loader, the tables' migration and the fixed statements.
 *
 * @module
 */
import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import { E_OPTIONAL_DEPENDENCY_MISSING } from '../exceptions.js'
import { TOOL_CALL_ROW_FIELDS, type ToolCallRow } from './contract.js'
import { TOOL_CALL_COLUMNS } from './sql_rows.js'

// The slice of `pg` we use, typed here so consumers of our .d.ts files never
// need its types installed.
/** The part of a `pg` query result a {@link PostgresJournal} reads. */
export interface PgQueryResult {
  /** The rows, as objects. */
  rows: Record<string, unknown>[]
  /** Rows inserted, updated or returned. */
  rowCount: number | null
}
/**
 * A statement as `pg` takes it: with a `name`, the driver parses it once per
 * connection (a named prepared statement) and afterwards only binds and
 * executes it.
 */
export interface PgQueryConfig {
  /** The prepared statement's name, unique per statement text; absent for a one-off statement. */
  name?: string
  /** The SQL. */
  text: string
  /** The bound parameters. */
  values?: unknown[]
}
/** The part of a checked-out `pg` client a {@link PostgresJournal} uses. */
export interface PgPoolClient {
  /** Run one statement. */
  query(sql: string, params?: unknown[]): Promise<PgQueryResult>
  /** Give the client back (destroying it when `error` is set). */
  release(error?: unknown): void
}
/** The part of a `pg.Pool` a {@link PostgresJournal} uses. */
export interface PgPoolLike {
  /** Run one statement. */
  query(sql: string, params?: unknown[]): Promise<PgQueryResult>
  /** Run one statement given as a query config (named: prepared once per connection). */
  query(config: PgQueryConfig): Promise<PgQueryResult>
  /** Check out a client (for the migration's transaction). */
  connect(): Promise<PgPoolClient>
  /** Close every connection. */
  end(): Promise<void>
  /** Listen for errors of idle clients. */
  on(event: 'error', listener: (error: Error) => void): unknown
}
/** The `pg.Pool` class. */
export type PoolConstructor = new (config: Record<string, unknown>) => PgPoolLike

let cachedPool: PoolConstructor | undefined

/** @internal */
export function loadDriver(): PoolConstructor {
  if (cachedPool) return cachedPool
  const require = createRequire(import.meta.url)
  try {
    const loaded = require('pg') as { Pool?: PoolConstructor; default?: { Pool: PoolConstructor } }
    cachedPool = loaded.Pool ?? loaded.default!.Pool
    return cachedPool
  } catch (cause) {
    throw new E_OPTIONAL_DEPENDENCY_MISSING(
      'PostgresJournal needs the optional peer dependency "pg": run `npm install pg`, ' +
        'or use SqliteJournal (one machine) or JsonlJournal (one process)',
      { cause, details: { dependency: 'pg' } },
    )
  }
}

/** @internal */
export const COLUMNS = TOOL_CALL_COLUMNS
/** The PostgreSQL type of each row column, for casts of bound parameters. */
/** @internal */
export const TYPES: Readonly<Record<keyof ToolCallRow, string>> = {
  runId: 'text',
  nodeId: 'text',
  iteration: 'integer',
  attempt: 'integer',
  seq: 'integer',
  toolName: 'text',
  inputJson: 'text',
  outputJson: 'text',
  startedAtMs: 'bigint',
  finishedAtMs: 'bigint',
  status: 'text',
  errorJson: 'text',
  callId: 'text',
  idempotencyKey: 'text',
  replayed: 'boolean',
  permissionJson: 'text',
}

/** Now on the database's clock, in epoch milliseconds: every lease is set and compared on one clock. */
/** @internal */
export const NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint'

/** Columns later versions added to existing tables: `[table, column, type]`. */
const ADDED_COLUMNS: readonly (readonly [string, string, string])[] = [
  ['tool_calls', 'permission_json', 'text'],
  ['tool_claims', 'permission_json', 'text'],
]

/**
 * The migration `toolsmith journal migrate --postgres URL` runs: idempotent,
 * serialised by an advisory lock so several workers may run it at once. On a
 * schema made by an earlier version it adds the columns added since.
 *
 * @param schema - The schema name (already checked).
 * @returns The SQL statements, in order.
 */
export function postgresJournalMigration(schema: string): string[] {
  const s = `"${schema}"`
  const rowColumns = `
  run_id text NOT NULL,
  node_id text NOT NULL,
  iteration integer NOT NULL,
  attempt integer NOT NULL,
  seq integer NOT NULL,
  tool_name text NOT NULL,
  input_json text NOT NULL,
  output_json text,
  started_at_ms bigint NOT NULL,
  finished_at_ms bigint NOT NULL,
  error_json text,
  call_id text NOT NULL,
  idempotency_key text NOT NULL,
  replayed boolean NOT NULL DEFAULT false,
  side_effect boolean,
  idempotent boolean,
  permission_json text`
  return [
    `CREATE SCHEMA IF NOT EXISTS ${s}`,
    `CREATE TABLE IF NOT EXISTS ${s}.tool_calls (
  id bigserial PRIMARY KEY,${rowColumns},
  status text NOT NULL CHECK (status IN ('success', 'error'))
)`,
    `CREATE INDEX IF NOT EXISTS tool_calls_by_run ON ${s}.tool_calls (run_id, node_id, iteration, attempt, seq)`,
    `CREATE INDEX IF NOT EXISTS tool_calls_by_idempotency_key ON ${s}.tool_calls (idempotency_key)`,
    `CREATE TABLE IF NOT EXISTS ${s}.tool_claims (
  claim_key text PRIMARY KEY,
  owner text NOT NULL,
  lease_expires_at_ms bigint NOT NULL,${rowColumns},
  status text NOT NULL CHECK (status IN ('running', 'success', 'error'))
)`,
    `CREATE TABLE IF NOT EXISTS ${s}.turn_checkpoints (
  run_id text NOT NULL,
  node_id text NOT NULL,
  iteration integer NOT NULL,
  attempt integer NOT NULL,
  prompt text NOT NULL,
  messages_json text NOT NULL,
  steps integer NOT NULL,
  state_json text NOT NULL,
  done boolean NOT NULL,
  updated_at_ms bigint NOT NULL,
  PRIMARY KEY (run_id, node_id, iteration)
)`,
    `CREATE TABLE IF NOT EXISTS ${s}.turn_checkpoint_deltas (
  id bigserial PRIMARY KEY,
  checkpoint_id text NOT NULL,
  parent_id text,
  run_id text NOT NULL,
  node_id text NOT NULL,
  iteration integer NOT NULL,
  attempt integer NOT NULL,
  prompt text NOT NULL,
  messages_json text NOT NULL,
  steps integer NOT NULL,
  state_json text NOT NULL,
  done boolean NOT NULL,
  updated_at_ms bigint NOT NULL
)`,
    `CREATE INDEX IF NOT EXISTS turn_checkpoint_deltas_by_turn ON ${s}.turn_checkpoint_deltas (run_id, node_id, iteration, id)`,
    // Columns added after the tables first shipped: a schema made by an
    // earlier version gains them here (the CREATEs above leave it as it was).
    // Checked first because ALTER TABLE locks the table out even when the
    // column is there, and workers run this on every start.
    ...ADDED_COLUMNS.map(
      ([table, column, type]) =>
        `DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = '${s}.${table}'::regclass ` +
        `AND attname = '${column}' AND NOT attisdropped) THEN ALTER TABLE ${s}.${table} ADD COLUMN IF NOT EXISTS ${column} ${type}; END IF; END $$`,
    ),
  ]
}

/** The journal's tables, schema-qualified. */
/** @internal */
export interface Tables {
  calls: string
  claims: string
  turns: string
  deltas: string
}

/** A fixed statement of the journal: its text, and its prepared-statement name when those are on. */
/** @internal */
export interface Statement {
  name?: string
  text: string
}

/** The journal's fixed statements, built once per journal (they depend only on the schema). */
/** @internal */
export interface Statements {
  record: Statement
  sideEffects: Statement
  claim: Statement
  renew: Statement
  takeOver: Statement
  complete: Statement
  release: Statement
  getClaim: Statement
  saveTurn: Statement
  saveWholeTurn: Statement
}

/** @internal */
export const ROW_COLUMNS = [...TOOL_CALL_ROW_FIELDS.map((f) => COLUMNS[f]), 'side_effect', 'idempotent']
/** @internal */
export const ROW_TYPES = [...TOOL_CALL_ROW_FIELDS.map((f) => TYPES[f]), 'boolean', 'boolean']
/** @internal */
export const ROW_SELECT = TOOL_CALL_ROW_FIELDS.map((f) => `${COLUMNS[f]} AS "${f}"`).join(', ')

/** @internal */
export function statements(t: Tables, prepared: boolean): Statements {
  const values = (from: number): string => ROW_COLUMNS.map((_, i) => `$${i + from}`).join(', ')
  // In the outcome, parameter $3 on are the row's fields, typed explicitly:
  // an INSERT … SELECT cannot infer them from the target columns.
  const at = (field: keyof ToolCallRow): string => `$${TOOL_CALL_ROW_FIELDS.indexOf(field as never) + 3}::${TYPES[field]}`
  const insertTurn =
    `INSERT INTO ${t.deltas} (checkpoint_id, parent_id, run_id, node_id, iteration, attempt, prompt, messages_json, steps, state_json, done, updated_at_ms) ` +
    'VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)'
  const texts: Record<keyof Statements, string> = {
    record: `INSERT INTO ${t.calls} (${ROW_COLUMNS.join(', ')}) VALUES (${values(1)})`,
    sideEffects:
      `SELECT ${ROW_SELECT} FROM ${t.calls} WHERE run_id = $1 AND node_id = $2 AND iteration = $3 ` +
      'AND ((side_effect AND NOT idempotent) OR side_effect IS NULL) ORDER BY id',
    claim:
      `INSERT INTO ${t.claims} (claim_key, owner, lease_expires_at_ms, ${ROW_COLUMNS.join(', ')}) ` +
      `VALUES ($1, $2, ${NOW_MS} + $3::bigint, ${values(4)}) ` +
      'ON CONFLICT (claim_key) DO NOTHING RETURNING lease_expires_at_ms',
    renew: `UPDATE ${t.claims} SET lease_expires_at_ms = ${NOW_MS} + $3::bigint WHERE claim_key = $1 AND owner = $2 AND status = 'running'`,
    takeOver:
      `UPDATE ${t.claims} SET owner = $3, lease_expires_at_ms = ${NOW_MS} + $4::bigint ` +
      "WHERE claim_key = $1 AND owner = $2 AND status = 'running'",
    complete:
      `WITH settled AS (UPDATE ${t.claims} SET status = ${at('status')}, output_json = ${at('outputJson')}, ` +
      `error_json = ${at('errorJson')}, finished_at_ms = ${at('finishedAtMs')}, replayed = ${at('replayed')}, ` +
      `permission_json = ${at('permissionJson')} ` +
      "WHERE claim_key = $1 AND owner = $2 AND status = 'running' RETURNING 1) " +
      `INSERT INTO ${t.calls} (${ROW_COLUMNS.join(', ')}) SELECT ${ROW_COLUMNS.map((_, i) => `$${i + 3}::${ROW_TYPES[i]}`).join(', ')} FROM settled`,
    release: `DELETE FROM ${t.claims} WHERE claim_key = $1 AND owner = $2 AND status = 'running'`,
    getClaim:
      `SELECT claim_key AS "claimKey", owner, lease_expires_at_ms AS "leaseExpiresAtMs", ${ROW_SELECT}, ` +
      `lease_expires_at_ms <= ${NOW_MS} AS "expired" FROM ${t.claims} WHERE claim_key = $1`,
    saveTurn: insertTurn,
    // A whole checkpoint supersedes the row an earlier version kept for the
    // turn (the conversation with every argument in clear): one statement.
    saveWholeTurn:
      `WITH superseded AS (DELETE FROM ${t.turns} WHERE run_id = $3 AND node_id = $4 AND iteration = $5) ${insertTurn}`,
  }
  const out = {} as Statements
  for (const [key, text] of Object.entries(texts) as [keyof Statements, string][]) {
    // The name is derived from the text: two journals on one pool with
    // different schemas get different names (pg refuses one name for two
    // texts), the same schema shares them, and a changed statement in a
    // later version never meets a connection's stale preparation.
    out[key] = prepared ? { name: `toolsmith_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`, text } : { text }
  }
  return out
}
