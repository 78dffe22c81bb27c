/**
 * `ToolCollection`: every shape in which a caller may hand over a set of tools.
 *
 * @module
 */
import { E_INVALID_OPTIONS, E_TOOL_ALREADY_REGISTERED } from '../exceptions.js'
import { isPlainObject } from '../utils/guards.js'
import { Tool } from './tool.js'
import { ToolRegistry } from './tool_registry.js'

/**
 * A set of tools as providers and the runner accept it: an array, any
 * iterable, a record (`{ read, grep }`, as the AI SDK writes them) or a
 * {@link ToolRegistry}.
 */
export type ToolCollection =
  | readonly Tool[]
  | Iterable<Tool>
  | Record<string, Tool>
  | ToolRegistry

/**
 * Flatten a {@link ToolCollection} into an array.
 *
 * @remarks
 * - A registry contributes its **visible** tools only (hidden ones are not
 *   offered to a model).
 * - A record contributes its values; each tool keeps its own `name` (the
 *   record key is not a rename).
 * - The same instance listed twice appears once; two different tools with
 *   one name are refused, since no provider accepts duplicate names.
 *
 * @param tools - The collection.
 * @returns The tools, in order.
 * @throws {@link E_INVALID_OPTIONS} when an entry is not a {@link Tool} or
 *   `tools` is none of the accepted shapes.
 * @throws {@link E_TOOL_ALREADY_REGISTERED} when two different tools share a name.
 *
 * @example
 * ```ts
 * toolList({ read, grep }).map((t) => t.name) // ['read', 'grep']
 * ```
 */
export function toolList(tools: ToolCollection): Tool[] {
  let entries: Iterable<unknown>
  if (ToolRegistry.isToolRegistry(tools)) entries = tools.visible()
  else if (isIterable(tools)) entries = tools
  else if (isPlainObject(tools)) entries = Object.values(tools)
  else {
    throw new E_INVALID_OPTIONS(
      `Tools must be an array, an iterable, a record of tools or a ToolRegistry (got ${describe(tools)}; for the built-ins pass createTools({ rootDir }))`,
    )
  }
  const byName = new Map<string, Tool>()
  for (const entry of entries) {
    if (!Tool.isTool(entry)) {
      throw new E_INVALID_OPTIONS(`Every entry of a tool collection must be a Tool (got ${describe(entry)})`)
    }
    const existing = byName.get(entry.name)
    if (existing !== undefined && existing !== entry) {
      throw new E_TOOL_ALREADY_REGISTERED(`Two different tools are named "${entry.name}"`, {
        details: { name: entry.name },
      })
    }
    byName.set(entry.name, entry)
  }
  return [...byName.values()]
}

function isIterable(value: unknown): value is Iterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function'
  )
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (typeof value === 'object') return (value as object).constructor?.name ?? 'object'
  return typeof value
}
