/**
 * The MCP server SDK (v2), loaded on first use.
 *
 * @module
 */
import { createRequire } from 'node:module'

/** The parts of the SDK the server, its stdio entry and its HTTP handler use. */
export type McpSdk = typeof import('@modelcontextprotocol/server')

/** The SDK's stdio entry (`serveStdio`). */
export type McpStdioSdk = typeof import('@modelcontextprotocol/server/stdio')

/** The SDK's protocol core (the JSON-RPC message schemas). */
export type McpCore = typeof import('@modelcontextprotocol/core')

let sdk: McpSdk | undefined
let core: McpCore | undefined
let stdio: McpStdioSdk | undefined

/**
 * The MCP server SDK, loaded on the first call: it is the heaviest
 * dependency and most users of the package never serve MCP.
 * `createMcpServer` is synchronous, so the SDK's CommonJS build is required
 * rather than imported.
 *
 * @returns The `@modelcontextprotocol/server` module.
 */
export function mcpSdk(): McpSdk {
  sdk ??= createRequire(import.meta.url)('@modelcontextprotocol/server') as McpSdk
  return sdk
}

/**
 * The SDK's stdio entry, loaded on first use like {@link mcpSdk}.
 *
 * @returns The `@modelcontextprotocol/server/stdio` module.
 */
export function mcpStdioSdk(): McpStdioSdk {
  stdio ??= createRequire(import.meta.url)('@modelcontextprotocol/server/stdio') as McpStdioSdk
  return stdio
}

/**
 * The SDK's protocol core, loaded on first use like {@link mcpSdk}: the
 * stdio transport checks each line against its JSON-RPC schemas.
 *
 * @returns The `@modelcontextprotocol/core` module.
 */
export function mcpCore(): McpCore {
  core ??= createRequire(import.meta.url)('@modelcontextprotocol/core') as McpCore
  return core
}
