/**
 * Gemini: build function declarations (OpenAPI subset) and answer a
 * `functionCall` part with a `functionResponse` (no API key needed: the
 * candidate below is what `ai.models.generateContent` returns).
 *
 *   npx tsx docs/examples/providers_gemini.ts
 */
import { createDispatchContext, defineTool, errorSummary, toGeminiFunctionDeclarations, validator } from 'toolsmith'

const forecast = defineTool({
  name: 'forecast',
  description: 'Daily forecast for a city',
  schema: validator.object({
    city: validator.string().required(),
    days: validator.number().integer().valid(1, 3, 7).default(3).description('How many days'),
    units: validator.string().valid('metric', 'imperial').allow(null),
  }),
  execute: ({ city, days }) => `${days} sunny days in ${city}`,
})

const { definitions, names } = toGeminiFunctionDeclarations([forecast])
// `days` keeps type integer with its allowed values in the description; `units` is nullable.
console.log(JSON.stringify({ tools: [{ functionDeclarations: definitions }] }, null, 2))

const part = { functionCall: { name: 'forecast', args: { city: 'Oslo', days: 7 } } }

const ctx = createDispatchContext()
let response: Record<string, unknown>
try {
  if (names.fromProvider(part.functionCall.name) !== forecast.name) throw new Error('unknown function')
  response = { output: String(await forecast.executor(ctx)(part.functionCall.args)) }
} catch (error) {
  response = { error: errorSummary(error) }
}
console.log(JSON.stringify({ role: 'user', parts: [{ functionResponse: { name: part.functionCall.name, response } }] }, null, 2))
