import { canonicalStringify as neu } from '../../lib/utils/canonical_json.js'
import { canonicalStringify as old } from './canonical_old.js'
const small = { tool: 'noop', args: { path: 'src/index.ts', limit: 42, recursive: true } }
const line = '\tconst value = "item \\"quoted\\"" + String(index) // comment with ünïcödé\n'
const big = { tool: 'write', args: { path: 'x', content: line.repeat(3000).slice(0, 200000) } }
const mid = { tool: 'x', args: { items: Array.from({ length: 200 }, (_, i) => ({ id: i, name: 'n' + i, tags: ['a', 'b'], when: new Date(0) })) } }
async function bench(name: string, fn: () => unknown, n: number) {
  let best = Infinity
  for (let r = 0; r < 7; r++) { const t = performance.now(); for (let i = 0; i < n; i++) fn(); best = Math.min(best, (performance.now() - t) / n * 1000) }
  console.log(name.padEnd(20), best.toFixed(3), 'µs')
}
for (const [name, v, n] of [['small', small, 200000], ['mid', mid, 500], ['big', big, 300]] as const) {
  if (neu(v) !== old(v)) throw new Error('mismatch ' + name)
  await bench(name + ' json', () => JSON.stringify(v), n)
  await bench(name + ' old', () => old(v), n)
  await bench(name + ' new', () => neu(v), n)
}
