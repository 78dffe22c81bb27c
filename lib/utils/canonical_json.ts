/**
 * Deterministic JSON: the same value always gives the same text, whatever the
 * order its keys were written in. The basis of every `callId`.
 *
 * @module
 */
import { E_NOT_CANONICALIZABLE } from '../exceptions.js'

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
 * a `RangeError` escaping. So does a value that cannot be read (a getter, a
 * `Proxy` trap or a `toJSON` that throws, a revoked `Proxy`): the error names
 * the path to it (`details.path`, `"env.HOME"`, `"args[2]"`; `""` for the
 * value itself) and keeps what was thrown as its cause.
 *
 * @param value - Any JSON-like value.
 * @returns The canonical JSON text.
 * @throws {@link E_NOT_CANONICALIZABLE} for `NaN`, `±Infinity`, cycles,
 *   excessive nesting, a value whose reading throws, and a top-level value
 *   with no JSON form (`undefined`).
 *
 * @example
 * ```ts
 * canonicalStringify({ b: 1, a: [undefined, 2n] }) // '{"a":[null,"2"],"b":1}'
 * ```
 */
export function canonicalStringify(value: unknown): string {
  return canonicalise(value, new Ancestors(false))
}

/**
 * Strings at least this long are left out of the text by
 * {@link canonicalStringifyDeferring}: below it, `JSON.stringify` of the
 * string costs less than setting up the streaming hash (measured:
 * CHANGELOG.md, "Performance history", callId).
 *
 * @internal
 */
export const LONG_STRING_CHARS = 1024

/**
 * A canonical text with its long strings left out: each is one U+0000 in
 * `text` (quotes included), in the order of `strings`. Canonical JSON never
 * holds a raw U+0000 otherwise (`JSON.stringify` escapes it in strings and
 * keys), so the placeholders cannot be confused with content.
 *
 * @internal
 */
export interface DeferredText {
  /** The canonical text, one U+0000 in place of each long string. */
  readonly text: string
  /** The long strings, in text order. */
  readonly strings: readonly string[]
}

/**
 * {@link canonicalStringify}, but every string of at least
 * {@link LONG_STRING_CHARS} UTF-16 units is left out, for a caller that
 * hashes it without building the text (the callId of a large `write`).
 * Same walk, same order, same errors.
 *
 * @param value - Any JSON-like value.
 * @returns The text itself when no string was long (no extra allocation on
 *   that path), else the text with placeholders and the strings.
 * @throws {@link E_NOT_CANONICALIZABLE} as {@link canonicalStringify} does.
 * @internal
 */
export function canonicalStringifyDeferring(value: unknown): string | DeferredText {
  const ancestors = new Ancestors(true)
  const text = canonicalise(value, ancestors)
  const strings = ancestors.deferred
  return strings === undefined ? text : { text, strings }
}

function canonicalise(value: unknown, ancestors: Ancestors): string {
  let text: string | undefined
  try {
    text = serialise(value, '', ancestors)
  } catch (error) {
    if (isStackOverflow(error)) {
      throw new E_NOT_CANONICALIZABLE('Value is nested too deeply to canonicalise', { cause: error })
    }
    if (error instanceof E_NOT_CANONICALIZABLE) throw error
    const { path, cause } = error instanceof UnreadableValue ? error : new UnreadableValue(error)
    const where = path.length === 0 ? 'the value' : JSON.stringify(formatPath(path))
    throw new E_NOT_CANONICALIZABLE(`Reading ${where} threw: ${thrownText(cause)}`, { cause, details: { path: formatPath(path) } })
  }
  if (text === undefined) {
    throw new E_NOT_CANONICALIZABLE(`A top-level ${typeof value} has no JSON form`)
  }
  return text
}

/** Nesting depth up to which a linear scan beats a Set for cycle checks. */
const SHALLOW_DEPTH = 32

