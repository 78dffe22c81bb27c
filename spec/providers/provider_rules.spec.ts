/**
 * Issue 11 items 1–3 and the "Also" paragraph: every definition a provider
 * accepts, or a typed refusal when the definition is built.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  E_PROVIDER_SCHEMA_UNSUPPORTED,
  PROPERTY_KEY_RULES,
  Tool,
  TurnRunner,
  anthropicModel,
  createDispatchContext,
  createMcpServer,
  defineTool,
  geminiModel,
  toAiSdkTools,
  toAnthropicTool,
  toAnthropicTools,
  toGeminiFunctionDeclaration,
  toGeminiFunctionDeclarations,
  toMcpTool,
  toOpenAITool,
  toOpenAIResponsesTool,
  validator,
  type Schema,
} from '../../lib/index.js'
import type { SchemaNode } from './support/schema_node.js'

function toolWith<Args = Record<string, unknown>>(schema: Schema, handler: (args: Args) => string = (args) => JSON.stringify(args)): Tool {
  return new Tool({ name: 'subject', description: 'A tool under test.', inputSchema: schema as never, handler })
}

/** The repro of issue 11, item 1. */
const rootWhen = validator
  .object({ kind: validator.string().valid('a', 'b').required(), a: validator.string(), b: validator.number() })
  .when('.kind', { is: 'a', then: validator.object({ a: validator.required() }), otherwise: validator.object({ b: validator.required() }) })

describe('a root .when() (item 1)', () => {
  it('MCP and the AI SDK get a root object: the SDK client lists the tool, and every other tool too', async () => {
    const tool = toolWith(rootWhen)
    expect(toMcpTool(tool).inputSchema).toMatchObject({ type: 'object', anyOf: [{ required: ['a', 'kind'] }, { required: ['b', 'kind'] }] })
    expect(toAiSdkTools([tool], createDispatchContext()).subject!.inputSchema.jsonSchema.type).toBe('object')

    const other = defineTool({ name: 'other', description: 'x', schema: validator.object({ x: validator.string() }), execute: () => 'ok' })
    const server = createMcpServer([tool, other], { name: 't', version: '1.0.0' })
    const client = new Client({ name: 'spec', version: '1.0.0' })
    const [a, b] = InMemoryTransport.createLinkedPair()
    await Promise.all([server.connect(a), client.connect(b)])
    try {
      const { tools } = await client.listTools()
      expect(tools.map((t) => t.name)).toEqual(['subject', 'other'])
      const called = await client.callTool({ name: 'subject', arguments: { kind: 'a', a: 'x' } })
      expect(called.isError).toBeFalsy()
    } finally {
      await client.close()
      await server.close()
    }
  })

  it('is refused for OpenAI, Anthropic and Gemini when its branches differ, naming the rule', () => {
    const tool = toolWith(rootWhen)
    for (const [provider, build] of [
      ['openai', () => toOpenAITool(tool)],
      ['openai', () => toOpenAIResponsesTool(tool, { strict: true })],
      ['anthropic', () => toAnthropicTool(tool)],
      ['gemini', () => toGeminiFunctionDeclaration(tool)],
    ] as const) {
      let error: unknown
      try {
        build()
      } catch (caught) {
        error = caught
      }
      expect(error).toBeInstanceOf(E_PROVIDER_SCHEMA_UNSUPPORTED)
      const e = error as E_PROVIDER_SCHEMA_UNSUPPORTED
      expect(e.code).toBe('E_PROVIDER_SCHEMA_UNSUPPORTED')
      expect(e.message).toContain(`Tool "subject" cannot be offered to ${provider}`)
      expect(e.message).toContain('no anyOf/oneOf at the top level')
      expect(e.message).toContain('[a, kind] vs [b, kind]')
      expect(e.details).toMatchObject({ tool: 'subject', provider, path: '(root)', rule: 'root-object' })
    }
  })

  it('is flattened into one object when that is exact (nested required lists)', () => {
    // kind 'strict' requires `a`; otherwise nothing more: the union is the branch requiring less.
    const schema = validator
      .object({ kind: validator.string().required(), a: validator.string() })
      .when('.kind', { is: 'strict', then: validator.object({ a: validator.required() }) })
    const tool = toolWith(schema)
    const expected = {
      type: 'object',
      properties: { kind: { type: 'string', minLength: 1 }, a: { type: 'string', minLength: 1 } },
      required: ['kind'],
      additionalProperties: false,
    }
    expect(toOpenAITool(tool).function.parameters).toEqual(expected)
    expect(toAnthropicTool(tool).input_schema).toEqual(expected)
    expect(toGeminiFunctionDeclaration(tool).parameters).toEqual({
      type: 'OBJECT',
      properties: { kind: { type: 'STRING', minLength: '1' }, a: { type: 'STRING', minLength: '1' } },
      required: ['kind'],
    })
  })
})

