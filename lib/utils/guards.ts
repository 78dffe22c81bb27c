/**
 * Small type guards shared by every layer.
 *
 * @module
 */

/**
 * True for `{}`-style objects: created by an object literal, `Object.create(null)`
 * or another realm's `Object`, never for arrays, class instances or null.
 *
 * @param value - Anything.
 * @returns Whether `value` is a plain object.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false
  const proto = Object.getPrototypeOf(value)
  return proto === null || Object.getPrototypeOf(proto) === null
}

/**
 * True when `value` carries the brand `symbol` set to `true`: a realm-safe
 * replacement for `instanceof`, because `Symbol.for` keys are shared across
 * realms and across duplicated copies of the package.
 *
 * @param value - Anything.
 * @param brand - The `Symbol.for(...)` brand to look for.
 * @returns Whether the brand is present.
 */
export function hasBrand(value: unknown, brand: symbol): boolean {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    (value as Record<symbol, unknown>)[brand] === true
  )
}

/**
 * True for anything with a callable `then` (a promise from any library).
 *
 * @param value - Anything.
 * @returns Whether `value` is thenable.
 */
export function isPromiseLike<T = unknown>(value: unknown): value is PromiseLike<T> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  )
}
