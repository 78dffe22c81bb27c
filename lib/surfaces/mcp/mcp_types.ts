/**
 * The MCP shapes toolsmith's public declarations name, declared here rather
 * than imported from the MCP SDK: the SDK is an optional peer, and a
 * project that never serves MCP compiles against toolsmith's declarations
 * without it, `"skipLibCheck": false` included. The SDK's own types are
 * assignable to these (its `Server` to {@link McpSdkServer}, its transports
 * to {@link McpTransport}, its `JSONRPCMessage` to {@link McpJsonRpcMessage}).
 *
 * @module
 */

/**
 * One JSON-RPC 2.0 message as MCP sends it: a request (`id` and `method`), a
 * notification (`method`, no `id`), a result (`id` and `result`) or an
 * error (`error`, its `id` `null` when the request's was unreadable).
 */
export interface McpJsonRpcMessage {
  /** Always `'2.0'`. */
  jsonrpc: '2.0'
  /** The request's id; absent on a notification. */
  id?: string | number | null
  /** The method of a request or notification. */
  method?: string
  /** The parameters of a request or notification. */
  params?: unknown
  /** A successful answer's payload. */
  result?: unknown
  /** A failed answer's error. */
  error?: {
    /** The JSON-RPC error code (`-32602` invalid params, …). */
    code: number
    /** What went wrong, for the client. */
    message: string
    /** Anything more the server attached. */
    data?: unknown
  }
}

/**
 * What MCP carries messages over, as a server connects to it: the SDK's
 * transports (`StdioServerTransport`, `InMemoryTransport`, the Streamable
 * HTTP one) and {@link McpStdioServerTransport} all fit. The server sets the
 * transport's callbacks (`onmessage`, `onclose`, `onerror`) itself.
 */
export interface McpTransport {
  /** Begin reading; the server calls it from `connect`. */
  start(): Promise<void>
  /** Write one message. */
  send(message: McpJsonRpcMessage): Promise<void>
  /** Stop: no more messages either way. */
  close(): Promise<void>
}

/**
 * The MCP SDK's `Server` that `createMcpServer` returns, declared by the two
 * members serving needs. The value is the SDK's `Server` itself: with the
 * SDK installed, `createMcpServer(…) as Server` (`import type { Server }
 * from '@modelcontextprotocol/server'`) reaches the rest of its API.
 */
export interface McpSdkServer {
  /**
   * Start serving over `transport` (the server starts it).
   *
   * @param transport - The transport, not yet started.
   */
  connect(transport: McpTransport): Promise<void>
  /** Close the connection and the transport. */
  close(): Promise<void>
}

/**
 * The key of the approval question in an `input_required` answer's
 * `inputRequests` (and of its reply in the retried request's `inputResponses`).
 */
export const MCP_APPROVAL_INPUT_KEY = 'toolsmith_approval'
