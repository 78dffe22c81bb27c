// Loaded with `node --import` into a `toolsmith` process a spec starts, so the
// spec can see the spans of a process it shares no memory with: registers the
// real OpenTelemetry SDK (BasicTracerProvider, SimpleSpanProcessor) with an
// exporter that appends each finished span as one JSON line to the file named
// by TOOLSMITH_SPEC_SPANS_FILE. Plain JavaScript because imports given in
// NODE_OPTIONS load before the command line's `--import tsx`.
import { appendFileSync } from 'node:fs'
import { trace } from '@opentelemetry/api'
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'

const file = process.env.TOOLSMITH_SPEC_SPANS_FILE

if (file) {
  const exporter = {
    export(spans, done) {
      // Appended synchronously as each span ends: the process may exit right after.
      for (const span of spans) appendFileSync(file, `${JSON.stringify({ name: span.name, attributes: span.attributes, status: span.status.code })}\n`)
      done({ code: 0 }) // ExportResultCode.SUCCESS
    },
    async shutdown() {},
  }
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }))
}
