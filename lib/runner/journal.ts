/**
 * The tool-call journal contract: one row per call, the filter and scope
 * types, and the rules every store applies (output cap, input redaction).
 *
 * @module
 */
import { REDACTION_FAILED, type INVALID_ARGS_NOT_RECORDED } from '../core/tool.js'
import { E_INVALID_OPTIONS, describeCause } from '../exceptions.js'
import { canonicalStringify } from '../utils/canonical_json.js'
import { sha256Hex } from '../utils/hash.js'
import { utf8Prefix } from '../utils/utf8.js'

/** Whether a recorded call returned a result or failed. */
export type ToolCallStatus = 'success' | 'error'

/**
 * One recorded tool call.
 *
 * @remarks
 * `inputJson`, `outputJson` and `errorJson` are JSON texts. `inputJson` holds
 * the redacted args (never file content); `outputJson` is `null` when the call
 * failed and `errorJson` is `null` when it succeeded. Output larger than the
 * journal's `maxOutputBytes` is replaced by
 * `{"truncated":true,"bytes":N,"preview":"…"}`.
 */
export interface ToolCallRow {
  /** The run (workflow execution) the call belongs to. */
  runId: string
  /** The task node that made the call. */
  nodeId: string
  /** The loop iteration of the node. */
  iteration: number
  /** The retry attempt, starting at 1. */
  attempt: number
  /** Order of the call within the attempt, starting at 0, in the model's order. */
  seq: number
  /** The tool's name. */
  toolName: string
  /** The redacted args, as JSON. */
  inputJson: string
  /** The result as JSON (possibly the truncation envelope), or `null` on error. */
  outputJson: string | null
  /** Epoch milliseconds when the call started. */
  startedAtMs: number
  /** Epoch milliseconds when the call settled. */
  finishedAtMs: number
  /** `'success'` or `'error'`. */
  status: ToolCallStatus
  /** The error as JSON (`{ name, code, status, message, details, cause }`), or `null` on success. */
  errorJson: string | null
  /** `sha256hex(canonicalStringify({ tool, args }))` over the raw args. */
  callId: string
  /** The call's idempotency key: stable across attempts of one iteration. */
  idempotencyKey: string
}

/** Facts about the tool behind a row that a journal keeps to answer {@link ToolCallJournal.sideEffectsFor}. */
export interface ToolCallFlags {
  /** Whether the tool changes state outside itself. */
  sideEffect: boolean
  /** Whether running it twice with the same args is safe. */
  idempotent: boolean
}

/** Which rows {@link ToolCallJournal.list} returns; every given field must match. */
export interface ToolCallFilter {
  /** Only this run. */
  runId?: string
  /** Only this node. */
  nodeId?: string
  /** Only this iteration. */
  iteration?: number
  /** Only this attempt. */
  attempt?: number
  /** Only this tool. */
  toolName?: string
  /** Only this status. */
  status?: ToolCallStatus
  /** Only this call id. */
  callId?: string
  /** Only this idempotency key. */
  idempotencyKey?: string
}

/** The task iteration whose earlier side effects {@link ToolCallJournal.sideEffectsFor} reports. */
export interface ToolCallScope {
  /** The run. */
  runId: string
  /** The node. */
  nodeId: string
  /** The iteration. */
  iteration: number
}

/**
 * A durable record of tool calls.
 *
 * @remarks
 * Implemented by {@link JsonlJournal} (the embedded default) and
 * {@link SqliteJournal}; any object with these three methods (and, if it caps
 * outputs differently, `maxOutputBytes`) works with `TurnRunner`.
 */
export interface ToolCallJournal {
  /**
   * The cap this journal applies to `outputJson` and `errorJson`, in UTF-8
   * bytes: the runner sizes what it sends to match. A positive integer.
   *
   * @defaultValue 200_000 (when the journal does not declare one)
   */
  readonly maxOutputBytes?: number
  /**
   * Store one row.
   *
   * @param row - The row; its `outputJson` and `errorJson` are capped to the journal's `maxOutputBytes`.
   * @param flags - The tool's flags, kept so {@link ToolCallJournal.sideEffectsFor} can tell
   *   side-effect calls apart; when omitted the call counts as a non-idempotent side effect.
   */
  record(row: ToolCallRow, flags?: ToolCallFlags): Promise<void>
  /**
   * Rows in the order they were recorded.
   *
   * @param filter - Fields every returned row must match.
   */
  list(filter?: ToolCallFilter): Promise<ToolCallRow[]>
  /**
   * The calls of non-idempotent side-effect tools already made, in any
   * attempt, for one task iteration: what a retried attempt must be told about.
   *
   * @param scope - The run, node and iteration.
   */
  sideEffectsFor(scope: ToolCallScope): Promise<ToolCallRow[]>
}

