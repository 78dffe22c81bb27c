/**
 * `SqliteJournal`: the tool-call journal in a SQLite table, on the optional
 * peer `better-sqlite3`.
 *
 * @module
 */
import { mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, resolve } from 'node:path'
import { E_INVALID_OPTIONS, E_OPTIONAL_DEPENDENCY_MISSING } from '../exceptions.js'
import {
  DEFAULT_JOURNAL_MAX_OUTPUT_BYTES,
  normaliseRow,
  TOOL_CALL_ROW_FIELDS,
  type JournalOptions,
  type ToolCallFilter,
  type ToolCallFlags,
  type ToolCallJournal,
  type ToolCallRow,
  type ToolCallScope,
} from './journal.js'

// The slice of better-sqlite3 we use, typed here so consumers of our .d.ts
// files never need its types installed.
interface Statement {
  run(...params: unknown[]): unknown
  all(...params: unknown[]): unknown[]
}
interface Database {
  exec(sql: string): unknown
  prepare(sql: string): Statement
  pragma(sql: string): unknown
  close(): unknown
}
type DatabaseConstructor = new (file: string) => Database

const COLUMNS: Readonly<Record<keyof ToolCallRow, string>> = {
  runId: 'run_id',
  nodeId: 'node_id',
  iteration: 'iteration',
  attempt: 'attempt',
  seq: 'seq',
  toolName: 'tool_name',
  inputJson: 'input_json',
  outputJson: 'output_json',
  startedAtMs: 'started_at_ms',
  finishedAtMs: 'finished_at_ms',
  status: 'status',
  errorJson: 'error_json',
  callId: 'call_id',
  idempotencyKey: 'idempotency_key',
}

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
  idempotent INTEGER
);
CREATE INDEX IF NOT EXISTS tool_calls_by_run ON tool_calls (run_id, node_id, iteration, attempt, seq);
CREATE INDEX IF NOT EXISTS tool_calls_by_idempotency_key ON tool_calls (idempotency_key);
`

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
 * A journal in a SQLite database: table `tool_calls`, indexed by run
 * (`run_id, node_id, iteration, attempt, seq`) and by idempotency key.
 *
 * @remarks
 * `better-sqlite3` is an optional peer dependency, loaded when the first
 * journal is constructed; without it the constructor throws
 * `E_OPTIONAL_DEPENDENCY_MISSING` with the install command. The database runs
 * in WAL mode, so a crashed writer never corrupts committed rows.
 *
 * @example
 * ```ts
 * const journal = new SqliteJournal('.toolsmith/journal.db')
 * await journal.record(row, { sideEffect: true, idempotent: false })
 * await journal.sideEffectsFor({ runId: 'r1', nodeId: 'fix', iteration: 0 })
 * journal.close()
 * ```
 */
export class SqliteJournal implements ToolCallJournal {
  /** Absolute path of the database file, or `':memory:'`. */
  readonly file: string
  /** The output cap; see {@link JournalOptions.maxOutputBytes}. */
  readonly maxOutputBytes: number

  readonly #db: Database
  readonly #insert: Statement

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
    this.#db.pragma('journal_mode = WAL')
    this.#db.exec(SCHEMA)
    const columns = [...TOOL_CALL_ROW_FIELDS.map((f) => COLUMNS[f]), 'side_effect', 'idempotent']
    this.#insert = this.#db.prepare(
      `INSERT INTO tool_calls (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
    )
  }

  /**
   * Insert one row.
   *
   * @param row - The row; outputs and errors over `maxOutputBytes` are stored as the truncation envelope.
   * @param flags - The tool's flags; see {@link ToolCallJournal.record}.
   */
  async record(row: ToolCallRow, flags?: ToolCallFlags): Promise<void> {
    const normal = normaliseRow(row, this.maxOutputBytes)
    this.#insert.run(
      ...TOOL_CALL_ROW_FIELDS.map((f) => normal[f]),
      flags ? Number(flags.sideEffect) : null,
      flags ? Number(flags.idempotent) : null,
    )
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
    return this.#db.prepare(sql).all(...params) as ToolCallRow[]
  }
}
