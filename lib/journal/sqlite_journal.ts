/**
 * `SqliteJournal`: the tool-call journal in a SQLite table, on the optional
 * peer `better-sqlite3`.
 *
 * @module
 */
import { randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, resolve } from 'node:path'
import { E_INVALID_OPTIONS, E_OPTIONAL_DEPENDENCY_MISSING } from '../exceptions.js'
import { foldTurnChain, newerCheckpoint } from './checkpoint_chain.js'
import { CHECKPOINT_SELECT, CHECKPOINT_DELTA_SELECT, checkpointFromSql, claimFromSql } from './sql_rows.js'
import {
  DEFAULT_JOURNAL_MAX_OUTPUT_BYTES,
  TOOL_CALL_ROW_FIELDS,
  type JournalOptions,
  type ToolCallFilter,
  type ToolCallFlags,
  type ToolCallJournal,
  type ToolCallRow,
  type ToolCallScope,
} from './contract.js'
import { normaliseRow } from './output.js'
import { rowFromSql, TOOL_CALL_COLUMNS } from './sql_rows.js'
import type {
  ClaimRequest,
  ClaimResult,
  ClaimingJournal,
  ToolCallClaim,
  TurnCheckpoint,
} from './claiming.js'

// The slice of better-sqlite3 we use, typed here so consumers of our .d.ts
// files never need its types installed.
interface Statement {
  run(...params: unknown[]): { changes: number }
  all(...params: unknown[]): unknown[]
  get(...params: unknown[]): unknown
}
interface Database {
  exec(sql: string): unknown
  prepare(sql: string): Statement
  pragma(sql: string): unknown
  transaction<F extends (...args: any[]) => any>(fn: F): F
  close(): unknown
}
type DatabaseConstructor = new (file: string, options?: { readonly?: boolean; fileMustExist?: boolean }) => Database

const COLUMNS = TOOL_CALL_COLUMNS

const SCHEMA = `
CREATE TABLE IF NOT EXISTS tool_calls (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL,
  node_id TEXT NOT NULL,
  iteration INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  tool_name TEXT NOT NULL,
  input_json TEXT NOT NULL,
  output_json TEXT,
  started_at_ms INTEGER NOT NULL,
  finished_at_ms INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('success', 'error')),
  error_json TEXT,
  call_id TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  side_effect INTEGER,
  idempotent INTEGER,
  replayed INTEGER NOT NULL DEFAULT 0,
  permission_json TEXT
);
CREATE INDEX IF NOT EXISTS tool_calls_by_run ON tool_calls (run_id, node_id, iteration, attempt, seq);
CREATE INDEX IF NOT EXISTS tool_calls_by_idempotency_key ON tool_calls (idempotency_key);
CREATE TABLE IF NOT EXISTS tool_claims (
  claim_key TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  lease_expires_at_ms INTEGER NOT NULL,
  run_id TEXT NOT NULL,
  node_id TEXT NOT NULL,
  iteration INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  tool_name TEXT NOT NULL,
  input_json TEXT NOT NULL,
  output_json TEXT,
  started_at_ms INTEGER NOT NULL,
  finished_at_ms INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'success', 'error')),
  error_json TEXT,
  call_id TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  replayed INTEGER NOT NULL DEFAULT 0,
  side_effect INTEGER,
  idempotent INTEGER,
  permission_json TEXT
);
CREATE TABLE IF NOT EXISTS turn_checkpoints (
  run_id TEXT NOT NULL,
  node_id TEXT NOT NULL,
  iteration INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  prompt TEXT NOT NULL,
  messages_json TEXT NOT NULL,
  steps INTEGER NOT NULL,
  state_json TEXT NOT NULL,
  done INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL,
  PRIMARY KEY (run_id, node_id, iteration)
);
CREATE TABLE IF NOT EXISTS turn_checkpoint_deltas (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  checkpoint_id TEXT NOT NULL,
  parent_id TEXT,
  run_id TEXT NOT NULL,
  node_id TEXT NOT NULL,
  iteration INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  prompt TEXT NOT NULL,
  messages_json TEXT NOT NULL,
  steps INTEGER NOT NULL,
  state_json TEXT NOT NULL,
  done INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS turn_checkpoint_deltas_by_turn ON turn_checkpoint_deltas (run_id, node_id, iteration, id);
`

