/**
 * What a figure is and what it reports: one or more rows, each comparing a
 * subject with its baseline from the same run.
 *
 * @module
 */
import type { Stats } from './stats.js'
import { summarize } from './stats.js'

/**
 * A row passes when the subject's median over the baseline's median stays
 * under `max` (`ratio`), when the subject's worst sample stays under `max`
 * (`absolute`, for memory: a peak is a peak), when the subject's median
 * exceeds the baseline's by at most `max` units (`overhead`: a fixed cost
 * per call, such as a permission policy's; with `paired`, the median of the
 * differences of samples taken one after the other, which cancels the
 * machine's drift that two medians of a large base keep), or is only
 * reported (`report`).
 */
export type Target = { kind: 'ratio'; max: number } | { kind: 'absolute'; max: number } | { kind: 'overhead'; max: number; paired?: boolean } | { kind: 'report' }

/**
 * The median of `subject[i] − baseline[i]` over samples taken in pairs
 * (interleaved: each pair one after the other).
 *
 * @param subject - The subject's samples, in order.
 * @param baseline - The baseline's samples, in the same order.
 * @returns The median difference.
 */
export function pairedMedianDifference(subject: readonly number[], baseline: readonly number[]): number {
  const differences = subject.slice(0, baseline.length).map((value, i) => value - baseline[i]!)
  return summarize(differences).median
}

/** Unit of the stats in a row. */
export type Unit = 'µs' | 'ms' | 'MB'

/** One line of the results table. */
export interface Row {
  id: string
  figure: string
  subject: string
  baseline: string
  unit: Unit
  subjectStats: Stats
  baselineStats: Stats
  /** subject median / baseline median. */
  ratio: number
  target: Target
  pass: boolean | null
  /** Why a row was skipped, when it was. */
  skipped?: string
  /** What `--quick` scaled down, or another caveat. */
  note?: string
}

/** Options every figure receives. */
export interface RunConfig {
  quick: boolean
  /** Progress output (stderr), so stdout stays the table. */
  log: (message: string) => void
}

/** A benchmark: produces its rows, or skipped rows with a reason. */
export interface Figure {
  id: string
  title: string
  run(config: RunConfig): Promise<Row[]>
}

/** Build a row from raw sample values (already converted to `unit`). */
export function makeRow(fields: Omit<Row, 'subjectStats' | 'baselineStats' | 'ratio' | 'pass'> & { subjectValues: number[]; baselineValues: number[] }): Row {
  const { subjectValues, baselineValues, ...rest } = fields
  const subjectStats = summarize(subjectValues)
  const baselineStats = summarize(baselineValues)
  const ratio = subjectStats.median / baselineStats.median
  const target = rest.target
  const pass =
    target.kind === 'ratio'
      ? ratio <= target.max
      : target.kind === 'absolute'
        ? subjectStats.max <= target.max
        : target.kind === 'overhead'
          ? (target.paired === true ? pairedMedianDifference(subjectValues, baselineValues) : subjectStats.median - baselineStats.median) <= target.max
          : null
  return { ...rest, subjectStats, baselineStats, ratio, pass }
}

/** A row for a figure that could not run here. */
export function skippedRow(id: string, figure: string, target: Target, reason: string): Row {
  const empty = summarize([])
  return { id, figure, subject: '-', baseline: '-', unit: 'ms', subjectStats: empty, baselineStats: empty, ratio: Number.NaN, target, pass: null, skipped: reason }
}
