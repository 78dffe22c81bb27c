/**
 * Deterministic JSON: the same value always gives the same text, whatever the
 * order its keys were written in. The basis of every `callId`.
 *
 * @module
 */
import { E_NOT_CANONICALIZABLE } from '../../lib/exceptions.js'

/**
 * Serialise `value` as canonical JSON.
 *
 * @remarks
 * The rules, in the spirit of RFC 8785 (JCS):
 * - object keys are sorted by UTF-16 code units (JavaScript's default sort);
 * - keys whose value is `undefined` (or a function or symbol) are dropped;
 *   in arrays those become `null`, as `JSON.stringify` does;
 * - `toJSON()` is honoured, so a `Date` becomes its ISO string;
 * - a `Uint8Array` (a `Buffer` included) becomes `{"$bytes":"<base64>"}`;
 * - a `BigInt` becomes its decimal digits as a JSON string;
 * - strings and finite numbers print exactly as `JSON.stringify` prints them,
 *   which is what RFC 8785 prescribes for ECMAScript.
 *
 * Values JSON cannot represent faithfully are refused rather than silently
 * changed: `NaN`, `±Infinity` and cycles throw. Shared, non-cyclic
 * references are fine. Nesting too deep for the stack throws too, instead of
 * a `RangeError` escaping.
 *
 * @param value - Any JSON-like value.
 * @returns The canonical JSON text.
 * @throws {@link E_NOT_CANONICALIZABLE} for `NaN`, `±Infinity`, cycles,
 *   excessive nesting, and a top-level value with no JSON form (`undefined`).
 *
 * @example
 * ```ts
 * canonicalStringify({ b: 1, a: [undefined, 2n] }) // '{"a":[null,"2"],"b":1}'
 * ```
 */
export function canonicalStringify(value: unknown): string {
  const ancestors = new Set<object>()
  let text: string | undefined
  try {
    text = serialise(value, '', ancestors)
  } catch (error) {
    if (error instanceof RangeError) {
      throw new E_NOT_CANONICALIZABLE('Value is nested too deeply to canonicalise', { cause: error })
    }
    throw error
  }
  if (text === undefined) {
    throw new E_NOT_CANONICALIZABLE(`A top-level ${typeof value} has no JSON form`)
  }
  return text
}

/** Serialise one value; `undefined` means "omit" (as in JSON.stringify). */
function serialise(value: unknown, key: string, ancestors: Set<object>): string | undefined {
  if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) {
    const toJSON = (value as { toJSON?: unknown }).toJSON
    if (typeof toJSON === 'function') value = toJSON.call(value, key)
  }
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value)
    case 'number':
      if (!Number.isFinite(value)) {
        throw new E_NOT_CANONICALIZABLE(`${value} has no JSON form (at ${describeKey(key)})`)
      }
      return JSON.stringify(value)
    case 'boolean':
      return value ? 'true' : 'false'
    case 'bigint':
      return `"${value.toString()}"`
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined
  }
  if (value === null) return 'null'
  const object = value as object
  if (object instanceof Uint8Array) {
    return `{"$bytes":"${Buffer.from(object.buffer, object.byteOffset, object.byteLength).toString('base64')}"}`
  }
  if (ancestors.has(object)) {
    throw new E_NOT_CANONICALIZABLE(`Cycle detected (at ${describeKey(key)})`)
  }
  ancestors.add(object)
  try {
    return Array.isArray(object) ? serialiseArray(object, ancestors) : serialiseObject(object, ancestors)
  } finally {
    ancestors.delete(object)
  }
}

function serialiseArray(array: readonly unknown[], ancestors: Set<object>): string {
  let out = '['
  for (let i = 0; i < array.length; i++) {
    if (i > 0) out += ','
    out += serialise(array[i], String(i), ancestors) ?? 'null'
  }
  return out + ']'
}

function serialiseObject(object: object, ancestors: Set<object>): string {
  const record = object as Record<string, unknown>
  const keys = Object.keys(record).sort()
  let out = '{'
  let first = true
  for (const key of keys) {
    const text = serialise(record[key], key, ancestors)
    if (text === undefined) continue
    out += (first ? '' : ',') + JSON.stringify(key) + ':' + text
    first = false
  }
  return out + '}'
}

function describeKey(key: string): string {
  return key === '' ? 'the top level' : `key ${JSON.stringify(key)}`
}
