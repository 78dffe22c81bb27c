/**
 * The two 1 GiB figures: wall time against a baseline doing the same I/O
 * the cheapest way, and peak RSS growth, which must stay flat.
 *
 * @module
 */
import { interleave, metric, type Arm, type Measurement } from '../harness.js'
import { makeRow, type Figure, type Row } from '../figure.js'
import { inChild } from '../memory.js'

const GIB = 2 ** 30

function sizeLabel(bytes: number): string {
  return bytes >= GIB ? `${bytes / GIB} GiB` : `${bytes / 2 ** 20} MiB`
}

interface MemoryFigureSpec {
  id: string
  scenario: string
  title: (size: string) => string
  subject: string
  baseline: string
  wallTarget: number
  /** An extra, informational arm: the floor any implementation must pay. */
  floor?: { label: string; subject: string }
}

function memoryFigure(spec: MemoryFigureSpec): Figure {
  return {
    id: spec.id,
    title: spec.title('1 GiB'),
    async run(config) {
      const bytes = config.quick ? 256 * 2 ** 20 : GIB
      const size = sizeLabel(bytes)
      const arms: Record<string, Arm> = {
        baseline: () => inChild(`${spec.scenario}:baseline`, bytes),
        subject: () => inChild(`${spec.scenario}:subject`, bytes),
        ...(spec.floor ? { floor: () => inChild(`${spec.scenario}:floor`, bytes) } : {}),
      }
      const samples: Record<string, Measurement[]> = await interleave(arms,
        // Each sample is already a fresh process with its own rehearsal: no warm-up round needed.
        { warmup: 0, samples: config.quick ? 3 : 5 },
      )
      const scaled = config.quick ? `; quick: ${size} instead of 1 GiB` : ''
      const rows: Row[] = [
        makeRow({
          id: `${spec.id}-wall`,
          figure: `${spec.title(size)}: wall`,
          subject: spec.subject,
          baseline: spec.baseline,
          unit: 'ms',
          subjectValues: metric(samples.subject!, 'ms'),
          baselineValues: metric(samples.baseline!, 'ms'),
          target: { kind: 'ratio', max: spec.wallTarget },
          note: `one child process per sample${scaled}`,
        }),
        makeRow({
          id: `${spec.id}-rss`,
          figure: `${spec.title(size)}: peak RSS growth`,
          subject: spec.subject,
          baseline: spec.baseline,
          unit: 'MB',
          subjectValues: metric(samples.subject!, 'rssMB'),
          baselineValues: metric(samples.baseline!, 'rssMB'),
          target: { kind: 'absolute', max: 64 },
          note: `MiB above the RSS just before the operation (kernel VmHWM reset first), worst sample must stay ≤ 64${scaled}`,
        }),
      ]
      if (spec.floor && samples.floor) {
        rows.splice(
          1,
          0,
          makeRow({
            id: `${spec.id}-floor`,
            figure: `${spec.floor.label} ${size}: wall`,
            subject: spec.floor.subject,
            baseline: spec.baseline,
            unit: 'ms',
            subjectValues: metric(samples.floor, 'ms'),
            baselineValues: metric(samples.baseline!, 'ms'),
            target: { kind: 'report' },
            note: `reference, not the kit${scaled}`,
          }),
        )
        rows.push(
          makeRow({
            id: `${spec.id}-floor-rss`,
            figure: `${spec.floor.label} ${size}: peak RSS growth`,
            subject: spec.floor.subject,
            baseline: spec.baseline,
            unit: 'MB',
            subjectValues: metric(samples.floor, 'rssMB'),
            baselineValues: metric(samples.baseline!, 'rssMB'),
            target: { kind: 'report' },
            note: `reference, not the kit: what Node's own pipe reads and GC pacing cost${scaled}`,
          }),
        )
      }
      return rows
    },
  }
}

export const bashOutputFigure = memoryFigure({
  id: 'bash-output',
  scenario: 'bash-output',
  title: (size) => `bash printing ${size}`,
  subject: "bash.executor({ cmd: 'head', args: ['-c', N, '/dev/zero'] }), default 200,000-byte cap",
  baseline: "sh -c 'head -c N /dev/zero > /dev/null'",
  wallTarget: 1.5,
  floor: {
    label: 'floor: Node reading',
    subject: "child_process.spawn('head', ['-c', N, '/dev/zero']) with stdout piped to Node and dropped",
  },
})

export const spoolFigure = memoryFigure({
  id: 'spool',
  scenario: 'spool',
  title: (size) => `FileSpoolStore storing ${size}`,
  subject: 'new FileSpoolStore({ dir }).write(id, ReadableStream of 84-byte text lines)',
  baseline: 'stream.pipeline(Readable.fromWeb(same stream), fs.createWriteStream(file))',
  wallTarget: 1.2,
})
