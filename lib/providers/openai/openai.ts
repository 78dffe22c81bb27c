/**
 * OpenAI tool definitions: Chat Completions and Responses API shapes, with an
 * optional strict (Structured Outputs) schema.
 *
 * @module
 */
import type { JsonSchema } from '../json_schema.js'
import { toOpenAIStrictSchema } from './openai_strict.js'
import { buildToolSet, type ProviderToolSet } from '../provider_tool_set.js'
import { describedInputJsonSchema } from '../json_schema_description.js'
import { flattenRootAlternatives } from '../tool_input_schema.js'
import { toToolOutputSchema } from '../tool_output_schema.js'
import { toToolDescription, type ToolLike, type ToolLikeCollection } from '../tool_like.js'
import { TOOL_NAME_RULES, ToolNameMap } from '../tool_name_map.js'

/** A Chat Completions function tool (`tools[]` of `POST /v1/chat/completions`). */
export interface OpenAIChatTool {
  /** Always `'function'`. */
  type: 'function'
  /** The function. */
  function: {
    /** Tool name, `^[a-zA-Z0-9_-]{1,64}$`. */
    name: string
    /** What the model reads. */
    description: string
    /** JSON Schema of the arguments. */
    parameters: JsonSchema
    /** Whether OpenAI enforces `parameters` exactly (Structured Outputs). */
    strict: boolean
  }
}

/** A Responses API function tool (`tools[]` of `POST /v1/responses`). */
export interface OpenAIResponsesTool {
  /** Always `'function'`. */
  type: 'function'
  /** Tool name, `^[a-zA-Z0-9_-]{1,64}$`. */
  name: string
  /** What the model reads. */
  description: string
  /** JSON Schema of the arguments. */
  parameters: JsonSchema
  /** Whether OpenAI enforces `parameters` exactly (Structured Outputs). */
  strict: boolean
  /**
   * JSON Schema of the JSON the tool's output text holds: the tool's output
   * schema, when it has one (Chat Completions has no such field).
   */
  output_schema?: JsonSchema
}

/** Options of the OpenAI definition builders. */
export interface OpenAIToolOptions {
  /**
   * Emit a strict schema (see {@link toOpenAIStrictSchema}) and `strict: true`.
   * With strict schemas, pass the model's arguments through
   * `dropOptionalNulls` before validating (the AI SDK adapter does).
   *
   * @defaultValue false (the field is always sent, so the API's own default never applies)
   */
  strict?: boolean
  /** Name map to record renames in; defaults to a fresh one for OpenAI's rule. */
  names?: ToolNameMap
}

/**
 * The Chat Completions definition of a tool.
 *
 * @param tool - A Tool or its `describe()` snapshot.
 * @param options - `strict` and the name map.
 * @returns `{ type: 'function', function: { name, description, parameters, strict } }`.
 * @throws {@link toolsmith/core!E_PROVIDER_SCHEMA_UNSUPPORTED} as {@link toOpenAIResponsesTool} does.
 *
 * @example
 * ```ts
 * const response = await openai.chat.completions.create({
 *   model: 'gpt-4.1', messages, tools: [toOpenAITool(weather, { strict: true })],
 * })
 * ```
 */
export function toOpenAITool(tool: ToolLike, options: OpenAIToolOptions = {}): OpenAIChatTool {
  // Chat Completions' function has no field for the output schema.
  const { type, output_schema: _output, ...fn } = toOpenAIResponsesTool(tool, options)
  return { type, function: fn }
}

/**
 * The Responses API definition of a tool.
 *
 * @remarks
 * Root alternatives (a root `.when()`) are merged into one object when that
 * is exact (OpenAI wants an object at the root); with `strict`, the schema
 * must also fit strict mode's documented limits (see `toOpenAIStrictSchema`).
 * A tool with an output schema gets `output_schema`, its JSON Schema as is
 * (`strict` concerns the arguments only).
 *
 * @param tool - A Tool or its `describe()` snapshot.
 * @param options - `strict` and the name map.
 * @returns `{ type: 'function', name, description, parameters, strict, output_schema? }`.
 * @throws {@link toolsmith/core!E_PROVIDER_SCHEMA_UNSUPPORTED} for root alternatives that are not one object, or
 *   (strict) a schema over a strict-mode limit.
 */
export function toOpenAIResponsesTool(tool: ToolLike, options: OpenAIToolOptions = {}): OpenAIResponsesTool {
  const described = toToolDescription(tool)
  const strict = options.strict === true
  const names = options.names ?? new ToolNameMap(TOOL_NAME_RULES.openai)
  const schema = flattenRootAlternatives(describedInputJsonSchema(described), { tool: described.name, provider: 'openai' })
  const output = toToolOutputSchema(described)
  return {
    type: 'function',
    name: names.toProvider(described.name),
    description: described.description,
    parameters: strict ? toOpenAIStrictSchema(schema, { tool: described.name }) : schema,
    strict,
    ...(output === undefined ? {} : { output_schema: output }),
  }
}

/**
 * Chat Completions definitions for a whole collection.
 *
 * @param tools - An array, record or `ToolRegistry` of tools or snapshots.
 * @param options - `strict` and an optional name map to reuse.
 * @returns The definitions and the name map (`names.fromProvider(call.function.name)` finds the tool).
 */
export function toOpenAITools(tools: ToolLikeCollection, options: OpenAIToolOptions = {}): ProviderToolSet<OpenAIChatTool> {
  return buildToolSet(tools, TOOL_NAME_RULES.openai, options.names, (tool, names) =>
    toOpenAITool(tool, { ...options, names }),
  )
}

/**
 * Responses API definitions for a whole collection.
 *
 * @param tools - An array, record or `ToolRegistry` of tools or snapshots.
 * @param options - `strict` and an optional name map to reuse.
 * @returns The definitions and the name map.
 */
export function toOpenAIResponsesTools(
  tools: ToolLikeCollection,
  options: OpenAIToolOptions = {},
): ProviderToolSet<OpenAIResponsesTool> {
  return buildToolSet(tools, TOOL_NAME_RULES.openai, options.names, (tool, names) =>
    toOpenAIResponsesTool(tool, { ...options, names }),
  )
}
