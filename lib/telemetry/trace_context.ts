/**
 * A trace context carried in an MCP request's `params._meta` (`traceparent`,
 * `tracestate`, `baggage`), as the MCP semantic conventions propagate it.
 *
 * @module
 */
import type { SpanContext } from '@opentelemetry/api'
import { activeTracer, type Api } from './otel_api.js'

// W3C Trace Context: version-traceid-parentid-flags, lower-case hex. A
// future version may append fields after a dash; version 00 may not.
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/

/**
 * The OTel `Context` an MCP request's `_meta` names as its parent, to pass
 * as the `parent` of the call's span (or a dispatch context's `traceContext`).
 *
 * @remarks
 * Extracted with the registered propagator (`propagation.extract`: W3C
 * `traceparent`, `baggage`, or whatever format the application registered);
 * when that finds no span context (none registered: the API's default does
 * nothing), `traceparent` and `tracestate` are read per W3C Trace Context. Returns
 * `undefined` when no tracer provider is registered or `_meta` names no
 * valid parent, so the caller falls back to its own.
 *
 * @param meta - The request's `params._meta` (anything: what is not an object is ignored).
 * @returns The context with the remote parent, or `undefined`.
 */
export function traceContextFromMeta(meta: unknown): unknown {
  if (meta === null || typeof meta !== 'object') return undefined
  const carrier = meta as Record<string, unknown>
  const active = activeTracer()
  if (active === undefined) return undefined
  const { api } = active
  const base = api.context.active()
  const extracted = api.propagation.extract(base, carrier)
  // A span context the propagator found, not one the ambient context already held.
  const found = api.trace.getSpanContext(extracted)
  if (found !== undefined && found !== api.trace.getSpanContext(base) && api.trace.isSpanContextValid(found)) return extracted
  if (typeof carrier.traceparent !== 'string') return undefined
  const parsed = parseTraceparent(api, carrier.traceparent, carrier.tracestate)
  return parsed === undefined ? undefined : api.trace.setSpanContext(extracted, parsed)
}

/** A `traceparent` header (and `tracestate`) as a remote span context, or `undefined` when it is not valid. */
function parseTraceparent(api: Api, traceparent: string, tracestate: unknown): SpanContext | undefined {
  const match = TRACEPARENT.exec(traceparent.trim())
  if (match === null) return undefined
  const [, version, traceId, spanId, flags, rest] = match
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined
  const spanContext: SpanContext = { traceId: traceId!, spanId: spanId!, traceFlags: Number.parseInt(flags!, 16), isRemote: true }
  if (!api.trace.isSpanContextValid(spanContext)) return undefined
  if (typeof tracestate === 'string' && tracestate !== '' && typeof api.createTraceState === 'function') {
    spanContext.traceState = api.createTraceState(tracestate)
  }
  return spanContext
}
