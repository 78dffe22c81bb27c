/**
 * `toolsmith/mcp`: the MCP server and its stdio transport (load the MCP SDK on first use).
 *
 * @module toolsmith/mcp
 */
export {
  createMcpServer,
  type McpServerOptions,
} from '../surfaces/mcp/mcp_server.js'
export { createMcpHttpHandler, type McpHttpHandler, type McpHttpHandlerOptions } from '../surfaces/mcp/mcp_http.js'
export { serveMcpStdio, type McpStdioServeOptions, type McpStdioServing } from '../surfaces/mcp/mcp_stdio_serve.js'
export { MCP_APPROVAL_INPUT_KEY, type McpJsonRpcMessage, type McpSdkServer, type McpTransport } from '../surfaces/mcp/mcp_types.js'
export {
  McpStdioServerTransport,
  type McpStdioServerTransportOptions,
} from '../surfaces/mcp/mcp_stdio_transport.js'
export { MAX_IDEMPOTENCY_KEY_CHARS, MCP_IDEMPOTENCY_KEY_META } from '../providers/idempotency_key.js'
