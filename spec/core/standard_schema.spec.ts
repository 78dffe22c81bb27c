/**
 * A tool whose `inputSchema` is a Standard Schema (zod 4): the handler's
 * argument type is inferred (pinned by `expectTypeOf` and `@ts-expect-error`
 * lines, which `npm run typecheck` checks: tsconfig includes spec/), args are
 * validated by the schema's own library with joi's error shape, and MCP lists
 * and calls it. The joi path infers too, from a typed `validator.object<T>()`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import {
  E_INVALID_INITIAL_TOOL_VALUE,
  E_INVALID_TOOL_ARGS,
  Tool,
  createDispatchContext,
  createMcpServer,
  defineTool,
  toolInputSchema,
  validator,
  type ToolDescription,
} from '../../lib/index.js'
import { joiBookingTool, zodBookingTool } from '../providers/support/zod_twins.js'

function weather() {
  return new Tool({
    name: 'weather',
    description: 'Current temperature for a city',
    inputSchema: z.strictObject({ city: z.string().min(1).describe('City name'), days: z.number().int().min(1).default(1) }),
    handler: ({ city, days }) => `It is 21°C in ${city} for ${days} day(s)`,
  })
}

describe('types inferred from the input schema', () => {
  it('a zod schema types the handler (output) and the executor (input)', () => {
    const tool = new Tool({
      name: 'weather',
      description: '',
      inputSchema: z.object({ city: z.string(), days: z.number().default(1) }),
      handler: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ city: string; days: number }>()
        // @ts-expect-error city is a string, not a number
        const n: number = args.city
        return String(n)
      },
    })
    const run = tool.executor(createDispatchContext())
    expectTypeOf(run).parameter(0).toEqualTypeOf<{ city: string; days?: number | undefined }>()
    // @ts-expect-error an excess property does not compile
    void (() => run({ city: 'Oslo', extra: 42 }))
    // @ts-expect-error a missing required property does not compile
    void (() => run({}))
    expectTypeOf(tool.inputSchema.shape.city).toEqualTypeOf<z.ZodString>()
  })

  it('a typed joi schema (validator.object<T>()) types the handler; the executor takes any', () => {
    const tool = new Tool({
      name: 'weather',
      description: '',
      inputSchema: validator.object<{ city: string }>({ city: validator.string().required() }),
      handler: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ city: string }>()
        return args.city
      },
    })
    // joi's types give no input type: the executor stays `any`, and the schema keeps its joi type.
    expectTypeOf(tool.executor(createDispatchContext())).parameter(0).toBeAny()
    expectTypeOf(tool.inputSchema.describe).toBeFunction()
  })

  it('defineTool infers from a zod schema too, and runs it', async () => {
    const tool = defineTool({
      name: 'add',
      description: 'Add two numbers',
      schema: z.strictObject({ a: z.number(), b: z.number() }),
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ a: number; b: number }>()
        return String(args.a + args.b)
      },
    })
    await expect(tool.executor(createDispatchContext())({ a: 1, b: 2 })).resolves.toBe('3')
  })

  it('an untyped joi schema leaves the args `any`, as before', () => {
    const tool = new Tool({ name: 't', description: '', inputSchema: validator.object({ a: validator.string() }), handler: (args) => {
      expectTypeOf(args).toBeAny()
      return 'ok'
    } })
    // Every kind of tool is a Tool: collections mix them.
    const tools: Tool[] = [tool, weather(), zodBookingTool(), joiBookingTool()]
    expect(tools).toHaveLength(4)
  })
})

describe('a zod tool at run time', () => {
  it('runs a valid call with the schema output (defaults applied) as the args', async () => {
    await expect(weather().executor(createDispatchContext())({ city: 'Oslo' })).resolves.toBe('It is 21°C in Oslo for 1 day(s)')
  })

  it('refuses invalid args with E_INVALID_TOOL_ARGS naming each path and issue, never quoting the args', async () => {
    const error = await weather()
      .executor(createDispatchContext())({ city: 42, days: 0, secret: 'hunter2' } as never)
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(E_INVALID_TOOL_ARGS)
    const { message, details } = error as E_INVALID_TOOL_ARGS & { details: { toolName: string; issues: { path: string; message: string }[] } }
    expect(message).toMatch(/^Invalid arguments for tool "weather": "city": .*expected string.*; "days": .*>=1.*; .*secret/)
    expect(message).not.toContain('hunter2')
    expect(details.toolName).toBe('weather')
    expect(details.issues.map((i) => i.path)).toEqual(['city', 'days', ''])
  })

  it('refuses missing or non-object args as a joi tool does', async () => {
    const run = weather().executor(createDispatchContext())
    await expect(run(undefined as never)).rejects.toThrow('Invalid arguments for tool "weather": "args" is required')
    await expect(run([] as never)).rejects.toThrow('Invalid arguments for tool "weather": "args" must be of type object')
    await expect(run(null as never)).rejects.toThrow('"args" must be of type object')
  })

  it('describe() carries the JSON Schema, marked as such', () => {
    const described: ToolDescription = weather().describe()
    expect(described.inputSchemaFormat).toBe('json-schema')
    expect(described.inputSchema).toEqual({
      type: 'object',
      properties: { city: { type: 'string', minLength: 1, description: 'City name' }, days: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, default: 1 } },
      required: ['city'],
      additionalProperties: false,
    })
    expect(joiBookingTool().describe().inputSchemaFormat).toBeUndefined()
    expect(() => toolInputSchema(described)).toThrow('has a Standard Schema (JSON Schema) input, not a joi one')
  })

  it('refuses a schema that is not an object, or not a schema, when the tool is built', () => {
    const build = (inputSchema: unknown) => () => new Tool({ name: 't', description: '', inputSchema: inputSchema as never, handler: () => '' })
    expect(build(z.string())).toThrow(E_INVALID_INITIAL_TOOL_VALUE)
    expect(build(z.string())).toThrow('must describe an object (its JSON Schema\'s root "type" is "string")')
    expect(build({ '~standard': { validate: () => ({ value: {} }) } })).toThrow(
      '"inputSchema" must be a joi object schema or a Standard Schema with JSON Schema output',
    )
  })

  it('checks argument roles against the JSON Schema', () => {
    const inputSchema = z.object({ path: z.string(), count: z.number() })
    expect(new Tool({ name: 't', description: '', inputSchema, roles: { path: 'path' }, handler: () => '' }).roles).toEqual({ path: 'path' })
    expect(() => new Tool({ name: 't', description: '', inputSchema, roles: { path: 'count' }, handler: () => '' })).toThrow(
      '"path" names "count", a number argument',
    )
    expect(() => new Tool({ name: 't', description: '', inputSchema, roles: { path: 'nope' }, handler: () => '' })).toThrow(
      'its arguments: path, count',
    )
  })

  it('is listed and called over MCP like a joi tool', async () => {
    const server = createMcpServer([weather(), zodBookingTool()], { name: 's', version: '1' })
    const [a, b] = InMemoryTransport.createLinkedPair()
    await server.connect(b)
    const client = new Client({ name: 'c', version: '1' })
    await client.connect(a)
    try {
      const { tools } = await client.listTools()
      expect(tools.find((t) => t.name === 'weather')?.inputSchema).toMatchObject({ type: 'object', required: ['city'] })
      const joiTwin = (await listed(joiBookingTool())).find((t) => t.name === 'book_room')
      expect(tools.find((t) => t.name === 'book_room')).toEqual(joiTwin)
      const ok = (await client.callTool({ name: 'weather', arguments: { city: 'Oslo', days: 2 } })) as { content: { text: string }[] }
      expect(ok.content[0]!.text).toBe('It is 21°C in Oslo for 2 day(s)')
      const bad = (await client.callTool({ name: 'weather', arguments: { city: 7 } })) as { isError?: boolean; content: { text: string }[] }
      expect(bad.isError).toBe(true)
      expect(bad.content[0]!.text).toContain('"city": Invalid input: expected string')
    } finally {
      await client.close()
    }
  })
})

async function listed(tool: Tool) {
  const server = createMcpServer([tool], { name: 's', version: '1' })
  const [a, b] = InMemoryTransport.createLinkedPair()
  await server.connect(b)
  const client = new Client({ name: 'c', version: '1' })
  await client.connect(a)
  try {
    return (await client.listTools()).tools
  } finally {
    await client.close()
  }
}
