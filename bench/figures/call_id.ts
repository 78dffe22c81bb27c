/**
 * callId of a large call: canonical JSON must cost about what plain
 * `JSON.stringify` costs, since most of the text is one long string.
 *
 * @module
 */
import { createHash } from 'node:crypto'
import { canonicalStringify, sha256Hex } from '../../lib/index.js'
import { interleave, metric, timed } from '../harness.js'
import { makeRow, type Figure } from '../figure.js'

/** ~200 KB of source-like text: quotes, backslashes, tabs and newlines all need escaping. */
function sourceLikeContent(bytes: number): string {
  const line = '\tconst value = "item \\"quoted\\"" + String(index) // comment with ünïcödé\n'
  return line.repeat(Math.ceil(bytes / Buffer.byteLength(line))).slice(0, bytes)
}

export const callIdFigure: Figure = {
  id: 'call-id',
  title: 'callId of a write call with 200 KB content',
  async run(config) {
    const call = { tool: 'write', args: { path: 'src/generated/big.ts', content: sourceLikeContent(200_000) } }
    const reps = config.quick ? 50 : 100
    const samples = await interleave(
      {
        baseline: () => timed(() => createHash('sha256').update(JSON.stringify(call)).digest('hex'), reps),
        // The executor's callId formula (DESIGN.md, Core, step 1), through the public exports.
        subject: () => timed(() => sha256Hex(canonicalStringify(call)), reps),
      },
      { warmup: 5, samples: config.quick ? 7 : 21 },
    )
    return [
      makeRow({
        id: 'call-id',
        figure: this.title,
        subject: 'sha256Hex(canonicalStringify(call))',
        baseline: 'sha256(JSON.stringify(call))',
        unit: 'µs',
        subjectValues: metric(samples.subject, 'ms').map((ms) => ms * 1000),
        baselineValues: metric(samples.baseline, 'ms').map((ms) => ms * 1000),
        target: { kind: 'ratio', max: 1.2 },
        note: `per call, ${reps} calls per sample`,
      }),
    ]
  },
}
