/**
 * `createCallContext`: the per-call view of a turn's context that every
 * surface (runner, MCP server, AI SDK adapter) hands to `tool.executor()`.
 *
 * @module
 */
import { anySignal } from '../utils/any_signal.js'
import type { TelemetryOptions } from '../telemetry/spans.js'
import type { DispatchContext, ToolOutputChunk } from './dispatch_context.js'
import type { CallHooks } from './pipeline/call_hooks.js'
import { runOf } from './pipeline/call_run.js'

/**
 * A {@link DispatchContext} for one provider tool call: the turn's identity
 * and events, a signal that also fires when the provider cancels the call,
 * and the provider's id for the call.
 *
 * @remarks
 * A handler receives it as its `ctx` parameter, so it can read
 * `toolCallId` (e.g. to correlate logs with the AI SDK's or MCP's records).
 */
export interface ProviderCallContext extends DispatchContext {
  /** The provider's id of this call (the AI SDK's `toolCallId`, MCP's JSON-RPC request id). */
  readonly toolCallId: string
}

/** Options of {@link createCallContext}: what a surface knows about one call. */
export interface CallContextOptions {
  /** The provider's id of this call (the AI SDK's `toolCallId`, MCP's request id, the runner's call id). */
  toolCallId: string
  /** Fires when the provider cancels this call. */
  signal?: AbortSignal | undefined
  /**
   * A stable identity of this one call (MCP: the key in the request's
   * `_meta`; the AI SDK: its `toolCallId`): the call's idempotency key is
   * derived from it, and with a claiming journal a non-idempotent
   * side-effect call under the same scope runs once (a repeat replays).
   * Defaults to the turn's scope.
   */
  idempotencyScope?: string | undefined
  /** The row's `seq` (the runner's); defaults to the run's next. */
  seq?: number | undefined
  /** A surface's hooks for this call (the runner's); see {@link CallHooks}. */
  hooks?: CallHooks | undefined
  /** Overrides the turn's tracing context for this call (an MCP request's `traceparent`). */
  traceContext?: unknown
  /** Overrides the turn's telemetry options for this call. */
  telemetry?: TelemetryOptions | undefined
  /** Hears this call's output as it arrives, instead of the turn's listener; see {@link DispatchContext.onToolOutput}. */
  onToolOutput?: ((chunk: ToolOutputChunk) => void) | undefined
}

/**
 * Derive a per-call context from a turn's context.
 *
 * @param ctx - The turn's context; its events, id, journal, run and idempotency scope are used as they are.
 * @param call - The provider's call id, optional cancellation signal, and what else the surface knows of the call.
 * @returns A context whose `abortSignal` fires when either `ctx.abortSignal` or `call.signal` does.
 *
 * @remarks
 * The two signals are linked without `AbortSignal.any`, which on Node 20
 * retains ≈ 50 bytes on the turn's signal for every call (nodejs/node#55351):
 * a server whose context lives for days would grow by that much per call.
 * The turn's signal carries one listener however many calls were made, and a
 * finished call's signal is collected like any other object.
 */
export function createCallContext(ctx: DispatchContext, call: CallContextOptions): ProviderCallContext {
  const abortSignal = call.signal ? anySignal([ctx.abortSignal, call.signal]) : ctx.abortSignal
  const keyed = call.idempotencyScope !== undefined
  const traceContext = call.traceContext ?? ctx.traceContext
  const telemetry = call.telemetry ?? ctx.telemetry
  const onToolOutput = call.onToolOutput ?? ctx.onToolOutput
  return {
    id: ctx.id,
    idempotencyScope: keyed ? call.idempotencyScope : ctx.idempotencyScope,
    abortSignal,
    toolCallId: call.toolCallId,
    emitToolExecutionStart: (event) => ctx.emitToolExecutionStart(event),
    emitToolExecutionEnd: (event) => ctx.emitToolExecutionEnd(event),
    // The turn's permission gate and decision listeners hold for each of its calls.
    ...(ctx.permissions === undefined ? {} : { permissions: ctx.permissions }),
    // So do its journal and run: seq and claim counts run across the turn's calls.
    ...(ctx.journal === undefined ? {} : { journal: ctx.journal, run: runOf(ctx) }),
    ...(ctx.journal === undefined && ctx.run !== undefined ? { run: ctx.run } : {}),
    ...(keyed ? { keyedCall: true } : {}),
    ...(call.seq === undefined ? {} : { seq: call.seq }),
    ...(call.hooks === undefined ? {} : { callHooks: call.hooks }),
    ...(telemetry === undefined ? {} : { telemetry }),
    ...(traceContext === undefined ? {} : { traceContext }),
    ...(onToolOutput === undefined ? {} : { onToolOutput }),
    emitPermissionDecision: (event) => ctx.emitPermissionDecision?.(event),
    emitNetworkRequest: (event) => ctx.emitNetworkRequest?.(event),
    emitProtectedPathCreated: (event) => ctx.emitProtectedPathCreated?.(event),
  }
}
