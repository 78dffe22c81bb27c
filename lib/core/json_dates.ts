/**
 * `reviveJsonDates`: RFC 3339 date-time strings turned into `Date`s where a
 * tool's schema has a `date()`, so a JSON caller can fill a date field.
 *
 * @module
 */
import { isPlainObject } from '../utils/guards.js'
import type { Description } from '../validation.js'

/** RFC 3339 `date-time`, the `format` a `date()` field advertises in JSON Schema. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/

/**
 * Whether a schema description has a `date()` anywhere.
 *
 * @param description - A joi description.
 * @returns True when {@link reviveJsonDates} may change a value.
 *
 * @internal
 */
export function hasDateSchema(description: unknown): boolean {
  if (Array.isArray(description)) return description.some(hasDateSchema)
  if (!isPlainObject(description)) return false
  if (description.type === 'date') return true
  return Object.values(description).some(hasDateSchema)
}

/**
 * A copy of `value` in which every string that sits where the schema has a
 * `date()` and is an RFC 3339 date-time has become a `Date`.
 *
 * @remarks
 * Tools validate with `convert: false` (a model's `"5"` is not a number), and
 * under it joi's `date()` accepts only `Date` objects: a JSON caller could
 * never fill the `date-time` string the field advertises. Only that format
 * is revived (no timestamps, no free-form dates), so joi accepts exactly what
 * the JSON Schema describes. Keys are followed through `keys`, `items`,
 * `ordered`, `.when()` branches and alternatives; anything else is left as is.
 *
 * @param description - The tool's input schema description.
 * @param value - The arguments.
 * @returns The arguments with dates revived (`value` itself when nothing changed).
 *
 * @internal
 */
export function reviveJsonDates(description: Description, value: unknown): unknown {
  return revive([description], value)
}

function revive(descriptions: readonly Description[], value: unknown): unknown {
  const candidates = descriptions.flatMap(branchesOf)
  if (typeof value === 'string') {
    return candidates.some((d) => d.type === 'date') && DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)) ? new Date(value) : value
  }
  if (isPlainObject(value)) {
    let out: Record<string, unknown> | undefined
    for (const [key, child] of Object.entries(value)) {
      const keyed = candidates.flatMap((d) => {
        const found = (d.keys as Record<string, Description> | undefined)?.[key]
        return found === undefined ? [] : [found]
      })
      if (keyed.length === 0) continue
      const next = revive(keyed, child)
      if (next !== child) (out ??= { ...value })[key] = next
    }
    return out ?? value
  }
  if (Array.isArray(value)) {
    const items = candidates.flatMap((d) => [...((d.items ?? []) as Description[]), ...((d.ordered ?? []) as Description[])])
    if (items.length === 0) return value
    const next = value.map((item) => revive(items, item))
    return next.some((item, i) => item !== value[i]) ? next : value
  }
  return value
}

function branchesOf(description: Description): Description[] {
  const out: Description[] = [description]
  const add = (branch: unknown): void => {
    if (isPlainObject(branch)) out.push(...branchesOf(branch as Description))
  }
  for (const when of (description.whens ?? []) as Record<string, unknown>[]) {
    add(when.then)
    add(when.otherwise)
    for (const s of (when.switch ?? []) as Record<string, unknown>[]) {
      add(s.then)
      add(s.otherwise)
    }
  }
  for (const match of (description.matches ?? []) as Record<string, unknown>[]) {
    add(match.schema)
    add(match.then)
    add(match.otherwise)
  }
  return out
}
