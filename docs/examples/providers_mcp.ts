/**
 * MCP: serve the five built-ins and a custom tool, then list and call them
 * with the SDK's own Client (in memory here; use `StdioServerTransport` to
 * serve a real host such as Claude Desktop).
 *
 *   npx tsx docs/examples/providers_mcp.ts
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { createMcpServer, createTools, defineTool, validator } from 'toolsmith'

const rootDir = mkdtempSync(join(tmpdir(), 'toolsmith-mcp-example-'))
writeFileSync(join(rootDir, 'notes.txt'), 'remember the milk\n')

const echo = defineTool({
  name: 'echo',
  description: 'Repeats the text',
  schema: validator.object({ text: validator.string().required() }),
  execute: ({ text }) => text,
})

const server = createMcpServer([...Object.values(createTools({ rootDir })), echo], { name: 'toolsmith', version: '1.0.0' })
// For a real host: await server.connect(new StdioServerTransport())
const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
await server.connect(serverTransport)

const client = new Client({ name: 'example-client', version: '1.0.0' })
await client.connect(clientTransport)

const { tools } = await client.listTools()
for (const tool of tools) console.log(tool.name, JSON.stringify(tool.annotations))

console.log(await client.callTool({ name: 'read', arguments: { path: 'notes.txt' } }))
// Failures are results with isError: true and the error code in the text.
console.log(await client.callTool({ name: 'read', arguments: { path: '../etc/passwd' } }))
await client.close()
