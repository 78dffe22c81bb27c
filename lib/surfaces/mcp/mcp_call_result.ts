/**
 * `toMcpCallResult`: a tool's result as the answer to MCP `tools/call`.
 *
 * @module
 */
import { isStructuredToolResult, type StructuredToolResult } from '../../contracts/tool_result.js'
import type { Tool, ToolResult } from '../../core/tool.js'
import { toolResultToText, type ToolResultTextOptions } from '../../providers/tool_result_text.js'

/**
 * A successful `tools/call` result as {@link toMcpCallResult} builds it.
 * A type literal, not an interface, so it is assignable to the SDK's
 * `CallToolResult` (which has an index signature).
 */
export type McpCallResult = {
  /** One text block: the result's text (for a structured result, its JSON), capped at `maxBytes`. */
  content: {
    /** Always `'text'`. */
    type: 'text'
    /** The text. */
    text: string
  }[]
  /** The validated result, for a tool with an output schema; never capped. */
  structuredContent?: StructuredToolResult
}

/**
 * The `tools/call` answer for a tool's result.
 *
 * @remarks
 * A tool with an output schema answers with `structuredContent` (the object
 * the executor validated) and, as MCP recommends for clients that read only
 * `content`, a text block holding its JSON. Any other tool answers with the
 * text block alone. A failed call is answered elsewhere (`isError: true`,
 * text only): an error never carries `structuredContent`, which the client
 * would check against the output schema.
 *
 * @param tool - The tool that ran (only its `outputSchema` is read).
 * @param result - What `tool.executor(ctx)(args)` resolved to.
 * @param options - The text's byte cap (see `toolResultToText`).
 * @returns `{ content, structuredContent? }`.
 * @throws {@link toolsmith/core!E_INVALID_OPTIONS} when `maxBytes` is not a positive integer or `Infinity`.
 */
export async function toMcpCallResult(
  tool: Pick<Tool, 'outputSchema'>,
  result: ToolResult,
  options: ToolResultTextOptions = {},
): Promise<McpCallResult> {
  const content = [{ type: 'text' as const, text: await toolResultToText(result, options) }]
  if (tool.outputSchema !== undefined && isStructuredToolResult(result)) return { content, structuredContent: result }
  return { content }
}
