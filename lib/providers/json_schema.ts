/**
 * `toJsonSchema`: joi's own draft 2020-12 output, with the annotations joi
 * leaves out put back.
 *
 * @module
 */
import { isPlainObject } from '../utils/guards.js'
import { describeOnce, schemaOfSnapshot } from '../core/joi_descriptions.js'
import { isStandardInputSchema, standardJsonSchemaOf, type StandardInputSchema } from '../core/standard_schema.js'
import { validator, type Description, type Schema } from '../validation.js'
import { forEachSchema, typesOf, type JsonSchema } from './json_schema_walk.js'

export type { JsonSchema, JsonSchemaNode } from './json_schema_walk.js'

/** The JSON Schema dialect every schema {@link toJsonSchema} returns is written in. */
export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema'

/** Options of {@link toJsonSchema}. */
export interface ToJsonSchemaOptions {
  /**
   * Add `"$schema": JSON_SCHEMA_DIALECT` at the root (useful for a standalone
   * document; providers do not need it and Gemini rejects it).
   *
   * @defaultValue false
   */
  $schema?: boolean
}

/**
 * Convert a joi schema (or its `describe()` output) to JSON Schema draft 2020-12.
 *
 * @remarks
 * The conversion is joi's own (`schema['~standard'].jsonSchema.input({ target:
 * 'draft-2020-12' })`); this function only post-processes it:
 * - `.example()` values become `examples`, `.note()` texts are appended to
 *   `description` (JSON Schema has no notes keyword, and the description is
 *   what a model reads), and `.label()` becomes `title`;
 * - keys marked `.forbidden()` are removed from `properties` (joi lists them);
 * - an `enum` whose schema also allows `null` (`valid('a', 'b').allow(null)`)
 *   lists `null` (joi writes `type: [..., "null"]` but leaves it out of the
 *   enum, which then rejects it);
 * - a `Joi.link('#id')` to the root schema's own `id` points at `#` (joi
 *   emits a `$ref` to a `$defs` entry it never writes);
 * - an array without item schema states `items: {}` (the same meaning;
 *   OpenAI and Gemini refuse an array schema without `items`).
 *
 * What joi validates but JSON Schema cannot say is not expressed, so a
 * validator of the JSON Schema may accept values joi rejects: references
 * (`Joi.ref`, `when` conditions become an `anyOf` of every branch), key
 * dependencies (`and`, `or`, `xor`, `with`…), custom rules, `insensitive()`
 * and `trim()`/`case()` under `convert: false`, `number.unsafe` (integers
 * beyond 2^53), formats joi checks more strictly than their JSON Schema name
 * (`email`, `uri`, `ip`, `hex`…), `forbidden()` keys of open objects, and
 * string lengths with characters outside the BMP (joi counts UTF-16 code
 * units, JSON Schema counts code points).
 * `Joi.binary()` becomes a `binary` string that joi itself only accepts with
 * `convert: true`; `Joi.date()` becomes a `date-time` string, which
 * `Tool.validate` turns into a `Date` before joi sees it.
 *
 * A Standard Schema with JSON Schema output (zod 4…) gives its own JSON
 * Schema (draft 2020-12), as is.
 *
 * @param schema - A joi schema, the plain output of `schema.describe()`, or a Standard Schema with JSON Schema output.
 * @param options - See {@link ToJsonSchemaOptions}.
 * @returns A fresh JSON Schema object (safe to mutate).
 *
 * @example
 * ```ts
 * toJsonSchema(validator.object({ city: validator.string().required().example('Oslo') }))
 * // { type: 'object', properties: { city: { type: 'string', minLength: 1, examples: ['Oslo'] } },
 * //   required: ['city'], additionalProperties: false }
 * ```
 */
export function toJsonSchema(schema: Schema | Description | StandardInputSchema, options: ToJsonSchemaOptions = {}): JsonSchema {
  if (isStandardInputSchema(schema)) {
    const json = standardJsonSchemaOf(schema) as JsonSchema
    return options.$schema ? { $schema: JSON_SCHEMA_DIALECT, ...json } : json
  }
  const joiSchema: Schema = validator.isSchema(schema)
    ? (schema as Schema)
    : (schemaOfSnapshot(schema as Description) ?? validator.build(schema as Description))
  const description = describeOnce(joiSchema)
  // structuredClone: joi hands out its own default values by reference.
  const json = structuredClone(joiSchema['~standard'].jsonSchema.input({ target: 'draft-2020-12' })) as JsonSchema
  annotate(json, description)
  pointRootLinksAtRoot(json, description)
  forEachSchema(json, addNullToNullableEnum)
  forEachSchema(json, giveArraysItems)
  return options.$schema ? { $schema: JSON_SCHEMA_DIALECT, ...json } : json
}

