/**
 * Every definition a provider receives, for the custom tools and the five
 * built-ins, as readable JSON files under __snapshots__/definitions/.
 */
import { describe, expect, it } from 'vitest'
import {
  toAnthropicTool,
  toGeminiFunctionDeclaration,
  toJsonSchema,
  toMcpTool,
  toOpenAIResponsesTool,
  toOpenAITool,
  type Tool,
} from '../../lib/index.js'
import { allTools } from './support/catalogue.js'
import { createForecastTool } from './support/custom_tools.js'

const providers: [string, (tool: Tool) => unknown][] = [
  ['jsonschema', (t) => toJsonSchema(t.inputSchema)],
  ['openai-chat', (t) => toOpenAITool(t)],
  ['openai-chat-strict', (t) => toOpenAITool(t, { strict: true })],
  ['openai-responses', (t) => toOpenAIResponsesTool(t)],
  ['openai-responses-strict', (t) => toOpenAIResponsesTool(t, { strict: true })],
  ['anthropic', (t) => toAnthropicTool(t)],
  ['gemini', (t) => toGeminiFunctionDeclaration(t)],
  ['mcp', (t) => toMcpTool(t)],
]

describe.each(providers)('%s definitions', (provider, build) => {
  // forecast has an output schema: described where the provider has a field for it.
  for (const tool of [...allTools(), createForecastTool()]) {
    it(`${tool.name} matches __snapshots__/definitions/${provider}/${tool.name}.json`, async () => {
      const fromTool = build(tool)
      // The plain describe() snapshot must give exactly the same definition.
      const fromDescription = build(tool.describe() as unknown as Tool)
      expect(fromDescription).toEqual(fromTool)
      await expect(`${JSON.stringify(fromTool, null, 2)}\n`).toMatchFileSnapshot(
        `./__snapshots__/definitions/${provider}/${tool.name}.json`,
      )
    })
  }
})
