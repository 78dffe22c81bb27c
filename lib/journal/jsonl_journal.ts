/**
 * `JsonlJournal`: the embedded, dependency-free tool-call journal.
 *
 * @module
 */
import { mkdirSync } from 'node:fs'
import { open, readFile, type FileHandle } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { E_INVALID_OPTIONS } from '../exceptions.js'
import { foldTurnChain } from './checkpoint_chain.js'
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
import type {
  ClaimRequest,
  ClaimResult,
  ClaimingJournal,
  ClaimedRow,
  ToolCallClaim,
  TurnCheckpoint,
} from './claiming.js'
import { isUnsafeToRepeat, assertFilter, matchesFilter, normaliseRow } from './output.js'

/** Key under which a line keeps the tool's flags next to the row's fields. */
const FLAGS_KEY = '$flags'
/** Key of a line holding a claim's latest state (not a row: `list` skips it). */
const CLAIM_KEY = '$claim'
/** Key of a line holding a turn checkpoint (not a row: `list` skips it). */
const TURN_KEY = '$turn'

interface StoredClaim {
  claimKey: string
  owner: string
  leaseExpiresAtMs: number
  row: ClaimedRow
}

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
 * Claims and turn checkpoints are lines of their own (`$claim`, `$turn`) that
 * `list` skips; each step of a turn appends one `$turn` line holding only
 * what the step added (see `ClaimingJournal.turnDeltas`). They are exclusive **within one process** only: two processes
 * appending to one file cannot make a claim atomic, so two workers could both
 * run a non-idempotent call. Use `SqliteJournal` (one machine) or
 * `PostgresJournal` (many) to share a journal between processes.
 *
 * @example
 * ```ts
 * const journal = new JsonlJournal('.toolsmith/journal.jsonl')
 * const runner = new TurnRunner({ model, tools, journal, identity: { runId: 'r1', nodeId: 'fix', iteration: 0, attempt: 1 } })
 * await runner.run('fix the failing test')
 * console.table(await journal.list({ runId: 'r1' }))
 * ```
 */
