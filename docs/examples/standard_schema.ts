/**
 * A zod 4 tool: the handler's args are inferred from the schema, a bad call
 * is refused with the same E_INVALID_TOOL_ARGS as a joi tool's, and OpenAI's
 * definition comes from zod's own JSON Schema.
 *
 *   npx tsx docs/examples/standard_schema.ts
 */
import { z } from 'zod'
import { Tool, createDispatchContext, toOpenAITool } from 'toolsmith'

const weather = new Tool({
  name: 'weather',
  description: 'Current temperature for a city',
  inputSchema: z.strictObject({
    city: z.string().min(1).describe('City name'),
    days: z.number().int().min(1).default(1),
  }),
  // city: string, days: number (the default applied), inferred from the schema.
  handler: async ({ city, days }) => `It is 21°C in ${city} for ${days} day(s)`,
})

const run = weather.executor(createDispatchContext())
console.log('result:', await run({ city: 'Oslo' }))
// The executor takes the schema's input type: a wrong type needs a cast to compile.
await run({ city: 42 } as unknown as { city: string }).catch((error) => console.log(`rejected: ${error.code}: ${error.message}`))
console.log('openai parameters:', JSON.stringify(toOpenAITool(weather).function.parameters))
