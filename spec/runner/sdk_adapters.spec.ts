/**
 * The official SDKs as type-level tests (issue 11, "What to build" 2 and 3):
 * every provider definition and every adapter body is assigned to the SDK's
 * own request types, every recorded-shape response is typed by the SDK's
 * response types and handed to the adapter, and each adapter runs a two-step
 * turn with a tool call through `TurnRunner`. `npm run typecheck` compiles
 * this file under `--strict`: a shape that drifts from the SDK fails there.
 */
import type { Message as AnthropicResponse, MessageCreateParamsNonStreaming, Tool as AnthropicSdkTool } from '@anthropic-ai/sdk/resources/messages'
import { GenerateContentResponse, type FunctionDeclaration, type GenerateContentParameters, type Schema as GeminiSdkSchema } from '@google/genai'
import type { Tool as McpSdkTool } from '@modelcontextprotocol/sdk/types.js'
import * as aiTest from 'ai/test'
import { MockLanguageModelV3 } from 'ai/test'
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from '@ai-sdk/provider'
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions'
import type { FunctionTool, Response as OpenAIResponse, ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses'
import { describe, expect, it } from 'vitest'
import {
  TurnRunner,
  aiSdkModel,
  anthropicModel,
  defineTool,
  geminiModel,
  openAIChatModel,
  openAIResponsesModel,
  toAnthropicTool,
  toAnthropicTools,
  toGeminiFunctionDeclaration,
  toGeminiSchema,
  toJsonSchema,
  toMcpTool,
  toOpenAIChatMessages,
  toOpenAIResponsesTool,
  toOpenAITool,
  validator,
  type AiSdkLanguageModel,
  type AnthropicRequestBody,
  type GeminiRequestBody,
  type Message,
  type OpenAIChatRequestBody,
  type OpenAIResponsesRequestBody,
} from '../../lib/index.js'

const weather = defineTool({
  name: 'weather',
  description: 'Current temperature',
  schema: validator.object({
    city: validator.string().required(),
    units: validator.string().valid('c', 'f'),
    days: validator.array().items(validator.number().integer().min(1).max(7)).max(3),
  }),
  execute: async ({ city }: { city: string }) => `21 degrees in ${city}`,
})

describe('provider definitions are the SDKs’ own types', () => {
  it('assigns every builder’s output to the SDK type that takes it', () => {
    const chat: ChatCompletionTool = toOpenAITool(weather, { strict: true })
    const responses: FunctionTool = toOpenAIResponsesTool(weather)
    const anthropic: AnthropicSdkTool = toAnthropicTool(weather)
    const gemini: FunctionDeclaration = toGeminiFunctionDeclaration(weather)
    const schema: GeminiSdkSchema = toGeminiSchema(toJsonSchema(weather.inputSchema))
    const mcp: McpSdkTool = toMcpTool(weather)
    expect(anthropic.input_schema.type).toBe('object')
    expect(gemini.parameters?.properties?.days?.maxItems).toBe('3')
    expect(schema.properties?.city?.type).toBe('STRING')
    expect([chat.type, responses.type, mcp.inputSchema.type]).toEqual(['function', 'function', 'object'])
  })

  it('assigns every message role of the Chat Completions adapter to ChatCompletionMessageParam', () => {
    const conversation: Message[] = [
      { role: 'user', content: 'Oslo?' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'weather', args: { city: 'Oslo' } }] },
      { role: 'tool', toolCallId: 'c1', content: '21' },
    ]
    const messages: ChatCompletionMessageParam[] = toOpenAIChatMessages(conversation, { system: 'Be brief.' })
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool'])
  })
})

/** Step 1 asks for the weather, step 2 answers from the tool result. */
function twoSteps<T>(first: T, second: T): { calls: number; next: () => T } {
  const state = { calls: 0, next: () => (state.calls++ === 0 ? first : second) }
  return state
}

