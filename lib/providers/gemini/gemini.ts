/**
 * Gemini function declarations, whose `parameters` are an OpenAPI 3.0
 * schema subset rather than JSON Schema.
 *
 * @module
 */
import { isPlainObject } from '../../utils/guards.js'
import type { JsonSchema, JsonSchemaNode } from '../json_schema.js'
import { typesOf } from '../json_schema_walk.js'
import { PROPERTY_KEY_RULES, PropertyKeyMaps } from '../property_key_map.js'
import { buildToolSet, type ProviderToolSet } from '../provider_tool_set.js'
import { describedInputJsonSchema, describedInputWalk } from '../json_schema_description.js'
import { flattenRootAlternatives } from '../tool_input_schema.js'
import { toToolOutputSchema } from '../tool_output_schema.js'
import { toToolDescription, type ToolLike, type ToolLikeCollection } from '../tool_like.js'
import { TOOL_NAME_RULES, ToolNameMap } from '../tool_name_map.js'

/**
 * The `type` of a Gemini schema.
 *
 * @remarks
 * The values are the API's own (`@google/genai`'s `Type`). The enum is
 * declared under the name `Type`, like the SDK's: TypeScript treats two
 * string enums of the same name whose members agree as compatible, so a
 * {@link GeminiSchema} is assignable to the SDK's `Schema` without this
 * package importing `@google/genai`.
 */
enum Type {
  /** A string. */
  STRING = 'STRING',
  /** A number. */
  NUMBER = 'NUMBER',
  /** An integer. */
  INTEGER = 'INTEGER',
  /** `true` or `false`. */
  BOOLEAN = 'BOOLEAN',
  /** An array. */
  ARRAY = 'ARRAY',
  /** An object. */
  OBJECT = 'OBJECT',
}
export { Type as GeminiType }

/** The Gemini `Schema` object (OpenAPI 3.0 subset) as {@link toGeminiSchema} writes it; assignable to `@google/genai`'s `Schema`. */
export interface GeminiSchema {
  /** The type; absent only beside `anyOf`. */
  type?: Type
  /** `date-time` or `enum` for strings, `int32`/`int64` for integers, `float`/`double` for numbers. */
  format?: string
  /** Short name. */
  title?: string
  /** What the model reads. */
  description?: string
  /** Whether `null` is accepted too. */
  nullable?: boolean
  /** Allowed values; strings only. */
  enum?: string[]
  /** Default value. */
  default?: unknown
  /** One example value. */
  example?: unknown
  /** Object properties. */
  properties?: Record<string, GeminiSchema>
  /** Required property names. */
  required?: string[]
  /** Fewest properties (an int64, which the API writes as a decimal string). */
  minProperties?: string
  /** Most properties (an int64, which the API writes as a decimal string). */
  maxProperties?: string
  /** Array item schema. */
  items?: GeminiSchema
  /** Fewest items (an int64, which the API writes as a decimal string). */
  minItems?: string
  /** Most items (an int64, which the API writes as a decimal string). */
  maxItems?: string
  /** Shortest string (an int64, which the API writes as a decimal string). */
  minLength?: string
  /** Longest string (an int64, which the API writes as a decimal string). */
  maxLength?: string
  /** Regular expression a string matches. */
  pattern?: string
  /** Smallest number. */
  minimum?: number
  /** Largest number. */
  maximum?: number
  /** The value matches at least one of these. */
  anyOf?: GeminiSchema[]
}

/** A Gemini `FunctionDeclaration` (`tools[].functionDeclarations[]`). */
export interface GeminiFunctionDeclaration {
  /** Function name: starts with a letter or `_`, then `[a-zA-Z0-9_.:-]`, at most 63 characters. */
  name: string
  /** What the model reads. */
  description: string
  /** The arguments; absent when the tool takes none (Gemini rejects an object schema without properties). */
  parameters?: GeminiSchema
  /** What the function returns: the tool's output schema, when it has one. */
  response?: GeminiSchema
}