export class JsonlJournal implements ClaimingJournal {
  /** Absolute path of the file. */
  readonly file: string
  /** The output cap; see {@link JournalOptions.maxOutputBytes}. */
  readonly maxOutputBytes: number
  /** Whether each row is flushed to disk before `record` resolves. */
  readonly fsync: boolean
  /** Checkpoints are appended as chains of deltas; see {@link ClaimingJournal.turnDeltas}. */
  readonly turnDeltas = true

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
    const line = `${JSON.stringify(stored)}\n`
    await this.#enqueue(() => this.#append(line))
  }

  async #append(line: string): Promise<void> {
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
  }

  async #updateClaim(
    claimKey: string,
    owner: string,
    change: (claim: StoredClaim) => StoredClaim,
    alsoAppend = '',
  ): Promise<boolean> {
    let changed = false
    await this.#enqueue(async () => {
      const existing = (await this.#readFile()).claims.get(claimKey)
      if (!existing || existing.owner !== owner || existing.row.status !== 'running') return
      await this.#append(`${JSON.stringify({ [CLAIM_KEY]: change(existing) })}\n${alsoAppend}`)
      changed = true
    })
    return changed
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

  /**
   * Claim a call; exclusive within this process only (see the class remarks).
   *
   * @param request - Key, owner, lease and the starting row.
   * @returns Whether this process acquired it, and the claim as stored.
   */
  async claim(request: ClaimRequest): Promise<ClaimResult> {
    let result!: ClaimResult
    await this.#enqueue(async () => {
      const existing = (await this.#readFile()).claims.get(request.claimKey)
      if (existing) {
        result = { acquired: false, claim: claimOf(existing) }
        return
      }
      const row = { ...normaliseRow(request.row, this.maxOutputBytes), status: 'running', outputJson: null, errorJson: null } as ClaimedRow
      const stored: StoredClaim = { claimKey: request.claimKey, owner: request.owner, leaseExpiresAtMs: Date.now() + request.leaseMs, row }
      await this.#append(`${JSON.stringify({ [CLAIM_KEY]: stored })}\n`)
      result = { acquired: true, claim: claimOf(stored) }
    })
    return result
  }

  /**
   * Extend a running claim's lease.
   *
   * @param claimKey - The key.
   * @param owner - The owner.
   * @param leaseMs - The new lease, from now.
   * @returns Whether the claim is still this owner's and running.
   */
  async renew(claimKey: string, owner: string, leaseMs: number): Promise<boolean> {
    return this.#updateClaim(claimKey, owner, (c) => ({ ...c, leaseExpiresAtMs: Date.now() + leaseMs }))
  }

  /**
   * Take over an abandoned claim.
   *
   * @param claimKey - The key.
   * @param fromOwner - The owner the caller saw.
   * @param toOwner - The new owner.
   * @param leaseMs - The new lease.
   * @returns Whether the claim is now `toOwner`'s.
   */
  async takeOver(claimKey: string, fromOwner: string, toOwner: string, leaseMs: number): Promise<boolean> {
    return this.#updateClaim(claimKey, fromOwner, (c) => ({ ...c, owner: toOwner, leaseExpiresAtMs: Date.now() + leaseMs }))
  }

  /**
   * Settle a claim and append the call's row.
   *
   * @param claimKey - The key.
   * @param owner - The owner.
   * @param row - The finished row.
   * @param flags - The tool's flags.
   * @returns Whether the claim was this owner's.
   */
  async complete(claimKey: string, owner: string, row: ToolCallRow, flags: ToolCallFlags): Promise<boolean> {
    const normal = normaliseRow(row, this.maxOutputBytes)
    const line = `${JSON.stringify({ ...normal, [FLAGS_KEY]: { sideEffect: flags.sideEffect, idempotent: flags.idempotent } })}\n`
    return this.#updateClaim(claimKey, owner, (c) => ({ ...c, row: { ...c.row, ...normal } }), line)
  }

  /**
   * Drop a running claim whose call never started (a tombstone line).
   *
   * @param claimKey - The key.
   * @param owner - The owner.
   * @returns Whether it was this owner's running claim.
   */
  async release(claimKey: string, owner: string): Promise<boolean> {
    let changed = false
    await this.#enqueue(async () => {
      const existing = (await this.#readFile()).claims.get(claimKey)
      if (!existing || existing.owner !== owner || existing.row.status !== 'running') return
      await this.#append(`${JSON.stringify({ [CLAIM_KEY]: { claimKey, released: true } })}\n`)
      changed = true
    })
    return changed
  }

  /**
   * A claim by key.
   *
   * @param claimKey - The key.
   * @returns The claim, or `undefined`.
   */
  async getClaim(claimKey: string): Promise<ToolCallClaim | undefined> {
    await this.#queue
    const stored = (await this.#readFile()).claims.get(claimKey)
    return stored ? claimOf(stored) : undefined
  }

  /**
   * Append a turn's checkpoint (a whole one or a delta) as a `$turn` line.
   *
   * @param checkpoint - The checkpoint.
   */
  async saveTurn(checkpoint: TurnCheckpoint): Promise<void> {
    await this.#enqueue(() => this.#append(`${JSON.stringify({ [TURN_KEY]: checkpoint })}\n`))
  }

  /**
   * The latest checkpoint of a run, its chain folded. A torn last line (a
   * writer killed mid-append) is skipped like any line that does not parse,
   * so the checkpoint before it is the latest.
   *
   * @param runId - The run.
   * @param scope - The node and iteration, when the run has several.
   * @returns The checkpoint, or `undefined`.
   * @throws `E_JOURNAL_CORRUPT` when a link of the chain is missing.
   */
  async loadTurn(runId: string, scope: { nodeId?: string; iteration?: number } = {}): Promise<TurnCheckpoint | undefined> {
    await this.#queue
    const all = (await this.#readFile()).turns
    const head = all.findLast(
      (t) =>
        t.runId === runId &&
        (scope.nodeId === undefined || t.nodeId === scope.nodeId) &&
        (scope.iteration === undefined || t.iteration === scope.iteration),
    )
    if (!head) return undefined
    return foldTurnChain(head, all.filter((t) => t.runId === head.runId && t.nodeId === head.nodeId && t.iteration === head.iteration))
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
    return (await this.#readFile()).rows
  }

  async #readFile(): Promise<{ rows: StoredLine[]; claims: Map<string, StoredClaim>; turns: TurnCheckpoint[] }> {
    const rows: StoredLine[] = []
    const claims = new Map<string, StoredClaim>()
    const turns: TurnCheckpoint[] = []
    let text: string
    try {
      text = await readFile(this.file, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { rows, claims, turns }
      throw error
    }
    for (const raw of text.split('\n')) {
      if (raw.startsWith(`{"${CLAIM_KEY}":`) || raw.startsWith(`{"${TURN_KEY}":`)) {
        const record = parseObject(raw)
        const claim = record?.[CLAIM_KEY] as StoredClaim | undefined
        if (claim && typeof claim.claimKey === 'string') {
          if ((claim as { released?: unknown }).released === true) claims.delete(claim.claimKey)
          else claims.set(claim.claimKey, claim)
        }
        const turn = record?.[TURN_KEY] as TurnCheckpoint | undefined
        if (turn && typeof turn.runId === 'string') turns.push(turn)
        continue
      }
      const parsed = parseLine(raw)
      if (parsed) rows.push(parsed)
    }
    return { rows, claims, turns }
  }
}

function parseObject(raw: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(raw)
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

function claimOf(stored: StoredClaim): ToolCallClaim {
  const state = stored.row.status
  return {
    claimKey: stored.claimKey,
    owner: stored.owner,
    state,
    leaseExpiresAtMs: stored.leaseExpiresAtMs,
    leaseExpired: state === 'running' && stored.leaseExpiresAtMs <= Date.now(),
    row: { ...stored.row },
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
  row.replayed = row.replayed === true
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
