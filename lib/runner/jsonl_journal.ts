/**
 * `JsonlJournal`: the embedded, dependency-free tool-call journal.
 *
 * @module
 */
import { mkdirSync } from 'node:fs'
import { open, readFile, type FileHandle } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { E_INVALID_OPTIONS } from '../exceptions.js'
import {
  DEFAULT_JOURNAL_MAX_OUTPUT_BYTES,
  isUnsafeToRepeat,
  assertFilter,
  matchesFilter,
  normaliseRow,
  TOOL_CALL_ROW_FIELDS,
  type JournalOptions,
  type ToolCallFilter,
  type ToolCallFlags,
  type ToolCallJournal,
  type ToolCallRow,
  type ToolCallScope,
} from './journal.js'

/** Key under which a line keeps the tool's flags next to the row's fields. */
const FLAGS_KEY = '$flags'

/** Options of {@link JsonlJournal}. */
export interface JsonlJournalOptions extends JournalOptions {
  /**
   * Flush every row to disk (`fdatasync`) before `record` resolves, to survive power loss too.
   *
   * @defaultValue false
   */
  fsync?: boolean
}

interface StoredLine {
  row: ToolCallRow
  flags: ToolCallFlags | undefined
}

/**
 * A journal in an append-only JSON Lines file: one row per line.
 *
 * @remarks
 * Each row is appended with a single `write` to a file opened in append mode,
 * so a process killed mid-write (even with SIGKILL) can at worst leave one torn
 * last line. Reading skips any line that does not parse, and a writer that
 * finds a torn tail starts on a fresh line, so earlier and later rows are
 * never corrupted. Pass `fsync: true` to also survive power loss, at the cost
 * of one disk flush per call.
 *
 * @example
 * ```ts
 * const journal = new JsonlJournal('.toolsmith/journal.jsonl')
 * const runner = new TurnRunner({ model, tools, journal, identity: { runId: 'r1', nodeId: 'fix', iteration: 0, attempt: 1 } })
 * await runner.run('fix the failing test')
 * console.table(await journal.list({ runId: 'r1' }))
 * ```
 */
export class JsonlJournal implements ToolCallJournal {
  /** Absolute path of the file. */
  readonly file: string
  /** The output cap; see {@link JournalOptions.maxOutputBytes}. */
  readonly maxOutputBytes: number
  /** Whether each row is flushed to disk before `record` resolves. */
  readonly fsync: boolean

  #dirReady = false
  #queue: Promise<unknown> = Promise.resolve()

  /**
   * @param file - The journal file; created (with its folder) on the first record.
   * @param options - The output cap, and `fsync` (default `false`).
   * @throws `E_INVALID_OPTIONS` when `file` is empty or `maxOutputBytes` is not a positive integer.
   */
  constructor(file: string, options: JsonlJournalOptions = {}) {
    if (typeof file !== 'string' || file.length === 0) throw new E_INVALID_OPTIONS('JsonlJournal needs a file path')
    const max = options.maxOutputBytes ?? DEFAULT_JOURNAL_MAX_OUTPUT_BYTES
    if (!Number.isSafeInteger(max) || max <= 0) {
      throw new E_INVALID_OPTIONS(`maxOutputBytes must be a positive integer (got ${String(max)})`)
    }
    this.file = resolve(file)
    this.maxOutputBytes = max
    this.fsync = options.fsync === true
  }

  /**
   * Append one row.
   *
   * @param row - The row; outputs and errors over `maxOutputBytes` are stored as the truncation envelope.
   * @param flags - The tool's flags; see {@link ToolCallJournal.record}.
   */
  async record(row: ToolCallRow, flags?: ToolCallFlags): Promise<void> {
    const stored: Record<string, unknown> = { ...normaliseRow(row, this.maxOutputBytes) }
    if (flags) stored[FLAGS_KEY] = { sideEffect: flags.sideEffect, idempotent: flags.idempotent }
    const line = JSON.stringify(stored) + '\n'
    await this.#enqueue(async () => {
      if (!this.#dirReady) {
        mkdirSync(dirname(this.file), { recursive: true })
        this.#dirReady = true
      }
      // Open per row: no descriptor outlives a call, and O_APPEND keeps each
      // row's single write whole even with several writer processes.
      const handle = await open(this.file, 'a+')
      try {
        // Checked before every row, not once: another process sharing the file
        // may have died mid-line since our last write, and our row must not be
        // glued onto its fragment.
        const prefix = (await endsMidLine(handle)) ? '\n' : ''
        await handle.write(prefix + line)
        if (this.fsync) await handle.datasync()
      } finally {
        await handle.close()
      }
    })
  }

  /**
   * Rows in file order; a torn or foreign line is skipped.
   *
   * @param filter - Fields every returned row must match.
   * @returns The matching rows.
   */
  async list(filter?: ToolCallFilter): Promise<ToolCallRow[]> {
    assertFilter(filter)
    return (await this.#readLines()).map((line) => line.row).filter((row) => matchesFilter(row, filter))
  }

  /**
   * Non-idempotent side-effect calls already recorded for one iteration, across attempts.
   *
   * @param scope - The run, node and iteration.
   * @returns The rows, oldest first.
   */
  async sideEffectsFor(scope: ToolCallScope): Promise<ToolCallRow[]> {
    return (await this.#readLines())
      .filter((line) => matchesFilter(line.row, scope) && isUnsafeToRepeat(line.flags))
      .map((line) => line.row)
  }

  /** Wait for pending writes; the file is never held open between calls. */
  async close(): Promise<void> {
    await this.#queue
  }

  #enqueue(task: () => Promise<void>): Promise<void> {
    const next = this.#queue.then(task)
    // A failed write must not block the ones after it; the caller still sees the error.
    this.#queue = next.catch(() => undefined)
    return next
  }

  async #readLines(): Promise<StoredLine[]> {
    await this.#queue
    let text: string
    try {
      text = await readFile(this.file, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw error
    }
    const lines: StoredLine[] = []
    for (const raw of text.split('\n')) {
      const parsed = parseLine(raw)
      if (parsed) lines.push(parsed)
    }
    return lines
  }
}

function parseLine(raw: string): StoredLine | undefined {
  if (raw.trim() === '') return undefined
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch {
    return undefined
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined
  const record = value as Record<string, unknown>
  if (typeof record.toolName !== 'string' || typeof record.seq !== 'number') return undefined
  const row = {} as Record<string, unknown>
  for (const field of TOOL_CALL_ROW_FIELDS) row[field] = record[field] ?? null
  const flags = record[FLAGS_KEY] as ToolCallFlags | undefined
  return { row: row as unknown as ToolCallRow, flags: flags && typeof flags === 'object' ? flags : undefined }
}

/** Whether the file's last byte is not a newline (a writer died mid-row). */
async function endsMidLine(handle: FileHandle): Promise<boolean> {
  const { size } = await handle.stat()
  if (size === 0) return false
  const last = Buffer.alloc(1)
  await handle.read(last, 0, 1, size - 1)
  return last[0] !== 0x0a
}
