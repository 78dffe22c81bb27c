/**
 * `dropOptionalNulls`: undo the one change strict schemas make to a model's
 * arguments, before joi sees them.
 *
 * @module
 */
import { Tool } from '../core/tool.js'
import { isPlainObject } from '../utils/guards.js'
import type { Description } from '../validation.js'
import { describedInputWalk } from './json_schema_description.js'
import { toToolDescription, type ToolLike } from './tool_like.js'

const descriptions = new WeakMap<object, Description>()

/**
 * Remove every `null` the model sent for a property that is optional and
 * does not itself allow `null`.
 *
 * @remarks
 * OpenAI's strict mode requires every property, so an optional one is made
 * nullable and the model sends `null` to mean "absent". joi would reject that
 * `null` (or, worse, keep it instead of the default), so the adapters call
 * this before validating. Properties that allow `null` in the joi schema keep
 * it; required properties keep it too (joi then reports it). Nested objects
 * and single-type array items are cleaned the same way; the input is not
 * modified.
 *
 * @param tool - The tool (or its `describe()` snapshot) the arguments are for.
 * @param args - The model's arguments.
 * @returns The arguments without those `null`s (the same value when there is nothing to drop).
 *
 * @example
 * ```ts
 * // schema: { city: string().required(), units: string().valid('metric', 'imperial') }
 * dropOptionalNulls(weather, { city: 'Oslo', units: null }) // { city: 'Oslo' }
 * ```
 */
export function dropOptionalNulls(tool: ToolLike, args: unknown): unknown {
  return drop(inputDescription(tool), args)
}

function inputDescription(tool: ToolLike): Description {
  if (!Tool.isTool(tool)) return describedInputWalk(toToolDescription(tool))
  let description = descriptions.get(tool)
  if (description === undefined) {
    description = describedInputWalk(tool.describe())
    descriptions.set(tool, description)
  }
  return description
}

function drop(description: Description, value: unknown): unknown {
  const keys = description.keys as Record<string, Description> | undefined
  if (isPlainObject(value) && isPlainObject(keys)) {
    let out: Record<string, unknown> | undefined
    for (const [key, child] of Object.entries(keys)) {
      if (!(key in value)) continue
      const current = value[key]
      const next = current === null && !isRequired(child) && !allowsNull(child) ? undefined : drop(child, current)
      if (next !== current) {
        out ??= { ...value }
        if (next === undefined) delete out[key]
        else out[key] = next
      }
    }
    return out ?? value
  }
  const items = description.items as Description[] | undefined
  if (Array.isArray(value) && Array.isArray(items) && items.length === 1) {
    const cleaned = value.map((item) => drop(items[0]!, item))
    return cleaned.some((item, i) => item !== value[i]) ? cleaned : value
  }
  return value
}

function isRequired(description: Description): boolean {
  return (description.flags as Record<string, unknown> | undefined)?.presence === 'required'
}

function allowsNull(description: Description): boolean {
  const allow = description.allow as unknown[] | undefined
  return Array.isArray(allow) && allow.includes(null)
}