describe('OpenAI Chat Completions on the SDK types', () => {
  it('runs a two-step turn with a tool call', async () => {
    const first: ChatCompletion = {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1_763_900_000,
      model: 'gpt-4.1',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          logprobs: null,
          message: {
            role: 'assistant',
            content: null,
            refusal: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo","units":null,"days":null}' } }],
          },
        },
      ],
    }
    const second: ChatCompletion = {
      ...first,
      id: 'chatcmpl-2',
      choices: [{ index: 0, finish_reason: 'stop', logprobs: null, message: { role: 'assistant', content: 'Mild.', refusal: null } }],
    }
    const script = twoSteps(first, second)
    const bodies: ChatCompletionCreateParamsNonStreaming[] = []
    const runner = new TurnRunner({
      tools: [weather],
      model: openAIChatModel(
        async (body: OpenAIChatRequestBody) => {
          bodies.push({ model: 'gpt-4.1', ...body })
          return script.next()
        },
        { strict: true },
      ),
    })
    const result = await runner.run('Oslo?')
    expect(result.text).toBe('Mild.')
    expect(result.toolCalls[0]!.isError).toBe(false)
    expect(bodies[1]!.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_1', content: '21 degrees in Oslo' })
  })
})

describe('OpenAI Responses API on the SDK types', () => {
  it('runs a two-step turn: function_call, function_call_output, reasoning items carried back', async () => {
    const base = {
      object: 'response' as const,
      created_at: 1_763_900_000,
      model: 'gpt-5',
      status: 'completed' as const,
      error: null,
      incomplete_details: null,
      instructions: null,
      metadata: null,
      parallel_tool_calls: true,
      temperature: null,
      tool_choice: 'auto' as const,
      tools: [],
      top_p: null,
      output_text: '',
    }
    const first: OpenAIResponse = {
      ...base,
      id: 'resp_1',
      output: [
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Need the weather.' }], encrypted_content: 'gAAAA…' },
        { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}', status: 'completed' },
      ],
    }
    const second: OpenAIResponse = {
      ...base,
      id: 'resp_2',
      output: [
        {
          type: 'message',
          id: 'msg_1',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Mild.', annotations: [] }],
        },
      ],
    }
    const script = twoSteps(first, second)
    const bodies: ResponseCreateParamsNonStreaming[] = []
    const runner = new TurnRunner({
      tools: [weather],
      model: openAIResponsesModel(
        async (body: OpenAIResponsesRequestBody) => {
          bodies.push({ model: 'gpt-5', store: false, include: ['reasoning.encrypted_content'], ...body })
          return script.next()
        },
        { system: 'Be brief.' },
      ),
    })
    const result = await runner.run('Oslo?')
    expect(result.text).toBe('Mild.')
    expect(result.toolCalls.map((c) => [c.tool, c.isError])).toEqual([['weather', false]])
    expect(bodies[0]).toMatchObject({ instructions: 'Be brief.', input: [{ role: 'user', content: 'Oslo?' }] })
    expect(bodies[1]!.input).toEqual([
      { role: 'user', content: 'Oslo?' },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Need the weather.' }], encrypted_content: 'gAAAA…' },
      { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' },
      { type: 'function_call_output', call_id: 'call_1', output: '21 degrees in Oslo' },
    ])
  })
})

describe('Anthropic Messages on the SDK types', () => {
  it('runs a two-step turn and sends thinking and redacted_thinking blocks back with their signatures', async () => {
    const usage: AnthropicResponse['usage'] = {
      cache_creation: null,
      cache_creation_input_tokens: null,
      cache_read_input_tokens: null,
      inference_geo: null,
      input_tokens: 10,
      output_tokens: 20,
      output_tokens_details: null,
      server_tool_use: null,
      service_tier: null,
      speed: null,
    }
    const base = { type: 'message' as const, role: 'assistant' as const, model: 'claude-sonnet-4-5', container: null, diagnostics: null, stop_details: null, stop_sequence: null, usage }
    const first: AnthropicResponse = {
      ...base,
      id: 'msg_1',
      stop_reason: 'tool_use',
      content: [
        { type: 'thinking', thinking: 'The user wants Oslo.', signature: 'EqQBCkgIARABGAIiQL…' },
        { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix…' },
        { type: 'text', text: 'Checking.', citations: null },
        { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Oslo' }, caller: { type: 'direct' } },
      ],
    }
    const second: AnthropicResponse = { ...base, id: 'msg_2', stop_reason: 'end_turn', content: [{ type: 'text', text: 'Mild.', citations: null }] }
    const script = twoSteps(first, second)
    const bodies: MessageCreateParamsNonStreaming[] = []
    const runner = new TurnRunner({
      tools: [weather],
      model: anthropicModel(async (body: AnthropicRequestBody) => {
        bodies.push({ model: 'claude-sonnet-4-5', max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 }, ...body })
        return script.next()
      }),
    })
    const result = await runner.run('Oslo?')
    expect(result.text).toBe('Mild.')
    expect(bodies[1]!.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'The user wants Oslo.', signature: 'EqQBCkgIARABGAIiQL…' },
        { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix…' },
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Oslo' } },
      ],
    })
    expect(bodies[1]!.messages[2]).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '21 degrees in Oslo' }] })
    // A set's definitions fit the SDK's tools list too.
    const tools: MessageCreateParamsNonStreaming['tools'] = toAnthropicTools([weather]).definitions
    expect(tools).toHaveLength(1)
  })
})

