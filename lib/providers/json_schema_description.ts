/**
 * A Standard Schema tool's `describe()` carries JSON Schema where a joi tool's
 * carries joi's description: the two helpers here give every provider
 * adapter what it needs from either, so both kinds of tool get the same
 * definitions and argument handling.
 *
 * @module
 */
import type { ToolDescription } from '../core/tool_types.js'
import { isPlainObject } from '../utils/guards.js'
import type { Description } from '../validation.js'
import type { JsonSchema } from './json_schema_walk.js'
import { toToolInputSchema } from './tool_input_schema.js'

/**
 * The JSON Schema of a described tool's input, with an object root.
 *
 * @param described - A `tool.describe()` snapshot.
 * @returns A fresh JSON Schema.
 * @internal
 */
export function describedInputJsonSchema(described: ToolDescription): JsonSchema {
  if (described.inputSchemaFormat !== 'json-schema') return toToolInputSchema(described.inputSchema)
  const json = structuredClone(described.inputSchema) as JsonSchema
  delete json.$schema
  return json
}

/**
 * What the argument walkers (property key maps, optional-null dropping)
 * read: joi's description, or for a JSON Schema the same shape built from
 * it — `keys` from `properties`, `items`, alternatives as `matches`, a key's
 * `presence: 'required'` from its parent's `required`, and `allow: [null]`
 * where the schema accepts `null`.
 *
 * @param described - A `tool.describe()` snapshot.
 * @returns A description the walkers can read.
 * @internal
 */
export function describedInputWalk(described: ToolDescription): Description {
  if (described.inputSchemaFormat !== 'json-schema') return described.inputSchema
  return fromJsonSchema(described.inputSchema, false)
}

function fromJsonSchema(node: unknown, required: boolean): Description {
  const out: Description = { flags: required ? { presence: 'required' } : {} }
  if (!isPlainObject(node)) return out
  if (acceptsNull(node)) out.allow = [null]
  if (isPlainObject(node.properties)) {
    const needed = new Set(Array.isArray(node.required) ? node.required : [])
    out.keys = Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [k, fromJsonSchema(v, needed.has(k))]))
  }
  if (isPlainObject(node.items)) out.items = [fromJsonSchema(node.items, false)]
  const branches = [node.anyOf, node.oneOf, node.allOf].filter(Array.isArray).flat() as unknown[]
  // A nullable value (`anyOf: [X, { type: 'null' }]`) walks as X itself, so optional nulls inside X are found too.
  const objects = branches.filter((b) => !(isPlainObject(b) && b.type === 'null'))
  if (objects.length === 1 && !isPlainObject(node.properties)) {
    const inner = fromJsonSchema(objects[0], required)
    return { ...inner, ...(out.allow ? { allow: out.allow } : {}) }
  }
  if (objects.length > 0) out.matches = objects.map((b) => ({ schema: fromJsonSchema(b, false) }))
  return out
}

function acceptsNull(node: Record<string, unknown>): boolean {
  const type = node.type
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true
  if (Array.isArray(node.enum) && node.enum.includes(null)) return true
  return [node.anyOf, node.oneOf].some((list) => Array.isArray(list) && list.some((b) => isPlainObject(b) && acceptsNull(b)))
}