/** Options of the Gemini definition builders. */
export interface GeminiToolOptions {
  /** Name map to record renames in; defaults to a fresh one for Gemini's rule. */
  names?: ToolNameMap
  /**
   * Property-key maps to record renamed keys in (map arguments back with
   * `keys.argsFromProvider(tool, args)`); defaults to a fresh one.
   */
  keys?: PropertyKeyMaps
}

const KEYWORDS_BY_TYPE: Record<string, readonly string[]> = {
  string: ['minLength', 'maxLength', 'pattern'],
  number: ['minimum', 'maximum'],
  integer: ['minimum', 'maximum'],
  boolean: [],
  array: ['minItems', 'maxItems'],
  object: ['minProperties', 'maxProperties'],
}
const FORMATS_BY_TYPE: Record<string, readonly string[]> = {
  string: ['date-time', 'enum'],
  integer: ['int32', 'int64'],
  number: ['float', 'double'],
}
const GEMINI_TYPES = new Set(Object.keys(KEYWORDS_BY_TYPE))
const COUNTS = new Set(['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'])
const TYPE_BY_NAME: Record<string, Type> = {
  string: Type.STRING,
  number: Type.NUMBER,
  integer: Type.INTEGER,
  boolean: Type.BOOLEAN,
  array: Type.ARRAY,
  object: Type.OBJECT,
}

/** "Any value" as Gemini can say it (every schema needs a type): any scalar, or null; as OpenAI strict mode does. */
function anyScalar(): GeminiSchema {
  return { anyOf: [{ type: Type.STRING }, { type: Type.NUMBER }, { type: Type.BOOLEAN }], nullable: true }
}

/**
 * Convert a JSON Schema to Gemini's OpenAPI 3.0 subset.
 *
 * @remarks
 * - `$ref`s are inlined from `$defs` (a recursive reference becomes an
 *   untyped object, since Gemini has no references); `$schema`, `$defs`,
 *   `additionalProperties`, `patternProperties`, `prefixItems`,
 *   `uniqueItems`, `contains`, `multipleOf` and `allOf` are dropped;
 * - a type list becomes one `type` plus `nullable: true`, or an `anyOf` of
 *   one schema per type when several non-null types remain; `{ type: "null" }`
 *   members of `anyOf`/`oneOf` become `nullable: true`, and `oneOf` becomes
 *   `anyOf`;
 * - `enum` is kept for strings only; numeric, boolean or mixed enums and
 *   non-string `const` values are removed and listed in `description`
 *   ("Allowed values: 1, 2, 3."), a string `const` becomes a one-value enum;
 * - `exclusiveMinimum`/`exclusiveMaximum` become `minimum`/`maximum`; formats
 *   Gemini does not know are dropped; `examples[0]` becomes `example`;
 * - types are the API's enum values (`STRING`, `OBJECT`…) and counts
 *   (`minItems`, `maxLength`…) decimal strings, as the API's int64 fields are;
 * - a schema that accepts anything (`Joi.any()`, an array without item
 *   schema) becomes "any scalar or null" (`anyOf` string, number, boolean,
 *   `nullable`): Gemini needs a type on every schema ("type must be
 *   specified"), and OpenAI's strict mode makes the same choice.
 *
 * Whatever is relaxed here is still enforced by joi when the tool runs.
 *
 * @param schema - A JSON Schema (as `toJsonSchema` returns).
 * @returns The Gemini schema.
 */
export function toGeminiSchema(schema: JsonSchema): GeminiSchema {
  const defs = isPlainObject(schema.$defs) ? (schema.$defs as Record<string, JsonSchemaNode>) : {}
  return convert(schema, { root: schema, defs, resolving: [] })
}

