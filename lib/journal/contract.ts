/**
 * The tool-call journal contract: one row per call, the filter and scope
 * types, and the rules every store applies (output cap, input redaction).
 *
 * @module
 */
import type { PermissionDecisionEvent } from '../core/dispatch_context.js'
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
 *
 * `permissionJson` is the permission gate's decision about the call (a
 * {@link ToolCallPermission} as JSON), so a run can be audited from its
 * journal alone: what was allowed, asked, approved, remembered or refused,
 * by which rule and by whom. It is `null` when no gate judged the call.
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
  /**
   * `true` when the handler did not run for this row: its outcome was replayed
   * from the claim an earlier attempt (or another worker) recorded under the
   * same key. Stores return `false` for every other row.
   */
  replayed?: boolean
  /**
   * The permission gate's decision about this call, as JSON (see
   * {@link ToolCallPermission}); `null` when no gate judged it (no
   * `permissions`, args that failed validation, an unknown tool, an abandoned
   * call whose outcome is unknown). A replayed row carries the decision of the
   * run that made the call. Stores return `null` for rows recorded without one,
   * and cap it like `errorJson` (an approver's note of more than
   * `maxOutputBytes` makes it the truncation envelope).
   */
  permissionJson?: string | null
}

/**
 * What {@link ToolCallRow.permissionJson} holds: the `permissionDecision`
 * event of the call, without the ids the row already has (`toolName`,
 * `callId`) or that only make sense while the turn runs (`turnId`,
 * `toolCallId`).
 *
 * @example
 * ```ts
 * import type { ToolCallPermission } from 'toolsmith'
 *
 * for (const row of await journal.list({ runId: 'r1' })) {
 *   if (row.permissionJson == null) continue
 *   const p = JSON.parse(row.permissionJson) as ToolCallPermission
 *   console.log(row.toolName, p.policyDecision, '→', p.decision, 'by', p.approver, p.rule?.name ?? 'default')
 * }
 * ```
 */
export type ToolCallPermission = Omit<PermissionDecisionEvent, 'toolName' | 'turnId' | 'callId' | 'toolCallId'>

/**
 * The JSON {@link ToolCallRow.permissionJson} stores for a decision: its
 * fields in a fixed order (`decision, policyDecision, rule, reason?,
 * approver, note?, latencyMs`), `latencyMs` rounded to the microsecond.
 *
 * @param event - The gate's decision about the call.
 * @returns The JSON text.
 */
