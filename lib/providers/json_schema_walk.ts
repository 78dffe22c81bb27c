/**
 * A structural map over JSON Schema subschemas, shared by every provider
 * conversion so each one only says what it changes.
 *
 * @module
 */
import { isPlainObject } from '../utils/guards.js'

/** A JSON Schema object (draft 2020-12 unless a provider says otherwise). */
export type JsonSchema = { [keyword: string]: unknown }

/** A subschema position: a boolean schema or an object one. */
export type JsonSchemaNode = JsonSchema | boolean

const SINGLE = ['items', 'additionalProperties', 'unevaluatedItems', 'unevaluatedProperties', 'contains', 'not', 'if', 'then', 'else', 'propertyNames'] as const
const LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const
const MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas'] as const

/**
 * Return a shallow copy of `schema` whose every direct subschema has been
 * replaced by `fn(subschema)`.
 *
 * @param schema - A JSON Schema object.
 * @param fn - Called once per direct subschema (boolean schemas included).
 * @returns The copy; `schema` is not modified.
 *
 * @internal
 */
export function mapSubschemas(schema: JsonSchema, fn: (node: JsonSchemaNode) => JsonSchemaNode): JsonSchema {
  const out: JsonSchema = { ...schema }
  for (const key of SINGLE) {
    const value = schema[key]
    if (isPlainObject(value) || typeof value === 'boolean') out[key] = fn(value as JsonSchemaNode)
  }
  for (const key of LISTS) {
    const value = schema[key]
    if (Array.isArray(value)) out[key] = value.map((v) => fn(v as JsonSchemaNode))
  }
  for (const key of MAPS) {
    const value = schema[key]
    if (isPlainObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fn(v as JsonSchemaNode)]))
    }
  }
  return out
}

/**
 * Visit `schema` and all its subschemas, depth first.
 *
 * @param schema - A JSON Schema node.
 * @param visit - Called for every object schema.
 *
 * @internal
 */
export function forEachSchema(schema: JsonSchemaNode, visit: (node: JsonSchema) => void): void {
  if (typeof schema === 'boolean') return
  visit(schema)
  mapSubschemas(schema, (sub) => {
    forEachSchema(sub, visit)
    return sub
  })
}

/**
 * The `type` keyword as a list (`'string'` → `['string']`, absent → `[]`).
 *
 * @param schema - A JSON Schema object.
 * @returns The declared types.
 *
 * @internal
 */
export function typesOf(schema: JsonSchema): string[] {
  const type = schema.type
  if (typeof type === 'string') return [type]
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string')
  return []
}
