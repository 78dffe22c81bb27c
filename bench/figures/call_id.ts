/**
 * callId of a call: `callIdOf`, the kit's `sha256hex(canonicalStringify({
 * tool, args }))` (sorted keys, cycle checks, long strings escaped by the
 * SIMD escaper and hashed as they go), must cost about what plain
 * `JSON.stringify` plus the same one-shot hash costs. Two shapes: a nested
 * object with many keys in unsorted order (the key sorting and the
 * recursion are exercised), and a write's 200 KB content (one long string:
 * escaping and hashing dominate).
 *
 * @module
 */
import { callIdOf, canonicalStringify, sha256Hex } from '../../lib/index.js'
import { oneShotSha256 } from '../floors.js'
import { interleave, metric, timed } from '../harness.js'
import { makeRow, type Figure, type Row } from '../figure.js'

/** ~200 KB of source-like text: quotes, backslashes, tabs and newlines all need escaping. */
function sourceLikeContent(bytes: number): string {
  const line = '\tconst value = "item \\"quoted\\"" + String(index) // comment with ünïcödé\n'
  return line.repeat(Math.ceil(bytes / Buffer.byteLength(line))).slice(0, bytes)
}

/**
 * Args shaped like a real structured call: 4 levels, 40 edits of 6 keys,
 * options and metadata of 30 keys each, keys written in descending order
 * so every object needs sorting. About 8 KB of JSON.
 */
export function nestedArgs(): Record<string, unknown> {
  const keyed = (prefix: string, n: number, value: (i: number) => unknown) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${String(n - i).padStart(2, '0')}`, value(n - i)]))
  return {
    path: 'src/generated/routes.ts',
    options: keyed('opt_', 30, (i) => (i % 3 === 0 ? i : i % 3 === 1 ? `value ${i}` : i % 2 === 0)),
    edits: Array.from({ length: 40 }, (_, i) => ({
      text: `replacement line ${i} with "quotes"`,
      startLine: i * 10,
      range: { to: i * 10 + 3, from: i * 10 },
      kind: i % 2 === 0 ? 'replace' : 'insert',
      enabled: i % 5 !== 0,
      anchor: null,
    })),
    metadata: keyed('meta_', 30, (i) => ({ weight: i / 7, tags: [`t${i}`, `u${i}`], owner: { team: 'core', id: i } })),
  }
}

export const callIdFigure: Figure = {
  id: 'call-id',
  title: 'callId of a nested call with many keys',
  async run(config) {
    const nested = { tool: 'apply_edits', args: nestedArgs() }
    const large = { tool: 'write', args: { path: 'src/generated/big.ts', content: sourceLikeContent(200_000) } }
    for (const call of [nested, large]) {
      if (callIdOf(call.tool, call.args) !== sha256Hex(canonicalStringify(call))) throw new Error(`callIdOf is not the formula for ${call.tool}`)
    }
    const nestedReps = config.quick ? 500 : 2_000
    const largeReps = config.quick ? 50 : 100
    const samples = await interleave(
      {
        nestedBaseline: () => timed(() => oneShotSha256(JSON.stringify(nested)), nestedReps),
        // The executor's callId (DESIGN.md, Core, step 1), through the public export it uses.
        nestedSubject: () => timed(() => callIdOf(nested.tool, nested.args), nestedReps),
        largeBaseline: () => timed(() => oneShotSha256(JSON.stringify(large)), largeReps),
        largeSubject: () => timed(() => callIdOf(large.tool, large.args), largeReps),
      },
      { warmup: 5, samples: config.quick ? 7 : 21 },
    )
    const µs = (values: number[]) => values.map((ms) => ms * 1000)
    const rows: Row[] = [
      makeRow({
        id: 'call-id-nested',
        figure: `callId of a nested call with many keys (${JSON.stringify(nested).length} bytes of JSON)`,
        subject: 'callIdOf(call.tool, call.args)',
        baseline: "crypto.hash('sha256', JSON.stringify(call), 'hex') (key order as written, no checks)",
        unit: 'µs',
        subjectValues: µs(metric(samples.nestedSubject, 'ms')),
        baselineValues: µs(metric(samples.nestedBaseline, 'ms')),
        target: { kind: 'ratio', max: 1.2 },
        note: `per call, ${nestedReps} calls per sample; 4 levels, 250 keys, every object's keys written in reverse order`,
      }),
      makeRow({
        id: 'call-id',
        figure: 'callId of a write call with 200 KB content',
        subject: 'callIdOf(call.tool, call.args)',
        baseline: "crypto.hash('sha256', JSON.stringify(call), 'hex')",
        unit: 'µs',
        subjectValues: µs(metric(samples.largeSubject, 'ms')),
        baselineValues: µs(metric(samples.largeBaseline, 'ms')),
        target: { kind: 'ratio', max: 1.2 },
        note: `per call, ${largeReps} calls per sample`,
      }),
    ]
    return rows
  },
}
