/**
 * OpenTelemetry tracing after the GenAI semantic conventions, with
 * `@opentelemetry/api` as an optional peer loaded on first use.
 *
 * @module
 */
export {
  errorType,
  startModelSpan,
  startToolSpan,
  startTurnSpan,
  tracingEnabled,
  type ModelSpanRequest,
  type SpanDecision,
  type SpanHandle,
  type TelemetryOptions,
  type ToolSpan,
  type ToolSpanOutcome,
  type ToolSpanRequest,
  type TurnSpanRequest,
  type TurnTelemetryOptions,
} from './spans.js'
export { traceContextFromMeta } from './trace_context.js'
