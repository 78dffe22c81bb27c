import { describe, expect, it } from 'vitest'
import {
  dropOptionalNulls,
  toOpenAIResponsesTool,
  toOpenAIStrictSchema,
  toOpenAITool,
  toOpenAITools,
  validator,
  type JsonSchema,
} from '../../lib/index.js'
import { createAjv } from './support/ajv.js'
import { allTools } from './support/catalogue.js'
import { createTicketTool } from './support/custom_tools.js'
import type { SchemaNode } from './support/schema_node.js'

const ALLOWED = new Set([
  'type', 'description', 'title', 'properties', 'required', 'additionalProperties', 'items', 'anyOf', 'enum', 'const',
  '$ref', '$defs', 'pattern', 'format', 'multipleOf', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum',
  'minItems', 'maxItems',
])

/** Every object schema in a tree, with its path. */
function objects(node: unknown, path = '$'): [string, JsonSchema][] {
  if (typeof node !== 'object' || node === null) return []
  const schema = node as JsonSchema
  const found: [string, JsonSchema][] = []
  const types = ([] as unknown[]).concat(schema.type ?? [])
  if (types.includes('object')) found.push([path, schema])
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'enum' || key === 'default' || key === 'examples') continue
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) found.push(...objects(v, `${path}.${key}[${i}]`))
    }
    else if (typeof value === 'object' && value !== null) {
      if (key === 'properties' || key === '$defs') {
        for (const [k, v] of Object.entries(value)) found.push(...objects(v, `${path}.${key}.${k}`))
      } else found.push(...objects(value, `${path}.${key}`))
    }
  }
  return found
}

function keywords(node: unknown): string[] {
  if (typeof node !== 'object' || node === null) return []
  const schema = node as JsonSchema
  const own = Object.keys(schema)
  const nested = Object.entries(schema).flatMap(([key, value]) => {
    if (key === 'enum' || key === 'default' || key === 'const') return []
    if (key === 'properties' || key === '$defs') return Object.values(value as object).flatMap(keywords)
    if (Array.isArray(value)) return value.flatMap(keywords)
    return keywords(value)
  })
  return [...own, ...nested]
}

