import { createWriteStream } from 'node:fs'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { textStream } from '../children/scenarios.js'
const N = 256 * 2 ** 20
for (let i = 0; i < 3; i++) {
  let t = performance.now()
  await pipeline(textStream(N) as any, createWriteStream('/tmp/toolsmith-bench/p1.bin'))
  console.log('direct web', (performance.now() - t).toFixed(0))
  t = performance.now()
  await pipeline(Readable.fromWeb(textStream(N) as any), createWriteStream('/tmp/toolsmith-bench/p2.bin'))
  console.log('fromWeb', (performance.now() - t).toFixed(0))
}
