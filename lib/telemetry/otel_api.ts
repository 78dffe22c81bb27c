/**
 * Where the kit finds OpenTelemetry: `@opentelemetry/api` (an optional
 * peer) loaded on first need, and the tracer of the registered provider.
 *
 * @module
 */
import { createRequire } from 'node:module'
import type * as OtelApi from '@opentelemetry/api'

/** The `@opentelemetry/api` module. */
export type Api = typeof OtelApi

/** The tracer the kit's spans come from, with the API it was found through. */
export interface ActiveTracer {
  /** The loaded `@opentelemetry/api`. */
  readonly api: Api
  /** The registered provider's tracer for the kit's instrumentation scope. */
  readonly tracer: OtelApi.Tracer
}

/** The instrumentation scope name the kit's spans carry. */
export const INSTRUMENTATION_SCOPE = 'toolsmith'

/**
 * Where every copy of `@opentelemetry/api` 1.x keeps what was registered
 * (`trace.setGlobalTracerProvider` puts a `trace` entry there). Reading it
 * tells, without loading the API, that no provider was ever registered:
 * then every call costs one property read.
 */
const GLOBAL_REGISTRY = Symbol.for('opentelemetry.js.api.1')

// undefined: not tried yet; null: not installed (or failed to load), never tried again.
let loaded: Api | null | undefined
let noopProvider: object | undefined
let cache: { delegate: object; active: ActiveTracer } | undefined

/**
 * `@opentelemetry/api`, loaded once with a synchronous require (a span starts
 * on the call path, which cannot wait for a dynamic import), or `undefined`
 * when it is not installed.
 */
export function otelApi(): Api | undefined {
  if (loaded === undefined) {
    try {
      loaded = createRequire(import.meta.url)('@opentelemetry/api') as Api
      noopProvider = new loaded.ProxyTracerProvider().getDelegate()
    } catch {
      loaded = null
    }
  }
  return loaded ?? undefined
}

/** Whether a tracer provider was registered with some copy of the API (no API load). */
export function providerRegistered(): boolean {
  const registry = (globalThis as Record<symbol, { trace?: unknown } | undefined>)[GLOBAL_REGISTRY]
  return registry !== undefined && registry.trace !== undefined
}

/**
 * The registered provider's tracer, or `undefined` when there is nothing to
 * record to: no provider registered, the API not installed, or the
 * registered provider is the API's no-op one (an incompatible API version
 * registered it, or it was registered without a delegate).
 *
 * @remarks
 * The tracer is cached per provider: registering another one (after
 * `trace.disable()`) is noticed on the next call.
 */
export function activeTracer(): ActiveTracer | undefined {
  if (!providerRegistered()) return undefined
  const api = otelApi()
  if (api === undefined) return undefined
  try {
    // setGlobalTracerProvider registers a proxy; its delegate is the real provider.
    const provider = api.trace.getTracerProvider() as OtelApi.TracerProvider & { getDelegate?: () => OtelApi.TracerProvider }
    const delegate: OtelApi.TracerProvider = typeof provider.getDelegate === 'function' ? provider.getDelegate() : provider
    if (cache !== undefined && cache.delegate === delegate) return cache.active
    if (delegate === noopProvider || delegate.constructor?.name === 'NoopTracerProvider' || typeof delegate.getTracer !== 'function') return undefined
    const active: ActiveTracer = { api, tracer: delegate.getTracer(INSTRUMENTATION_SCOPE) }
    cache = { delegate, active }
    return active
  } catch {
    // Something odd registered in the API's global registry: tracing must never fail a call.
    return undefined
  }
}
