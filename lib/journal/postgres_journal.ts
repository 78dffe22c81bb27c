/**
 * `PostgresJournal`: the tool-call journal in PostgreSQL, on the optional
 * peer `pg`, shared by any number of workers on any number of machines.
 *
 * @module
 */
import { createHash, randomUUID } from 'node:crypto'
import { createRequire } from 'node:module'
import { E_INVALID_OPTIONS, E_JOURNAL_UNAVAILABLE, E_OPTIONAL_DEPENDENCY_MISSING } from '../exceptions.js'
import {
  DEFAULT_JOURNAL_MAX_OUTPUT_BYTES,
  normaliseRow,
  rowFromSql,
  TOOL_CALL_COLUMNS,
  TOOL_CALL_ROW_FIELDS,
  type ClaimRequest,
  type ClaimResult,
  type ClaimingJournal,
  type JournalOptions,
  type ToolCallClaim,
  type ToolCallFilter,
  type ToolCallFlags,
  type ToolCallRow,
  type ToolCallScope,
  type TurnCheckpoint,
} from './journal.js'
import { foldTurnChain, newerCheckpoint } from './checkpoint_chain.js'
import { CHECKPOINT_DELTA_SELECT, CHECKPOINT_SELECT, checkpointFromSql, claimFromSql } from './sql_rows.js'

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
type PoolConstructor = new (config: Record<string, unknown>) => PgPoolLike

/** Options of {@link PostgresJournal}. */
export interface PostgresJournalOptions extends JournalOptions {
  /**
   * The PostgreSQL schema holding the journal's tables; created by
   * {@link PostgresJournal.migrate}. Letters, digits and `_`.
   *
   * @defaultValue 'toolsmith'
   */
  schema?: string
  /**
   * Most connections the journal's own pool opens (ignored when you pass a pool).
   *
   * @defaultValue 4
   */
  maxConnections?: number
  /**
   * How long to wait for a connection before failing with `E_JOURNAL_UNAVAILABLE`, in milliseconds.
   *
   * @defaultValue 5_000
   */
  connectionTimeoutMs?: number
  /**
   * Send the journal's fixed statements (claim, outcome, lease renewal, row,
   * checkpoint) as named prepared statements, parsed and planned once per
   * connection instead of on every call. Turn it off only behind a pooler that
   * cannot keep protocol-level prepared statements (PgBouncer in transaction
   * mode before 1.21, or without `max_prepared_statements`).
   *
   * @defaultValue true
   */
  preparedStatements?: boolean
}

let cachedPool: PoolConstructor | undefined

