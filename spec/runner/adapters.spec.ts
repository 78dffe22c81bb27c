import { describe, expect, it } from 'vitest'
import {
  TurnRunner,
  anthropicModel,
  defineTool,
  fromAnthropicResponse,
  fromGeminiResponse,
  fromOpenAIChatResponse,
  geminiModel,
  openAIChatModel,
  toAnthropicMessages,
  toGeminiContents,
  toOpenAIChatMessages,
  validator,
  type AnthropicRequestBody,
  type GeminiRequestBody,
  type Message,
  type OpenAIChatRequestBody,
} from '../../lib/index.js'

const weather = defineTool({
  name: 'weather',
  description: 'Current temperature',
  schema: validator.object({ city: validator.string().required(), units: validator.string().valid('c', 'f') }),
  execute: async ({ city }: { city: string }) => `21 degrees in ${city}`,
})

const conversation: Message[] = [
  { role: 'user', content: 'Weather in Oslo and Rome?' },
  {
    role: 'assistant',
    content: 'Checking.',
    toolCalls: [
      { id: 'c1', name: 'weather', args: { city: 'Oslo' } },
      { id: 'c2', name: 'weather', args: { city: 'Rome' } },
    ],
  },
  { role: 'tool', toolCallId: 'c1', content: '21 degrees in Oslo' },
  { role: 'tool', toolCallId: 'c2', content: 'E_X: down', isError: true },
  { role: 'user', content: 'Thanks' },
]

describe('OpenAI Chat Completions adapter', () => {
  it('writes messages in the Chat Completions shape', () => {
    const messages = toOpenAIChatMessages(conversation, { system: 'Be brief.' })
    expect(messages[0]).toEqual({ role: 'system', content: 'Be brief.' })
    expect(messages[2]).toEqual({
      role: 'assistant',
      content: 'Checking.',
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
        { id: 'c2', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } },
      ],
    })
    expect(messages[3]).toEqual({ role: 'tool', tool_call_id: 'c1', content: '21 degrees in Oslo' })
    expect(messages[4]).toEqual({ role: 'tool', tool_call_id: 'c2', content: 'Error: E_X: down' })
  })

  it('reads tool calls, parsing their JSON arguments', () => {
    const response = fromOpenAIChatResponse({
      choices: [
        {
          message: {
            content: null,
            tool_calls: [
              { id: 'a', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
              { id: 'b', type: 'function', function: { name: 'weather', arguments: '{broken' } },
            ],
          },
        },
      ],
    })
    expect(response).toEqual({
      text: '',
      toolCalls: [
        { id: 'a', name: 'weather', args: { city: 'Oslo' } },
        { id: 'b', name: 'weather', args: '{broken' },
      ],
    })
  })

  it('drives a TurnRunner through a fake client, dropping strict-mode nulls', async () => {
    const bodies: OpenAIChatRequestBody[] = []
    const replies = [
      { choices: [{ message: { content: null, tool_calls: [{ id: 't1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo","units":null}' } }] } }] },
      { choices: [{ message: { content: 'It is 21 degrees.' } }] },
    ]
    const runner = new TurnRunner({
      model: openAIChatModel(
        async (body) => {
          bodies.push(structuredClone(body))
          return replies.shift()!
        },
        { strict: true },
      ),
      tools: [weather],
    })
    const result = await runner.run('Weather in Oslo?')
    expect(result.text).toBe('It is 21 degrees.')
    expect(result.toolCalls[0]!.isError).toBe(false)
    expect(bodies[0]?.tools?.[0]).toMatchObject({ type: 'function', function: { name: 'weather', strict: true } })
    expect(bodies[1]?.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 't1', content: '21 degrees in Oslo' })
  })
})

