/**
 * `createCallContext`: the per-call view of a turn's context that every
 * surface (runner, MCP server, AI SDK adapter) hands to `tool.executor()`.
 *
 * @module
 */
import { anySignal } from '../utils/any_signal.js'
import type { DispatchContext } from './dispatch_context.js'

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

/**
 * Derive a per-call context from a turn's context.
 *
 * @param ctx - The turn's context; its events, id and idempotency scope are used as they are.
 * @param call - The provider's call id and optional cancellation signal.
 * @returns A context whose `abortSignal` fires when either `ctx.abortSignal` or `call.signal` does.
 *
 * @remarks
 * The two signals are linked without `AbortSignal.any`, which on Node 20
 * retains ≈ 50 bytes on the turn's signal for every call (nodejs/node#55351):
 * a server whose context lives for days would grow by that much per call.
 * The turn's signal carries one listener however many calls were made, and a
 * finished call's signal is collected like any other object.
 */
export function createCallContext(
  ctx: DispatchContext,
  call: { toolCallId: string; signal?: AbortSignal | undefined },
): ProviderCallContext {
  const abortSignal = call.signal ? anySignal([ctx.abortSignal, call.signal]) : ctx.abortSignal
  return {
    id: ctx.id,
    idempotencyScope: ctx.idempotencyScope,
    abortSignal,
    toolCallId: call.toolCallId,
    emitToolExecutionStart: (event) => ctx.emitToolExecutionStart(event),
    emitToolExecutionEnd: (event) => ctx.emitToolExecutionEnd(event),
    // The turn's permission gate and decision listeners hold for each of its calls.
    ...(ctx.permissions === undefined ? {} : { permissions: ctx.permissions }),
    emitPermissionDecision: (event) => ctx.emitPermissionDecision?.(event),
    emitNetworkRequest: (event) => ctx.emitNetworkRequest?.(event),
    emitProtectedPathCreated: (event) => ctx.emitProtectedPathCreated?.(event),
    // The turn's span parents the call's span, with the turn's opt-ins.
    ...(ctx.traceContext === undefined ? {} : { traceContext: ctx.traceContext }),
    ...(ctx.telemetry === undefined ? {} : { telemetry: ctx.telemetry }),
  }
}
