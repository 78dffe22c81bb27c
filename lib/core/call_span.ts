/**
 * A call's `execute_tool` span as the call path starts it: the parent and
 * opt-ins from the dispatch context, the gate's verdict from the call.
 *
 * @module
 */
import { startToolSpan, type SpanDecision, type ToolSpan } from '../telemetry/spans.js'
import type { DispatchContext, GateVerdict } from './dispatch_context.js'

/**
 * Start a call's span. Its callId and logged args are read only if the span
 * is made and, for the args, recorded (a long argument's hash and a
 * `redact` run are not paid for otherwise).
 *
 * @param toolName - The tool's name.
 * @param prepared - The prepared call (its `loggedArgs` are what the span may record).
 * @param info - The call's info (`callId`, the provider's `toolCallId`).
 * @param ctx - The dispatch context: `traceContext` is the parent, `telemetry` the opt-ins.
 * @returns The span, or `undefined` when there is no tracer to record to.
 */
export function toolSpanOf(
  toolName: string,
  prepared: { readonly loggedArgs: unknown },
  info: { readonly callId: string; readonly toolCallId?: string | undefined },
  ctx: DispatchContext,
): ToolSpan | undefined {
  const provided = info.toolCallId ?? ctx.toolCallId
  return startToolSpan({
    toolName,
    callId: () => info.callId,
    toolCallId: typeof provided === 'string' ? provided : undefined,
    args: () => prepared.loggedArgs,
    parent: ctx.traceContext,
    recordArguments: ctx.telemetry?.recordArguments,
    recordResults: ctx.telemetry?.recordResults,
  })
}

/**
 * Put the gate's decision on the span (`toolsmith.permission.*`), when a gate recorded one.
 *
 * @param span - The call's span.
 * @param verdict - `call.verdict` after the gate ran.
 */
export function recordVerdict(span: ToolSpan, verdict: GateVerdict | undefined): void {
  if (verdict === undefined) return
  const { decision, approver, rule } = verdict.decision
  span.decided({ decision, approver, rule: rule?.name ?? null })
}

/**
 * The span of a replayed call: the journal gave its recorded outcome and the
 * handler did not run, so the tool started no span; this one stands for the
 * call, marked `toolsmith.tool.call.replayed`, with the decision of the run
 * that made the call (from its row) and the recorded outcome.
 *
 * @param toolName - The tool's name.
 * @param subject - The call's callId and logged args.
 * @param ctx - The dispatch context (parent, opt-ins, the provider's `toolCallId`).
 * @param permissionJson - The replayed row's permission record, if it has one.
 * @param outcome - The replayed result or error.
 */
export function recordReplaySpan(
  toolName: string,
  subject: { readonly callId: string; readonly loggedArgs: unknown },
  ctx: DispatchContext,
  permissionJson: string | null,
  outcome: { error: unknown } | { result: () => unknown },
): void {
  const span = toolSpanOf(toolName, subject, subject, ctx)
  if (span === undefined) return
  const recorded = recordedDecision(permissionJson)
  if (recorded !== undefined) span.decided(recorded)
  span.end({ ...outcome, replayed: true })
}

/** The decision in a row's permission record; `undefined` when there is none or it cannot be read (a span must never fail a call). */
function recordedDecision(permissionJson: string | null): SpanDecision | undefined {
  if (permissionJson === null) return undefined
  try {
    const parsed = JSON.parse(permissionJson) as { decision?: unknown; approver?: unknown; rule?: { name?: unknown } | null }
    if (parsed.decision !== 'allow' && parsed.decision !== 'deny') return undefined
    const rule = typeof parsed.rule?.name === 'string' ? parsed.rule.name : null
    return { decision: parsed.decision, approver: typeof parsed.approver === 'string' ? parsed.approver : 'none', rule }
  } catch {
    return undefined
  }
}
