/**
 * `toOpenAIStrictSchema`: rewrite a JSON Schema into the subset OpenAI
 * accepts with `strict: true` (Structured Outputs).
 *
 * @module
 */
import { E_PROVIDER_SCHEMA_UNSUPPORTED } from '../../exceptions.js'
import { isPlainObject } from '../../utils/guards.js'
import { mapSubschemas, typesOf, type JsonSchema, type JsonSchemaNode } from '../json_schema_walk.js'

/**
 * Strict mode's documented size limits
 * (https://platform.openai.com/docs/guides/structured-outputs#supported-schemas).
 */
export const OPENAI_STRICT_LIMITS = {
  /** Most levels of object nesting (the root object is level 1). */
  maxNestingDepth: 10,
  /** Most object properties in the whole schema. */
  maxProperties: 5000,
  /** Most enum values in the whole schema. */
  maxEnumValues: 1000,
  /** Most characters of all property names, definition names, enum and const values together. */
  maxTotalStringLength: 120_000,
  /** Most characters of the values of one string enum that has more than 250 values. */
  maxLargeEnumStringLength: 15_000,
} as const

/** Options of {@link toOpenAIStrictSchema}. */
export interface OpenAIStrictSchemaOptions {
  /** The tool's name, for the error when a limit is exceeded. */
  tool?: string
}

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
 *   has no way to express a free-form value;
 * - the result must fit strict mode's limits ({@link OPENAI_STRICT_LIMITS}:
 *   10 levels of object nesting, 5,000 properties, 1,000 enum values,
 *   120,000 characters of names and values); a schema over one is refused
 *   here rather than by the API at request time.
 *
 * @param schema - A JSON Schema whose root is an object (as `toJsonSchema` returns for a tool).
 * @param options - The tool's name, for errors.
 * @returns A new schema; the input is not modified.
 * @throws {@link toolsmith/core!E_PROVIDER_SCHEMA_UNSUPPORTED} naming the field and the limit when one is exceeded.
 */
export function toOpenAIStrictSchema(schema: JsonSchema, options: OpenAIStrictSchemaOptions = {}): JsonSchema {
  const strict = strictify(schema) as JsonSchema
  checkLimits(strict, options.tool ?? '(schema)')
  return strict
}

/** Walk the strict schema once, counting what the limits count; throw at the first limit crossed. */
function checkLimits(schema: JsonSchema, tool: string): void {
  const L = OPENAI_STRICT_LIMITS
  let properties = 0
  let enumValues = 0
  let chars = 0
  const refuse = (path: string, rule: string, detail: string): never => {
    throw new E_PROVIDER_SCHEMA_UNSUPPORTED(
      `Tool "${tool}" cannot be offered to OpenAI with strict: true: ${detail} at ${path}, and strict mode allows ${rule}. ` +
        'Flatten the schema, or send it with strict: false.',
      { details: { tool, provider: 'openai-strict', path, rule } },
    )
  }
  const visit = (node: unknown, path: string, depth: number): void => {
    if (!isPlainObject(node)) return
    const isObject = typesOf(node).includes('object') || isPlainObject(node.properties)
    const level = isObject ? depth + 1 : depth
    if (level > L.maxNestingDepth) {
      refuse(path, `at most ${L.maxNestingDepth} levels of object nesting`, `object nesting reaches level ${level}`)
    }
    if (Array.isArray(node.enum)) {
      enumValues += node.enum.length
      const strings = node.enum.filter((v): v is string => typeof v === 'string')
      const length = strings.reduce((n, v) => n + v.length, 0)
      chars += length
      if (node.enum.length > 250 && length > L.maxLargeEnumStringLength) {
        refuse(path, `at most ${L.maxLargeEnumStringLength} characters in an enum of more than 250 values`, `an enum of ${node.enum.length} values totals ${length} characters`)
      }
      if (enumValues > L.maxEnumValues) refuse(path, `at most ${L.maxEnumValues} enum values in a schema`, `the enum values reach ${enumValues}`)
    }
    if (typeof node.const === 'string') chars += node.const.length
    if (isPlainObject(node.$defs)) {
      for (const [name, def] of Object.entries(node.$defs)) {
        chars += name.length
        visit(def, `${path}/$defs/${name}`, 0)
      }
    }
    if (isPlainObject(node.properties)) {
      for (const [key, child] of Object.entries(node.properties)) {
        properties++
        chars += key.length
        if (properties > L.maxProperties) refuse(`${path}/properties/${key}`, `at most ${L.maxProperties} properties in a schema`, `the properties reach ${properties}`)
        visit(child, `${path}/properties/${key}`, level)
      }
    }
    if (chars > L.maxTotalStringLength) {
      refuse(path, `at most ${L.maxTotalStringLength} characters of names and enum values`, `the names and values reach ${chars} characters`)
    }
    if (isPlainObject(node.items)) visit(node.items, `${path}/items`, level)
    if (Array.isArray(node.anyOf)) for (const [i, m] of node.anyOf.entries()) visit(m, `${path}/anyOf/${i}`, depth)
  }
  visit(schema, '#', 0)
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
