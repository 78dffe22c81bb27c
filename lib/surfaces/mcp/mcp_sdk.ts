/**
 * The MCP SDK, loaded on first use.
 *
 * @module
 */
import { createRequire } from 'node:module'

/** The parts of the SDK the server and its stdio transport use. */
export type McpSdk = typeof import('@modelcontextprotocol/sdk/server/index.js') & typeof import('@modelcontextprotocol/sdk/types.js')

let sdk: McpSdk | undefined

/**
 * The MCP SDK, loaded on the first call: it is the heaviest dependency
 * (≈ 100 ms to import) and most users of the package never serve MCP.
 * `createMcpServer` is synchronous, so the SDK's CommonJS build is required
 * rather than imported; the server it returns speaks the same protocol to
 * any transport (the ESM `StdioServerTransport` included).
 *
 * @returns The SDK's server and types modules, merged.
 */
export function mcpSdk(): McpSdk {
  if (sdk === undefined) {
    const require = createRequire(import.meta.url)
    sdk = {
      ...(require('@modelcontextprotocol/sdk/server/index.js') as object),
      ...(require('@modelcontextprotocol/sdk/types.js') as object),
    } as McpSdk
  }
  return sdk
}
