/**
 * A zod 4 tool gets exactly the provider definitions of its joi twin, for
 * every provider builder (strict modes and Gemini's key renaming included),
 * from the live tool and from its plain `describe()` snapshot.
 */
import { describe, expect, it } from 'vitest'
import {
  toAnthropicTool,
  toGeminiFunctionDeclaration,
  toGeminiFunctionDeclarations,
  toJsonSchema,
  toMcpTool,
  toOpenAIResponsesTool,
  toOpenAITool,
  toolDefinition,
  toAiSdkTools,
  createDispatchContext,
  dropOptionalNulls,
  type Tool,
} from '../../lib/index.js'
import { joiBookingTool, zodBookingTool } from './support/zod_twins.js'

const providers: [string, (tool: Tool) => unknown][] = [
  ['jsonschema', (t) => toJsonSchema(t.inputSchema)],
  ['openai-chat', (t) => toOpenAITool(t)],
  ['openai-chat-strict', (t) => toOpenAITool(t, { strict: true })],
  ['openai-responses', (t) => toOpenAIResponsesTool(t)],
  ['openai-responses-strict', (t) => toOpenAIResponsesTool(t, { strict: true })],
  ['anthropic', (t) => toAnthropicTool(t)],
  ['gemini', (t) => toGeminiFunctionDeclaration(t)],
  ['mcp', (t) => toMcpTool(t)],
  ['runner', (t) => toolDefinition(t).jsonSchema],
  ['ai-sdk', (t) => toAiSdkTools([t], createDispatchContext())[t.name]!.inputSchema.jsonSchema],
]

describe.each(providers)('%s definition of a zod tool', (provider, build) => {
  it('equals its joi twin, from the tool and from describe()', () => {
    const zod = zodBookingTool()
    const joi = build(joiBookingTool())
    expect(build(zod)).toEqual(joi)
    // toJsonSchema, the runner and the AI SDK take live tools (or schemas) only.
    if (!['jsonschema', 'runner', 'ai-sdk'].includes(provider)) expect(build(zod.describe() as unknown as Tool)).toEqual(joi)
  })
})

describe('a zod tool through the provider argument helpers', () => {
  it('maps Gemini-renamed keys back like its joi twin', () => {
    for (const tool of [joiBookingTool(), zodBookingTool()]) {
      const { definitions, keys } = toGeminiFunctionDeclarations([tool])
      expect(JSON.stringify(definitions)).toContain('_top')
      expect(keys!.argsFromProvider('book_room', { people: 2, room: 'Fjord', _top: 5 })).toEqual({ people: 2, room: 'Fjord', $top: 5 })
    }
  })

  it('drops the nulls strict mode sends for optional keys, nested ones too, like its joi twin', () => {
    const args = { people: 2, room: 'Fjord', size: null, organiser: { name: 'Ada', email: null }, agenda: [{ topic: 'x', minutes: null }] }
    const expected = { people: 2, room: 'Fjord', organiser: { name: 'Ada' }, agenda: [{ topic: 'x' }] }
    expect(dropOptionalNulls(joiBookingTool(), args)).toEqual(expected)
    expect(dropOptionalNulls(zodBookingTool(), args)).toEqual(expected)
    expect(dropOptionalNulls(zodBookingTool().describe(), args)).toEqual(expected)
  })
})
