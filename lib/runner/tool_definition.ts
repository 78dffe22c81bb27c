/**
 * `toolDefinition`: how the runner presents a tool to the model callback.
 *
 * @module
 */
import type { Tool } from '../core/tool.js'
import { describedInputJsonSchema } from '../providers/json_schema_description.js'
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
    definition = { ...description, jsonSchema: describedInputJsonSchema(description) }
    cache.set(tool, definition)
  }
  return structuredClone(definition)
}
