/**
 * fast-check arbitraries derived from a JSON Schema: mostly near-valid values
 * (boundaries, enum members, pattern matches, missing and extra keys), with
 * random JSON mixed in at every level so both accept and reject paths run.
 */
import fc from 'fast-check'
import type { JsonSchema } from '../../../lib/index.js'

type Defs = Record<string, JsonSchema>

const noise = fc.jsonValue({ maxDepth: 1 }) as fc.Arbitrary<unknown>

/** An arbitrary for values near `schema`, JSON round-tripped as a model's arguments would be. */
export function arbitraryFor(schema: JsonSchema): fc.Arbitrary<unknown> {
  const defs = (schema.$defs ?? {}) as Defs
  return near(schema, defs, 0).map((value) => (value === undefined ? value : JSON.parse(JSON.stringify(value))))
}

function near(schema: JsonSchema | boolean, defs: Defs, depth: number): fc.Arbitrary<unknown> {
  if (typeof schema === 'boolean' || depth > 6) return noise
  return fc.oneof({ weight: 40, arbitrary: shaped(schema, defs, depth) }, { weight: 1, arbitrary: noise })
}

function shaped(schema: JsonSchema, defs: Defs, depth: number): fc.Arbitrary<unknown> {
  if (typeof schema.$ref === 'string') {
    const target = schema.$ref === '#' ? undefined : defs[schema.$ref.replace('#/$defs/', '')]
    return target ? near(target, defs, depth + 1) : noise
  }
  const options: fc.WeightedArbitrary<unknown>[] = []
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = schema[key]
    if (Array.isArray(list)) options.push(...list.map((m) => ({ weight: 4, arbitrary: near(m as JsonSchema, defs, depth + 1) })))
  }
  const hasEnum = Array.isArray(schema.enum)
  if (hasEnum) options.push({ weight: 12, arbitrary: fc.constantFrom(...(schema.enum as unknown[])) })
  const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? (schema.type as string[]) : []
  // With an enum, values of the bare type are mostly rejects: offer them, rarely.
  for (const type of types) options.push({ weight: hasEnum ? 1 : 4, arbitrary: ofType(type, schema, defs, depth) })
  if (options.length === 0) options.push({ weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<unknown> })
  return fc.oneof(...options)
}

function ofType(type: string, schema: JsonSchema, defs: Defs, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string':
      return stringNear(schema)
    case 'number':
    case 'integer':
      return numberNear(schema)
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'array':
      return arrayNear(schema, defs, depth)
    case 'object':
      return objectNear(schema, defs, depth)
    default:
      return noise
  }
}

function stringNear(schema: JsonSchema): fc.Arbitrary<string> {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : undefined
  const lengths = [0, 1, min - 1, min, min + 1, ...(max === undefined ? [] : [max - 1, max, max + 1])].filter((n) => n >= 0)
  const inRange = fc.string({ minLength: min, maxLength: Math.min(max ?? min + 12, min + 12) })
  const options: fc.WeightedArbitrary<string>[] = [
    { weight: 6, arbitrary: inRange },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }) },
    { weight: 2, arbitrary: fc.constantFrom(...lengths).chain((n) => fc.string({ minLength: n, maxLength: n })) },
    { weight: 1, arbitrary: fc.constantFrom('a-b', 'Hello world', 'ALLCAPS', 'with\0nul', ' padded ', 'x') },
  ]
  if (typeof schema.pattern === 'string') {
    options.push({ weight: 12, arbitrary: fc.stringMatching(new RegExp(schema.pattern, 'u'), { size: 'xsmall' }) })
  }
  return fc.oneof(...options)
}

function numberNear(schema: JsonSchema): fc.Arbitrary<number> {
  const bounds = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']
    .map((k) => schema[k])
    .filter((v): v is number => typeof v === 'number')
  const edges = bounds.flatMap((b) => [b - 1, b - 0.5, b, b + 0.5, b + 1])
  const low = typeof schema.minimum === 'number' ? schema.minimum : -10
  const high = typeof schema.maximum === 'number' ? schema.maximum : 150
  return fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: Math.ceil(low), max: Math.floor(high) }) },
    // Inside the safe-integer range: beyond it joi rejects every number (number.unsafe), a documented gap.
    { weight: 2, arbitrary: fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }) },
    { weight: 2, arbitrary: fc.constantFrom(0, 1, 2, 3, 4, 0.5, -1, ...edges) },
  )
}

function arrayNear(schema: JsonSchema, defs: Defs, depth: number): fc.Arbitrary<unknown[]> {
  const item = schema.items && typeof schema.items === 'object' ? near(schema.items as JsonSchema, defs, depth + 1) : noise
  const max = typeof schema.maxItems === 'number' ? Math.min(schema.maxItems + 1, 8) : 4
  return fc.array(item, { maxLength: max })
}

function objectNear(schema: JsonSchema, defs: Defs, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>
  const model = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, near(v, defs, depth + 1)]))
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : []
  const base = fc.oneof(
    { weight: 4, arbitrary: fc.record(model, { requiredKeys: required.filter((k) => k in model) }) },
    { weight: 1, arbitrary: fc.record(model, { requiredKeys: [] }) },
  ) as fc.Arbitrary<Record<string, unknown>>
  return fc.tuple(base, fc.oneof(
      { weight: 12, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom('extra', 'Title', 'x'), noise) },
    )).map(([value, extra]) =>
    extra === null ? value : { ...value, [extra[0]]: extra[1] },
  )
}
