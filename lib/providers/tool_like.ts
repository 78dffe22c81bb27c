/**
 * `ToolLike`: what every provider adapter accepts, a live {@link Tool} or its
 * plain `describe()` snapshot, and the helpers that normalise both.
 *
 * @module
 */
import { Tool, type ToolDescription } from '../core/tool.js'
import { toolList, type ToolCollection } from '../core/tool_collection.js'
import { ToolRegistry } from '../core/tool_registry.js'
import { E_NOT_A_TOOL } from '../exceptions.js'
import { isPlainObject } from '../utils/guards.js'
import { validator, type ObjectSchema } from '../validation.js'

/** A {@link Tool}, or the plain snapshot its `describe()` returns (e.g. read from JSON). */
export type ToolLike = Tool | ToolDescription

/**
 * A set of {@link ToolLike}s: a {@link ToolCollection}, or an array, iterable
 * or record that may also hold `describe()` snapshots.
 */
export type ToolLikeCollection =
  | ToolCollection
  | readonly ToolLike[]
  | Iterable<ToolLike>
  | Record<string, ToolLike>

/**
 * Returns true for a `tool.describe()` snapshot: a plain object with a string
 * `name` and a joi object description as `inputSchema`.
 *
 * @param value - Anything.
 * @returns Whether `value` looks like a {@link ToolDescription}.
 */
export function isToolDescription(value: unknown): value is ToolDescription {
  return (
    isPlainObject(value) &&
    typeof value.name === 'string' &&
    isPlainObject(value.inputSchema) &&
    value.inputSchema.type === 'object'
  )
}

/**
 * The `describe()` snapshot of a {@link ToolLike}.
 *
 * @param tool - A Tool or a snapshot.
 * @returns The snapshot, with `description` defaulting to `''` and the flags to a read-only, idempotent tool;
 *   `outputSchema` is kept when it is a joi object description.
 * @throws {@link toolsmith/core!E_NOT_A_TOOL} when `tool` is neither.
 */
export function toToolDescription(tool: ToolLike): ToolDescription {
  if (Tool.isTool(tool)) return tool.describe()
  if (!isToolDescription(tool)) {
    throw new E_NOT_A_TOOL('Expected a Tool or a tool.describe() snapshot whose inputSchema is a joi object description')
  }
  const sideEffect = tool.sideEffect === true
  return {
    name: tool.name,
    description: typeof tool.description === 'string' ? tool.description : '',
    inputSchema: tool.inputSchema,
    ...(tool.inputSchemaFormat === 'json-schema' ? { inputSchemaFormat: 'json-schema' as const } : {}),
    // A snapshot's output schema is kept only when it is a joi object description, like its input schema.
    ...(isPlainObject(tool.outputSchema) && tool.outputSchema.type === 'object' ? { outputSchema: tool.outputSchema } : {}),
    sideEffect,
    idempotent: typeof tool.idempotent === 'boolean' ? tool.idempotent : !sideEffect,
  }
}

/**
 * The joi input schema of a {@link ToolLike}: the live one, or one rebuilt
 * from the snapshot with `validator.build()`.
 *
 * @param tool - A Tool or a snapshot.
 * @returns The joi object schema.
 * @throws {@link toolsmith/core!E_NOT_A_TOOL} when `tool` is neither, or its input schema is a Standard
 *   Schema (no joi schema exists: validate with `tool.validate(args)`).
 */
export function toolInputSchema(tool: ToolLike): ObjectSchema {
  if (Tool.isTool(tool) && validator.isSchema(tool.inputSchema)) return tool.inputSchema as ObjectSchema
  const described = toToolDescription(tool)
  if (described.inputSchemaFormat === 'json-schema') {
    throw new E_NOT_A_TOOL(
      `Tool "${described.name}" has a Standard Schema (JSON Schema) input, not a joi one: validate its args with tool.validate(args)`,
    )
  }
  return validator.build(described.inputSchema) as ObjectSchema
}

/**
 * Flatten a {@link ToolLikeCollection} into an array, keeping its order.
 *
 * @remarks
 * A {@link ToolRegistry} contributes its visible tools. Collections of live
 * tools go through `toolList`, so the same duplicate-name rule applies.
 *
 * @param tools - The collection.
 * @returns The tools and snapshots, in order.
 * @throws {@link toolsmith/core!E_NOT_A_TOOL} when an entry is neither a Tool nor a snapshot.
 */
export function toolLikeList(tools: ToolLikeCollection): ToolLike[] {
  if (ToolRegistry.isToolRegistry(tools)) return toolList(tools)
  const entries: unknown[] =
    typeof (tools as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function'
      ? [...(tools as Iterable<unknown>)]
      : Object.values(tools as Record<string, unknown>)
  if (entries.every((entry) => Tool.isTool(entry))) return toolList(entries as Tool[])
  return entries.map((entry) => {
    if (Tool.isTool(entry) || isToolDescription(entry)) return entry
    throw new E_NOT_A_TOOL('Every entry of a tool collection must be a Tool or a tool.describe() snapshot')
  })
}
