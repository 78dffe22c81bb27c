/**
 * Vercel AI SDK: hand tools to `generateText`. A scripted mock model from
 * `ai/test` stands in for a real one (swap in `openai('gpt-4.1')` or any
 * provider model), calling `weather` and then answering.
 *
 *   npx tsx docs/examples/providers_ai_sdk.ts
 */
import { generateText, stepCountIs } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { createDispatchContext, defineTool, toAiSdkTools, validator } from 'toolsmith'

const weather = defineTool({
  name: 'weather',
  description: 'Current temperature for a city',
  schema: validator.object({ city: validator.string().required().description('City name') }),
  execute: ({ city }) => `It is 21°C in ${city}`,
})

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
}
let step = 0
const model = new MockLanguageModelV3({
  doGenerate: async () =>
    step++ === 0
      ? {
          content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'weather', input: '{"city":"Oslo"}' }],
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage,
          warnings: [],
        }
      : { content: [{ type: 'text', text: 'Warm enough for a walk.' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] },
})

const ctx = createDispatchContext()
ctx.on('toolExecutionEnd', (e) => console.log(`ran ${e.toolName} in ${e.durationMs.toFixed(1)} ms`))

const result = await generateText({
  model,
  tools: toAiSdkTools([weather], ctx),
  prompt: 'Should I go for a walk in Oslo?',
  stopWhen: stepCountIs(5),
})
console.log(result.steps.flatMap((s) => s.toolResults.map((r) => r.output)))
console.log(result.text)