/**
 * The Gemini function declaration of a tool.
 *
 * @remarks
 * Root alternatives (a root `.when()`) are merged into one object when that
 * is exact, and property keys outside `^[A-Za-z_][A-Za-z0-9_]{0,63}$` are
 * renamed (use {@link toGeminiFunctionDeclarations}, whose `keys` maps the
 * arguments back). A tool with an output schema gets `response`, the
 * output schema in the same OpenAPI subset (its keys are not renamed: the
 * model reads them, it never writes them).
 *
 * @param tool - A Tool or its `describe()` snapshot.
 * @param options - The name and key maps.
 * @returns `{ name, description, parameters?, response? }`.
 * @throws {@link toolsmith/core!E_PROVIDER_SCHEMA_UNSUPPORTED} for a root `.when()` that is not one object.
 *
 * @example
 * ```ts
 * await ai.models.generateContent({ model, contents,
 *   config: { tools: [{ functionDeclarations: [toGeminiFunctionDeclaration(weather)] }] } })
 * ```
 */
export function toGeminiFunctionDeclaration(tool: ToolLike, options: GeminiToolOptions = {}): GeminiFunctionDeclaration {
  const described = toToolDescription(tool)
  const names = options.names ?? new ToolNameMap(TOOL_NAME_RULES.gemini)
  const keys = options.keys ?? new PropertyKeyMaps(PROPERTY_KEY_RULES.gemini)
  const schema = flattenRootAlternatives(describedInputJsonSchema(described), { tool: described.name, provider: 'gemini' })
  const parameters = toGeminiSchema(keys.forTool(described.name, describedInputWalk(described), schema).mapSchema(schema))
  const hasParameters = parameters.properties !== undefined && Object.keys(parameters.properties).length > 0
  const output = toToolOutputSchema(described)
  return {
    name: names.toProvider(described.name),
    description: described.description,
    ...(hasParameters ? { parameters } : {}),
    ...(output === undefined ? {} : { response: toGeminiSchema(output) }),
  }
}

/**
 * Gemini function declarations for a whole collection.
 *
 * @param tools - An array, record or `ToolRegistry` of tools or snapshots.
 * @param options - Optional name and key maps to reuse.
 * @returns The declarations (pass them as `tools: [{ functionDeclarations: definitions }]`), the name map and
 *   the key maps (`keys.argsFromProvider(tool, call.args)` restores the schema's keys).
 * @throws {@link toolsmith/core!E_PROVIDER_SCHEMA_UNSUPPORTED} for a root `.when()` that is not one object.
 */
export function toGeminiFunctionDeclarations(
  tools: ToolLikeCollection,
  options: GeminiToolOptions = {},
): ProviderToolSet<GeminiFunctionDeclaration> {
  const keys = options.keys ?? new PropertyKeyMaps(PROPERTY_KEY_RULES.gemini)
  return buildToolSet(
    tools,
    TOOL_NAME_RULES.gemini,
    options.names,
    (tool, names) => toGeminiFunctionDeclaration(tool, { names, keys }),
    keys,
  )
}

interface Scope {
  root: JsonSchema
  defs: Record<string, JsonSchemaNode>
  resolving: string[]
}

function convert(node: JsonSchemaNode, scope: Scope): GeminiSchema {
  if (typeof node === 'boolean') return {}
  if (typeof node.$ref === 'string') return convertRef(node, scope)

  const notes: string[] = []
  const out: GeminiSchema = {}
  if (typeof node.title === 'string') out.title = node.title
  if (typeof node.description === 'string') out.description = node.description

  const members = [...asList(node.anyOf), ...asList(node.oneOf)]
  let nullable = members.some(isNullSchema)
  const alternatives = members.filter((m) => !isNullSchema(m)).map((m) => convert(m, scope))

  const types = typesOf(node)
  if (types.includes('null')) nullable = true
  const concrete = types.filter((t) => GEMINI_TYPES.has(t))

  const values = Array.isArray(node.enum) ? node.enum : 'const' in node ? [node.const] : undefined
  if (values !== undefined) {
    if (values.includes(null)) nullable = true
    const nonNull = values.filter((v) => v !== null)
    if (nonNull.every((v) => typeof v === 'string') && (concrete.length === 0 || (concrete.length === 1 && concrete[0] === 'string'))) {
      if (nonNull.length > 0) {
        out.type = Type.STRING
        out.enum = nonNull as string[]
      }
    } else {
      notes.push(`Allowed values: ${nonNull.map((v) => JSON.stringify(v)).join(', ')}.`)
    }
  }

  if (concrete.length === 1) {
    Object.assign(out, typed(node, concrete[0]!, scope))
  } else if (concrete.length > 1) {
    alternatives.push(...concrete.map((t) => typed(node, t, scope)))
  }

  if (alternatives.length === 1 && out.type === undefined) Object.assign(out, { ...alternatives[0], ...pick(out, ['title', 'description']) })
  else if (alternatives.length > 0) out.anyOf = alternatives

  if (node.default !== undefined) out.default = node.default
  if (Array.isArray(node.examples) && node.examples.length > 0) out.example = node.examples[0]
  if (nullable) out.nullable = true
  if (notes.length > 0) out.description = [out.description, ...notes].filter(Boolean).join('\n')
  if (out.type === undefined && out.anyOf === undefined && out.enum === undefined) {
    const { title, description, default: fallback, example } = out
    return { ...anyScalar(), ...pick({ title, description, default: fallback, example }, ['title', 'description', 'default', 'example']) }
  }
  return out
}

