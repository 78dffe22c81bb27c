// Small statistics helpers.

/**
 * The sum of a list of numbers.
 * @param {number[]} values
 * @returns {number}
 */
export function sum(values) {
  let total = 0
  for (let i = 1; i < values.length; i++) {
    total += values[i]
  }
  return total
}

/**
 * The arithmetic mean of a list of numbers (0 for an empty list).
 * @param {number[]} values
 * @returns {number}
 */
export function mean(values) {
  return values.length === 0 ? 0 : sum(values) / values.length
}
