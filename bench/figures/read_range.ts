/**
 * `read` on a 1 GiB file, each sample a fresh child process: a range deep in
 * the file against `sed -n` (wall, and peak RSS that must stay flat), and a
 * whole-file read of it (first lines plus the note with its bounded line
 * count) against `wc -l`, the price of an exact count.
 *
 * @module
 */
import { interleave, metric, type Measurement } from '../harness.js'
import { makeRow, type Figure, type Row, type Target } from '../figure.js'
import { inChild } from '../memory.js'
import { linesFile, rangeFor } from '../read_fixture.js'

const GIB = 2 ** 30

interface Spec {
  id: string
  title: (size: string, bytes: number) => string
  subject: (bytes: number) => string
  baseline: (bytes: number) => string
  wall: Target
}

function readFigure(spec: Spec): Figure {
  return {
    id: spec.id,
    title: spec.title('1 GiB', GIB),
    async run(config) {
      const bytes = config.quick ? 256 * 2 ** 20 : GIB
      const size = config.quick ? '256 MiB' : '1 GiB'
      await linesFile(bytes, config.log)
      const samples: Record<'baseline' | 'subject', Measurement[]> = await interleave(
        { baseline: () => inChild(`${spec.id}:baseline`, bytes), subject: () => inChild(`${spec.id}:subject`, bytes) },
        // Each sample is a fresh process with its own rehearsal: no warm-up round.
        { warmup: 0, samples: config.quick ? 3 : 7 },
      )
      const scaled = config.quick ? `; quick: ${size} instead of 1 GiB` : ''
      const rows: Row[] = [
        makeRow({
          id: `${spec.id}-wall`,
          figure: `${spec.title(size, bytes)}: wall`,
          subject: spec.subject(bytes),
          baseline: spec.baseline(bytes),
          unit: 'ms',
          subjectValues: metric(samples.subject, 'ms'),
          baselineValues: metric(samples.baseline, 'ms'),
          target: spec.wall,
          note: `one child process per sample, file in the page cache${scaled}`,
        }),
        makeRow({
          id: `${spec.id}-rss`,
          figure: `${spec.title(size, bytes)}: peak RSS growth`,
          subject: spec.subject(bytes),
          baseline: spec.baseline(bytes),
          unit: 'MB',
          subjectValues: metric(samples.subject, 'rssMB'),
          baselineValues: metric(samples.baseline, 'rssMB'),
          target: { kind: 'absolute', max: 64 },
          note: `MiB above the RSS just before the operation (kernel VmHWM reset first), worst sample must stay ≤ 64; the baseline's figure is the parent Node process, not sed/wc${scaled}`,
        }),
      ]
      return rows
    },
  }
}

export const readRangeFigure = readFigure({
  id: 'read-range',
  title: (size, bytes) => {
    const { offset, limit } = rangeFor(bytes)
    return `read of lines ${offset.toLocaleString('en-US')}–${(offset + limit - 1).toLocaleString('en-US')} of a ${size} file`
  },
  subject: (bytes) => `read.executor(ctx)({ path, offset: ${rangeFor(bytes).offset}, limit: 101 })`,
  baseline: (bytes) => {
    const { offset, limit } = rangeFor(bytes)
    return `sed -n '${offset},${offset + limit - 1}p' file, stdout piped to Node`
  },
  wall: { kind: 'ratio', max: 1.5 },
})

export const readHeadFigure = readFigure({
  id: 'read-head',
  title: (size) => `read of a ${size} file without a range (first lines + line-count note)`,
  subject: () => 'read.executor(ctx)({ path }): first 200 KB of lines, then counts lines in at most 32 MiB more',
  baseline: () => 'wc -l file (an exact count: the whole file)',
  wall: { kind: 'report' },
})
