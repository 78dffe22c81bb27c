/**
 * OpenAI: build strict Chat Completions and Responses definitions, then
 * handle a tool call the way a real response would carry it (no API key
 * needed: the response below is what `openai.chat.completions.create` returns).
 *
 *   npx tsx docs/examples/providers_openai.ts
 */
import {
  createDispatchContext,
  defineTool,
  dropOptionalNulls,
  errorSummary,
  toOpenAIResponsesTool,
  toOpenAITools,
  validator,
} from 'toolsmith'

const weather = defineTool({
  name: 'weather',
  description: 'Current temperature for a city',
  schema: validator.object({
    city: validator.string().required().description('City name').example('Oslo'),
    units: validator.string().valid('metric', 'imperial').default('metric').description('Unit system'),
  }),
  execute: ({ city, units }) => `It is ${units === 'metric' ? '21°C' : '70°F'} in ${city}`,
})

// Chat Completions: pass `definitions` as `tools`; keep `names` to resolve calls.
const { definitions, names } = toOpenAITools([weather], { strict: true })
console.log(JSON.stringify(definitions[0], null, 2))
// The Responses API takes the flat shape.
console.log(JSON.stringify(toOpenAIResponsesTool(weather, { strict: true }), null, 2))

// What a strict-mode model sends back: every property present, `null` for "absent".
const toolCall = { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo","units":null}' } }

const ctx = createDispatchContext()
const tool = [weather].find((t) => t.name === names.fromProvider(toolCall.function.name))!
const args = dropOptionalNulls(tool, JSON.parse(toolCall.function.arguments)) // { city: 'Oslo' }: the default applies
let content: string
try {
  content = String(await tool.executor(ctx)(args))
} catch (error) {
  content = errorSummary(error) // send errors back as the tool message, so the model can retry
}
// Append this to `messages` for the next request.
console.log({ role: 'tool', tool_call_id: toolCall.id, content })
