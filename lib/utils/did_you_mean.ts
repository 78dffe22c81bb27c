/**
 * `didYouMean`: the closest known name to a mistyped one, for "did you mean"
 * hints on tool names and flags.
 *
 * @module
 */

/**
 * The optimal-string-alignment distance between `a` and `b`: insertions,
 * deletions, substitutions and swaps of two adjacent characters each cost 1
 * (so `reed`→`read` and `raed`→`read` are both 1).
 *
 * @param a - One string.
 * @param b - The other.
 * @returns The number of edits that turn `a` into `b`.
 */
export function editDistance(a: string, b: string): number {
  // Three rolling rows (the swap looks two rows back) keep memory at O(|b|).
  let before = new Array<number>(b.length + 1).fill(0)
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  let current = new Array<number>(b.length + 1).fill(0)
  for (let i = 1; i <= a.length; i++) {
    current[0] = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, before[j - 2]! + 1)
      }
      current[j] = best
    }
    ;[before, previous, current] = [previous, current, before]
  }
  return previous[b.length]!
}

/**
 * The candidate `input` most likely meant, or `undefined` when none is close.
 *
 * @remarks
 * Close means, comparing case-insensitively: an edit distance of at most 2
 * (at most 1 when `input` has 3 characters or fewer, so `ls` does not suggest
 * `cd`), or `input` (2 characters or more) being the start of exactly one
 * candidate. The smallest distance wins; on a tie, the earlier candidate in
 * `candidates`. An exact match is returned as is.
 *
 * @param input - What the user typed.
 * @param candidates - The names that exist.
 * @returns The suggestion, spelled as in `candidates`.
 */
export function didYouMean(input: string, candidates: readonly string[]): string | undefined {
  const typed = input.toLowerCase()
  const limit = typed.length <= 3 ? 1 : 2
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  for (const candidate of candidates) {
    const distance = editDistance(typed, candidate.toLowerCase())
    if (distance <= limit && distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  if (best !== undefined || typed.length < 2) return best
  const extending = candidates.filter((candidate) => candidate.toLowerCase().startsWith(typed))
  return extending.length === 1 ? extending[0] : undefined
}
