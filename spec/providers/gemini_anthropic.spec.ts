import { describe, expect, it } from 'vitest'
import {
  toAnthropicTool,
  toAnthropicTools,
  toGeminiFunctionDeclaration,
  toGeminiSchema,
  toJsonSchema,
  validator,
} from '../../lib/index.js'
import { allTools } from './support/catalogue.js'
import { createTicketTool } from './support/custom_tools.js'

const GEMINI_FORBIDDEN = ['additionalProperties', '$schema', '$ref', '$defs', 'const', 'oneOf', 'allOf', 'patternProperties', 'prefixItems', 'examples', 'exclusiveMinimum', 'exclusiveMaximum']

function everyKey(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(everyKey)
  if (typeof node !== 'object' || node === null) return []
  return Object.entries(node).flatMap(([k, v]) => (k === 'enum' || k === 'default' || k === 'example' ? [k] : [k, ...everyKey(v)]))
}

describe('toGeminiFunctionDeclaration', () => {
  it.each(allTools().map((t) => [t.name, t] as const))('%s uses only the OpenAPI subset', (_name, tool) => {
    const declaration = toGeminiFunctionDeclaration(tool)
    expect(Object.keys(declaration)).toEqual(['name', 'description', 'parameters'])
    const keys = everyKey(declaration.parameters)
    expect(keys.filter((k) => GEMINI_FORBIDDEN.includes(k))).toEqual([])
    // Property names are data, not keywords: check the type keyword values only.
    const types = JSON.stringify(declaration.parameters).match(/"type":("[A-Z]+"|\[)/g) ?? []
    expect(types.every((t) => !t.endsWith('['))).toBe(true)
  })

  it('turns type lists into nullable, keeps string enums and describes the others', () => {
    const parameters = toGeminiFunctionDeclaration(createTicketTool()).parameters!
    expect(parameters.properties!.estimate).toMatchObject({ type: 'NUMBER', nullable: true })
    expect(parameters.properties!.priority).toMatchObject({ type: 'STRING', enum: ['low', 'normal', 'high'] })
    expect(parameters.properties!.severity).toEqual({ type: 'NUMBER', description: '1 = critical, 3 = cosmetic\nAllowed values: 1, 2, 3.' })
    expect(parameters.properties!.assignee!.properties!.team).toEqual({ type: 'STRING', enum: ['web', 'api', 'infra'], nullable: true })
    expect(parameters.properties!.title!.example).toBe('Login fails on Safari')
  })

  it('inlines $refs, stops at recursion, and converts const, oneOf, allOf and mixed enums', () => {
    const schema = toGeminiSchema({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        point: { $ref: '#/$defs/point' },
        self: { $ref: '#' },
        kind: { const: 'fixed' },
        answer: { const: 42 },
        either: { oneOf: [{ type: 'string' }, { type: 'null' }] },
        mixed: { type: ['string', 'number', 'boolean'], enum: ['a', 1, true] },
        tags: { type: 'array', items: { type: 'string' }, allOf: [{ contains: { const: 'x' } }], uniqueItems: true },
        open: { type: 'object', additionalProperties: { type: 'string' } },
        n: { type: 'integer', exclusiveMinimum: 0, multipleOf: 2, format: 'int64' },
        when: { type: 'string', format: 'email' },
      },
      $defs: { point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'], additionalProperties: false } },
    })
    const p = schema.properties!
    expect(p.point).toEqual({ type: 'OBJECT', properties: { x: { type: 'NUMBER' } }, required: ['x'] })
    expect(p.self!.properties!.self).toEqual({ type: 'OBJECT', description: '(recursive structure)' })
    expect(p.kind).toEqual({ type: 'STRING', enum: ['fixed'] })
    expect(p.answer).toEqual({
      anyOf: [{ type: 'STRING' }, { type: 'NUMBER' }, { type: 'BOOLEAN' }],
      nullable: true,
      description: 'Allowed values: 42.',
    })
    expect(p.either).toEqual({ type: 'STRING', nullable: true })
    expect(p.mixed).toEqual({
      anyOf: [{ type: 'STRING' }, { type: 'NUMBER' }, { type: 'BOOLEAN' }],
      description: 'Allowed values: "a", 1, true.',
    })
    expect(p.tags).toEqual({ type: 'ARRAY', items: { type: 'STRING' } })
    expect(p.open).toEqual({ type: 'OBJECT' })
    expect(p.n).toEqual({ type: 'INTEGER', minimum: 0, format: 'int64' })
    expect(p.when).toEqual({ type: 'STRING' })
    expect(schema).not.toHaveProperty('$schema')
  })

  it('omits parameters for a tool without arguments', () => {
    const declaration = toGeminiFunctionDeclaration({
      name: 'now',
      description: 'Current time',
      inputSchema: validator.object({}).describe(),
      sideEffect: false,
      idempotent: true,
    })
    expect(declaration).toEqual({ name: 'now', description: 'Current time' })
  })
})

describe('toAnthropicTool', () => {
  it('is { name, description, input_schema } with the JSON Schema unchanged', () => {
    const tool = createTicketTool()
    const def = toAnthropicTool(tool)
    expect(Object.keys(def)).toEqual(['name', 'description', 'input_schema'])
    expect(def.input_schema).toEqual(toJsonSchema(tool.inputSchema))
    expect(def.input_schema.type).toBe('object')
  })

  it('maps illegal names in a collection', () => {
    const { definitions, names } = toAnthropicTools({ a: { ...createTicketTool().describe(), name: 'tickets/create' } })
    expect(definitions[0]!.name).toBe('tickets_create')
    expect(names.fromProvider('tickets_create')).toBe('tickets/create')
  })
})