describe('schemas that accept anything (items 2 and 3)', () => {
  const tool = toolWith(validator.object({ list: validator.array(), anything: validator.any(), tags: validator.array().items(validator.string()) }))

  it('an array without item schema states items: {} for JSON Schema consumers', () => {
    const parameters = toOpenAITool(tool).function.parameters as SchemaNode
    expect(parameters.properties.list).toEqual({ type: 'array', items: {} })
    expect(parameters.properties.tags).toEqual({ type: 'array', items: { type: 'string', minLength: 1 } })
    // Strict mode turns the open item into "any scalar", as it does for any().
    const strict = toOpenAITool(tool, { strict: true }).function.parameters as SchemaNode
    expect(strict.properties.list.items.anyOf).toHaveLength(4)
  })

  it('Gemini gets a type on every schema: any() and open items become "any scalar or null"', () => {
    const parameters = toGeminiFunctionDeclaration(tool).parameters!
    const anyScalar = { anyOf: [{ type: 'STRING' }, { type: 'NUMBER' }, { type: 'BOOLEAN' }], nullable: true }
    expect(parameters.properties!.anything).toEqual(anyScalar)
    expect(parameters.properties!.list).toEqual({ type: 'ARRAY', items: anyScalar })
  })
})

describe('property keys a provider forbids (Also)', () => {
  const seen: unknown[] = []
  const tool = toolWith(
    validator.object({
      'filter[id]': validator.string(),
      $top: validator.number().integer(),
      'page-size': validator.number().integer().required(),
      nested: validator.object({ 'x-y': validator.string(), free: validator.object().unknown(true) }),
      list: validator.array().items(validator.object({ 'a b': validator.string() })),
      filter_id_: validator.string().description('a legal key the renamed one must not take'),
    }),
    (args) => {
      seen.push(args)
      return 'ok'
    },
  )

  it('are renamed reversibly for Anthropic and Gemini, never onto a key the schema uses', () => {
    const anthropic = toAnthropicTools([tool])
    // Anthropic allows `-` and `.`: only `filter[id]` and `$top` change.
    expect(Object.keys(anthropic.definitions[0]!.input_schema.properties!)).toEqual(['filter_id__2', '_top', 'page-size', 'nested', 'list', 'filter_id_'])
    expect(anthropic.definitions[0]!.input_schema.required).toEqual(['page-size'])
    const gemini = toGeminiFunctionDeclarations([tool])
    const properties = gemini.definitions[0]!.parameters!.properties!
    expect(Object.keys(properties)).toEqual(['filter_id__2', '_top', 'page_size', 'nested', 'list', 'filter_id_'])
    expect(Object.keys(properties.nested!.properties!)).toEqual(['x_y', 'free'])
    expect(Object.keys(properties.list!.items!.properties!)).toEqual(['a_b'])
    for (const key of Object.keys(properties)) expect(PROPERTY_KEY_RULES.gemini.pattern.test(key)).toBe(true)
    expect(gemini.keys!.renamed).toContainEqual({ tool: 'subject', name: 'page-size', providerName: 'page_size' })

    const back = gemini.keys!.argsFromProvider('subject', {
      filter_id__2: 'x',
      _top: 5,
      page_size: 10,
      nested: { x_y: 'z', free: { x_y: 'kept', page_size: 'kept' } },
      list: [{ a_b: 'c' }],
    })
    expect(back).toEqual({
      'filter[id]': 'x',
      $top: 5,
      'page-size': 10,
      nested: { 'x-y': 'z', free: { x_y: 'kept', page_size: 'kept' } },
      list: [{ 'a b': 'c' }],
    })
  })

  it('are mapped back before validation by the Anthropic and Gemini adapters', async () => {
    seen.length = 0
    const anthropic = new TurnRunner({
      tools: [tool],
      model: anthropicModel(async (body) =>
        body.messages.length === 1
          ? { content: [{ type: 'tool_use', id: 'toolu_1', name: 'subject', input: { 'page-size': 3, _top: 1, nested: { 'x-y': 'q' } } }] }
          : { content: [{ type: 'text', text: 'done' }] },
      ),
    })
    const first = await anthropic.run('go')
    expect(first.toolCalls[0]!.isError).toBe(false)
    const gemini = new TurnRunner({
      tools: [tool],
      model: geminiModel(async (body) =>
        body.contents.length === 1
          ? { candidates: [{ content: { parts: [{ functionCall: { name: 'subject', args: { page_size: 4, filter_id__2: 'f' } } }] } }] }
          : { candidates: [{ content: { parts: [{ text: 'done' }] } }] },
      ),
    })
    const second = await gemini.run('go')
    expect(second.toolCalls[0]!.isError).toBe(false)
    expect(seen).toEqual([
      { 'page-size': 3, $top: 1, nested: { 'x-y': 'q' } },
      { 'page-size': 4, 'filter[id]': 'f' },
    ])
  })
})

