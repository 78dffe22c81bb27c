/**
 * What a surface may plug into the call pipeline for one call: the turn
 * runner hears each call start and end (its `tool-start` / `tool-end`
 * events are made from these) and settles results itself (it spools large
 * ones). Other surfaces plug nothing: the pipeline records the result capped.
 *
 * @module
 */
import type { ToolResult } from '../../contracts/tool_result.js'
import type { SpoolRestorer } from '../../journal/claims.js'

/** A call as the pipeline records it, known once it is prepared (before the gate). */
export interface PipelineCallStart {
  /** The tool's name (as the model gave it, for an unknown tool). */
  readonly toolName: string
  /** The kit's callId. */
  readonly callId: string
  /** The call's idempotency key. */
  readonly idempotencyKey: string
  /** What the row records as args: redacted, or `INVALID_ARGS_NOT_RECORDED`. */
  readonly loggedArgs: unknown
  /** The row's `seq`. */
  readonly seq: number
  /** Epoch milliseconds when the pipeline took the call. */
  readonly startedAtMs: number
}

/** How a call ended, as the pipeline records it. */
export interface PipelineCallEnd extends PipelineCallStart {
  /** Whether it failed. */
  readonly isError: boolean
  /** What it threw (or replayed as thrown), when `isError`. */
  readonly error?: unknown
  /** Whether its outcome was replayed from the journal (the handler did not run). */
  readonly replayed: boolean
  /** Time in the pipeline, in milliseconds (monotonic clock). */
  readonly durationMs: number
}

/** What a {@link CallHooks.settle} hook answers: the result to return and what the row records. */
export interface SettledOutput {
  /** The row's `outputJson`. */
  readonly outputJson: string
}

/**
 * A surface's hooks for one call. Every member is optional; a context
 * without hooks (and without a journal) runs the executor's fast path.
 */
export interface CallHooks {
  /** The call was prepared (before the gate): the runner's `tool-start`. */
  start?(call: PipelineCallStart): void
  /**
   * Turn a result (run or replayed) into the row's `outputJson`; a throw
   * fails the call. Without it the pipeline records `outputToJson` capped at
   * the journal's `maxOutputBytes`.
   */
  settle?(result: ToolResult, call: PipelineCallStart): Promise<SettledOutput>
  /** Reads back a result this surface spooled (see {@link SpoolRestorer}), for replays. */
  restore?: SpoolRestorer
  /** The call ended (after settle, before the row is written): the runner's `tool-end`. */
  end?(call: PipelineCallEnd): void
}
