/**
 * `toToolOutputSchema`: the JSON Schema of a tool's results, for the
 * definitions that have a field for it (MCP `outputSchema`, the AI SDK's
 * `outputSchema`, Gemini `response`, OpenAI Responses `output_schema`).
 *
 * @module
 */
import type { ToolDescription } from '../core/tool.js'
import type { JsonSchema } from './json_schema_walk.js'
import { toToolInputSchema } from './tool_input_schema.js'

/**
 * The JSON Schema of a tool's output schema, with `"type": "object"` at the
 * root (the tool's output schema is a joi object; a root `.when()` becomes
 * `{ type: 'object', anyOf: [...] }` as for the input, see `toToolInputSchema`).
 *
 * @param described - The tool's `describe()` snapshot.
 * @returns The JSON Schema (a fresh object), or `undefined` when the tool declares no output schema.
 */
export function toToolOutputSchema(described: Pick<ToolDescription, 'outputSchema'>): JsonSchema | undefined {
  return described.outputSchema === undefined ? undefined : toToolInputSchema(described.outputSchema)
}
