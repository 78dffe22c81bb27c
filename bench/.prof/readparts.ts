import { readFile } from 'node:fs/promises'
import { fitText } from '../../lib/sandbox/capture.js'
const buf = await readFile('/tmp/toolsmith-bench/read-root/file.txt')
function b(name: string, fn: () => unknown, n = 2000) {
  let best = Infinity
  for (let r = 0; r < 5; r++) { const t = performance.now(); for (let i = 0; i < n; i++) fn(); best = Math.min(best, (performance.now() - t) / n * 1000) }
  console.log(name.padEnd(28), best.toFixed(1), 'µs')
}
const text = buf.toString('utf8')
b('toString', () => buf.toString('utf8'))
b('fitText(text)', () => fitText(text, 200000))
b('Buffer.byteLength(text)', () => Buffer.byteLength(text))
b('includes fffd', () => text.includes('\uFFFD'))
b('sniff', () => buf.subarray(0, 8192).includes(0))
let best = Infinity
for (let r = 0; r < 5; r++) { const t = performance.now(); for (let i = 0; i < 500; i++) await readFile('/tmp/toolsmith-bench/read-root/file.txt', 'utf8'); best = Math.min(best, (performance.now() - t) / 500 * 1000) }
console.log('readFile utf8'.padEnd(28), best.toFixed(1), 'µs')
