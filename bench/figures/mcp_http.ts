/**
 * A `tools/call` over Streamable HTTP: toolsmith's `createMcpHttpHandler`
 * against the MCP SDK's bare server (`createMcpHandler` + `McpServer` with
 * one tool registered by hand) on the same transport, both on `node:http` in
 * this process, both driven by the SDK's v2 client on 2026-07-28 over
 * 127.0.0.1. The tool does nothing on either side, so the row is the cost
 * of the kit's per-request server, validation and call pipeline.
 *
 * @module
 */
import { createServer, type Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server'
import { toNodeHandler } from '@modelcontextprotocol/node'
import * as z from 'zod/v4'
import { createMcpHttpHandler } from '../../lib/index.js'
import { interleave, metric, timed } from '../harness.js'
import { makeRow, type Figure } from '../figure.js'
import { ARGS, noopTool } from './executor.js'

async function listen(listener: Parameters<typeof createServer>[1]): Promise<{ server: HttpServer; url: URL }> {
  const server = createServer(listener)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`) }
}

async function connect(url: URL): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
  await client.connect(new StreamableHTTPClientTransport(url))
  return client
}

export const mcpHttpFigure: Figure = {
  id: 'mcp-http',
  title: 'A tools/call over Streamable HTTP: toolsmith vs the SDK bare server',
  async run(config) {
    const { tool } = noopTool()
    const kit = createMcpHttpHandler([tool], { name: 'bench', version: '1.0.0' })
    const bare = createMcpHandler(() => {
      const server = new McpServer({ name: 'bare', version: '1.0.0' })
      server.registerTool('noop', { description: 'does nothing', inputSchema: z.object({ path: z.string(), limit: z.number().int(), recursive: z.boolean() }) }, async () => ({
        content: [{ type: 'text', text: 'ok' }],
      }))
      return server
    })
    const servers = [await listen(kit.node), await listen(toNodeHandler(bare))]
    const [kitClient, bareClient] = [await connect(servers[0]!.url), await connect(servers[1]!.url)]
    const args = { name: 'noop', arguments: ARGS }
    try {
      for (const client of [kitClient, bareClient]) {
        const result = (await client.callTool(args)) as { content: { text?: string }[] }
        if (result.content[0]?.text !== 'ok') throw new Error(`the no-op tool answered ${JSON.stringify(result)}`)
      }
      const calls = config.quick ? 50 : 200
      const batch = async (client: Client) => ({ ms: (await timed(() => client.callTool(args), calls)).ms * calls })
      const samples = await interleave({ baseline: () => batch(bareClient), subject: () => batch(kitClient) }, { warmup: 2, samples: config.quick ? 5 : 15 })
      return [
        makeRow({
          id: 'mcp-http-call',
          figure: `MCP over Streamable HTTP: no-op tools/call ×${calls}`,
          subject: 'createMcpHttpHandler([noop tool]) on node:http (path/Host/Origin checks, fresh server per request, pipeline)',
          baseline: "the SDK's createMcpHandler + McpServer.registerTool('noop', zod schema) on node:http",
          unit: 'ms',
          subjectValues: metric(samples.subject, 'ms'),
          baselineValues: metric(samples.baseline, 'ms'),
          target: { kind: 'ratio', max: 1.2 },
          note: `ms per ${calls} sequential calls, SDK v2 client on 2026-07-28 over 127.0.0.1`,
        }),
      ]
    } finally {
      await Promise.all([kitClient, bareClient].map((client) => client.close().catch(() => undefined)))
      await Promise.all([kit.close(), bare.close()])
      for (const { server } of servers) {
        server.closeAllConnections()
        server.close()
      }
    }
  },
}