/**
 * The state of one walk: the objects on the path from the root to the
 * current value, for cycle detection, and the long strings left out. Tool args are shallow, where an array scan is several times
 * cheaper than `Set` bookkeeping; past {@link SHALLOW_DEPTH} a `Set` takes
 * over so pathological nesting stays linear.
 */
class Ancestors {
  readonly #stack: object[] = []
  #deep: Set<object> | undefined
  /** The long strings left out so far (see {@link canonicalStringifyDeferring}). */
  deferred: string[] | undefined

  /** @param defers - Whether long strings are left out of the text. */
  constructor(readonly defers: boolean) {}

  has(object: object): boolean {
    return this.#deep !== undefined ? this.#deep.has(object) : this.#stack.includes(object)
  }

  push(object: object): void {
    this.#stack.push(object)
    if (this.#deep !== undefined) this.#deep.add(object)
    else if (this.#stack.length > SHALLOW_DEPTH) this.#deep = new Set(this.#stack)
  }

  pop(): void {
    const object = this.#stack.pop()!
    if (this.#deep === undefined) return
    this.#deep.delete(object)
    if (this.#stack.length <= SHALLOW_DEPTH) this.#deep = undefined
  }
}

/**
 * Serialise one value; `undefined` means "omit" (as in JSON.stringify).
 * `key` is an array index as a number: turned into a string only when
 * `toJSON` or an error message needs it, not for every element.
 */
function serialise(value: unknown, key: string | number, ancestors: Ancestors): string | undefined {
  switch (typeof value) {
    case 'string':
      if (value.length >= LONG_STRING_CHARS && ancestors.defers) {
        ;(ancestors.deferred ??= []).push(value)
        return '\u0000'
      }
      return JSON.stringify(value)
    case 'number':
      if (!Number.isFinite(value)) {
        throw new E_NOT_CANONICALIZABLE(`${value} has no JSON form (at ${describeKey(key)})`)
      }
      // Same text as JSON.stringify for every finite number, without the call.
      return `${value}`
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
  if (value instanceof Uint8Array) {
    return `{"$bytes":"${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64')}"}`
  }
  const toJSON = (value as { toJSON?: unknown }).toJSON
  if (typeof toJSON === 'function') {
    // Whatever toJSON returns is serialised by the same rules, as JSON.stringify does.
    return serialiseConverted(toJSON.call(value, String(key)), key, ancestors)
  }
  return serialiseContainer(value as object, key, ancestors)
}

function serialiseConverted(value: unknown, key: string | number, ancestors: Ancestors): string | undefined {
  if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) {
    return serialiseContainer(value, key, ancestors)
  }
  return serialise(value, key, ancestors)
}

function serialiseContainer(object: object, key: string | number, ancestors: Ancestors): string {
  if (ancestors.has(object)) {
    throw new E_NOT_CANONICALIZABLE(`Cycle detected (at ${describeKey(key)})`)
  }
  ancestors.push(object)
  const text = Array.isArray(object) ? serialiseArray(object, ancestors) : serialiseObject(object, ancestors)
  // No try/finally: when a member throws, the whole call is abandoned and
  // the stack with it.
  ancestors.pop()
  return text
}

/**
 * What reading a member threw (a getter, a `Proxy` trap, `toJSON`), on its
 * way up to {@link canonicalise}: each container it passes adds its key in
 * front, so the error can name the whole path. Internal to the walk.
 */
class UnreadableValue {
  readonly path: (string | number)[] = []

  constructor(readonly cause: unknown) {}
}

/**
 * `error`, thrown while serialising the member `key` of a container, with
 * `key` added in front of its path. Errors of the walk itself (a cycle,
 * `NaN`, the stack running out) pass unchanged.
 */
function underKey(error: unknown, key: string | number | undefined): unknown {
  if (error instanceof E_NOT_CANONICALIZABLE || isStackOverflow(error)) return error
  const unreadable = error instanceof UnreadableValue ? error : new UnreadableValue(error)
  if (key !== undefined) unreadable.path.unshift(key)
  return unreadable
}

function serialiseArray(array: readonly unknown[], ancestors: Ancestors): string {
  let out = '['
  let i = 0
  // One try per container, not per member: nothing to pay on the way through.
  try {
    for (; i < array.length; i++) {
      if (i > 0) out += ','
      out += serialise(array[i], i, ancestors) ?? 'null'
    }
  } catch (error) {
    throw underKey(error, i)
  }
  return `${out}]`
}

/**
 * Keys as JSON strings, with their colon: tool args repeat the same few
 * keys in every element of an array, and quoting one is a native call.
 * Bounded: emptied when full, so hostile args cannot grow it.
 */
const quotedKeys = new Map<string, string>()
const QUOTED_KEYS_MAX = 4096

function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key)
  if (quoted === undefined) {
    if (quotedKeys.size >= QUOTED_KEYS_MAX) quotedKeys.clear()
    quoted = `${JSON.stringify(key)}:`
    if (key.length <= 64) quotedKeys.set(key, quoted)
  }
  return quoted
}

function serialiseObject(object: object, ancestors: Ancestors): string {
  const record = object as Record<string, unknown>
  // Listing the keys runs a Proxy's ownKeys and getOwnPropertyDescriptor traps.
  let keys: string[]
  try {
    keys = Object.keys(record)
  } catch (error) {
    throw underKey(error, undefined)
  }
  if (keys.length > 1 && !isSorted(keys)) sortKeys(keys)
  let out = '{'
  let first = true
  let i = 0
  try {
    for (; i < keys.length; i++) {
      const key = keys[i]!
      const text = serialise(record[key], key, ancestors)
      if (text === undefined) continue
      out += (first ? '' : ',') + quotedKey(key) + text
      first = false
    }
  } catch (error) {
    throw underKey(error, keys[i])
  }
  return `${out}}`
}

/** Already in `sort()` order (UTF-16 code units): the common case of args built from a sorted schema. */
function isSorted(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (keys[i - 1]! > keys[i]!) return false
  return true
}

/**
 * `keys.sort()`, with an insertion sort for the few keys of a typical tool
 * call: `Array.prototype.sort` costs more to set up than sorting a handful
 * of strings takes. Same order (UTF-16 code units) either way.
 */
function sortKeys(keys: string[]): void {
  if (keys.length > 12) {
    keys.sort()
    return
  }
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!
    let j = i - 1
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!
      j--
    }
    keys[j + 1] = key
  }
}

