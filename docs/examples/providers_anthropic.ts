/**
 * Anthropic: build the `tools` of a Messages API request and answer a
 * `tool_use` block with a `tool_result` (no API key needed: the response
 * below is what `anthropic.messages.create` returns).
 *
 *   npx tsx docs/examples/providers_anthropic.ts
 */
import { createDispatchContext, defineTool, errorSummary, toAnthropicTools, validator } from 'toolsmith'

const weather = defineTool({
  name: 'weather',
  description: 'Current temperature for a city',
  schema: validator.object({ city: validator.string().required().description('City name') }),
  execute: ({ city }) => `It is 21°C in ${city}`,
})

const { definitions, names } = toAnthropicTools({ weather })
console.log(JSON.stringify(definitions, null, 2)) // → `tools` of the request

const response = {
  stop_reason: 'tool_use',
  content: [
    { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Oslo' } },
    { type: 'tool_use', id: 'toolu_2', name: 'weather', input: {} },
  ],
}

const ctx = createDispatchContext()
const results = []
for (const block of response.content) {
  const tool = names.fromProvider(block.name) === weather.name ? weather : undefined
  try {
    if (!tool) throw new Error(`unknown tool ${block.name}`)
    results.push({ type: 'tool_result', tool_use_id: block.id, content: String(await tool.executor(ctx)(block.input)) })
  } catch (error) {
    results.push({ type: 'tool_result', tool_use_id: block.id, content: errorSummary(error), is_error: true })
  }
}
// The next request's user message carries the results.
console.log(JSON.stringify({ role: 'user', content: results }, null, 2))
