/**
 * Output schemas through the public barrel: the executor validates results,
 * MCP answers with structuredContent (checked by the SDK's own client), the
 * AI SDK gets the object as the tool's output, and the definitions that have
 * a field for it describe it.
 */
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from '@ai-sdk/provider'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { generateText, safeValidateUIMessages, stepCountIs } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { afterAll, describe, expect, it } from 'vitest'
import {
  E_INVALID_INITIAL_TOOL_VALUE,
  E_INVALID_TOOL_OUTPUT,
  MCP_IDEMPOTENCY_KEY_META,
  SpooledArtifact,
  SqliteJournal,
  Tool,
  TurnRunner,
  createCallContext,
  createDispatchContext,
  createMcpServer,
  defineTool,
  toAiSdkTools,
  toAnthropicTool,
  toGeminiFunctionDeclaration,
  toJsonSchema,
  toMcpCallResult,
  toMcpTool,
  toOpenAIResponsesTool,
  toOpenAITool,
  toolResultToText,
  scriptedModel,
  validator,
  type ToolCollection,
} from '../../lib/index.js'
import { removeTrackedDirs, trackedMkdtemp } from '../support/temp_dirs.js'
import { createForecastTool, createTicketTool } from './support/custom_tools.js'

afterAll(() => removeTrackedDirs())

const OSLO = { city: 'Oslo', tempC: 21.5, conditions: 'sunny', hourly: [] }

type CallResult = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: unknown }

async function mcpClient(tools: ToolCollection, journal?: SqliteJournal): Promise<Client> {
  const server = createMcpServer(tools, { name: 'spec', version: '1.0.0', ...(journal ? { journal } : {}) })
  const [a, b] = InMemoryTransport.createLinkedPair()
  await server.connect(b)
  const client = new Client({ name: 'spec-client', version: '1.0.0' })
  await client.connect(a)
  return client
}

