/**
 * `PostgresJournal`: the tool-call journal in PostgreSQL, on the optional
 * peer `pg`, shared by any number of workers on any number of machines.
 *
 * @module
 */
import { randomUUID } from 'node:crypto'
import { E_INVALID_OPTIONS, E_JOURNAL_UNAVAILABLE } from '../exceptions.js'
import {
  DEFAULT_JOURNAL_MAX_OUTPUT_BYTES,
  TOOL_CALL_ROW_FIELDS,
  type JournalOptions,
  type ToolCallFilter,
  type ToolCallFlags,
  type ToolCallRow,
  type ToolCallScope,
} from './contract.js'
import { normaliseRow } from './output.js'
import type {
  ClaimRequest,
  ClaimResult,
  ClaimingJournal,
  ToolCallClaim,
  TurnCheckpoint,
} from './claiming.js'
import { foldTurnChain, newerCheckpoint } from './checkpoint_chain.js'
import { CHECKPOINT_DELTA_SELECT, CHECKPOINT_SELECT, checkpointFromSql, claimFromSql, rowFromSql } from './sql_rows.js'
import {
  COLUMNS,
  loadDriver,
  postgresJournalMigration,
  ROW_SELECT,
  statements,
  type PgPoolLike,
  type PgQueryConfig,
  type PgQueryResult,
  type Statement,
  type Statements,
  type Tables,
} from './postgres_schema.js'

export { postgresJournalMigration } from './postgres_schema.js'
export type { PgPoolClient, PgPoolLike, PgQueryConfig, PgQueryResult } from './postgres_schema.js'

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
    if (scope.nodeId !== undefined) {
      params.push(scope.nodeId)
      where.push(`node_id = $${params.length}`)
    }
    if (scope.iteration !== undefined) {
      params.push(scope.iteration)
      where.push(`iteration = $${params.length}`)
    }
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
