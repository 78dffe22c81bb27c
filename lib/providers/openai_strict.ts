/**
 * `toOpenAIStrictSchema`: rewrite a JSON Schema into the subset OpenAI
 * accepts with `strict: true` (Structured Outputs).
 *
 * @module
 */
import { isPlainObject } from '../utils/guards.js'
import { mapSubschemas, typesOf, type JsonSchema, type JsonSchemaNode } from './json_schema_walk.js'

/** Keywords OpenAI's strict mode accepts; every other keyword is removed. */
const SUPPORTED = new Set([
  'type',
  'description',
  'title',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
  'enum',
  'const',
  '$ref',
  '$defs',
  'pattern',
  'format',
  'multipleOf',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
])

/** String formats strict mode accepts. */
const FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid'])

/** What strict mode sends for a schema that accepts anything: every scalar (objects and arrays cannot be left open). */
const ANY_SCALAR: JsonSchema = {
  anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }],
}

/**
 * Rewrite a JSON Schema for OpenAI's strict mode.
 *
 * @remarks
 * The result accepts a subset of what the input accepts (except that removed
 * constraints are no longer stated), so a strict call always passes joi once
 * optional `null`s are dropped (see `dropOptionalNulls`); joi still enforces
 * every removed constraint when the tool runs.
 * - every object is closed (`additionalProperties: false`) and lists every
 *   property in `required`; an optional property becomes nullable (`type`
 *   gains `"null"`, an `enum` gains `null`, anything else is wrapped in
 *   `anyOf: [schema, { type: "null" }]`), so the model sends `null` for
 *   "absent";
 * - `oneOf` becomes `anyOf`; `prefixItems` are folded into `items`;
 * - keywords strict mode rejects are removed (`minLength`, `maxLength`,
 *   `patternProperties`, `minProperties`, `contains`, `uniqueItems`, `allOf`,
 *   `not`, `examples`, `default`…), as are formats it does not know; a
 *   removed `default` or `examples` is kept as a sentence in `description`
 *   so the model still sees it;
 * - a schema that accepts anything (`Joi.any()`) becomes "any scalar", and an
 *   open object (`Joi.object()` with no keys) can only be `{}`: strict mode
 *   has no way to express a free-form value.
 *
 * @param schema - A JSON Schema whose root is an object (as `toJsonSchema` returns for a tool).
 * @returns A new schema; the input is not modified.
 */
export function toOpenAIStrictSchema(schema: JsonSchema): JsonSchema {
  return strictify(schema) as JsonSchema
}

function strictify(node: JsonSchemaNode): JsonSchemaNode {
  if (typeof node === 'boolean') return node
  let out: JsonSchema = { ...node }
  if (Array.isArray(out.oneOf)) {
    out.anyOf = [...((out.anyOf as unknown[]) ?? []), ...out.oneOf]
    delete out.oneOf
  }
  if (Array.isArray(out.prefixItems)) {
    const tail = out.items ?? out.unevaluatedItems
    const members = [...out.prefixItems, ...(isPlainObject(tail) ? [tail] : [])]
    out.items = members.length === 1 ? members[0] : { anyOf: members }
  }
  if (out.unevaluatedItems !== undefined && out.items === undefined && isPlainObject(out.unevaluatedItems)) {
    out.items = out.unevaluatedItems
  }
  const hints = [
    out.default !== undefined ? `Default: ${JSON.stringify(out.default)}.` : undefined,
    Array.isArray(out.examples) && out.examples.length > 0
      ? `Example: ${out.examples.map((e) => JSON.stringify(e)).join(', ')}.`
      : undefined,
  ].filter((s): s is string => s !== undefined)
  if (hints.length > 0) out.description = [out.description, ...hints].filter(Boolean).join('\n')
  if (typeof out.format === 'string' && !FORMATS.has(out.format)) delete out.format
  for (const key of Object.keys(out)) if (!SUPPORTED.has(key)) delete out[key]
  if (Object.keys(out).filter((k) => k !== 'description' && k !== 'title').length === 0) {
    out = { ...ANY_SCALAR, ...out }
  }

  out = mapSubschemas(out, strictify)
  if (typesOf(out).includes('object') || isPlainObject(out.properties)) closeObject(out)
  return out
}

function closeObject(out: JsonSchema): void {
  const properties = (isPlainObject(out.properties) ? out.properties : {}) as Record<string, JsonSchemaNode>
  const required = new Set(Array.isArray(out.required) ? (out.required as string[]) : [])
  out.properties = Object.fromEntries(
    Object.entries(properties).map(([key, value]) => [key, required.has(key) ? value : nullable(value)]),
  )
  out.required = Object.keys(properties)
  out.additionalProperties = false
}

/** Make a schema accept `null` as well, in the form strict mode understands. */
function nullable(node: JsonSchemaNode): JsonSchemaNode {
  if (typeof node === 'boolean') return node
  const out = { ...node }
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null]
  const types = typesOf(out)
  if (types.length > 0) {
    if (!types.includes('null')) out.type = [...types, 'null']
    return out
  }
  if (Array.isArray(out.anyOf)) {
    const hasNull = out.anyOf.some((m) => isPlainObject(m) && typesOf(m).includes('null'))
    if (!hasNull) out.anyOf = [...out.anyOf, { type: 'null' }]
    return out
  }
  if (Array.isArray(out.enum)) return out
  const { description, title, ...rest } = out
  return {
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
    anyOf: [rest, { type: 'null' }],
  }
}