describe('a tool with an output schema', () => {
  it('returns the validated object (defaults applied) and describes the schema', async () => {
    const tool = createForecastTool()
    await expect(tool.executor(createDispatchContext())({ city: 'Oslo' })).resolves.toEqual(OSLO)
    const described = tool.describe()
    expect(described.outputSchema).toEqual(tool.outputSchema!.describe())
    expect(validator.build(described.outputSchema!).validate({ city: 'x', tempC: 1, conditions: 'rain' }).error).toBeUndefined()
    // A tool without one describes none.
    expect('outputSchema' in createTicketTool().describe()).toBe(false)
    const defined = defineTool({
      name: 'sum',
      schema: validator.object({ a: validator.number(), b: validator.number() }),
      outputSchema: validator.object({ sum: validator.number().required() }),
      execute: ({ a, b }: { a: number; b: number }) => ({ sum: String(a + b) }),
    })
    // joi's conversions apply: the numeric string comes back a number.
    await expect(defined.executor(createDispatchContext())({ a: 1, b: 2 })).resolves.toEqual({ sum: 3 })
  })

  it('fails an invalid result with E_INVALID_TOOL_OUTPUT naming the path, and a non-object result too', async () => {
    const ends: boolean[] = []
    const ctx = createDispatchContext({ onToolExecutionEnd: (e) => ends.push(e.isError) })
    const error = await createForecastTool().executor(ctx)({ city: 'Oslo', broken: true }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(E_INVALID_TOOL_OUTPUT)
    expect(error).toMatchObject({
      code: 'E_INVALID_TOOL_OUTPUT',
      message: 'Tool "forecast" returned a result its output schema rejects: "tempC" must be a number',
      details: { toolName: 'forecast', issues: [{ path: 'tempC', type: 'number.base' }] },
    })
    expect(ends).toEqual([true])
    const text = new Tool({
      name: 'texty',
      description: '',
      inputSchema: validator.object(),
      outputSchema: validator.object({ n: validator.number() }),
      handler: async () => 'not an object',
    })
    await expect(text.executor(ctx)({})).rejects.toMatchObject({
      code: 'E_INVALID_TOOL_OUTPUT',
      message: expect.stringContaining('must return a plain object matching it; it returned a string'),
    })
  })

  it('refuses a non-object output schema and one beside an artifact class at construction', () => {
    const base = { name: 't', description: '', inputSchema: validator.object(), handler: async () => 'x' }
    expect(() => new Tool({ ...base, outputSchema: validator.array() as never })).toThrow(E_INVALID_INITIAL_TOOL_VALUE)
    expect(() => new Tool({ ...base, outputSchema: validator.array() as never })).toThrow(/"outputSchema" must be a joi object schema/)
    expect(() => new Tool({ ...base, outputSchema: validator.object(), artifactConstructor: () => SpooledArtifact })).toThrow(
      /"outputSchema" and "artifactConstructor" exclude each other/,
    )
  })

  it('replays a keyed call from the journal as the same object, without running the handler again', async () => {
    const journal = new SqliteJournal(join(trackedMkdtemp(join(tmpdir(), 'toolsmith-output-')), 'j.db'))
    const runs: string[] = []
    const client = await mcpClient([createForecastTool(runs)], journal)
    try {
      const request = { name: 'forecast', arguments: { city: 'Oslo' }, _meta: { [MCP_IDEMPOTENCY_KEY_META]: 'forecast-1' } }
      const first = (await client.callTool(request)) as CallResult
      const second = (await client.callTool(request)) as CallResult
      expect(runs).toEqual(['Oslo'])
      expect(first.structuredContent).toEqual(OSLO)
      expect(second.structuredContent).toEqual(OSLO)
      // The journal keeps canonical JSON (sorted keys): the same object, its text in another key order.
      expect(JSON.parse(second.content[0]!.text!)).toEqual(OSLO)
      expect((await journal.list()).map((r) => r.replayed === true)).toEqual([false, true])
    } finally {
      await client.close()
      journal.close()
    }
  })

  it("says so when the journal's cap cut the recorded result it would replay", async () => {
    const journal = new SqliteJournal(join(trackedMkdtemp(join(tmpdir(), 'toolsmith-output-')), 'j.db'), { maxOutputBytes: 20 })
    const runs: string[] = []
    const tool = createForecastTool(runs)
    const keyed = () => createCallContext(createDispatchContext({ journal }), { toolCallId: 'x', idempotencyScope: 'cut' })
    await expect(tool.executor(keyed())({ city: 'Oslo' })).resolves.toEqual(OSLO)
    await expect(tool.executor(keyed())({ city: 'Oslo' })).rejects.toMatchObject({
      code: 'E_INVALID_TOOL_OUTPUT',
      message: expect.stringContaining('the journal holds no whole result for this call (its maxOutputBytes cut it)'),
    })
    expect(runs).toEqual(['Oslo'])
    journal.close()
  })

  it("checks a reconcile hook's result against the output schema too", async () => {
    const journal = new SqliteJournal(join(trackedMkdtemp(join(tmpdir(), 'toolsmith-output-')), 'j.db'))
    const tool = new Tool({
      name: 'book',
      description: 'Book a table',
      inputSchema: validator.object({ table: validator.number().required() }),
      outputSchema: validator.object({ booking: validator.string().required() }),
      sideEffect: true,
      idempotent: false,
      handler: async (_args, _ctx, _meta, _call) => ({ booking: 'B-1' }),
      // The lost run's effect happened; what it tells is not what the schema says.
      reconcile: () => ({ applied: true, result: { booking: 42 } }),
    })
    const ctx = createCallContext(createDispatchContext({ journal }), { toolCallId: 'x', idempotencyScope: 'dinner' })
    const prepared = await tool.executor(ctx).prepare({ table: 4 })
    await journal.claim({
      claimKey: prepared.idempotencyKey,
      owner: 'elsewhere:1234:dead',
      leaseMs: 1,
      flags: { sideEffect: true, idempotent: false },
      row: {
        runId: 'old', nodeId: 'call', iteration: 0, attempt: 1, seq: 0, toolName: 'book', inputJson: '{"table":4}', outputJson: null,
        startedAtMs: 1_700_000_000_000, finishedAtMs: 1_700_000_000_000, status: 'error', errorJson: null,
        callId: prepared.callId, idempotencyKey: prepared.idempotencyKey,
      },
    })
    // The lease (1 ms) has to lapse on the store's clock.
    for (let i = 0; i < 100 && !(await journal.getClaim(prepared.idempotencyKey))?.leaseExpired; i++) await new Promise((r) => setTimeout(r, 10))
    await expect(tool.executor(ctx)({ table: 4 })).rejects.toMatchObject({ code: 'E_INVALID_TOOL_OUTPUT', details: { issues: [{ path: 'booking' }] } })
    journal.close()
  })
})

describe('the turn runner', () => {
  it("sends the model the validated object's JSON", async () => {
    const runner = new TurnRunner({
      model: scriptedModel([{ toolCalls: [{ id: 'c1', name: 'forecast', args: { city: 'Oslo' } }] }, { text: 'done' }]),
      tools: [createForecastTool()],
    })
    const { messages } = await runner.run('weather in Oslo?')
    expect(messages.find((m) => m.role === 'tool')).toMatchObject({ toolCallId: 'c1', content: JSON.stringify(OSLO) })
  })
})

describe('MCP', () => {
  it('lists outputSchema and answers with structuredContent plus its JSON text; an invalid result is an error without it', async () => {
    const client = await mcpClient([createForecastTool(), createTicketTool()])
    try {
      const { tools } = await client.listTools()
      const forecast = tools.find((t) => t.name === 'forecast')!
      expect(forecast.outputSchema).toEqual(toJsonSchema(createForecastTool().outputSchema!))
      expect(tools.find((t) => t.name === 'create_ticket')!.outputSchema).toBeUndefined()
      // The SDK client checks structuredContent against the listed outputSchema itself.
      const ok = (await client.callTool({ name: 'forecast', arguments: { city: 'Oslo' } })) as CallResult
      expect(ok.isError).toBeUndefined()
      expect(ok.structuredContent).toEqual(OSLO)
      expect(ok.content).toEqual([{ type: 'text', text: JSON.stringify(OSLO) }])
      const bad = (await client.callTool({ name: 'forecast', arguments: { city: 'Oslo', broken: true } })) as CallResult
      expect(bad.isError).toBe(true)
      expect(bad.structuredContent).toBeUndefined()
      expect(bad.content[0]!.text).toMatch(/^E_INVALID_TOOL_OUTPUT: Tool "forecast" returned a result its output schema rejects: "tempC" must be a number/)
      // A tool without an output schema answers as before: text only.
      const ticket = (await client.callTool({ name: 'create_ticket', arguments: { title: 'Crash' } })) as CallResult
      expect(ticket).toEqual({ content: [{ type: 'text', text: 'TICKET-1 Crash (normal)' }] })
    } finally {
      await client.close()
    }
  })

  it('toMcpCallResult caps the text block, never structuredContent', async () => {
    const tool = createForecastTool()
    const big = { city: 'x'.repeat(500), tempC: 1, conditions: 'rain', hourly: [] }
    const result = await toMcpCallResult(tool, big, { maxBytes: 100 })
    expect(result.structuredContent).toBe(big)
    expect(result.content[0]!.text).toBe(await toolResultToText(big, { maxBytes: 100 }))
    expect(result.content[0]!.text).toContain('bytes truncated')
    expect(toMcpTool(tool).outputSchema).toMatchObject({ type: 'object', required: ['city', 'conditions', 'tempC'] })
  })
})

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
}

