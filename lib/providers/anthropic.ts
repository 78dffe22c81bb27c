/**
 * Anthropic Messages API tool definitions.
 *
 * @module
 */
import { toJsonSchema, type JsonSchema } from './json_schema.js'
import { buildToolSet, type ProviderToolSet } from './provider_tool_set.js'
import { toToolDescription, type ToolLike, type ToolLikeCollection } from './tool_like.js'
import { TOOL_NAME_RULES, ToolNameMap } from './tool_name_map.js'

/** A client tool of the Messages API (`tools[]` of `POST /v1/messages`). */
export interface AnthropicTool {
  /** Tool name, `^[a-zA-Z0-9_-]{1,64}$`. */
  name: string
  /** What the model reads. */
  description: string
  /** JSON Schema of the input; its root is always `type: 'object'`. */
  input_schema: JsonSchema
}

/** Options of the Anthropic definition builders. */
export interface AnthropicToolOptions {
  /** Name map to record renames in; defaults to a fresh one for Anthropic's rule. */
  names?: ToolNameMap
}

/**
 * The Anthropic definition of a tool.
 *
 * @remarks
 * Anthropic takes JSON Schema as is, so `input_schema` is exactly
 * `toJsonSchema`'s output.
 *
 * @param tool - A Tool or its `describe()` snapshot.
 * @param options - The name map.
 * @returns `{ name, description, input_schema }`.
 *
 * @example
 * ```ts
 * await anthropic.messages.create({ model, max_tokens: 1024, messages, tools: [toAnthropicTool(weather)] })
 * ```
 */
export function toAnthropicTool(tool: ToolLike, options: AnthropicToolOptions = {}): AnthropicTool {
  const described = toToolDescription(tool)
  const names = options.names ?? new ToolNameMap(TOOL_NAME_RULES.anthropic)
  return {
    name: names.toProvider(described.name),
    description: described.description,
    input_schema: toJsonSchema(described.inputSchema),
  }
}

/**
 * Anthropic definitions for a whole collection.
 *
 * @param tools - An array, record or `ToolRegistry` of tools or snapshots.
 * @param options - An optional name map to reuse.
 * @returns The definitions and the name map (`names.fromProvider(block.name)` finds the tool).
 */
export function toAnthropicTools(tools: ToolLikeCollection, options: AnthropicToolOptions = {}): ProviderToolSet<AnthropicTool> {
  return buildToolSet(tools, TOOL_NAME_RULES.anthropic, options.names, (tool, names) => toAnthropicTool(tool, { names }))
}
