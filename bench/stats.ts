/**
 * Summary statistics for a set of samples.
 *
 * @module
 */

/** Median, extremes and count of one arm's samples. */
export interface Stats {
  median: number
  min: number
  max: number
  n: number
}

/**
 * Summarise samples. The median, not the mean, is the headline: on a shared
 * machine one descheduled sample must not move the figure.
 */
export function summarize(values: readonly number[]): Stats {
  if (values.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN, n: 0 }
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]!, n: sorted.length }
}