describe('Anthropic Messages adapter', () => {
  it('merges tool results into one user message of tool_result blocks', () => {
    const messages = toAnthropicMessages(conversation)
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user'])
    expect(messages[1]!.content).toEqual([
      { type: 'text', text: 'Checking.' },
      { type: 'tool_use', id: 'c1', name: 'weather', input: { city: 'Oslo' } },
      { type: 'tool_use', id: 'c2', name: 'weather', input: { city: 'Rome' } },
    ])
    expect(messages[2]!.content).toEqual([
      { type: 'tool_result', tool_use_id: 'c1', content: '21 degrees in Oslo' },
      { type: 'tool_result', tool_use_id: 'c2', content: 'E_X: down', is_error: true },
      { type: 'text', text: 'Thanks' },
    ])
  })

  it('reads text and tool_use blocks', () => {
    expect(
      fromAnthropicResponse({
        content: [
          { type: 'text', text: 'Let me check. ' },
          { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Rome' } },
        ],
      }),
    ).toEqual({ text: 'Let me check. ', toolCalls: [{ id: 'toolu_1', name: 'weather', args: { city: 'Rome' } }] })
  })

  it('drives a TurnRunner through a fake client', async () => {
    const bodies: AnthropicRequestBody[] = []
    const replies = [
      { content: [{ type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Rome' } }] },
      { content: [{ type: 'text', text: 'Warm.' }] },
    ]
    const runner = new TurnRunner({
      model: anthropicModel(
        async (body) => {
          bodies.push(structuredClone(body))
          return replies.shift()!
        },
        { system: 'Be brief.' },
      ),
      tools: [weather],
    })
    expect((await runner.run('Rome?')).text).toBe('Warm.')
    expect(bodies[0]).toMatchObject({ system: 'Be brief.', tools: [{ name: 'weather', input_schema: { type: 'object' } }] })
    expect(bodies[1]?.messages.at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '21 degrees in Rome' }],
    })
  })
})

describe('Gemini adapter', () => {
  it('names function responses after the call they answer', () => {
    const contents = toGeminiContents(conversation)
    expect(contents.map((c) => c.role)).toEqual(['user', 'model', 'user'])
    expect(contents[1]!.parts[1]).toEqual({ functionCall: { id: 'c1', name: 'weather', args: { city: 'Oslo' } } })
    expect(contents[2]!.parts.slice(0, 2)).toEqual([
      { functionResponse: { id: 'c1', name: 'weather', response: { output: '21 degrees in Oslo' } } },
      { functionResponse: { id: 'c2', name: 'weather', response: { error: 'E_X: down' } } },
    ])
  })

  it('reads text and functionCall parts, skipping thoughts', () => {
    const response = fromGeminiResponse({
      candidates: [
        { content: { parts: [{ text: 'thinking…', thought: true }, { text: 'Sure.' }, { functionCall: { name: 'weather', args: { city: 'Oslo' } } }] } },
      ],
    })
    expect(response).toEqual({ text: 'Sure.', toolCalls: [{ id: '', name: 'weather', args: { city: 'Oslo' } }] })
  })

  it('drives a TurnRunner through a fake client (calls without ids get one)', async () => {
    const bodies: GeminiRequestBody[] = []
    const replies = [
      { candidates: [{ content: { parts: [{ functionCall: { name: 'weather', args: { city: 'Oslo' } } }] } }] },
      { candidates: [{ content: { parts: [{ text: 'Mild.' }] } }] },
    ]
    const runner = new TurnRunner({
      model: geminiModel(async (body) => {
        bodies.push(structuredClone(body))
        return replies.shift()!
      }),
      tools: [weather],
    })
    const result = await runner.run('Oslo?')
    expect(result.text).toBe('Mild.')
    expect(bodies[0]?.tools?.[0]?.functionDeclarations[0]).toMatchObject({ name: 'weather', parameters: { type: 'OBJECT' } })
    const part = bodies[1]?.contents.at(-1)?.parts[0]
    const response = part !== undefined && 'functionResponse' in part ? part.functionResponse : undefined
    expect(response).toMatchObject({ name: 'weather', response: { output: '21 degrees in Oslo' } })
    expect(response?.id).toBe(result.toolCalls[0]!.id)
  })
})
