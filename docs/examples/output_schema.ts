/**
 * Output schemas: a tool whose results are checked against a joi object
 * schema, served over MCP (structuredContent, checked again by the SDK's own
 * Client) and described to Gemini.
 *
 *   npx tsx docs/examples/output_schema.ts
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { Tool, createDispatchContext, createMcpServer, toGeminiFunctionDeclaration, validator } from 'toolsmith'

const forecast = new Tool({
  name: 'forecast',
  description: 'The weather forecast for a city',
  inputSchema: validator.object({ city: validator.string().required() }),
  outputSchema: validator.object({
    city: validator.string().required(),
    tempC: validator.number().required().description('Temperature in °C'),
    hourly: validator.array().items(validator.number()).default([]),
  }),
  // A bug for one city, to show what a broken result gives.
  handler: async ({ city }: { city: string }) => (city === 'Atlantis' ? { city, tempC: 'wet' } : { city, tempC: 21.5 }),
})

const run = forecast.executor(createDispatchContext())
console.log('result:', JSON.stringify(await run({ city: 'Oslo' })))
await run({ city: 'Atlantis' }).catch((error) => console.log(`rejected: ${error.code}: ${error.message}`))

const server = createMcpServer([forecast], { name: 'weather', version: '1.0.0' })
const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
await server.connect(serverTransport)
const client = new Client({ name: 'example-client', version: '1.0.0' })
await client.connect(clientTransport)
const { tools } = await client.listTools()
console.log('outputSchema required:', JSON.stringify(tools[0]!.outputSchema!.required))
const answer = await client.callTool({ name: 'forecast', arguments: { city: 'Oslo' } })
console.log('structuredContent:', JSON.stringify(answer.structuredContent))
await client.close()

console.log('gemini response:', JSON.stringify(toGeminiFunctionDeclaration(forecast).response?.required))