function step(content: LanguageModelV3GenerateResult['content'], tools: boolean): LanguageModelV3GenerateResult {
  return { content, finishReason: { unified: tools ? 'tool-calls' : 'stop', raw: undefined }, usage, warnings: [] }
}

describe('AI SDK', () => {
  it('passes outputSchema and returns the validated object as the typed tool output; an invalid result is a tool error', async () => {
    const prompts: LanguageModelV3CallOptions[] = []
    const steps = [
      step(
        [
          { type: 'tool-call', toolCallId: 'c1', toolName: 'forecast', input: JSON.stringify({ city: 'Oslo' }) },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'forecast', input: JSON.stringify({ city: 'Oslo', broken: true }) },
        ],
        true,
      ),
      step([{ type: 'text', text: 'done' }], false),
    ]
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        prompts.push(options)
        return steps[prompts.length - 1]!
      },
    })
    const tools = toAiSdkTools([createForecastTool()], createDispatchContext())
    expect(tools.forecast!.outputSchema!.jsonSchema).toEqual(toJsonSchema(createForecastTool().outputSchema!))
    const result = await generateText({ model, tools, prompt: 'weather?', stopWhen: stepCountIs(3) })

    const first = result.steps[0]!
    expect(first.toolResults.map((r) => [r.toolCallId, r.output])).toEqual([['c1', OSLO]])
    const errors = first.content.filter((p) => p.type === 'tool-error')
    expect(errors.map((e) => (e as { error: { code: string } }).error.code)).toEqual(['E_INVALID_TOOL_OUTPUT'])
    // The model reads the object as JSON, not as text.
    const sent = prompts[1]!.prompt.flatMap((m) => (m.role === 'tool' ? m.content : []))
    expect(sent.find((p) => p.type === 'tool-result' && p.toolCallId === 'c1')).toMatchObject({ output: { type: 'json', value: OSLO } })
  })

  it('lets validateUIMessages check stored outputs against the output schema', async () => {
    const tools = toAiSdkTools([createForecastTool()], createDispatchContext())
    const message = (output: unknown) => [
      {
        id: 'm1',
        role: 'assistant' as const,
        parts: [{ type: 'tool-forecast', toolCallId: 'c1', state: 'output-available', input: { city: 'Oslo' }, output }],
      },
    ]
    await expect(safeValidateUIMessages({ messages: message(OSLO), tools: tools as never })).resolves.toMatchObject({ success: true })
    const bad = await safeValidateUIMessages({ messages: message({ ...OSLO, tempC: 'warm' }), tools: tools as never })
    expect(bad.success).toBe(false)
    expect(String((bad as { error: Error }).error.message)).toContain('"tempC" must be a number')
  })
})

