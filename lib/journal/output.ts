/**
 * How a row's JSON is made: outputs and errors capped with the truncation
 * envelope, args redacted, filters checked, rows normalised before storing.
 *
 * @module
 */
import { REDACTION_FAILED, type INVALID_ARGS_NOT_RECORDED } from '../contracts/logged_args.js'
import { E_INVALID_OPTIONS, describeCause } from '../exceptions.js'
import { canonicalStringify } from '../utils/canonical_json.js'
import { sha256Hex } from '../utils/hash.js'
import { utf8Prefix } from '../utils/utf8.js'
import {
  DEFAULT_JOURNAL_MAX_OUTPUT_BYTES,
  TOOL_CALL_ROW_FIELDS,
  type ToolCallFilter,
  type ToolCallFlags,
  type ToolCallRow,
  type TruncatedOutput,
} from './contract.js'

const PREVIEW_BYTES = 1_024

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
  if (normal.permissionJson != null) normal.permissionJson = capJson(normal.permissionJson, maxOutputBytes)
  else normal.permissionJson = null
  normal.replayed = normal.replayed === true
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
