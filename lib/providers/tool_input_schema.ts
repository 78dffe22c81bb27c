/**
 * `toToolInputSchema` and `flattenRootAlternatives`: a tool's input schema
 * with a root that is always one object, as every tool consumer requires.
 *
 * @module
 */
import { E_PROVIDER_SCHEMA_UNSUPPORTED } from '../exceptions.js'
import { canonicalStringify } from '../utils/canonical_json.js'
import { isPlainObject } from '../utils/guards.js'
import type { StandardInputSchema } from '../core/standard_schema.js'
import type { Description, Schema } from '../validation.js'
import { toJsonSchema } from './json_schema.js'
import { typesOf, type JsonSchema } from './json_schema_walk.js'

/** The combinators a root may use to list alternatives (joi writes `anyOf` for `.when()`, `oneOf` for `match('one')`). */
const COMBINATORS = ['anyOf', 'oneOf'] as const

/**
 * The JSON Schema of a tool's input, with `"type": "object"` at the root.
 *
 * @remarks
 * joi writes a root `.when()` (or an object whose alternatives differ) as a
 * bare `anyOf` of object branches. MCP clients (the TypeScript SDK's
 * `listTools()`, Python's `list_tools`, the Inspector) and the AI SDK require
 * a root `"type": "object"`, so the root gets it: `{ type: 'object', anyOf:
 * [...] }` accepts exactly the same values, since every branch is an object.
 * Consumers that refuse root combinators altogether (OpenAI, Anthropic,
 * Gemini) go through {@link flattenRootAlternatives} as well.
 *
 * @param inputSchema - The tool's joi object schema or its description, or a Standard Schema with JSON Schema output.
 * @returns The JSON Schema (a fresh object).
 */
export function toToolInputSchema(inputSchema: Schema | Description | StandardInputSchema): JsonSchema {
  const json = toJsonSchema(inputSchema)
  if (json.type !== undefined) return json
  const hasAlternatives = COMBINATORS.some((k) => Array.isArray(json[k]))
  return hasAlternatives ? { type: 'object', ...json } : json
}

/** Who is asking for the flattened schema, for the error message. */
export interface FlattenContext {
  /** The tool's name. */
  tool: string
  /** The provider id (`openai`, `anthropic`, `gemini`). */
  provider: string
}

/**
 * Merge root alternatives into one object schema, when that is exact.
 *
 * @remarks
 * OpenAI, Anthropic and Gemini take one object at the root (Anthropic:
 * "input_schema does not support oneOf, allOf, or anyOf at the top level";
 * OpenAI: the root must be an object, not `anyOf`; Gemini drops the
 * parameters). The branches of a root `anyOf` are merged when the union is
 * one object: every branch has the same properties and closedness and the
 * `required` lists are nested (the union then is the branch requiring the
 * least). Otherwise no single object accepts exactly what joi accepts, and
 * the definition is refused.
 *
 * @param schema - A tool's JSON Schema (as {@link toToolInputSchema} returns).
 * @param context - Tool and provider, named in the error.
 * @returns `schema` itself when it has no root alternatives, else the merged object.
 * @throws {@link toolsmith/core!E_PROVIDER_SCHEMA_UNSUPPORTED} when the branches cannot be merged exactly.
 */
export function flattenRootAlternatives(schema: JsonSchema, context: FlattenContext): JsonSchema {
  const key = COMBINATORS.find((k) => Array.isArray(schema[k]))
  if (key === undefined) return schema
  const { [key]: list, ...siblings } = schema
  const branches = list as unknown[]
  const refuse = (why: string): never => {
    throw new E_PROVIDER_SCHEMA_UNSUPPORTED(
      `Tool "${context.tool}" cannot be offered to ${context.provider}: its input schema's root has alternatives ` +
        `(a root .when() or alternatives()), and ${context.provider} requires one object at the root ` +
        `(no anyOf/oneOf at the top level); ${why}, so no single object accepts exactly what the tool accepts. ` +
        'Move the condition into a field (e.g. a nested object per case) or check it in the handler.',
      { details: { tool: context.tool, provider: context.provider, path: '(root)', rule: 'root-object', keyword: key } },
    )
  }
  if (COMBINATORS.some((k) => k !== key && Array.isArray(siblings[k])) || siblings.allOf !== undefined || siblings.not !== undefined) {
    refuse('it also combines schemas in other ways')
  }
  if (branches.length === 0) refuse('the list of alternatives is empty')
  const objects = branches.filter((b): b is JsonSchema => isPlainObject(b) && typesOf(b).join() === 'object')
  if (objects.length !== branches.length) refuse('a branch is not an object')
  const shapes = new Set(objects.map(({ required: _required, ...rest }) => canonicalStringify(rest)))
  if (shapes.size > 1) refuse('the branches differ in their properties')
  const requiredSets = objects
    .map((b) => new Set(Array.isArray(b.required) ? (b.required as string[]) : []))
    .sort((a, b) => a.size - b.size)
  const nested = requiredSets.every((set, i) => i === 0 || [...requiredSets[i - 1]!].every((k) => set.has(k)))
  // With oneOf a value matching two nested branches matches "more than one": only identical branches merge.
  const identical = requiredSets.every((set) => set.size === requiredSets[0]!.size)
  if (!nested || (key === 'oneOf' && !identical)) {
    const listed = objects.map((b) => `[${(Array.isArray(b.required) ? (b.required as string[]) : []).join(', ')}]`).join(' vs ')
    refuse(`the branches require different keys (${listed})`)
  }
  const smallest = objects.find((b) => (Array.isArray(b.required) ? b.required.length : 0) === requiredSets[0]!.size)!
  const { type: _type, ...rest } = siblings
  return { ...smallest, ...rest, type: 'object' }
}
