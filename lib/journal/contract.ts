/**
 * The tool-call journal contract: one row per call, the filter and scope
 * types, and the output cap every store applies (the helpers that apply it
 * are in `output.ts`; claims and checkpoints in `claiming.ts`).
 *
 * @module
 */
import type { PermissionDecisionEvent } from '../contracts/permission_decision.js'

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