describe('OpenAI strict mode limits (Also)', () => {
  function nested(levels: number): Schema {
    let schema: Schema = validator.object({ leaf: validator.string() })
    for (let i = 1; i < levels; i++) schema = validator.object({ child: schema })
    return schema
  }

  it('10 levels of object nesting pass; 13 are refused in strict mode with the field and the rule', () => {
    expect(() => toOpenAITool(toolWith(nested(10)), { strict: true })).not.toThrow()
    let error: unknown
    try {
      toOpenAITool(toolWith(nested(13)), { strict: true })
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(E_PROVIDER_SCHEMA_UNSUPPORTED)
    expect((error as Error).message).toContain('object nesting reaches level 11 at #/properties/child')
    expect((error as Error).message).toContain('strict mode allows at most 10 levels of object nesting')
    // Without strict there is no such limit.
    expect(() => toOpenAITool(toolWith(nested(13)))).not.toThrow()
  })

  it('more than 1,000 enum values are refused', () => {
    const values = Array.from({ length: 1001 }, (_, i) => `v${i}`)
    expect(() => toOpenAITool(toolWith(validator.object({ pick: validator.string().valid(...values) })), { strict: true })).toThrow(
      /at most 1000 enum values/,
    )
  })
})

describe('validator.date() fields (Also)', () => {
  const tool = toolWith<{ due: Date; history?: Date[] }>(
    validator.object({ due: validator.date().required(), history: validator.array().items(validator.date()) }),
    (args) => `${args.due.toISOString()} ${args.history?.length ?? 0}`,
  )

  it('advertise a date-time string, and a JSON caller can fill them with one', async () => {
    expect(toOpenAITool(tool).function.parameters).toMatchObject({ properties: { due: { type: 'string', format: 'date-time' } } })
    const run = tool.executor(createDispatchContext())
    await expect(run({ due: '2026-11-23T12:00:00Z', history: ['2026-01-01T00:00:00.000+01:00'] })).resolves.toBe('2026-11-23T12:00:00.000Z 1')
  })

  it('accept only what the format says: no timestamps, no free-form dates', async () => {
    const run = tool.executor(createDispatchContext())
    for (const due of [1_700_000_000_000, 'March 5 2026', '2026-11-23', 'not a date']) {
      await expect(run({ due })).rejects.toMatchObject({ code: 'E_INVALID_TOOL_ARGS' })
    }
  })
})

describe('the same rules for a zod schema', () => {
  const zodTool = (inputSchema: z.ZodType<Record<string, unknown>>) =>
    new Tool({ name: 'subject', description: 'A tool under test.', inputSchema, handler: (args) => JSON.stringify(args) })
  const rootUnion = z.union([
    z.strictObject({ kind: z.literal('a'), a: z.string() }),
    z.strictObject({ kind: z.literal('b'), b: z.number() }),
  ])

  it('a root union is a root object for MCP, refused for OpenAI, Anthropic and Gemini naming the rule, and validates as a union', async () => {
    const tool = zodTool(rootUnion)
    expect(toMcpTool(tool).inputSchema).toMatchObject({ type: 'object', anyOf: [{ type: 'object' }, { type: 'object' }] })
    for (const build of [() => toOpenAITool(tool), () => toAnthropicTool(tool), () => toGeminiFunctionDeclaration(tool)]) {
      expect(build).toThrow(E_PROVIDER_SCHEMA_UNSUPPORTED)
      expect(build).toThrow('its input schema\'s root has alternatives')
    }
    const run = tool.executor(createDispatchContext())
    await expect(run({ kind: 'b', b: 2 })).resolves.toBe('{"kind":"b","b":2}')
    await expect(run({ kind: 'a', b: 2 })).rejects.toThrow('Invalid arguments for tool "subject"')
  })

  it('a root union of identical objects is flattened into one object', () => {
    const same = z.strictObject({ q: z.string() })
    expect(toOpenAITool(zodTool(z.union([same, same]))).function.parameters).toEqual({
      type: 'object',
      properties: { q: { type: 'string' } },
      required: ['q'],
      additionalProperties: false,
    })
  })

  it('OpenAI strict mode refuses 13 levels of nesting, as for joi', () => {
    let schema: z.ZodType<Record<string, unknown>> = z.strictObject({ leaf: z.string() })
    for (let i = 0; i < 12; i++) schema = z.strictObject({ child: schema })
    expect(() => toOpenAITool(zodTool(schema), { strict: true })).toThrow(E_PROVIDER_SCHEMA_UNSUPPORTED)
  })
})
