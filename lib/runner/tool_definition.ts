/**
 * `toolDefinition`: how the runner presents a tool to the model callback.
 *
 * @module
 */
import type { Tool } from '../core/tool.js'
import { toToolInputSchema } from '../providers/tool_input_schema.js'
import type { ToolDefinition } from '../providers/messages.js'

const cache = new WeakMap<Tool, ToolDefinition>()

/**
 * The {@link ToolDefinition} of a tool: its `describe()` plus its JSON Schema.
 *
 * @param tool - The tool.
 * @returns A fresh copy each call (the model callback may change it freely).
 */
export function toolDefinition(tool: Tool): ToolDefinition {
  let definition = cache.get(tool)
  if (!definition) {
    const description = tool.describe()
    definition = { ...description, jsonSchema: toToolInputSchema(description.inputSchema) }
    cache.set(tool, definition)
  }
  return structuredClone(definition)
}
