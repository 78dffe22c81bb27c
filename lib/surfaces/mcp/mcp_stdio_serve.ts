/**
 * `serveMcpStdio`: tools served over stdio to clients of every MCP revision
 * the SDK speaks (2026-07-28 and the 2025 ones).
 *
 * @module
 */
import type { Readable, Writable } from 'node:stream'
// Type-only, and in no exported declaration: the emitted .d.ts stays free of the optional SDK.
import type { Server } from '@modelcontextprotocol/server'
import type { ToolCollection } from '../../core/tool_collection.js'
import { buildMcpServer, prepareMcpServing, type McpServerOptions } from './mcp_server.js'
import { mcpStdioSdk } from './mcp_sdk.js'
import { McpStdioServerTransport } from './mcp_stdio_transport.js'

/** Options of {@link serveMcpStdio}: the server's, plus the streams. */
export interface McpStdioServeOptions extends McpServerOptions {
  /** Where messages arrive. @defaultValue `process.stdin` */
  stdin?: Readable
  /** Where answers go; nothing else may write to it. @defaultValue `process.stdout` */
  stdout?: Writable
  /** See {@link McpStdioServerTransportOptions.maxMessageBytes}. @defaultValue 10 MiB */
  maxMessageBytes?: number
  /**
   * Serve clients that open with the 2025 `initialize` handshake (revisions
   * 2025-11-25, 2025-06-18 and older) as well as 2026-07-28 clients. With
   * `false` such an opening is refused with the SDK's unsupported-version
   * error naming the revisions served.
   *
   * @defaultValue true
   */
  legacy?: boolean
}

/** A stdio connection being served. */
export interface McpStdioServing {
  /** The transport (toolsmith's: it answers malformed lines and bounds a message's size). */
  readonly transport: McpStdioServerTransport
  /** Resolves once the connection has closed: by `close()`, or once the client's input ended and every request read was answered. */
  readonly closed: Promise<void>
  /**
   * Stop serving: the server instance and the transport close. Requests
   * still running are aborted.
   */
  close(): Promise<void>
}

/**
 * Serve tools over stdio: one connection, whose first message decides its
 * revision (`server/discover` or a request with a 2026-07-28 `_meta`
 * envelope: 2026-07-28; `initialize`: the 2025 revision it asks for).
 *
 * @remarks
 * The SDK's `serveStdio` owns the revision decision and pins one server
 * instance (from {@link createMcpServer}'s options) for the connection; the
 * transport is {@link McpStdioServerTransport}, so malformed lines are
 * answered and an oversized message is refused rather than closing the
 * connection. On 2026-07-28 an approval the gate asks for comes back to the
 * client as an `input_required` answer (a form elicitation under
 * `toolsmith_approval`); the client retries the call with the reply. On a 2025
 * revision the server sends `elicitation/create` while the call waits.
 *
 * @param tools - An array, record or `ToolRegistry` of tools.
 * @param options - The server's options, the streams and whether 2025 clients are served.
 * @returns The connection: `closed` resolves when it ends.
 * @throws {@link toolsmith/core!E_INVALID_OPTIONS} as {@link createMcpServer} does, or for a bad `maxMessageBytes`.
 *
 * @example
 * ```ts
 * import { createTools, serveMcpStdio } from 'toolsmith'
 * const serving = serveMcpStdio(Object.values(createTools({ rootDir: process.cwd() })), { name: 'my-tools', version: '1.0.0' })
 * await serving.closed
 * ```
 */
export function serveMcpStdio(tools: ToolCollection, options: McpStdioServeOptions): McpStdioServing {
  const { stdin, stdout, maxMessageBytes, legacy, ...serverOptions } = options
  const transport = new McpStdioServerTransport(stdin, stdout, maxMessageBytes === undefined ? {} : { maxMessageBytes })
  const serving = { ...prepareMcpServing(tools, serverOptions), inputEnded: transport.inputEnded }
  const handle = mcpStdioSdk().serveStdio(() => buildMcpServer(serving) as Server, { transport, legacy: legacy === false ? 'reject' : 'serve' })
  // The client's input ended: nothing more can arrive, so answer what was read
  // and close; otherwise `closed` would wait for a close() nobody calls.
  transport.inputEnded.addEventListener('abort', () => void transport.settled().then(() => handle.close()), { once: true })
  return {
    transport,
    closed: transport.closed,
    close: () => handle.close(),
  }
}