/** Options shared by the journal stores. */
export interface JournalOptions {
  /**
   * Output (and error) JSON longer than this many UTF-8 bytes is stored as the
   * `{ truncated, bytes, preview }` envelope.
   *
   * @defaultValue 200_000
   */
  maxOutputBytes?: number
}

/** The default of {@link JournalOptions.maxOutputBytes}. */
export const DEFAULT_JOURNAL_MAX_OUTPUT_BYTES = 200_000

/** What a capped output is replaced by. */
export interface TruncatedOutput {
  /** Always `true`. */
  truncated: true
  /** UTF-8 byte length of the full output. */
  bytes: number
  /** The start of the output, cut on a character boundary. */
  preview: string
}

const PREVIEW_BYTES = 1_024

/** The field order of a row, shared by the stores so every row prints alike. */
export const TOOL_CALL_ROW_FIELDS = [
  'runId',
  'nodeId',
  'iteration',
  'attempt',
  'seq',
  'toolName',
  'inputJson',
  'outputJson',
  'startedAtMs',
  'finishedAtMs',
  'status',
  'errorJson',
  'callId',
  'idempotencyKey',
] as const satisfies readonly (keyof ToolCallRow)[]

/**
 * Serialise an output for a row, replacing it with the truncation envelope when
 * it is larger than `maxOutputBytes`.
 *
 * @param output - A string (the usual tool result), bytes, or any JSON value.
 * @param maxOutputBytes - The cap.
 * @returns The JSON text to store.
 */
export function outputToJson(output: unknown, maxOutputBytes = DEFAULT_JOURNAL_MAX_OUTPUT_BYTES): string {
  if (typeof output === 'string') {
    const bytes = Buffer.byteLength(output, 'utf8')
    if (bytes > maxOutputBytes) return truncatedJson(output, bytes, maxOutputBytes)
    return JSON.stringify(output)
  }
  if (output instanceof Uint8Array) return capJson(canonicalStringify({ bytes: output.byteLength, sha256: sha256Hex(output) }), maxOutputBytes)
  return capJson(safeJson(output), maxOutputBytes)
}

/**
 * Replace JSON text larger than `maxOutputBytes` with the truncation envelope.
 *
 * @remarks
 * A JSON string literal is measured by the bytes of the text it holds, not of
 * its escaped form, so an output of exactly `maxOutputBytes` is kept.
 *
 * @param json - JSON text (a JSON string literal keeps its text as the preview).
 * @param maxOutputBytes - The cap.
 * @returns `json` itself, or the envelope's JSON.
 */
export function capJson(json: string, maxOutputBytes = DEFAULT_JOURNAL_MAX_OUTPUT_BYTES): string {
  const bytes = Buffer.byteLength(json, 'utf8')
  if (bytes <= maxOutputBytes) return json
  if (json.startsWith('"')) {
    let text: string | undefined
    try {
      text = JSON.parse(json) as string
    } catch {
      // Not a complete string literal: preview the raw text instead.
    }
    if (text !== undefined) {
      // The cap is on the output, not on its JSON escaping: quotes, newlines
      // and backslashes must not push an output that fits over the limit.
      const textBytes = Buffer.byteLength(text, 'utf8')
      return textBytes <= maxOutputBytes ? json : truncatedJson(text, textBytes, maxOutputBytes)
    }
  }
  return truncatedJson(json, bytes, maxOutputBytes)
}

function truncatedJson(text: string, bytes: number, maxOutputBytes: number): string {
  const envelope: TruncatedOutput = { truncated: true, bytes, preview: utf8Prefix(text, Math.min(PREVIEW_BYTES, maxOutputBytes)) }
  return JSON.stringify(envelope)
}

