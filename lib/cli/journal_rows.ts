/**
 * A journal row as the CLI prints it in JSON (`journal show --json`,
 * `demo --json`): the row's JSON texts parsed. Apart from the stores, so the
 * demo does not load them.
 *
 * @module
 */
import type { ToolCallRow } from '../journal/contract.js'

/** The row's own fields that `journal show --json` prints as they are (see {@link ToolCallRow}). */
type PlainRowFields = 'runId' | 'nodeId' | 'iteration' | 'attempt' | 'seq' | 'toolName' | 'status' | 'startedAtMs' | 'finishedAtMs' | 'callId' | 'idempotencyKey'

/** One recorded call as `journal show --json` prints it: the row, its JSON texts parsed. */
export interface JournalShowRow extends Pick<ToolCallRow, PlainRowFields> {
  /** `finishedAtMs - startedAtMs`. */
  durationMs: number
  /** `true` when the tool did not run: the outcome was replayed from an earlier claim. */
  replayed: boolean
  /** The arguments, redacted as the journal keeps them. */
  input: unknown
  /** The result (possibly the truncation envelope), or `null` on error. */
  output: unknown
  /** The error (`{ name, code, message, … }`), or `null` on success. */
  error: unknown
  /** The permission decision (see `ToolCallPermission`), or `null` when no gate judged the call. */
  permission: unknown
}

/**
 * A journal row as `journal show --json` (and `demo --json`) print it.
 *
 * @param row - The row.
 * @returns The row with its JSON texts parsed.
 */
export function journalShowRow(row: ToolCallRow): JournalShowRow {
  return {
    ...rowIdentity(row),
    status: row.status,
    startedAtMs: row.startedAtMs,
    finishedAtMs: row.finishedAtMs,
    durationMs: row.finishedAtMs - row.startedAtMs,
    callId: row.callId,
    idempotencyKey: row.idempotencyKey,
    replayed: row.replayed === true,
    input: parseRowJson(row.inputJson),
    output: row.outputJson == null ? null : parseRowJson(row.outputJson),
    error: row.errorJson == null ? null : parseRowJson(row.errorJson),
    permission: row.permissionJson == null ? null : parseRowJson(row.permissionJson),
  }
}

/**
 * Which call a row records, as the JSON documents name it: run, node,
 * iteration, attempt, sequence and tool.
 *
 * @param row - The row.
 * @returns Those fields, in that order.
 */
export function rowIdentity(row: ToolCallRow): Pick<ToolCallRow, 'runId' | 'nodeId' | 'iteration' | 'attempt' | 'seq' | 'toolName'> {
  return { runId: row.runId, nodeId: row.nodeId, iteration: row.iteration, attempt: row.attempt, seq: row.seq, toolName: row.toolName }
}

/**
 * Parse a JSON text a row holds; a text that does not parse (a store written
 * by hand) is returned as it is rather than failing the whole report.
 *
 * @param text - The JSON text.
 * @returns The value, or the text.
 */
export function parseRowJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
