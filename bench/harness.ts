/**
 * Interleaved sampling: every arm of a figure (baseline, subject, variants)
 * runs once per round, alternating the order each round (A B, B A, …), so
 * slow drift on a shared machine (another engineer's test run, thermal
 * throttling, page-cache state) lands on all arms alike instead of on one.
 *
 * @module
 */

/** One sample: `ms` is always present; memory figures add `rssMB`. */
export type Measurement = { ms: number } & Record<string, number>

/** Produces one sample; times only what it wants measured. */
export type Arm = () => Promise<Measurement>

/** How many rounds to run. */
export interface SamplingPlan {
  /** Rounds run first and thrown away: JIT, caches, lazy imports. */
  warmup: number
  /** Rounds kept. */
  samples: number
}

/**
 * Run every arm `warmup + samples` times, interleaved.
 *
 * @returns Each arm's kept samples, keyed like `arms`.
 */
export async function interleave<K extends string>(arms: Record<K, Arm>, plan: SamplingPlan): Promise<Record<K, Measurement[]>> {
  const keys = Object.keys(arms) as K[]
  const results = Object.fromEntries(keys.map((k) => [k, [] as Measurement[]])) as Record<K, Measurement[]>
  for (let round = 0; round < plan.warmup + plan.samples; round++) {
    const order = round % 2 === 0 ? keys : [...keys].reverse()
    for (const key of order) {
      const sample = await arms[key]()
      if (round >= plan.warmup) results[key].push(sample)
    }
  }
  return results
}

/**
 * Time `reps` back-to-back runs of `fn`; the sample is the time per run.
 * Batching keeps sub-microsecond clock noise out of per-call figures.
 */
export async function timed(fn: () => unknown, reps = 1): Promise<Measurement> {
  const start = process.hrtime.bigint()
  for (let i = 0; i < reps; i++) await fn()
  const elapsed = Number(process.hrtime.bigint() - start) / 1e6
  return { ms: elapsed / reps }
}

/** Extract one metric from a list of samples. */
export function metric(samples: readonly Measurement[], name: string): number[] {
  return samples.map((s) => {
    const value = s[name]
    if (value === undefined) throw new Error(`sample has no "${name}" metric`)
    return value
  })
}