describe('toOpenAITool', () => {
  it('has the Chat Completions shape, strict false by default', () => {
    const def = toOpenAITool(createTicketTool())
    expect(Object.keys(def)).toEqual(['type', 'function'])
    expect(def.type).toBe('function')
    expect(Object.keys(def.function)).toEqual(['name', 'description', 'parameters', 'strict'])
    expect(def.function.strict).toBe(false)
    expect(def.function.parameters.properties).toHaveProperty('title')
  })

  it('has the Responses shape', () => {
    const def = toOpenAIResponsesTool(createTicketTool(), { strict: true })
    expect(Object.keys(def)).toEqual(['type', 'name', 'description', 'parameters', 'strict'])
    expect(def.strict).toBe(true)
  })

  describe.each(allTools().map((t) => [t.name, t] as const))('strict schema of %s', (_name, tool) => {
    const parameters = toOpenAITool(tool, { strict: true }).function.parameters

    it('closes every object and requires every property', () => {
      for (const [path, object] of objects(parameters)) {
        expect({ path, additionalProperties: object.additionalProperties }).toEqual({ path, additionalProperties: false })
        expect({ path, required: object.required }).toEqual({ path, required: Object.keys(object.properties as object) })
      }
    })

    it('uses only keywords strict mode supports', () => {
      expect(keywords(parameters).filter((k) => !ALLOWED.has(k))).toEqual([])
    })

    it('makes exactly the optional properties nullable', () => {
      const original = toOpenAITool(tool).function.parameters
      const required = new Set(original.required as string[])
      const accepts = createAjv().compile(parameters)
      const nulls = Object.fromEntries(Object.keys(original.properties as object).map((k) => [k, null]))
      accepts(nulls)
      const nullErrors = new Set((accepts.errors ?? []).map((e: { instancePath: string }) => e.instancePath.split('/')[1]))
      for (const key of Object.keys(original.properties as object)) {
        const originalAllowsNull = createAjv().validate(original.properties![key as keyof object] as object, null)
        expect({ key, acceptsNull: !nullErrors.has(key) }).toEqual({ key, acceptsNull: !required.has(key) || originalAllowsNull })
      }
    })
  })

  it('a strict call with nulls for every optional field validates once nulls are dropped, and gets the defaults', async () => {
    const tool = createTicketTool()
    const args = {
      title: 'Crash on start',
      priority: null,
      severity: null,
      estimate: null,
      labels: null,
      assignee: { name: 'Ada', email: null, team: null },
      steps: null,
      private: null,
    }
    expect(createAjv().validate(toOpenAITool(tool, { strict: true }).function.parameters, args)).toBe(true)
    const cleaned = dropOptionalNulls(tool, args)
    // estimate and assignee.team allow null in joi, so their nulls are kept.
    expect(cleaned).toEqual({ title: 'Crash on start', estimate: null, assignee: { name: 'Ada', team: null } })
    expect(await tool.validate(cleaned)).toMatchObject({ priority: 'normal', labels: [], private: false })
    expect(args.priority).toBeNull()
  })

  it('dropOptionalNulls works from a describe() snapshot and leaves required nulls for joi to report', () => {
    const described = createTicketTool().describe()
    expect(dropOptionalNulls(described, { title: null, priority: null })).toEqual({ title: null })
    expect(dropOptionalNulls(described, 'not an object')).toBe('not an object')
  })

  it('keeps removed defaults and examples visible in the description', () => {
    const parameters = toOpenAITool(createTicketTool(), { strict: true }).function.parameters as SchemaNode
    expect(parameters.properties.priority.description).toBe('How urgent it is\nDefault: "normal".')
    expect(parameters.properties.title.description).toBe('One-line summary\nExample: "Login fails on Safari".')
  })

  it('turns schemas strict mode cannot express into their strict subset', () => {
    const schema = toOpenAIStrictSchema({
      type: 'object',
      properties: {
        any: {},
        open: { type: 'object' },
        either: { oneOf: [{ type: 'string' }, { type: 'number' }] },
        tuple: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], unevaluatedItems: false },
        link: { $ref: '#/$defs/x' },
        mail: { type: 'string', format: 'email' },
        uri: { type: 'string', format: 'uri' },
      },
      $defs: { x: { type: 'object', properties: { y: { type: 'string' } } } },
    }) as SchemaNode
    expect(schema.properties.any).toEqual({ anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }] })
    expect(schema.properties.open).toEqual({ type: ['object', 'null'], properties: {}, required: [], additionalProperties: false })
    expect(schema.properties.either).toEqual({ anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }] })
    expect(schema.properties.tuple.items).toEqual({ anyOf: [{ type: 'string' }, { type: 'number' }] })
    expect(schema.properties.link).toEqual({ anyOf: [{ $ref: '#/$defs/x' }, { type: 'null' }] })
    expect(schema.properties.mail.format).toBe('email')
    expect(schema.properties.uri.format).toBeUndefined()
    expect(schema.$defs.x).toEqual({ type: 'object', properties: { y: { type: ['string', 'null'] } }, required: ['y'], additionalProperties: false })
  })

  it('toOpenAITools builds a collection and reports renamed snapshots', () => {
    const weird = { ...createTicketTool().describe(), name: 'tickets.create' }
    const { definitions, names } = toOpenAITools([weird, createTicketTool()])
    expect(definitions.map((d) => d.function.name)).toEqual(['tickets_create', 'create_ticket'])
    expect(names.renamed).toEqual([{ name: 'tickets.create', providerName: 'tickets_create' }])
    expect(names.fromProvider('tickets_create')).toBe('tickets.create')
  })

  it('rejects something that is not a tool', () => {
    expect(() => toOpenAITool({ name: 'x' } as never)).toThrow(expect.objectContaining({ code: 'E_NOT_A_TOOL' }))
    expect(() => toOpenAITool(validator.object({}) as never)).toThrow(expect.objectContaining({ code: 'E_NOT_A_TOOL' }))
  })
})