describe('provider definitions', () => {
  const tool = createForecastTool()
  const json = toJsonSchema(tool.outputSchema!)

  it('Gemini describes it as response, OpenAI Responses as output_schema', () => {
    expect(toGeminiFunctionDeclaration(tool).response).toMatchObject({
      type: 'OBJECT',
      required: ['city', 'conditions', 'tempC'],
      properties: { tempC: { type: 'NUMBER', description: 'Temperature in °C' } },
    })
    expect(toOpenAIResponsesTool(tool).output_schema).toEqual(json)
    expect(toOpenAIResponsesTool(tool, { strict: true }).output_schema).toEqual(json)
  })

  it('OpenAI Chat Completions and Anthropic have no field for it: their definitions are unchanged', () => {
    expect(toOpenAITool(tool).function).not.toHaveProperty('output_schema')
    expect(Object.keys(toAnthropicTool(tool)).sort()).toEqual(['description', 'input_schema', 'name'])
    expect(toGeminiFunctionDeclaration(createTicketTool())).not.toHaveProperty('response')
  })

  it('keeps the output schema of a describe() snapshot read back from JSON', () => {
    const snapshot = JSON.parse(JSON.stringify(tool.describe()))
    expect(toMcpTool(snapshot).outputSchema).toEqual(toMcpTool(tool).outputSchema)
    expect(toGeminiFunctionDeclaration(snapshot).response).toEqual(toGeminiFunctionDeclaration(tool).response)
  })
})