function loadDriver(): PoolConstructor {
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

const COLUMNS = TOOL_CALL_COLUMNS
/** The PostgreSQL type of each row column, for casts of bound parameters. */
const TYPES: Readonly<Record<keyof ToolCallRow, string>> = {
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
const NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint'

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
interface Tables {
  calls: string
  claims: string
  turns: string
  deltas: string
}

/** A fixed statement of the journal: its text, and its prepared-statement name when those are on. */
interface Statement {
  name?: string
  text: string
}

/** The journal's fixed statements, built once per journal (they depend only on the schema). */
interface Statements {
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

const ROW_COLUMNS = [...TOOL_CALL_ROW_FIELDS.map((f) => COLUMNS[f]), 'side_effect', 'idempotent']
const ROW_TYPES = [...TOOL_CALL_ROW_FIELDS.map((f) => TYPES[f]), 'boolean', 'boolean']
const ROW_SELECT = TOOL_CALL_ROW_FIELDS.map((f) => `${COLUMNS[f]} AS "${f}"`).join(', ')

function statements(t: Tables, prepared: boolean): Statements {
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

/**
 * A journal in PostgreSQL: tables `tool_calls`, `tool_claims` and
 * `turn_checkpoint_deltas` (plus `turn_checkpoints`, read for checkpoints an
 * earlier version wrote) in schema `toolsmith` (see {@link PostgresJournalOptions.schema}).
 *
 * @remarks
 * `pg` is an optional peer dependency, loaded when the first journal is
 * constructed; without it the constructor throws
 * `E_OPTIONAL_DEPENDENCY_MISSING`. Create the tables once with
 * `toolsmith journal migrate --postgres URL` or {@link PostgresJournal.migrate}.
 *
 * A claim is one `INSERT … ON CONFLICT (claim_key) DO NOTHING`: of any
 * number of workers racing on one call, exactly one inserts and runs it.
 * Leases are set and compared on the database's clock, so workers' clock
 * skew does not matter. The outcome and the call's row are written in one
 * statement.
 *
 * Every database failure (server down, connection lost, bad credentials,
 * missing tables) is thrown as `E_JOURNAL_UNAVAILABLE`, in one line and
 * without the password. Tables made by an earlier version lack the newer
 * columns (`permission_json`): statements on them fail the same way, with a
 * message that says to run `toolsmith journal migrate`, which adds them
 * (`ADD COLUMN IF NOT EXISTS`) and keeps every row.
 *
 * @example
 * ```ts
 * const journal = new PostgresJournal(process.env.DATABASE_URL!)
 * await journal.migrate()
 * const runner = new TurnRunner({ model, tools, journal, identity: { runId, nodeId: 'fix', iteration: 0, attempt: 1 } })
 * await runner.run('fix the failing test')
 * await journal.close()
 * ```
 */
export class PostgresJournal implements ClaimingJournal {
  /** The output cap; see {@link JournalOptions.maxOutputBytes}. */
  readonly maxOutputBytes: number
  /** The schema holding the tables. */
  readonly schema: string
  /** Where the journal connects, for messages: `user@host:port/database`, never the password. */
  readonly target: string
  /** Checkpoints are appended as chains of deltas; see {@link ClaimingJournal.turnDeltas}. */
  readonly turnDeltas = true

  readonly #pool: PgPoolLike
  readonly #ownsPool: boolean
  readonly #secrets: string[]
  readonly #t: Tables
  readonly #sql: Statements

  /**
   * @param connection - A `postgres://user:password@host:port/database` URL, or a `pg.Pool` you own
   *   (the journal never ends a pool it did not create).
   * @param options - Schema, pool size, connection timeout, output cap.
   * @throws `E_OPTIONAL_DEPENDENCY_MISSING` without `pg`; `E_INVALID_OPTIONS` for a URL that is
   *   not `postgres://` or `postgresql://`, a bad schema name or bad limits (the password is never shown).
   */
  constructor(connection: string | PgPoolLike, options: PostgresJournalOptions = {}) {
    const max = options.maxOutputBytes ?? DEFAULT_JOURNAL_MAX_OUTPUT_BYTES
    if (!Number.isSafeInteger(max) || max <= 0) {
      throw new E_INVALID_OPTIONS(`maxOutputBytes must be a positive integer (got ${String(max)})`)
    }
    const schema = options.schema ?? 'toolsmith'
    if (typeof schema !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
      throw new E_INVALID_OPTIONS(`PostgresJournal schema must be letters, digits and "_" (got ${JSON.stringify(schema)})`)
    }
    this.maxOutputBytes = max
    this.schema = schema
    this.#t = {
      calls: `"${schema}".tool_calls`,
      claims: `"${schema}".tool_claims`,
      turns: `"${schema}".turn_checkpoints`,
      deltas: `"${schema}".turn_checkpoint_deltas`,
    }
    const prepared = options.preparedStatements ?? true
    if (typeof prepared !== 'boolean') throw new E_INVALID_OPTIONS(`preparedStatements must be true or false (got ${String(prepared)})`)
    this.#sql = statements(this.#t, prepared)
    if (typeof connection === 'string') {
      const url = parsePostgresUrl(connection)
      this.target = url.target
      this.#secrets = url.secrets
      const Pool = loadDriver()
      this.#pool = new Pool({
        connectionString: connection,
        max: positive('maxConnections', options.maxConnections, 4),
        connectionTimeoutMillis: positive('connectionTimeoutMs', options.connectionTimeoutMs, 5_000),
      })
      // An idle connection dropped by the server (restart, failover) must not
      // crash the process: the next query reports it as E_JOURNAL_UNAVAILABLE.
      this.#pool.on('error', () => undefined)
      this.#ownsPool = true
    } else if (connection && typeof connection.query === 'function' && typeof connection.connect === 'function') {
      this.#pool = connection
      this.#ownsPool = false
      this.target = 'the given pg.Pool'
      this.#secrets = []
    } else {
      throw new E_INVALID_OPTIONS('PostgresJournal needs a postgres:// URL or a pg.Pool')
    }
  }

  /**
   * Create the schema and tables if they do not exist (safe to run from
   * several workers at once, and again on every start).
   *
   * @throws `E_JOURNAL_UNAVAILABLE` when the database cannot be reached or refuses.
   */
  async migrate(): Promise<void> {
    const client = await this.#run(() => this.#pool.connect())
    let failed: unknown
    try {
      await this.#run(async () => {
        await client.query('BEGIN')
        await client.query("SELECT pg_advisory_xact_lock(hashtext('toolsmith.journal.migrate'))")
        for (const statement of postgresJournalMigration(this.schema)) await client.query(statement)
        await client.query('COMMIT')
      })
    } catch (error) {
      failed = error
      await client.query('ROLLBACK').catch(() => undefined)
      throw error
    } finally {
      client.release(failed)
    }
  }

  /**
   * Insert one row.
   *
   * @param row - The row; outputs and errors over `maxOutputBytes` are stored as the truncation envelope.
   * @param flags - The tool's flags; see {@link ToolCallJournal.record}.
   */
  async record(row: ToolCallRow, flags?: ToolCallFlags): Promise<void> {
    await this.#query(this.#sql.record, this.#params(normaliseRow(row, this.maxOutputBytes), flags))
  }

  /**
   * Rows in insertion order.
   *
   * @param filter - Fields every returned row must match.
   * @returns The matching rows.
   */
  async list(filter: ToolCallFilter = {}): Promise<ToolCallRow[]> {
    const where: string[] = []
    const params: unknown[] = []
    for (const [key, value] of Object.entries(filter)) {
      if (value === undefined) continue
      const column = COLUMNS[key as keyof ToolCallRow]
      if (!column) throw new E_INVALID_OPTIONS(`Unknown filter field "${key}"`)
      params.push(value)
      where.push(`${column} = $${params.length}`)
    }
    const sql = `SELECT ${ROW_SELECT} FROM ${this.#t.calls}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY id`
    return this.#rows(await this.#query({ text: sql }, params))
  }

  /**
   * Non-idempotent side-effect calls already recorded for one iteration, across attempts.
   *
   * @param scope - The run, node and iteration.
   * @returns The rows, oldest first.
   */
  async sideEffectsFor(scope: ToolCallScope): Promise<ToolCallRow[]> {
    return this.#rows(await this.#query(this.#sql.sideEffects, [scope.runId, scope.nodeId, scope.iteration]))
  }

  /**
   * Claim a call with one `INSERT … ON CONFLICT DO NOTHING`; see {@link ClaimingJournal.claim}.
   *
   * @param request - Key, owner, lease and the starting row.
   * @returns Whether this worker acquired it, and the claim as stored.
   */
  async claim(request: ClaimRequest): Promise<ClaimResult> {
    const normal = normaliseRow(request.row, this.maxOutputBytes)
    const row = { ...normal, status: 'running' as const, outputJson: null, errorJson: null }
    const params = [request.claimKey, request.owner, request.leaseMs, ...this.#params(row as unknown as ToolCallRow, request.flags)]
    const inserted = await this.#query(this.#sql.claim, params)
    if (inserted.rowCount === 1) {
      const leaseExpiresAtMs = Number(inserted.rows[0]!.lease_expires_at_ms)
      return {
        acquired: true,
        claim: { claimKey: request.claimKey, owner: request.owner, state: 'running', leaseExpiresAtMs, leaseExpired: false, row },
      }
    }
    const existing = await this.getClaim(request.claimKey)
    if (!existing) throw new E_JOURNAL_UNAVAILABLE(`PostgreSQL journal at ${this.target}: claim ${request.claimKey} vanished while being read`)
    return { acquired: false, claim: existing }
  }

  /**
   * Extend a running claim's lease.
   *
   * @param claimKey - The key.
   * @param owner - The owner.
   * @param leaseMs - The new lease, from now (database clock).
   * @returns Whether the claim is still this owner's and running.
   */
  async renew(claimKey: string, owner: string, leaseMs: number): Promise<boolean> {
    const result = await this.#query(this.#sql.renew, [claimKey, owner, leaseMs])
    return result.rowCount === 1
  }

  /**
   * Take over an abandoned claim (compare-and-set on the old owner).
   *
   * @param claimKey - The key.
   * @param fromOwner - The owner the caller saw.
   * @param toOwner - The new owner.
   * @param leaseMs - The new lease.
   * @returns Whether the claim is now `toOwner`'s.
   */
  async takeOver(claimKey: string, fromOwner: string, toOwner: string, leaseMs: number): Promise<boolean> {
    const result = await this.#query(this.#sql.takeOver, [claimKey, fromOwner, toOwner, leaseMs])
    return result.rowCount === 1
  }

  /**
   * Settle a claim and insert the call's row, in one statement.
   *
   * @param claimKey - The key.
   * @param owner - The owner.
   * @param row - The finished row.
   * @param flags - The tool's flags.
   * @returns Whether the claim was this owner's.
   */
  async complete(claimKey: string, owner: string, row: ToolCallRow, flags: ToolCallFlags): Promise<boolean> {
    const params = [claimKey, owner, ...this.#params(normaliseRow(row, this.maxOutputBytes), flags)]
    const result = await this.#query(this.#sql.complete, params)
    return result.rowCount === 1
  }

  /**
   * Drop a running claim whose call never started; see {@link ClaimingJournal.release}.
   *
   * @param claimKey - The key.
   * @param owner - The owner.
   * @returns Whether it was this owner's running claim.
   */
  async release(claimKey: string, owner: string): Promise<boolean> {
    const result = await this.#query(this.#sql.release, [claimKey, owner])
    return result.rowCount === 1
  }

  /**
   * A claim by key.
   *
   * @param claimKey - The key.
   * @returns The claim, or `undefined`.
   */
  async getClaim(claimKey: string): Promise<ToolCallClaim | undefined> {
    const result = await this.#query(this.#sql.getClaim, [claimKey])
    const record = result.rows[0]
    if (!record) return undefined
    const claim = claimFromSql(record, 0)
    return { ...claim, leaseExpired: claim.state === 'running' && record.expired === true }
  }

  /**
   * Append a turn's checkpoint (a whole one or a delta) to `turn_checkpoint_deltas`;
   * a whole one also removes the turn's row an earlier version left in `turn_checkpoints`.
   *
   * @param checkpoint - The checkpoint.
   */
  async saveTurn(checkpoint: TurnCheckpoint): Promise<void> {
    const c = checkpoint
    const values = [c.checkpointId ?? randomUUID(), c.parentId ?? null, c.runId, c.nodeId, c.iteration, c.attempt, c.prompt, c.messagesJson, c.steps, c.stateJson, c.done, c.updatedAtMs]
    await this.#query(c.parentId ? this.#sql.saveTurn : this.#sql.saveWholeTurn, values)
  }

  /**
   * The latest checkpoint of a run, its chain folded (or the whole one an
   * earlier version wrote, when that is later).
   *
   * @param runId - The run.
   * @param scope - The node and iteration, when the run has several.
   * @returns The checkpoint, or `undefined`.
   * @throws `E_JOURNAL_UNAVAILABLE` when the database fails; `E_JOURNAL_CORRUPT` when a link of the chain is missing.
   */
  async loadTurn(runId: string, scope: { nodeId?: string; iteration?: number } = {}): Promise<TurnCheckpoint | undefined> {
    const where = ['run_id = $1']
    const params: unknown[] = [runId]
    if (scope.nodeId !== undefined) (params.push(scope.nodeId), where.push(`node_id = $${params.length}`))
    if (scope.iteration !== undefined) (params.push(scope.iteration), where.push(`iteration = $${params.length}`))
    // A few texts (by scope), read once per resume: left unprepared.
    const latest = async (sql: string): Promise<TurnCheckpoint | undefined> => {
      const result = await this.#query({ text: sql }, params)
      return result.rows[0] ? checkpointFromSql(result.rows[0]) : undefined
    }
    const head = await latest(`SELECT ${CHECKPOINT_DELTA_SELECT} FROM ${this.#t.deltas} WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT 1`)
    const legacy = await latest(`SELECT ${CHECKPOINT_SELECT} FROM ${this.#t.turns} WHERE ${where.join(' AND ')} ORDER BY updated_at_ms DESC LIMIT 1`)
    const chosen = newerCheckpoint(head, legacy)
    if (!chosen?.parentId) return chosen
    const chain = await this.#query(
      { text: `SELECT ${CHECKPOINT_DELTA_SELECT} FROM ${this.#t.deltas} WHERE run_id = $1 AND node_id = $2 AND iteration = $3 ORDER BY id` },
      [chosen.runId, chosen.nodeId, chosen.iteration],
    )
    return foldTurnChain(chosen, chain.rows.map(checkpointFromSql))
  }

  /** Close the journal's own pool (a pool you passed in is left open). */
  async close(): Promise<void> {
    if (this.#ownsPool) await this.#pool.end().catch(() => undefined)
  }

  #rows(result: PgQueryResult): ToolCallRow[] {
    return result.rows.map((r) => rowFromSql<ToolCallRow>(r))
  }

  #params(normal: ToolCallRow, flags: ToolCallFlags | undefined): unknown[] {
    return [
      ...TOOL_CALL_ROW_FIELDS.map((f) => (f === 'replayed' ? normal.replayed === true : normal[f])),
      flags ? flags.sideEffect : null,
      flags ? flags.idempotent : null,
    ]
  }

  #query(statement: Statement, values: unknown[]): Promise<PgQueryResult> {
    // A config object, not (text, values): only that form carries the name.
    const config: PgQueryConfig = statement.name === undefined ? { text: statement.text, values } : { name: statement.name, text: statement.text, values }
    return this.#run(() => this.#pool.query(config))
  }

  async #run<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation()
    } catch (error) {
      throw this.#unavailable(error)
    }
  }

  #unavailable(error: unknown): E_JOURNAL_UNAVAILABLE {
    const code = (error as { code?: unknown } | null)?.code
    let reason = reasonOf(error)
    if (code === '42P01' || code === '3F000') {
      reason +=
        ' (the journal tables are missing, or were made by an earlier version of toolsmith that lacks this one: ' +
        'run `toolsmith journal migrate --postgres URL` or journal.migrate())'
    } else if (code === '42703') {
      reason +=
        ' (the journal tables were made by an earlier version of toolsmith and lack this column: ' +
        'run `toolsmith journal migrate --postgres URL` or journal.migrate() to add it; existing rows are kept)'
    }
    for (const secret of this.#secrets) reason = reason.split(secret).join('***')
    return new E_JOURNAL_UNAVAILABLE(`PostgreSQL journal at ${this.target}: ${reason}`, {
      details: { target: this.target, ...(typeof code === 'string' ? { driverCode: code } : {}) },
    })
  }
}

