import { describe, expect, it } from 'vitest'
import {
  JSON_SCHEMA_DIALECT,
  toAnthropicTool,
  toJsonSchema,
  toMcpTool,
  toOpenAIResponsesTool,
  toOpenAITool,
  validator,
} from '../../lib/index.js'
import { createAjv } from './support/ajv.js'
import { allTools } from './support/catalogue.js'
import { createTicketTool } from './support/custom_tools.js'
import type { SchemaNode } from './support/schema_node.js'

const ajv = createAjv()

function expectValid2020(schema: object): void {
  const valid = ajv.validateSchema(schema)
  expect(ajv.errors ?? []).toEqual([])
  expect(valid).toBe(true)
  // ajv's strict mode also refuses unknown keywords and ambiguous schemas at compile time.
  expect(() => ajv.compile(schema)).not.toThrow()
}

describe('toJsonSchema', () => {
  it("is joi's own draft 2020-12 output with examples, notes and labels put back", () => {
    const schema = validator.object({
      city: validator.string().required().description('City name').example('Oslo').note('Use the English name'),
      owner: validator.object({ name: validator.string() }).label('Owner'),
    })
    const native = schema['~standard'].jsonSchema.input({ target: 'draft-2020-12' }) as SchemaNode
    const ours = toJsonSchema(schema) as SchemaNode
    expect(native.properties.city.examples).toBeUndefined()
    expect(ours.properties.city).toEqual({
      type: 'string',
      minLength: 1,
      description: 'City name\nUse the English name',
      examples: ['Oslo'],
    })
    expect(ours.properties.owner.title).toBe('Owner')
    expect(ours.required).toEqual(['city'])
    expect(ours.additionalProperties).toBe(false)
  })

  it('accepts a describe() snapshot and gives the same schema as the live one', () => {
    const tool = createTicketTool()
    expect(toJsonSchema(tool.describe().inputSchema)).toEqual(toJsonSchema(tool.inputSchema))
  })

  it('returns a fresh object: mutating it never touches joi defaults', () => {
    const schema = validator.object({ tags: validator.array().items(validator.string()).default([]) })
    ;(toJsonSchema(schema) as SchemaNode).properties.tags.default.push('x')
    expect(schema.validate({}).value).toEqual({ tags: [] })
  })

  it('lists null in an enum that also allows null', () => {
    const json = toJsonSchema(validator.object({ team: validator.string().valid('web', 'api').allow(null) })) as SchemaNode
    expect(json.properties.team).toEqual({ type: ['string', 'null'], enum: ['web', 'api', null] })
    expect(ajv.validate(json, { team: null })).toBe(true)
  })

  it('removes forbidden keys and points links to the root at #', () => {
    const forbidden = toJsonSchema(validator.object({ a: validator.string(), b: validator.any().forbidden() })) as SchemaNode
    expect(Object.keys(forbidden.properties)).toEqual(['a'])
    const tree = validator
      .object({ value: validator.number().required(), children: validator.array().items(validator.link('#node')) })
      .id('node')
    const json = toJsonSchema(tree) as SchemaNode
    expect(json.properties.children.items).toEqual({ $ref: '#' })
    expectValid2020(json)
    expect(ajv.validate(json, { value: 1, children: [{ value: 2, children: [] }] })).toBe(true)
    expect(ajv.validate(json, { value: 1, children: [{ children: [] }] })).toBe(false)
  })

  it('adds $schema only when asked', () => {
    expect(toJsonSchema(validator.object({}))).not.toHaveProperty('$schema')
    expect(toJsonSchema(validator.object({}), { $schema: true }).$schema).toBe(JSON_SCHEMA_DIALECT)
  })
})

describe('every produced JSON Schema validates against the draft 2020-12 meta-schema', () => {
  const producers: [string, (tool: ReturnType<typeof allTools>[number]) => object][] = [
    ['toJsonSchema', (t) => toJsonSchema(t.inputSchema)],
    ['toOpenAITool', (t) => toOpenAITool(t).function.parameters],
    ['toOpenAITool strict', (t) => toOpenAITool(t, { strict: true }).function.parameters],
    ['toOpenAIResponsesTool strict', (t) => toOpenAIResponsesTool(t, { strict: true }).parameters],
    ['toAnthropicTool', (t) => toAnthropicTool(t).input_schema],
    ['toMcpTool', (t) => toMcpTool(t).inputSchema],
  ]
  for (const tool of allTools()) {
    it.each(producers)(`${tool.name}: %s`, (_label, produce) => {
      expectValid2020(produce(tool))
    })
  }
})