export function permissionToJson(event: PermissionDecisionEvent): string {
  const record: ToolCallPermission = {
    decision: event.decision,
    policyDecision: event.policyDecision,
    rule: event.rule === null ? null : { index: event.rule.index, name: event.rule.name },
    ...(event.reason === undefined ? {} : { reason: event.reason }),
    approver: event.approver,
    ...(event.note === undefined ? {} : { note: event.note }),
    latencyMs: Math.round(event.latencyMs * 1000) / 1000,
  }
  return JSON.stringify(record)
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
  /**
   * The id the whole output was spooled under in the runner's `spoolStore`,
   * when the runner spooled it: a replayed call reads it back from there.
   */
  spoolId?: string
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
  'replayed',
  'permissionJson',
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

// ---------------------------------------------------------------------------
// Claims: exactly-once runs of non-idempotent side effects
// ---------------------------------------------------------------------------

/** Where a claimed call stands. */
export type ClaimState = 'running' | 'success' | 'error'

/**
 * The journal's record of one claimed call: the row of the worker that won
 * the claim, its lease, and (once settled) its outcome.
 */
export interface ToolCallClaim {
  /** The key the call was claimed under: its idempotency key, `#n` appended for the n-th repeat in one attempt. */
  claimKey: string
  /** The worker holding (or last holding) the claim: `host:pid:random`. */
  owner: string
  /** `'running'` until the claimant records the outcome (the same as `row.status`). */
  state: ClaimState
  /** Epoch milliseconds (the store's clock) after which a `'running'` claim counts as abandoned. */
  leaseExpiresAtMs: number
  /** Whether the lease had expired when the store read the claim (compared on the store's own clock). */
  leaseExpired: boolean
  /**
   * The claimant's row: its coordinates, tool and redacted input; once
   * settled, also its `outputJson`/`errorJson`, `permissionJson` and `finishedAtMs`.
   */
  row: ClaimedRow
}

/** A claim's row: a {@link ToolCallRow} whose status may still be `'running'`. */
export interface ClaimedRow extends Omit<ToolCallRow, 'status'> {
  /** `'running'` until the outcome is recorded, then `'success'` or `'error'`. */
  status: ClaimState
}

/** The SQL column of each row field, shared by the SQL stores. */
export const TOOL_CALL_COLUMNS: Readonly<Record<keyof ToolCallRow, string>> = {
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
  replayed: 'replayed',
  permissionJson: 'permission_json',
}

/**
 * A row as a SQL driver returns it (selected `AS "field"`): numbers that
 * arrive as strings (PostgreSQL `bigint`) or 0/1 flags become the row's types.
 *
 * @param record - One result record.
 * @returns The row.
 */
export function rowFromSql<R extends ToolCallRow | ClaimedRow>(record: Record<string, unknown>): R {
  const row = {} as Record<string, unknown>
  for (const field of TOOL_CALL_ROW_FIELDS) row[field] = record[field] ?? null
  for (const field of ['iteration', 'attempt', 'seq', 'startedAtMs', 'finishedAtMs'] as const) row[field] = Number(row[field])
  row.replayed = row.replayed === true || row.replayed === 1
  return row as unknown as R
}

/** What {@link ClaimingJournal.claim} asks for. */
export interface ClaimRequest {
  /** See {@link ToolCallClaim.claimKey}. */
  claimKey: string
  /** The worker asking. */
  owner: string
  /** How long the claim holds without a renewal, in milliseconds. */
  leaseMs: number
  /** The call's row as it starts (`status`, `outputJson`, `errorJson` are ignored). */
  row: ToolCallRow
  /** The tool's flags. */
  flags: ToolCallFlags
}

/** What {@link ClaimingJournal.claim} answers. */
export interface ClaimResult {
  /** `true` when this worker now holds the claim and must run the call. */
  acquired: boolean
  /** The claim as stored: this worker's own when `acquired`, else the earlier one. */
  claim: ToolCallClaim
}

/**
 * A turn as a journal keeps it, so another process can resume it: the
 * conversation up to the last model answer, and the state the runner needs
 * to continue.
 *
 * @remarks
 * The runner writes a turn as a chain: a whole checkpoint (the root, no
 * `parentId`), then one delta per step naming the checkpoint it continues.
 * A journal that declares {@link ClaimingJournal.turnDeltas} keeps every
 * record and `loadTurn` returns the chain folded into one whole checkpoint;
 * to any other journal the runner sends whole checkpoints. Tool-call
 * arguments in `messagesJson` are in the checkpoint form the runner
 * documents (redacted, withheld or sealed where the redaction rules say so):
 * stores keep the text as it is.
 */
export interface TurnCheckpoint {
  /** The run. */
  runId: string
  /** The node. */
  nodeId: string
  /** The iteration. */
  iteration: number
  /** The attempt that wrote it. */
  attempt: number
  /** The prompt of the turn; `''` in a delta (the chain's root holds it). */
  prompt: string
  /**
   * The conversation as JSON (an array of `Message` in checkpoint form), the
   * last model answer included; in a delta, only the messages added since
   * the checkpoint `parentId`.
   */
  messagesJson: string
  /** Model calls made so far. */
  steps: number
  /**
   * The runner's own state as a JSON object (claims made per idempotency
   * key, the next `seq`); in a delta, only what changed. Stores fold a chain
   * one level deep: a delta's key replaces the folded value, and two objects
   * under one key are merged key by key.
   */
  stateJson: string
  /** `true` once the turn ended normally. */
  done: boolean
  /** Epoch milliseconds of the write. */
  updatedAtMs: number
  /**
   * The record's id (random), which a later delta names as its `parentId`.
   * Absent in checkpoints written before chains existed.
   */
  checkpointId?: string
  /**
   * The checkpoint this record continues: present on a delta, absent (or
   * `null`) on a whole checkpoint. `loadTurn` never returns one: it folds
   * the chain.
   */
  parentId?: string | null
}

/**
 * A journal that can also claim calls and keep turn checkpoints: what
 * exactly-once side effects and `TurnRunner.resume` need.
 *
 * @remarks
 * Implemented by {@link SqliteJournal} (one machine, any number of
 * processes), `PostgresJournal` (any number of machines) and
 * {@link JsonlJournal} (one process only: appending to a file cannot make two
 * processes' claims exclusive).
 */
export interface ClaimingJournal extends ToolCallJournal {
  /**
   * Claim a call, atomically: the first worker to ask gets it; everyone else
   * gets the stored claim (running, or settled with its outcome).
   *
   * @param request - Key, owner, lease and the starting row.
   * @returns Whether this worker acquired it, and the claim as stored.
   * @throws `E_JOURNAL_UNAVAILABLE` when the store cannot be reached.
   */
  claim(request: ClaimRequest): Promise<ClaimResult>
  /**
   * Extend a running claim's lease; only its owner can.
   *
   * @param claimKey - The key.
   * @param owner - The owner.
   * @param leaseMs - The new lease, from now.
   * @returns `false` when the claim is no longer this owner's or no longer running.
   */
  renew(claimKey: string, owner: string, leaseMs: number): Promise<boolean>
  /**
   * Move an abandoned running claim to a new owner (compare-and-set on the old owner).
   *
   * @param claimKey - The key.
   * @param fromOwner - The owner the caller saw.
   * @param toOwner - The new owner.
   * @param leaseMs - The new lease.
   * @returns `false` when someone else changed the claim first.
   */
  takeOver(claimKey: string, fromOwner: string, toOwner: string, leaseMs: number): Promise<boolean>
  /**
   * Record the outcome of a claimed call: settle the claim and store `row`
   * as the call's journal row, in one transaction.
   *
   * @param claimKey - The key.
   * @param owner - The owner; a claim held by someone else is left alone.
   * @param row - The finished row.
   * @param flags - The tool's flags.
   * @returns `false` when the claim was not this owner's (nothing was written).
   */
  complete(claimKey: string, owner: string, row: ToolCallRow, flags: ToolCallFlags): Promise<boolean>
  /**
   * Drop a running claim whose call never started (its permission was
   * refused), so a later attempt asks again instead of replaying the refusal.
   *
   * @param claimKey - The key.
   * @param owner - The owner; a claim held by someone else is left alone.
   * @returns `false` when the claim was not this owner's running claim.
   */
  release(claimKey: string, owner: string): Promise<boolean>
  /**
   * A claim by key.
   *
   * @param claimKey - The key.
   * @returns The claim, or `undefined`.
   */
  getClaim(claimKey: string): Promise<ToolCallClaim | undefined>
  /**
   * `true` when {@link ClaimingJournal.saveTurn} keeps every record it is
   * given and {@link ClaimingJournal.loadTurn} folds chains of deltas (see
   * {@link TurnCheckpoint}): the runner then appends only each step's new
   * messages. Otherwise (a journal that keeps one checkpoint per turn) it
   * sends a whole checkpoint every time.
   */
  readonly turnDeltas?: boolean
  /**
   * Store a turn's checkpoint: a whole one, or (with {@link ClaimingJournal.turnDeltas})
   * a delta on an earlier one.
   *
   * @param checkpoint - The checkpoint.
   */
  saveTurn(checkpoint: TurnCheckpoint): Promise<void>
  /**
   * The latest checkpoint of a run, optionally narrowed to a node and
   * iteration, whole: a chain of deltas comes back folded.
   *
   * @param runId - The run.
   * @param scope - The node and iteration, when the run has several.
   * @returns The checkpoint last written, or `undefined`.
   * @throws `E_JOURNAL_CORRUPT` when a chain's link is missing.
   */
  loadTurn(runId: string, scope?: { nodeId?: string; iteration?: number }): Promise<TurnCheckpoint | undefined>
}

/**
 * Whether a journal implements {@link ClaimingJournal}.
 *
 * @param journal - Any journal.
 * @returns `true` when it has every claim and checkpoint method.
 */
export function isClaimingJournal(journal: ToolCallJournal | undefined): journal is ClaimingJournal {
  if (!journal) return false
  const j = journal as Partial<ClaimingJournal>
  return (
    typeof j.claim === 'function' &&
    typeof j.renew === 'function' &&
    typeof j.takeOver === 'function' &&
    typeof j.complete === 'function' &&
    typeof j.release === 'function' &&
    typeof j.getClaim === 'function' &&
    typeof j.saveTurn === 'function' &&
    typeof j.loadTurn === 'function'
  )
}