/** Columns later versions added to tables an earlier version may have created: `[table, column, type]`. */
const ADDED_COLUMNS: readonly (readonly [string, string, string])[] = [
  ['tool_calls', 'replayed', 'INTEGER NOT NULL DEFAULT 0'],
  ['tool_calls', 'permission_json', 'TEXT'],
  ['tool_claims', 'permission_json', 'TEXT'],
]

/** Add a column when the table lacks it; another process adding it at the same moment is fine. */
function addColumn(db: Database, table: string, column: string, type: string): void {
  const has = (): boolean => (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).some((c) => c.name === column)
  if (has()) return
  try {
    db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`)
  } catch (error) {
    // "duplicate column name": a second process opening the same old file won the race.
    if (!has()) throw error
  }
}

let cachedDriver: DatabaseConstructor | undefined

function loadDriver(): DatabaseConstructor {
  if (cachedDriver) return cachedDriver
  const require = createRequire(import.meta.url)
  try {
    const loaded = require('better-sqlite3') as DatabaseConstructor | { default: DatabaseConstructor }
    cachedDriver = typeof loaded === 'function' ? loaded : loaded.default
    return cachedDriver
  } catch (cause) {
    throw new E_OPTIONAL_DEPENDENCY_MISSING(
      'SqliteJournal needs the optional peer dependency "better-sqlite3": run `npm install better-sqlite3`, ' +
        'or use JsonlJournal, which needs nothing',
      { cause, details: { dependency: 'better-sqlite3' } },
    )
  }
}

/**
 * Whether `file` is a SQLite database holding a journal (a `tool_calls`
 * table), looked at read-only: opening a {@link SqliteJournal} would create
 * its tables in any database, which a command that only reads must not do.
 *
 * @param file - The database file; it must exist.
 * @returns Whether it has a journal.
 * @throws The driver's error (`SQLITE_NOTADB`, `SQLITE_CANTOPEN`…) for a file
 *   SQLite cannot open; `E_OPTIONAL_DEPENDENCY_MISSING` without `better-sqlite3`.
 * @internal
 */
export function hasSqliteJournal(file: string): boolean {
  const Driver = loadDriver()
  const db = new Driver(file, { readonly: true, fileMustExist: true })
  try {
    return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'tool_calls'").get() !== undefined
  } finally {
    db.close()
  }
}

/**
 * A journal in a SQLite database: table `tool_calls`, indexed by run
 * (`run_id, node_id, iteration, attempt, seq`) and by idempotency key.
 *
 * @remarks
 * `better-sqlite3` is an optional peer dependency, loaded when the first
 * journal is constructed; without it the constructor throws
 * `E_OPTIONAL_DEPENDENCY_MISSING` with the install command. The database runs
 * in WAL mode, so a crashed writer never corrupts committed rows, with a
 * 5 s busy timeout so several processes can share one file.
 *
 * Claims (see {@link ClaimingJournal}) live in table `tool_claims`, keyed by
 * claim key: one `INSERT … ON CONFLICT DO NOTHING` decides the winner, so
 * any number of processes on one machine run a non-idempotent call at most
 * once. Turn checkpoints for `TurnRunner.resume` are appended, one record per
 * step, to `turn_checkpoint_deltas`; a whole checkpoint an earlier version
 * left in `turn_checkpoints` is still read, and dropped when the resumed turn
 * saves its own.
 * A database made by an earlier version gains the new tables and the
 * `replayed` and `permission_json` columns when opened (old rows read
 * `permissionJson: null`).
 *
 * @example
 * ```ts
 * const journal = new SqliteJournal('.toolsmith/journal.db')
 * await journal.record(row, { sideEffect: true, idempotent: false })
 * await journal.sideEffectsFor({ runId: 'r1', nodeId: 'fix', iteration: 0 })
 * journal.close()
 * ```
 */
export class SqliteJournal implements ClaimingJournal {
  /** Absolute path of the database file, or `':memory:'`. */
  readonly file: string
  /** The output cap; see {@link JournalOptions.maxOutputBytes}. */
  readonly maxOutputBytes: number
  /** Checkpoints are appended as chains of deltas; see {@link ClaimingJournal.turnDeltas}. */
  readonly turnDeltas = true

  readonly #db: Database
  // Every other statement, prepared on first use and reused, never one per call: each is a native
  // object for the garbage collector. The texts are finite (fixed SQL, filters over the row's columns).
  readonly #statements = new Map<string, Statement>()
  readonly #insert: Statement
  readonly #claimInsert: Statement
  readonly #claimSelect: Statement
  readonly #claimSettle: Statement
  readonly #complete: (claimKey: string, owner: string, params: unknown[], normal: ToolCallRow) => boolean
  readonly #saveTurn: (c: TurnCheckpoint) => void

  /**
   * @param file - The database file (created with its folder), or `':memory:'`.
   * @param options - The output cap.
   * @throws `E_OPTIONAL_DEPENDENCY_MISSING` when `better-sqlite3` is not installed;
   *   `E_INVALID_OPTIONS` for an empty path or a bad `maxOutputBytes`.
   */
  constructor(file: string, options: JournalOptions = {}) {
    if (typeof file !== 'string' || file.length === 0) throw new E_INVALID_OPTIONS('SqliteJournal needs a file path')
    const max = options.maxOutputBytes ?? DEFAULT_JOURNAL_MAX_OUTPUT_BYTES
    if (!Number.isSafeInteger(max) || max <= 0) {
      throw new E_INVALID_OPTIONS(`maxOutputBytes must be a positive integer (got ${String(max)})`)
    }
    const Driver = loadDriver()
    this.file = file === ':memory:' ? file : resolve(file)
    this.maxOutputBytes = max
    if (this.file !== ':memory:') mkdirSync(dirname(this.file), { recursive: true })
    this.#db = new Driver(this.file)
    this.#db.pragma('busy_timeout = 5000')
    this.#db.pragma('journal_mode = WAL')
    this.#db.exec(SCHEMA)
    // A database made by an earlier version: add the columns it lacks rather than refuse the file.
    for (const [table, column, type] of ADDED_COLUMNS) addColumn(this.#db, table, column, type)
    const columns = [...TOOL_CALL_ROW_FIELDS.map((f) => COLUMNS[f]), 'side_effect', 'idempotent']
    const marks = columns.map(() => '?').join(', ')
    this.#insert = this.#db.prepare(`INSERT INTO tool_calls (${columns.join(', ')}) VALUES (${marks})`)
    this.#claimInsert = this.#db.prepare(
      `INSERT INTO tool_claims (claim_key, owner, lease_expires_at_ms, ${columns.join(', ')}) VALUES (?, ?, ?, ${marks}) ` +
        'ON CONFLICT (claim_key) DO NOTHING',
    )
    const select = TOOL_CALL_ROW_FIELDS.map((f) => `${COLUMNS[f]} AS "${f}"`).join(', ')
    this.#claimSelect = this.#db.prepare(
      `SELECT claim_key AS "claimKey", owner, lease_expires_at_ms AS "leaseExpiresAtMs", ${select} FROM tool_claims WHERE claim_key = ?`,
    )
    this.#claimSettle = this.#db.prepare(
      'UPDATE tool_claims SET status = ?, output_json = ?, error_json = ?, finished_at_ms = ?, replayed = ?, permission_json = ? ' +
        "WHERE claim_key = ? AND owner = ? AND status = 'running'",
    )
    this.#complete = this.#db.transaction((claimKey: string, owner: string, params: unknown[], normal: ToolCallRow) => {
      const changed = this.#claimSettle.run(
        normal.status,
        normal.outputJson,
        normal.errorJson,
        normal.finishedAtMs,
        Number(normal.replayed === true),
        normal.permissionJson ?? null,
        claimKey,
        owner,
      )
      if (changed.changes === 0) return false
      this.#insert.run(...params)
      return true
    })
    const insertTurn = this.#db.prepare(
      'INSERT INTO turn_checkpoint_deltas (checkpoint_id, parent_id, run_id, node_id, iteration, attempt, prompt, messages_json, steps, ' +
        'state_json, done, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    )
    const dropLegacyTurn = this.#db.prepare('DELETE FROM turn_checkpoints WHERE run_id = ? AND node_id = ? AND iteration = ?')
    this.#saveTurn = this.#db.transaction((c: TurnCheckpoint) => {
      insertTurn.run(c.checkpointId ?? randomUUID(), c.parentId ?? null, c.runId, c.nodeId, c.iteration, c.attempt, c.prompt, c.messagesJson, c.steps, c.stateJson, Number(c.done), c.updatedAtMs)
      // A whole checkpoint supersedes the one an earlier version kept for
      // the turn, which holds the conversation with every argument in clear.
      if (!c.parentId) dropLegacyTurn.run(c.runId, c.nodeId, c.iteration)
    })
  }

  /**
   * Insert one row.
   *
   * @param row - The row; outputs and errors over `maxOutputBytes` are stored as the truncation envelope.
   * @param flags - The tool's flags; see {@link ToolCallJournal.record}.
   */
  async record(row: ToolCallRow, flags?: ToolCallFlags): Promise<void> {
    this.#insert.run(...this.#params(normaliseRow(row, this.maxOutputBytes), flags))
  }

  /**
   * Claim a call; see {@link ClaimingJournal.claim}.
   *
   * @param request - Key, owner, lease and the starting row.
   * @returns Whether this process acquired it, and the claim as stored.
   */
  async claim(request: ClaimRequest): Promise<ClaimResult> {
    const now = Date.now()
    const normal = normaliseRow({ ...request.row, status: 'running' as never, outputJson: null, errorJson: null }, this.maxOutputBytes)
    const inserted = this.#claimInsert.run(request.claimKey, request.owner, now + request.leaseMs, ...this.#params(normal, request.flags))
    const claim = this.#readClaim(request.claimKey)!
    return { acquired: inserted.changes === 1, claim }
  }

  /**
   * Extend a running claim's lease; see {@link ClaimingJournal.renew}.
   *
   * @param claimKey - The key.
   * @param owner - The owner.
   * @param leaseMs - The new lease, from now.
   * @returns Whether the claim is still this owner's and running.
   */
  async renew(claimKey: string, owner: string, leaseMs: number): Promise<boolean> {
    const changed = this.#statement("UPDATE tool_claims SET lease_expires_at_ms = ? WHERE claim_key = ? AND owner = ? AND status = 'running'")
      .run(Date.now() + leaseMs, claimKey, owner)
    return changed.changes === 1
  }

  /**
   * Take over an abandoned claim; see {@link ClaimingJournal.takeOver}.
   *
   * @param claimKey - The key.
   * @param fromOwner - The owner the caller saw.
   * @param toOwner - The new owner.
   * @param leaseMs - The new lease.
   * @returns Whether the claim is now `toOwner`'s.
   */
  async takeOver(claimKey: string, fromOwner: string, toOwner: string, leaseMs: number): Promise<boolean> {
    const changed = this.#statement(
      "UPDATE tool_claims SET owner = ?, lease_expires_at_ms = ? WHERE claim_key = ? AND owner = ? AND status = 'running'",
    ).run(toOwner, Date.now() + leaseMs, claimKey, fromOwner)
    return changed.changes === 1
  }

  /**
   * Settle a claim and store the call's row in one transaction; see {@link ClaimingJournal.complete}.
   *
   * @param claimKey - The key.
   * @param owner - The owner.
   * @param row - The finished row.
   * @param flags - The tool's flags.
   * @returns Whether the claim was this owner's.
   */
  async complete(claimKey: string, owner: string, row: ToolCallRow, flags: ToolCallFlags): Promise<boolean> {
    const normal = normaliseRow(row, this.maxOutputBytes)
    return this.#complete(claimKey, owner, this.#params(normal, flags), normal)
  }

  /**
   * Drop a running claim whose call never started; see {@link ClaimingJournal.release}.
   *
   * @param claimKey - The key.
   * @param owner - The owner.
   * @returns Whether it was this owner's running claim.
   */
  async release(claimKey: string, owner: string): Promise<boolean> {
    const changed = this.#statement("DELETE FROM tool_claims WHERE claim_key = ? AND owner = ? AND status = 'running'").run(claimKey, owner)
    return changed.changes === 1
  }

  /**
   * A claim by key.
   *
   * @param claimKey - The key.
   * @returns The claim, or `undefined`.
   */
  async getClaim(claimKey: string): Promise<ToolCallClaim | undefined> {
    return this.#readClaim(claimKey)
  }

  /**
   * Append a turn's checkpoint (a whole one or a delta) to `turn_checkpoint_deltas`;
   * a whole one also removes the turn's row an earlier version left in `turn_checkpoints`.
   *
   * @param checkpoint - The checkpoint.
   */
  async saveTurn(checkpoint: TurnCheckpoint): Promise<void> {
    this.#saveTurn(checkpoint)
  }

  /**
   * The latest checkpoint of a run, its chain folded (or the whole one an
   * earlier version wrote, when that is later).
   *
   * @param runId - The run.
   * @param scope - The node and iteration, when the run has several.
   * @returns The checkpoint, or `undefined`.
   * @throws `E_JOURNAL_CORRUPT` when a link of the chain is missing.
   */
  async loadTurn(runId: string, scope: { nodeId?: string; iteration?: number } = {}): Promise<TurnCheckpoint | undefined> {
    const where = ['run_id = ?']
    const params: unknown[] = [runId]
    if (scope.nodeId !== undefined) {
      where.push('node_id = ?')
      params.push(scope.nodeId)
    }
    if (scope.iteration !== undefined) {
      where.push('iteration = ?')
      params.push(scope.iteration)
    }
    const latest = (sql: string): TurnCheckpoint | undefined => {
      const record = this.#statement(sql).get(...params) as Record<string, unknown> | undefined
      return record ? checkpointFromSql(record) : undefined
    }
    const head = latest(`SELECT ${CHECKPOINT_DELTA_SELECT} FROM turn_checkpoint_deltas WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT 1`)
    const legacy = latest(`SELECT ${CHECKPOINT_SELECT} FROM turn_checkpoints WHERE ${where.join(' AND ')} ORDER BY updated_at_ms DESC LIMIT 1`)
    const chosen = newerCheckpoint(head, legacy)
    if (!chosen?.parentId) return chosen
    const chain = (
      this.#statement(`SELECT ${CHECKPOINT_DELTA_SELECT} FROM turn_checkpoint_deltas WHERE run_id = ? AND node_id = ? AND iteration = ? ORDER BY id`)
        .all(chosen.runId, chosen.nodeId, chosen.iteration) as Record<string, unknown>[]
    ).map(checkpointFromSql)
    return foldTurnChain(chosen, chain)
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
      where.push(`${column} = ?`)
      params.push(value)
    }
    return this.#select(where, params)
  }

  /**
   * Non-idempotent side-effect calls already recorded for one iteration, across attempts.
   *
   * @param scope - The run, node and iteration.
   * @returns The rows, oldest first.
   */
  async sideEffectsFor(scope: ToolCallScope): Promise<ToolCallRow[]> {
    return this.#select(
      ['run_id = ?', 'node_id = ?', 'iteration = ?', '((side_effect = 1 AND idempotent = 0) OR side_effect IS NULL)'],
      [scope.runId, scope.nodeId, scope.iteration],
    )
  }

  /** Close the database. */
  close(): void {
    this.#db.close()
  }

  #select(where: string[], params: unknown[]): ToolCallRow[] {
    const select = TOOL_CALL_ROW_FIELDS.map((f) => `${COLUMNS[f]} AS "${f}"`).join(', ')
    const sql = `SELECT ${select} FROM tool_calls${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY id`
    return (this.#statement(sql).all(...params) as Record<string, unknown>[]).map((r) => rowFromSql<ToolCallRow>(r))
  }

  /** The statement for `sql`, prepared once per journal. */
  #statement(sql: string): Statement {
    let statement = this.#statements.get(sql)
    if (statement === undefined) this.#statements.set(sql, (statement = this.#db.prepare(sql)))
    return statement
  }

  #params(normal: ToolCallRow, flags: ToolCallFlags | undefined): unknown[] {
    return [
      ...TOOL_CALL_ROW_FIELDS.map((f) => (f === 'replayed' ? Number(normal.replayed === true) : normal[f])),
      flags ? Number(flags.sideEffect) : null,
      flags ? Number(flags.idempotent) : null,
    ]
  }

  #readClaim(claimKey: string): ToolCallClaim | undefined {
    const record = this.#claimSelect.get(claimKey) as Record<string, unknown> | undefined
    if (!record) return undefined
    return claimFromSql(record, Date.now())
  }
}
