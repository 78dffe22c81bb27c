/**
 * MCP tool definitions (`tools/list` entries) with annotations derived from
 * the tool's flags.
 *
 * @module
 */
import { Tool, kitInputJsonSchema } from '../../core/tool.js'
import { buildToolSet, type ProviderToolSet } from '../../providers/provider_tool_set.js'
import { describedInputJsonSchema } from '../../providers/json_schema_description.js'
import { toToolOutputSchema } from '../../providers/tool_output_schema.js'
import { toToolDescription, type ToolLike, type ToolLikeCollection } from '../../providers/tool_like.js'
import type { ToolDescription } from '../../core/tool_types.js'
import { TOOL_NAME_RULES, ToolNameMap } from '../../providers/tool_name_map.js'

/** MCP tool annotations: hints for the client, never guarantees. */
export interface McpToolAnnotations {
  /** Human-readable title. */
  title: string
  /** `!sideEffect`: the tool does not modify its environment. */
  readOnlyHint: boolean
  /** `sideEffect`: a tool that changes anything may overwrite or delete (meaningful only when not read-only). */
  destructiveHint: boolean
  /** The tool's `idempotent` flag. */
  idempotentHint: boolean
  /** Whether the tool reaches an open world of external entities. */
  openWorldHint: boolean
}

/** A tool's `inputSchema` as MCP requires it: a JSON Schema whose root is an object. */
export interface McpInputSchema {
  /** Always `'object'`. */
  type: 'object'
  /** Every other JSON Schema keyword, as `toJsonSchema` wrote it. */
  [keyword: string]: unknown
}

/** An MCP `Tool` as `tools/list` returns it. */
export interface McpToolDefinition {
  /** Tool name, `^[A-Za-z0-9._-]{1,128}$`. */
  name: string
  /** Human-readable title. */
  title: string
  /** What the model reads. */
  description: string
  /** JSON Schema (draft 2020-12, MCP's default dialect) of the arguments. */
  inputSchema: McpInputSchema
  /** JSON Schema of the tool's `structuredContent`, root an object; only for a tool with an output schema. */
  outputSchema?: McpInputSchema
  /** Behaviour hints. */
  annotations: McpToolAnnotations
}

/** Options of the MCP definition builders. */
export interface McpToolOptions {
  /** Name map to record renames in; defaults to a fresh one for MCP's rule. */
  names?: ToolNameMap
  /**
   * `openWorldHint` for tools that do not set `meta.mcp.openWorldHint`.
   *
   * @defaultValue false: toolsmith tools act inside a sandbox; say `true` for tools that reach external systems
   */
  openWorldHint?: boolean
}

/**
 * The MCP definition of a tool.
 *
 * @remarks
 * `title` is the tool's `meta.mcp.title` when set, otherwise its name made
 * readable (`place_order` → `Place order`). `readOnlyHint = !sideEffect`,
 * `destructiveHint = sideEffect`, `idempotentHint = idempotent`;
 * `openWorldHint` is `meta.mcp.openWorldHint`, else `options.openWorldHint`.
 * `inputSchema` always has `"type": "object"` at its root (a root `.when()`
 * becomes `{ type: 'object', anyOf: [...] }`, see `toToolInputSchema`): the
 * SDK client's `listTools()` refuses a whole list when one tool lacks it.
 * A tool with an output schema also gets `outputSchema` (its root is an
 * object too: `Tool` accepts only a joi object as output schema), and its
 * calls answer with `structuredContent` (see `toMcpCallResult`).
 *
 * @param tool - A Tool or its `describe()` snapshot.
 * @param options - The name map and the default `openWorldHint`.
 * @returns `{ name, title, description, inputSchema, outputSchema?, annotations }`.
 */
export function toMcpTool(tool: ToolLike, options: McpToolOptions = {}): McpToolDefinition {
  const { name, description, sideEffect, idempotent, inputSchema, outputSchema } = mcpSchemas(tool)
  const names = options.names ?? new ToolNameMap(TOOL_NAME_RULES.mcp)
  const meta = Tool.isTool(tool) ? tool.meta : undefined
  const metaTitle = meta?.get<unknown>('mcp.title')
  const metaOpenWorld = meta?.get<unknown>('mcp.openWorldHint')
  const title = typeof metaTitle === 'string' ? metaTitle : humanize(name)
  return {
    name: names.toProvider(name),
    title,
    description,
    inputSchema,
    ...(outputSchema === undefined ? {} : { outputSchema }),
    annotations: {
      title,
      readOnlyHint: !sideEffect,
      destructiveHint: sideEffect,
      idempotentHint: idempotent,
      openWorldHint: typeof metaOpenWorld === 'boolean' ? metaOpenWorld : options.openWorldHint === true,
    },
  }
}

/** What an MCP definition says of a tool, from its description or, for a built-in, without describing it. */
function mcpSchemas(tool: ToolLike): Pick<ToolDescription, 'name' | 'description' | 'sideEffect' | 'idempotent'> & {
  inputSchema: McpInputSchema
  outputSchema: McpInputSchema | undefined
} {
  // A built-in carries its input's JSON Schema, generated from its joi
  // schema: listing it needs no describe(), so `tools/list` loads no joi.
  const builtin = Tool.isTool(tool) ? kitInputJsonSchema(tool) : undefined
  if (builtin !== undefined && Tool.isTool(tool) && tool.outputSchema === undefined) {
    const { name, description, sideEffect, idempotent } = tool
    return { name, description, sideEffect, idempotent, inputSchema: builtin as McpInputSchema, outputSchema: undefined }
  }
  const described = toToolDescription(tool)
  const { name, description, sideEffect, idempotent } = described
  return {
    name,
    description,
    sideEffect,
    idempotent,
    inputSchema: describedInputJsonSchema(described) as McpInputSchema,
    outputSchema: toToolOutputSchema(described) as McpInputSchema | undefined,
  }
}

/**
 * MCP definitions for a whole collection.
 *
 * @param tools - An array, record or `ToolRegistry` of tools or snapshots.
 * @param options - An optional name map to reuse and the default `openWorldHint`.
 * @returns The definitions and the name map.
 */
export function toMcpTools(tools: ToolLikeCollection, options: McpToolOptions = {}): ProviderToolSet<McpToolDefinition> {
  return buildToolSet(tools, TOOL_NAME_RULES.mcp, options.names, (tool, names) => toMcpTool(tool, { ...options, names }))
}

function humanize(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_.:-]+/)
    .filter(Boolean)
    .join(' ')
    .toLowerCase()
  return words.length === 0 ? name : words[0]!.toUpperCase() + words.slice(1)
}
