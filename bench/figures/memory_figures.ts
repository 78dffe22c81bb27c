/**
 * The two 1 GiB figures: wall time against a floor doing the same I/O the
 * cheapest way plain Node allows (Node reading the same pipe; a batched
 * reader loop into a file), and peak RSS growth, which must stay flat.
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
  title: (size: string) => string
  subject: string
  baseline: string
  wallTarget: number
  /** Scenario pairs (bench/children/scenarios.ts), one wall row each; the first also gets the memory row. */
  places: readonly { suffix: string; label: string; subject: string; baseline: string; note?: string }[]
}

function memoryFigure(spec: MemoryFigureSpec): Figure {
  return {
    id: spec.id,
    title: spec.title('1 GiB'),
    async run(config) {
      const bytes = config.quick ? 256 * 2 ** 20 : GIB
      const size = sizeLabel(bytes)
      const arms: Record<string, Arm> = {}
      for (const place of spec.places) {
        arms[`baseline${place.suffix}`] = () => inChild(place.baseline, bytes)
        arms[`subject${place.suffix}`] = () => inChild(place.subject, bytes)
      }
      const samples: Record<string, Measurement[]> = await interleave(arms,
        // Each sample is already a fresh process with its own rehearsal: no warm-up round needed.
        { warmup: 0, samples: config.quick ? 3 : 5 },
      )
      const scaled = config.quick ? `; quick: ${size} instead of 1 GiB` : ''
      const rows: Row[] = spec.places.map((place) =>
        makeRow({
          id: `${spec.id}${place.suffix}-wall`,
          figure: `${spec.title(size)}${place.label}: wall`,
          subject: spec.subject,
          baseline: spec.baseline,
          unit: 'ms',
          subjectValues: metric(samples[`subject${place.suffix}`]!, 'ms'),
          baselineValues: metric(samples[`baseline${place.suffix}`]!, 'ms'),
          target: { kind: 'ratio', max: spec.wallTarget },
          note: `one child process per sample${place.note ? `; ${place.note}` : ''}${scaled}`,
        }),
      )
      const first = spec.places[0]!
      rows.push(
        makeRow({
          id: `${spec.id}-rss`,
          figure: `${spec.title(size)}${first.label}: peak RSS growth`,
          subject: spec.subject,
          baseline: spec.baseline,
          unit: 'MB',
          subjectValues: metric(samples[`subject${first.suffix}`]!, 'rssMB'),
          baselineValues: metric(samples[`baseline${first.suffix}`]!, 'rssMB'),
          target: { kind: 'absolute', max: 64 },
          note: `MiB above the RSS just before the operation (kernel VmHWM reset first), worst sample must stay ≤ 64${scaled}`,
        }),
      )
      return rows
    },
  }
}

export const bashOutputFigure = memoryFigure({
  id: 'bash-output',
  title: (size) => `bash printing ${size}`,
  subject: "bash.executor({ cmd: 'head', args: ['-c', N, '/dev/zero'] }), default 200,000-byte cap",
  baseline: "child_process.spawn('head', ['-c', N, '/dev/zero']), stdout and stderr piped to Node and dropped",
  wallTarget: 1.2,
  places: [{ suffix: '', label: '', subject: 'bash-output:subject', baseline: 'bash-output:floor' }],
})

export const spoolFigure = memoryFigure({
  id: 'spool',
  title: (size) => `FileSpoolStore storing ${size}`,
  subject: 'new FileSpoolStore({ dir }).write(id, ReadableStream of 84-byte text lines) (line index included)',
  baseline: 'getReader() loop over the same stream, chunks copied into two 256 KiB batches, one write in flight, to a temp file, then renamed',
  wallTarget: 1.2,
  places: [
    { suffix: '', label: ' on disk', subject: 'spool:subject', baseline: 'spool:floor', note: 'os.tmpdir() on the root file system' },
    { suffix: '-tmpfs', label: ' on tmpfs', subject: 'spool-tmpfs:subject', baseline: 'spool-tmpfs:floor', note: '/dev/shm: no disk, the CPU work shows' },
  ],
})