/** `["env", "HOME"]` → `env.HOME`; `["args", 2]` → `args[2]`; odd keys quoted (`a["b.c"]`). */
function formatPath(path: readonly (string | number)[]): string {
  let out = ''
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`
    else if (/^[A-Za-z_$][\w$]*$/.test(key)) out += out === '' ? key : `.${key}`
    else out += `[${JSON.stringify(key)}]`
  }
  return out
}

/** The message of something thrown, which may not be an Error (or may throw when read). */
function thrownText(thrown: unknown): string {
  try {
    if (thrown instanceof Error) return thrown.message
    return typeof thrown === 'string' ? thrown : String(thrown)
  } catch {
    return 'a value that cannot be shown'
  }
}

/**
 * V8's "Maximum call stack size exceeded": the walk's own failure on deep
 * nesting. No regular expression here: this runs with the stack nearly
 * spent, and Node 24's V8 then fails to compile one ("Invalid regular
 * expression: /…/: Stack overflow", a RangeError that would pass for a
 * value that threw when read); that message counts as the same failure.
 */
function isStackOverflow(error: unknown): boolean {
  if (!(error instanceof RangeError)) return false
  const message = error.message
  return message.includes('call stack') || message.includes('Stack overflow')
}

function describeKey(key: string | number): string {
  return key === '' ? 'the top level' : `key ${JSON.stringify(String(key))}`
}
