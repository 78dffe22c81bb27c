/**
 * read of a 190 KB file: path checks, stat, binary sniffing and UTF-8
 * boundary cutting should add little to the read itself.
 *
 * @module
 */
import { mkdirSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { createDispatchContext, createTools } from '../../lib/index.js'
import { BENCH_TMP, numberedText } from '../fixtures.js'
import { interleave, metric, timed } from '../harness.js'
import { makeRow, type Figure } from '../figure.js'

export const readFigure: Figure = {
  id: 'read',
  title: 'read of a 190 KB file',
  async run(config) {
    const rootDir = path.join(BENCH_TMP, 'read-root')
    mkdirSync(rootDir, { recursive: true })
    const file = path.join(rootDir, 'file.txt')
    const text = numberedText(3_800, 50) // 190,000 bytes: under the default 200,000-byte cap
    await writeFile(file, text)
    const read = createTools({ rootDir }).read.executor(createDispatchContext())
    if ((await read({ path: 'file.txt' })) !== text) throw new Error('read returned something else than the file')
    const reps = config.quick ? 50 : 200
    const samples = await interleave(
      {
        // 'utf8', as the tool returns text: both arms decode.
        baseline: () => timed(() => readFile(file, 'utf8'), reps),
        subject: () => timed(() => read({ path: 'file.txt' }), reps),
      },
      { warmup: 3, samples: config.quick ? 7 : 21 },
    )
    return [
      makeRow({
        id: 'read',
        figure: this.title,
        subject: "read.executor(ctx)({ path })",
        baseline: "fs.promises.readFile(file, 'utf8')",
        unit: 'µs',
        subjectValues: metric(samples.subject, 'ms').map((ms) => ms * 1000),
        baselineValues: metric(samples.baseline, 'ms').map((ms) => ms * 1000),
        target: { kind: 'ratio', max: 1.3 },
        note: `per call, ${reps} calls per sample, ${Buffer.byteLength(text)} bytes`,
      }),
    ]
  },
}
