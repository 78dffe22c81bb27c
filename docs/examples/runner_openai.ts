/**
 * Plugging a provider SDK into TurnRunner with an adapter. A fake client
 * stands in for `new OpenAI()` so this runs offline; with the real SDK the
 * `send` function is the one commented line.
 *
 *   npx tsx docs/examples/runner_openai.ts
 */
import { TurnRunner, defineTool, openAIChatModel, validator, type OpenAIChatRequestBody } from 'toolsmith'

const weather = defineTool({
  name: 'weather',
  description: 'Current temperature for a city',
  schema: validator.object({ city: validator.string().required() }),
  execute: async ({ city }) => `21°C in ${city}`,
})

// Two canned Chat Completions responses: a tool call, then the answer.
const responses = [
  { choices: [{ message: { content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }] } }] },
  { choices: [{ message: { content: 'It is 21°C in Oslo.' } }] },
]
const fakeClient = {
  chat: {
    completions: {
      // Same shape as the SDK's create(body, { signal }).
      create: async (body: OpenAIChatRequestBody & { model: string }, _options: { signal: AbortSignal }) => {
        console.log('request:', JSON.stringify(body))
        return responses.shift()!
      },
    },
  },
}

const runner = new TurnRunner({
  model: openAIChatModel((body, signal) =>
    // With the SDK: client.chat.completions.create({ model: 'gpt-4.1', ...body }, { signal })
    fakeClient.chat.completions.create({ model: 'gpt-4.1', ...body }, { signal }),
  ),
  tools: [weather],
})
const result = await runner.run('What is the weather in Oslo?')
console.log('answer:', result.text)