describe('Gemini generateContent on the SDK types', () => {
  it('runs a two-step turn and sends each functionCall part back with its thoughtSignature', async () => {
    const first: GenerateContentResponse = Object.assign(new GenerateContentResponse(), {
      candidates: [
        {
          index: 0,
          content: {
            role: 'model',
            parts: [
              { text: 'Let me check.', thought: true },
              { functionCall: { id: 'fc1', name: 'weather', args: { city: 'Oslo' } }, thoughtSignature: 'CiQB0e2Kb…' },
              { functionCall: { name: 'weather', args: { city: 'Rome' } } },
            ],
          },
        },
      ],
    } satisfies Partial<GenerateContentResponse>)
    const second: GenerateContentResponse = Object.assign(new GenerateContentResponse(), {
      candidates: [{ index: 0, content: { role: 'model', parts: [{ text: 'Mild in both.', thoughtSignature: 'Cj4B0e2Kb…' }] } }],
    } satisfies Partial<GenerateContentResponse>)
    const script = twoSteps(first, second)
    const requests: GenerateContentParameters[] = []
    const runner = new TurnRunner({
      tools: [weather],
      model: geminiModel(
        async ({ contents, tools, systemInstruction }: GeminiRequestBody) => {
          requests.push({ model: 'gemini-3-pro-preview', contents, config: { tools, systemInstruction } })
          return script.next()
        },
        { system: 'Be brief.' },
      ),
    })
    const result = await runner.run('Oslo and Rome?')
    expect(result.text).toBe('Mild in both.')
    expect(result.toolCalls.map((c) => c.isError)).toEqual([false, false])
    const contents = requests[1]!.contents as { role: string; parts: Record<string, unknown>[] }[]
    expect(contents[1]).toEqual({
      role: 'model',
      parts: [
        { functionCall: { id: 'fc1', name: 'weather', args: { city: 'Oslo' } }, thoughtSignature: 'CiQB0e2Kb…' },
        { functionCall: { id: expect.any(String), name: 'weather', args: { city: 'Rome' } } },
      ],
    })
    expect(contents[2]!.parts.map((p) => (p.functionResponse as { response: unknown }).response)).toEqual([
      { output: '21 degrees in Oslo' },
      { output: '21 degrees in Rome' },
    ])
  })
})

