/**
 * Executor overhead: everything `executor(ctx)` adds around a handler that
 * does nothing, against the unavoidable work (validate, serialise, hash),
 * done the cheapest way Node offers: the same joi options, `JSON.stringify`,
 * and the same one-shot `crypto.hash` the kit uses.
 *
 * @module
 */
import { Tool, createDispatchContext, validator } from '../../lib/index.js'
import { oneShotSha256 } from '../floors.js'
import { interleave, metric, timed } from '../harness.js'
import { makeRow, type Figure } from '../figure.js'

/** The three small args both executor figures call with. */
export const ARGS = { path: 'src/index.ts', limit: 42, recursive: true }

/** The no-op tool both executor figures call (`executor`, `span`), and its schema for the baseline. */
export function noopTool(): { tool: Tool; inputSchema: ReturnType<typeof noopSchema> } {
  const inputSchema = noopSchema()
  return { tool: new Tool({ name: 'noop', description: 'does nothing', inputSchema, handler: () => 'ok' }), inputSchema }
}

function noopSchema() {
  return validator.object({
    path: validator.string().required(),
    limit: validator.number().integer().required(),
    recursive: validator.boolean().required(),
  })
}

export const executorFigure: Figure = {
  id: 'executor',
  title: 'executor(ctx) on a no-op tool, 3 small args',
  async run(config) {
    const { tool, inputSchema } = noopTool()
    const execute = tool.executor(createDispatchContext())
    if ((await execute(ARGS)) !== 'ok') throw new Error('no-op tool did not return "ok"')
    const reps = config.quick ? 2_000 : 5_000
    const samples = await interleave(
      {
        baseline: () =>
          timed(async () => {
            // The same joi options the executor uses, so only the executor's own work differs.
            await inputSchema.validateAsync(ARGS, { abortEarly: false, convert: false })
            oneShotSha256(JSON.stringify({ tool: 'noop', args: ARGS }))
          }, reps),
        subject: () => timed(() => execute(ARGS), reps),
      },
      { warmup: 10, samples: config.quick ? 7 : 21 },
    )
    return [
      makeRow({
        id: 'executor',
        figure: this.title,
        subject: 'executor(ctx)(args)',
        baseline: 'joi validateAsync (same options) + JSON.stringify + one-shot crypto.hash sha256',
        unit: 'µs',
        subjectValues: metric(samples.subject, 'ms').map((ms) => ms * 1000),
        baselineValues: metric(samples.baseline, 'ms').map((ms) => ms * 1000),
        target: { kind: 'ratio', max: 1.3 },
        note: `per call, ${reps} calls per sample`,
      }),
    ]
  },
}
