/**
 * Reading claims and checkpoints back from the SQL journals (SQLite and
 * PostgreSQL select the same field names).
 *
 * @module
 */
import type { ClaimedRow, ToolCallClaim, TurnCheckpoint } from './claiming.js'
import { TOOL_CALL_ROW_FIELDS, type ToolCallRow } from './contract.js'

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

/** The checkpoint columns, selected under their field names. */
export const CHECKPOINT_SELECT =
  'run_id AS "runId", node_id AS "nodeId", iteration, attempt, prompt, messages_json AS "messagesJson", steps, ' +
  'state_json AS "stateJson", done, updated_at_ms AS "updatedAtMs"'

/** The columns of a chain record (`turn_checkpoint_deltas`), selected under their field names. */
export const CHECKPOINT_DELTA_SELECT = `${CHECKPOINT_SELECT}, checkpoint_id AS "checkpointId", parent_id AS "parentId"`

/**
 * A checkpoint as a SQL driver returns it (a chain record's id and parent included when selected).
 *
 */
export function checkpointFromSql(record: Record<string, unknown>): TurnCheckpoint {
  return {
    ...(typeof record.checkpointId === 'string' ? { checkpointId: record.checkpointId } : {}),
    ...(typeof record.parentId === 'string' ? { parentId: record.parentId } : {}),
    runId: String(record.runId),
    nodeId: String(record.nodeId),
    iteration: Number(record.iteration),
    attempt: Number(record.attempt),
    prompt: String(record.prompt),
    messagesJson: String(record.messagesJson),
    steps: Number(record.steps),
    stateJson: String(record.stateJson),
    done: record.done === true || record.done === 1,
    updatedAtMs: Number(record.updatedAtMs),
  }
}

/**
 * A claim as a SQL driver returns it; `nowMs` is the store's clock.
 *
 */
export function claimFromSql(record: Record<string, unknown>, nowMs: number): ToolCallClaim {
  const row = rowFromSql<ClaimedRow>(record)
  const leaseExpiresAtMs = Number(record.leaseExpiresAtMs)
  return {
    claimKey: String(record.claimKey),
    owner: String(record.owner),
    state: row.status,
    leaseExpiresAtMs,
    leaseExpired: row.status === 'running' && leaseExpiresAtMs <= nowMs,
    row,
  }
}
