// Where a surface spec reads spans from: the real OpenTelemetry SDK registered
// in this process for the in-process surfaces (unregistered by `stop`, so no
// later spec inherits it), or a JSON-lines file a child process appends to
// through the span_file_preload.mjs preload.
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { context, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'

/** A finished span, reduced to what the spec asserts and what a child can write as JSON. */
export interface SeenSpan {
  name: string
  attributes: Record<string, unknown>
  /** The span's status code (0 unset, 1 ok, 2 error). */
  status: number
}

/** Spans being recorded for a surface, until `stop`. */
export interface Tracing {
  /** The spans finished so far, in the order they ended. */
  spans(): SeenSpan[]
  /** Stop recording (for the in-process SDK: unregister the provider and context manager). */
  stop(): Promise<void>
}

/** The env var naming the file the preload appends spans to. */
export const SPANS_FILE_ENV = 'TOOLSMITH_SPEC_SPANS_FILE'

/** The preload module that registers the SDK in a child process. */
export const SPAN_FILE_PRELOAD = fileURLToPath(new URL('./span_file_preload.mjs', import.meta.url))

/** Register the real SDK in this process with an in-memory exporter, as an application would. */
export function traceInProcess(): Tracing {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  const contextManager = new AsyncLocalStorageContextManager().enable()
  if (!context.setGlobalContextManager(contextManager) || !trace.setGlobalTracerProvider(provider)) {
    trace.disable()
    context.disable()
    throw new Error('an OpenTelemetry provider or context manager was already registered: an earlier spec did not unregister it')
  }
  return {
    spans: () => exporter.getFinishedSpans().map((span) => ({ name: span.name, attributes: { ...span.attributes }, status: span.status.code })),
    async stop() {
      trace.disable()
      context.disable()
      await provider.shutdown()
    },
  }
}

/** The env a child needs to append its spans to `file` (kept apart from any NODE_OPTIONS already set). */
export function spanFileEnv(file: string): Record<string, string> {
  const preload = `--import=${pathToFileURL(SPAN_FILE_PRELOAD).href}`
  return { NODE_OPTIONS: [process.env.NODE_OPTIONS, preload].filter(Boolean).join(' '), [SPANS_FILE_ENV]: file }
}

/** The spans a child appended to `file` (none when it wrote none). */
export function readSpanFile(file: string): SeenSpan[] {
  if (!existsSync(file)) return []
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as SeenSpan)
}