/** Copy what joi's describe() knows and its JSON Schema output drops, walking both trees in step. */
function annotate(node: unknown, description: Description): void {
  if (!isPlainObject(node)) return
  const flags = (description.flags ?? {}) as Record<string, unknown>
  if (typeof flags.label === 'string' && node.title === undefined) node.title = flags.label
  const examples = description.examples as unknown[] | undefined
  if (Array.isArray(examples) && examples.length > 0) node.examples = structuredClone(examples)
  const notes = description.notes as unknown[] | undefined
  if (Array.isArray(notes) && notes.length > 0) {
    node.description = [node.description, ...notes].filter((s) => typeof s === 'string' && s.length > 0).join('\n')
  }

  const keys = description.keys as Record<string, Description> | undefined
  if (isPlainObject(keys)) {
    for (const branch of branches(node).filter((b) => isPlainObject(b.properties))) {
      const properties = branch.properties as Record<string, unknown>
      for (const [key, child] of Object.entries(keys)) {
        if ((child.flags as Record<string, unknown> | undefined)?.presence === 'forbidden') {
          delete properties[key]
          if (Array.isArray(branch.required)) branch.required = branch.required.filter((k) => k !== key)
          continue
        }
        annotate(properties[key], child)
      }
    }
  }

  const items = description.items as Description[] | undefined
  const ordered = description.ordered as Description[] | undefined
  for (const branch of branches(node)) {
    if (Array.isArray(items) && items.length > 0) {
      const target = branch.items ?? branch.unevaluatedItems
      if (items.length === 1) annotate(target, items[0]!)
      else if (isPlainObject(target) && Array.isArray(target.anyOf)) for (const [i, d] of items.entries()) annotate((target.anyOf as unknown[])[i], d)
    }
    if (Array.isArray(ordered) && Array.isArray(branch.prefixItems)) {
      for (const [i, d] of ordered.entries()) annotate((branch.prefixItems as unknown[])[i], d)
    }
  }

  const matches = description.matches as { schema?: Description }[] | undefined
  if (Array.isArray(matches) && matches.every((m) => m.schema !== undefined)) {
    const list = (node.anyOf ?? node.oneOf ?? node.allOf) as unknown[] | undefined
    if (Array.isArray(list) && list.length === matches.length) for (const [i, m] of matches.entries()) annotate(list[i], m.schema!)
  }
}

/** The node itself and, when joi wrapped it (nullable, extra allowed values, `single()`), its `anyOf` members. */
function branches(node: JsonSchema): JsonSchema[] {
  const found: JsonSchema[] = [node]
  const list = node.anyOf
  if (Array.isArray(list)) for (const member of list) if (isPlainObject(member)) found.push(...branches(member))
  return found
}

/**
 * `{ "type": "array" }` and `{ "type": "array", "items": {} }` accept the same
 * values, but OpenAI answers 400 "array schema missing items" and Gemini
 * "items: missing field" to the first: say `items` explicitly.
 */
function giveArraysItems(node: JsonSchema): void {
  if (!typesOf(node).includes('array')) return
  if (node.items === undefined && node.prefixItems === undefined && node.unevaluatedItems === undefined) node.items = {}
}

function addNullToNullableEnum(node: JsonSchema): void {
  const type = node.type
  if (Array.isArray(node.enum) && !node.enum.includes(null) && (type === 'null' || (Array.isArray(type) && type.includes('null')))) {
    node.enum.push(null)
  }
}

function pointRootLinksAtRoot(json: JsonSchema, description: Description): void {
  const rootId = (description.flags as Record<string, unknown> | undefined)?.id
  if (typeof rootId !== 'string') return
  const defs = isPlainObject(json.$defs) ? json.$defs : {}
  const dangling = `#/$defs/${rootId}`
  if (rootId in defs) return
  forEachSchema(json, (node) => {
    if (node.$ref === dangling) node.$ref = '#'
  })
}
