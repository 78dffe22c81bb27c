/**
 * A small dot-path key-value store: the `meta` a tool carries.
 *
 * @module
 */
import { E_INVALID_INITIAL_REGISTRY_VALUE } from '../exceptions.js'
import { hasBrand, isPlainObject } from '../utils/guards.js'
import { validateOrThrow, validator, type ObjectSchema } from '../validation.js'
import { lazyObject } from '../utils/lazy_object.js'

const REGISTRY_BRAND = Symbol.for('toolsmith.registry')

// A plain object (not an array, a Date or another class's instance): its
// values are cloned in as they are, any key allowed.
const registrySchema: ObjectSchema<Record<string, unknown>> = lazyObject(() => validator
  .object()
  .unknown(true)
  .custom((value, helpers) => (isPlainObject(value) ? value : helpers.error('object.base')))
  .rule({ message: { 'object.base': '{#label} must be a plain object' } })
  .label('initial'))

/**
 * A key-value store addressed by dot paths (`'limits.maxRows'`).
 *
 * @remarks
 * Values are cloned on the way in and on the way out (plain objects and
 * arrays deeply; other values such as functions or class instances by
 * reference), so a caller that mutates what it passed or what it got back
 * never changes the store. That isolation is what lets one tool's `meta`
 * be shared between turns safely.
 *
 * @example
 * ```ts
 * const meta = new Registry({ owner: 'infra' })
 * meta.set('limits.maxRows', 100)
 * meta.get('limits')          // { maxRows: 100 }
 * meta.get('missing', 'none') // 'none'
 * ```
 */
export class Registry {
  /** The joi schema of a registry's initial value: a plain object. */
  static readonly schema: ObjectSchema<Record<string, unknown>> = registrySchema

  #data: Record<string, unknown>

  /**
   * @param initial - Optional plain object to start from (cloned).
   * @throws {@link E_INVALID_INITIAL_REGISTRY_VALUE} when `initial` is not a
   *   plain object (the `ValidationException` is the cause).
   */
  constructor(initial: Record<string, unknown> = {}) {
    // The schema accepts exactly the plain objects: joi runs only to word the refusal.
    if (!isPlainObject(initial)) {
      try {
        validateOrThrow(registrySchema, initial, { convert: false })
      } catch (error) {
        // validateOrThrow throws only ValidationException, whose message lists the failures.
        throw new E_INVALID_INITIAL_REGISTRY_VALUE(`A Registry must be created from a plain object: ${(error as Error).message}`, { cause: error })
      }
    }
    this.#data = clone(initial) as Record<string, unknown>
  }

  /** Brand for {@link Registry.isRegistry}; realm-safe. */
  get [REGISTRY_BRAND](): true {
    return true
  }

  /**
   * Returns true when `value` is a Registry (from any copy of this package).
   *
   * @param value - Anything.
   * @returns Whether `value` is a Registry.
   */
  static isRegistry(value: unknown): value is Registry {
    return value instanceof Registry || hasBrand(value, REGISTRY_BRAND)
  }

  /**
   * Read the value at `path`.
   *
   * @param path - A dot path; `''` is the whole store.
   * @param defaultValue - Returned when nothing is stored there.
   * @returns A clone of the stored value, or `defaultValue`.
   */
  get<T = unknown>(path: string, defaultValue?: T): T {
    const found = walk(this.#data, split(path))
    return (found === undefined ? defaultValue : clone(found)) as T
  }

  /**
   * Whether anything is stored at `path`.
   *
   * @param path - A dot path.
   * @returns True when the path holds a value other than `undefined`.
   */
  has(path: string): boolean {
    return walk(this.#data, split(path)) !== undefined
  }

  /**
   * Store a clone of `value` at `path`, creating intermediate objects.
   *
   * @param path - A non-empty dot path.
   * @param value - The value to store.
   * @returns This registry, for chaining.
   */
  set(path: string, value: unknown): this {
    const keys = split(path)
    if (keys.length === 0) throw new E_INVALID_INITIAL_REGISTRY_VALUE('Registry.set needs a non-empty path')
    let node = this.#data
    for (const key of keys.slice(0, -1)) {
      if (!isPlainObject(node[key])) node[key] = {}
      node = node[key] as Record<string, unknown>
    }
    node[keys[keys.length - 1]!] = clone(value)
    return this
  }

  /**
   * Remove the value at `path`.
   *
   * @param path - A dot path.
   * @returns True when something was removed.
   */
  delete(path: string): boolean {
    const keys = split(path)
    const parent = walk(this.#data, keys.slice(0, -1))
    const last = keys[keys.length - 1]
    if (last === undefined || !isPlainObject(parent) || !(last in parent)) return false
    delete parent[last]
    return true
  }

  /**
   * A clone of everything stored.
   *
   * @returns A plain object.
   */
  all(): Record<string, unknown> {
    return clone(this.#data) as Record<string, unknown>
  }

  /**
   * An independent copy of this registry.
   *
   * @returns A new Registry with the same contents.
   */
  clone(): Registry {
    return new Registry(this.#data)
  }

  /**
   * The contents, for `JSON.stringify`.
   *
   * @returns A plain object.
   */
  toJSON(): Record<string, unknown> {
    return this.all()
  }
}

function split(path: string): string[] {
  return path === '' ? [] : path.split('.')
}

function walk(root: unknown, keys: string[]): unknown {
  let node = root
  for (const key of keys) {
    if (!isPlainObject(node) || !Object.hasOwn(node, key)) return undefined
    node = node[key]
  }
  return node
}

function clone(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(clone)
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = clone(v)
    return out
  }
  if (value instanceof Date) return new Date(value.getTime())
  return value
}
