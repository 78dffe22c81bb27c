/**
 * Concurrent small reads: 20 and 100 `read` calls in flight at once against
 * as many plain `readFile`s. Under concurrency libuv's four threads are the
 * bottleneck, so the figure counts what each checked read costs in
 * thread-pool jobs, not only in JavaScript.
 *
 * @module
 */
import { mkdirSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { createDispatchContext, createTools } from '../../lib/index.js'
import { BENCH_TMP, numberedText } from '../fixtures.js'
import { interleave, metric, timed } from '../harness.js'
import { makeRow, type Figure, type Row } from '../figure.js'

const FILES = 100

export const readConcurrentFigure: Figure = {
  id: 'read-concurrent',
  title: 'concurrent reads of 600-byte files',
  async run(config) {
    const rootDir = path.join(BENCH_TMP, 'read-concurrent-root')
    mkdirSync(path.join(rootDir, 'src'), { recursive: true })
    const text = numberedText(12, 50) // 600 bytes
    const names = Array.from({ length: FILES }, (_, i) => `src/file${i}.ts`)
    await Promise.all(names.map((name) => writeFile(path.join(rootDir, name), text)))
    const absolute = names.map((name) => path.join(rootDir, name))
    const read = createTools({ rootDir }).read.executor(createDispatchContext())
    if ((await read({ path: names[0] })) !== text) throw new Error('read returned something else than the file')
    const waves = config.quick ? 10 : 25
    const wave = (width: number, one: (i: number) => Promise<unknown>) =>
      timed(async () => {
        const pending: Promise<unknown>[] = []
        for (let i = 0; i < width; i++) pending.push(one(i % FILES))
        await Promise.all(pending)
      }, waves)
    const samples = await interleave(
      {
        baseline20: () => wave(20, (i) => readFile(absolute[i]!, 'utf8')),
        subject20: () => wave(20, (i) => read({ path: names[i]! })),
        baseline100: () => wave(100, (i) => readFile(absolute[i]!, 'utf8')),
        subject100: () => wave(100, (i) => read({ path: names[i]! })),
      },
      { warmup: 3, samples: config.quick ? 7 : 21 },
    )
    const rows: Row[] = [20, 100].map((width) =>
      makeRow({
        id: `read-concurrent-${width}`,
        figure: `${width} concurrent reads of 600-byte files`,
        subject: `${width} × read.executor(ctx)({ path: 'src/fileN.ts' }) in flight at once`,
        baseline: `${width} × fs.promises.readFile(file, 'utf8') in flight at once`,
        unit: 'ms',
        subjectValues: metric(samples[`subject${width}` as 'subject20'], 'ms'),
        baselineValues: metric(samples[`baseline${width}` as 'baseline20'], 'ms'),
        target: { kind: 'ratio', max: 1.2 },
        note: `ms per wave of ${width}, ${waves} waves per sample, libuv's default 4 threads`,
      }),
    )
    return rows
  },
}
