/**
 * OpenTelemetry span cost: a call through `executor(ctx)` while a tracer
 * provider is registered (the SDK's `BasicTracerProvider`, a
 * `SimpleSpanProcessor` into an `InMemorySpanExporter`, the
 * AsyncLocalStorage context manager), against the same call with no provider
 * registered and no context manager. Arguments and results are not
 * recorded (the default).
 *
 * @module
 */
import { context, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { createDispatchContext } from '../../lib/index.js'
import { ARGS, noopTool } from './executor.js'
import { interleave, metric, timed } from '../harness.js'
import { makeRow, pairedMedianDifference, type Figure } from '../figure.js'
import { summarize } from '../stats.js'

export const spanCostFigure: Figure = {
  id: 'span',
  title: 'execute_tool span with a registered tracer provider: µs added per call',
  async run(config) {
    const { tool } = noopTool()
    const execute = tool.executor(createDispatchContext())
    const exporter = new InMemorySpanExporter()
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
    const contextManager = new AsyncLocalStorageContextManager()
    // The traced arm has what an application's tracing setup registers (a
    // provider and the AsyncLocalStorage context manager); the other arm has
    // neither, as a process without tracing.
    const traceOn = (): void => {
      context.setGlobalContextManager(contextManager.enable())
      trace.setGlobalTracerProvider(provider)
    }
    const traceOff = (): void => {
      trace.disable()
      context.disable()
      contextManager.disable()
    }
    const reps = config.quick ? 2_000 : 5_000
    try {
      // Check once that the traced arm does make a span per call and the other none.
      traceOn()
      await execute(ARGS)
      const made = exporter.getFinishedSpans().length
      traceOff()
      await execute(ARGS)
      if (made !== 1 || exporter.getFinishedSpans().length !== 1) throw new Error(`expected one span with the provider and none without, got ${exporter.getFinishedSpans().length}`)
      const samples = await interleave(
        {
          none: () => {
            traceOff()
            return timed(() => execute(ARGS), reps)
          },
          traced: () => {
            traceOn()
            exporter.reset()
            // Finished spans are let go every 512 calls, as a batch processor
            // exports and drops them: an exporter holding thousands of spans
            // measures the garbage collector, not the span.
            let calls = 0
            return timed(async () => {
              await execute(ARGS)
              if (++calls % 512 === 0) exporter.reset()
            }, reps)
          },
        },
        { warmup: 10, samples: config.quick ? 7 : 21 },
      )
      const none = metric(samples.none, 'ms').map((ms) => ms * 1000)
      const traced = metric(samples.traced, 'ms').map((ms) => ms * 1000)
      return [
        makeRow({
          id: 'span',
          figure: this.title,
          subject: 'executor(ctx)(args) with a tracer provider registered',
          baseline: 'the same call with no provider registered',
          unit: 'µs',
          subjectValues: traced,
          baselineValues: none,
          target: { kind: 'report' },
          note:
            `per call, ${reps} calls per sample; SDK BasicTracerProvider + SimpleSpanProcessor + InMemorySpanExporter (reset every 512 spans) + AsyncLocalStorage context manager; ` +
            `measured ${pairedMedianDifference(traced, none).toFixed(1)} µs paired, ${(summarize(traced).median - summarize(none).median).toFixed(1)} µs between the medians`,
        }),
      ]
    } finally {
      traceOff()
      exporter.reset()
      await provider.shutdown()
    }
  },
}