/** The keywords of `node` that apply to one type, converted. */
function typed(node: JsonSchema, type: string, scope: Scope): GeminiSchema {
  const out: Record<string, unknown> = { type: TYPE_BY_NAME[type] }
  for (const keyword of KEYWORDS_BY_TYPE[type] ?? []) {
    const value = node[keyword]
    if (value !== undefined) out[keyword] = COUNTS.has(keyword) && typeof value === 'number' ? String(value) : value
  }
  if (type === 'number' || type === 'integer') {
    if (typeof node.exclusiveMinimum === 'number' && out.minimum === undefined) out.minimum = node.exclusiveMinimum
    if (typeof node.exclusiveMaximum === 'number' && out.maximum === undefined) out.maximum = node.exclusiveMaximum
  }
  if (typeof node.format === 'string' && (FORMATS_BY_TYPE[type] ?? []).includes(node.format)) out.format = node.format
  if (type === 'array') {
    const items = [...asList(node.prefixItems), ...[node.items ?? node.unevaluatedItems].filter(isPlainObject)]
    if (items.length === 1) out.items = convert(items[0]!, scope)
    else if (items.length > 1) out.items = { anyOf: items.map((i) => convert(i, scope)) }
  }
  if (type === 'object' && isPlainObject(node.properties)) {
    const properties = Object.fromEntries(
      Object.entries(node.properties).map(([key, value]) => [key, convert(value as JsonSchemaNode, scope)]),
    )
    out.properties = properties
    const required = (Array.isArray(node.required) ? (node.required as unknown[]) : []).filter(
      (k): k is string => typeof k === 'string' && k in properties,
    )
    if (required.length > 0) out.required = required
  }
  return out as GeminiSchema
}

function convertRef(node: JsonSchema, scope: Scope): GeminiSchema {
  const ref = node.$ref as string
  const { $ref: _ref, ...siblings } = node
  if (scope.resolving.includes(ref)) {
    return { type: Type.OBJECT, description: [node.description, '(recursive structure)'].filter(Boolean).join(' ') }
  }
  const target = ref === '#' ? scope.root : ref.startsWith('#/$defs/') ? scope.defs[ref.slice('#/$defs/'.length)] : undefined
  if (target === undefined) return convert(siblings, scope)
  const merged = typeof target === 'boolean' ? siblings : { ...target, ...siblings }
  return convert(merged, { ...scope, resolving: [...scope.resolving, ref] })
}

function isNullSchema(node: unknown): boolean {
  return isPlainObject(node) && node.type === 'null'
}

function asList(value: unknown): JsonSchema[] {
  return Array.isArray(value) ? (value as JsonSchema[]) : []
}

function pick(value: GeminiSchema, keys: (keyof GeminiSchema)[]): GeminiSchema {
  return Object.fromEntries(keys.filter((k) => value[k] !== undefined).map((k) => [k, value[k]])) as GeminiSchema
}