/**
 * Serialise a thrown value for `errorJson`: a toolsmith exception becomes its
 * `toJSON()` (`{ name, code, status, message, details, cause }`).
 *
 * @param error - Any thrown value.
 * @param maxOutputBytes - The cap.
 * @returns The JSON text to store.
 */
export function errorToJson(error: unknown, maxOutputBytes = DEFAULT_JOURNAL_MAX_OUTPUT_BYTES): string {
  return capJson(safeJson(describeCause(error)), maxOutputBytes)
}

/** What {@link redactToolInput} needs of a tool. */
export interface RedactableTool {
  /** The tool's name. */
  readonly name: string
  /** The tool's own redaction, if any. */
  readonly redact?: ((args: any) => unknown) | undefined
}

/**
 * The args as a journal stores them, for valid args: the tool's own `redact`
 * (failing closed to {@link REDACTION_FAILED}), or the args when it has none.
 * Redaction comes only from the tool; args that failed validation are never
 * passed here (the runner records {@link INVALID_ARGS_NOT_RECORDED}).
 *
 * @param tool - The tool, or its name and `redact`.
 * @param args - Validated args.
 * @returns A JSON-ready value.
 */
export function redactToolInput(tool: RedactableTool, args: unknown): unknown {
  if (!tool.redact) return args
  try {
    return tool.redact(args)
  } catch {
    return REDACTION_FAILED
  }
}

/**
 * JSON for anything: canonical when possible, a best-effort `String()` otherwise.
 *
 * @param value - Any value.
 * @returns JSON text.
 */
export function safeJson(value: unknown): string {
  try {
    return canonicalStringify(value === undefined ? null : value)
  } catch {
    try {
      return JSON.stringify(value) ?? 'null'
    } catch {
      return JSON.stringify(String(value))
    }
  }
}

/**
 * Refuse a filter key that is not a row field, as `SqliteJournal` does: a
 * typo in a filter must not read as "no rows".
 *
 * @param filter - The filter given to `list`.
 * @throws `E_INVALID_OPTIONS` naming the unknown key and the valid ones.
 */
export function assertFilter(filter: ToolCallFilter = {}): void {
  for (const key of Object.keys(filter)) {
    if (!(TOOL_CALL_ROW_FIELDS as readonly string[]).includes(key)) {
      throw new E_INVALID_OPTIONS(`Unknown journal filter field "${key}"; filter on one of: ${TOOL_CALL_ROW_FIELDS.join(', ')}`)
    }
  }
}

/**
 * Whether a row matches a filter.
 *
 * @param row - A row.
 * @param filter - The filter.
 * @returns `true` when every field set in `filter` equals the row's.
 */
export function matchesFilter(row: ToolCallRow, filter: ToolCallFilter = {}): boolean {
  for (const [key, expected] of Object.entries(filter)) {
    if (expected === undefined) continue
    if (row[key as keyof ToolCallRow] !== expected) return false
  }
  return true
}

/**
 * Apply a journal's cap to a row before it is stored, and keep only the row's fields.
 *
 * @param row - The row as given to `record`.
 * @param maxOutputBytes - The cap.
 * @returns A new row with exactly the {@link ToolCallRow} fields.
 */
export function normaliseRow(row: ToolCallRow, maxOutputBytes: number): ToolCallRow {
  const out = {} as Record<string, unknown>
  for (const field of TOOL_CALL_ROW_FIELDS) out[field] = row[field]
  const normal = out as unknown as ToolCallRow
  if (normal.outputJson != null) normal.outputJson = capJson(normal.outputJson, maxOutputBytes)
  else normal.outputJson = null
  if (normal.errorJson != null) normal.errorJson = capJson(normal.errorJson, maxOutputBytes)
  else normal.errorJson = null
  return normal
}

/**
 * Whether a call counts for {@link ToolCallJournal.sideEffectsFor}.
 *
 * @param flags - The flags recorded with the row, if any.
 * @returns `true` for non-idempotent side effects and for rows recorded without flags.
 */
export function isUnsafeToRepeat(flags: ToolCallFlags | undefined): boolean {
  return flags === undefined || (flags.sideEffect && !flags.idempotent)
}
