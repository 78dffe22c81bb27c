/**
 * Anthropic Messages API tool definitions.
 *
 * @module
 */
import { PROPERTY_KEY_RULES, PropertyKeyMaps } from '../property_key_map.js'
import { buildToolSet, type ProviderToolSet } from '../provider_tool_set.js'
import { describedInputJsonSchema, describedInputWalk } from '../json_schema_description.js'
import { flattenRootAlternatives } from '../tool_input_schema.js'
import { toToolDescription, type ToolLike, type ToolLikeCollection } from '../tool_like.js'
import { TOOL_NAME_RULES, ToolNameMap } from '../tool_name_map.js'

/** An Anthropic `input_schema`: a JSON Schema whose root is one object (the SDK's `Tool.InputSchema`). */
export interface AnthropicInputSchema {
  /** Always `'object'`. */
  type: 'object'
  /** The properties, keys mapped to Anthropic's key rule. */
  properties?: Record<string, unknown>
  /** Required property names. */
  required?: string[]
  /** Every other JSON Schema keyword. */
  [keyword: string]: unknown
}

/** A client tool of the Messages API (`tools[]` of `POST /v1/messages`). */
export interface AnthropicTool {
  /** Tool name, `^[a-zA-Z0-9_-]{1,64}$`. */
  name: string
  /** What the model reads. */
  description: string
  /** JSON Schema of the input; its root is always `type: 'object'`. */
  input_schema: AnthropicInputSchema
}

/** Options of the Anthropic definition builders. */
export interface AnthropicToolOptions {
  /** Name map to record renames in; defaults to a fresh one for Anthropic's rule. */
  names?: ToolNameMap
  /**
   * Property-key maps to record renamed keys in (map arguments back with
   * `keys.argsFromProvider(tool, args)`); defaults to a fresh one.
   */
  keys?: PropertyKeyMaps
}

/**
 * The Anthropic definition of a tool.
 *
 * @remarks
 * Anthropic takes JSON Schema draft 2020-12, so `input_schema` is
 * `toJsonSchema`'s output, with two changes: root alternatives (a root
 * `.when()`) are merged into one object when that is exact (Anthropic refuses
 * `anyOf` at the top level; otherwise the tool is refused with
 * `E_PROVIDER_SCHEMA_UNSUPPORTED`), and property keys outside
 * `^[a-zA-Z0-9_.-]{1,64}$` are renamed (see `PropertyKeyMap`; use
 * {@link toAnthropicTools}, whose `keys` maps the arguments back). Anthropic's
 * tool definition has no field for an output schema, so a tool's output
 * schema is not sent (its results still are validated, and reach the model
 * as their JSON text).
 *
 * @param tool - A Tool or its `describe()` snapshot.
 * @param options - The name and key maps.
 * @returns `{ name, description, input_schema }`.
 * @throws {@link toolsmith/core!E_PROVIDER_SCHEMA_UNSUPPORTED} for a root `.when()` that is not one object.
 *
 * @example
 * ```ts
 * await anthropic.messages.create({ model, max_tokens: 1024, messages, tools: [toAnthropicTool(weather)] })
 * ```
 */
export function toAnthropicTool(tool: ToolLike, options: AnthropicToolOptions = {}): AnthropicTool {
  const described = toToolDescription(tool)
  const names = options.names ?? new ToolNameMap(TOOL_NAME_RULES.anthropic)
  const keys = options.keys ?? new PropertyKeyMaps(PROPERTY_KEY_RULES.anthropic)
  const schema = flattenRootAlternatives(describedInputJsonSchema(described), { tool: described.name, provider: 'anthropic' })
  const input_schema = keys.forTool(described.name, describedInputWalk(described), schema).mapSchema(schema) as AnthropicInputSchema
  return {
    name: names.toProvider(described.name),
    description: described.description,
    input_schema,
  }
}

/**
 * Anthropic definitions for a whole collection.
 *
 * @param tools - An array, record or `ToolRegistry` of tools or snapshots.
 * @param options - Optional name and key maps to reuse.
 * @returns The definitions, the name map (`names.fromProvider(block.name)` finds the tool) and the key maps
 *   (`keys.argsFromProvider(tool, block.input)` restores the schema's keys).
 * @throws {@link toolsmith/core!E_PROVIDER_SCHEMA_UNSUPPORTED} for a root `.when()` that is not one object.
 */
export function toAnthropicTools(tools: ToolLikeCollection, options: AnthropicToolOptions = {}): ProviderToolSet<AnthropicTool> {
  const keys = options.keys ?? new PropertyKeyMaps(PROPERTY_KEY_RULES.anthropic)
  return buildToolSet(tools, TOOL_NAME_RULES.anthropic, options.names, (tool, names) => toAnthropicTool(tool, { names, keys }), keys)
}
