/**
 * `toolsmith/mcp`: the MCP server (loads the MCP SDK on first use).
 *
 * @module toolsmith/mcp
 */
export {
  createMcpServer,
  type McpServerOptions,
} from '../providers/mcp_server.js'