/**
 * Check a PostgreSQL URL without ever echoing its password.
 *
 * @param text - The URL.
 * @returns `user@host:port/database` for messages, and the strings to scrub from driver errors.
 * @throws `E_INVALID_OPTIONS` in one line, the URL shown with its password replaced by `***`.
 */
export function parsePostgresUrl(text: string): { target: string; secrets: string[] } {
  if (typeof text !== 'string' || text.trim() === '') throw new E_INVALID_OPTIONS('PostgresJournal needs a postgres:// URL')
  let url: URL
  try {
    url = new URL(text)
  } catch {
    // Unparseable: the password cannot be located, so only the scheme is shown.
    const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(text)?.[0] ?? ''
    throw new E_INVALID_OPTIONS(`Not a valid PostgreSQL URL (${scheme ? `"${scheme}//…"` : 'no scheme'}); expected postgres://user:password@host:port/database`)
  }
  const secrets = url.password ? [url.password, safeDecode(url.password)] : []
  if (url.password) url.password = '***'
  // libpq also takes a password in the query string (?password=, ?sslpassword=).
  for (const name of ['password', 'sslpassword']) {
    const value = url.searchParams.get(name)
    if (value === null) continue
    secrets.push(value, encodeURIComponent(value))
    url.searchParams.set(name, '***')
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new E_INVALID_OPTIONS(`Not a PostgreSQL URL: ${url.toString()}; expected postgres://user:password@host:port/database`)
  }
  if (!url.hostname && !url.searchParams.get('host')) throw new E_INVALID_OPTIONS(`PostgreSQL URL without a host: ${url.toString()}`)
  const user = safeDecode(url.username || 'postgres')
  const target = `${user}@${url.hostname || url.searchParams.get('host')}:${url.port || '5432'}${url.pathname.length > 1 ? url.pathname : '/'}`
  return { target, secrets: secrets.filter((s) => s.length > 0) }
}

/** `decodeURIComponent`, or the text as it is when its escapes are malformed (`%zz`). */
function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** One line from a driver error, whatever its shape (a refused connection is an `AggregateError` without a message). */
function reasonOf(error: unknown): string {
  const inner = error instanceof AggregateError && error.errors.length > 0 ? error.errors[0] : error
  const { message, code } = (inner ?? {}) as { message?: unknown; code?: unknown }
  const text = typeof message === 'string' && message.length > 0 ? message : typeof code === 'string' ? code : String(inner)
  return text.replace(/\s+/g, ' ').trim()
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (!Number.isSafeInteger(value) || value <= 0) throw new E_INVALID_OPTIONS(`${name} must be a positive integer (got ${String(value)})`)
  return value
}