describe('AI SDK LanguageModel (v3 of ai@6, v4 of ai@7)', () => {
  const finish = (unified: 'tool-calls' | 'stop') => ({ unified, raw: unified })
  const usage = {
    inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 5, text: 5, reasoning: 0 },
  }

  it('is a LanguageModelV3 the adapter accepts', () => {
    const model: LanguageModelV3 = new MockLanguageModelV3()
    const accepted: AiSdkLanguageModel = model
    expect(accepted.specificationVersion).toBe('v3')
  })

  type Script = () => Promise<LanguageModelV3GenerateResult>
  type Scripted = { model: AiSdkLanguageModel; calls: () => LanguageModelV3CallOptions[] }
  // ai@7's providers are LanguageModelV4 (ai@6's are V3); for what the adapter writes and reads the two agree.
  // A plain v4 object runs whichever `ai` is installed; ai@7's own MockLanguageModelV4 runs when ai@7 is.
  const MockV4 = (aiTest as Record<string, unknown>).MockLanguageModelV4 as typeof MockLanguageModelV3 | undefined
  const models: [string, (doGenerate: Script) => Scripted][] = [
    [
      'MockLanguageModelV3',
      (doGenerate) => {
        const model = new MockLanguageModelV3({ doGenerate })
        return { model, calls: () => model.doGenerateCalls }
      },
    ],
    [
      'a LanguageModelV4 object',
      (doGenerate) => {
        const calls: LanguageModelV3CallOptions[] = []
        const model = {
          specificationVersion: 'v4',
          provider: 'test',
          modelId: 'v4',
          doGenerate: async (options: unknown) => {
            calls.push(options as LanguageModelV3CallOptions)
            return doGenerate()
          },
        }
        return { model, calls: () => calls }
      },
    ],
    ...(MockV4 === undefined
      ? []
      : [
          [
            'MockLanguageModelV4 (ai@7)',
            (doGenerate: Script): Scripted => {
              const model = new MockV4({ doGenerate })
              expect(model.specificationVersion).toBe('v4')
              return { model, calls: () => model.doGenerateCalls }
            },
          ] as [string, (doGenerate: Script) => Scripted],
        ]),
  ]

  it.each(models)('runs a two-step turn with a tool call, reasoning sent back with its provider metadata: %s', async (_label, scripted) => {
    const first: LanguageModelV3GenerateResult = {
      content: [
        { type: 'reasoning', text: 'Oslo weather needed.', providerMetadata: { anthropic: { signature: 'sig-1' } } },
        { type: 'tool-call', toolCallId: 'call-1', toolName: 'weather', input: '{"city":"Oslo","units":null}' },
      ],
      finishReason: finish('tool-calls'),
      usage,
      warnings: [],
    }
    const second: LanguageModelV3GenerateResult = { content: [{ type: 'text', text: 'Mild.' }], finishReason: finish('stop'), usage, warnings: [] }
    const script = twoSteps(first, second)
    const { model, calls: callsOf } = scripted(async () => script.next())
    const runner = new TurnRunner({ tools: [weather], model: aiSdkModel(model, { system: 'Be brief.' }) })
    const result = await runner.run('Oslo?')
    expect(result.text).toBe('Mild.')
    expect(result.toolCalls.map((c) => [c.tool, c.isError, c.args])).toEqual([['weather', false, { city: 'Oslo' }]])

    const calls: LanguageModelV3CallOptions[] = callsOf()
    expect(calls[0]!.tools).toEqual([
      { type: 'function', name: 'weather', description: 'Current temperature', inputSchema: expect.objectContaining({ type: 'object' }) },
    ])
    expect(calls[1]!.prompt).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'Oslo?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Oslo weather needed.', providerOptions: { anthropic: { signature: 'sig-1' } } },
          // The runner stores what the model sent; optional nulls were dropped before validation.
          { type: 'tool-call', toolCallId: 'call-1', toolName: 'weather', input: { city: 'Oslo' } },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call-1', toolName: 'weather', output: { type: 'text', value: '21 degrees in Oslo' } }] },
    ])
  })

  it('refuses what is not a v3 or v4 language model', () => {
    expect(() => aiSdkModel('openai/gpt-5' as never)).toThrow(/resolve a model id first/)
    expect(() => aiSdkModel({ specificationVersion: 'v2', provider: 'x', modelId: 'y', doGenerate: async () => ({ content: [] }) })).toThrow(
      /LanguageModelV3/,
    )
  })
})
