/**
 * `createMcpServer`: serve tools over the Model Context Protocol with the
 * SDK's low-level `Server`.
 *
 * @module
 */
import { createRequire } from 'node:module'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { SpooledArtifact } from '../artifacts/spooled_artifact.js'
import { createDispatchContext, type DispatchContext } from '../core/dispatch_context.js'
import type { Tool } from '../core/tool.js'
import { toolList, type ToolCollection } from '../core/tool_collection.js'
import { E_INVALID_OPTIONS, toolFailureText } from '../exceptions.js'
import { createCallContext } from '../core/call_context.js'
import { Permissions } from '../permissions/permissions.js'
import { elicitationApprover } from './mcp_elicitation.js'
import { linkSignals } from '../utils/linked_signal.js'
import { toMcpTool } from './mcp.js'
import { dropOptionalNulls } from './optional_nulls.js'
import { TOOL_NAME_RULES, ToolNameMap } from './tool_name_map.js'
import { resolveMaxResultBytes, toolResultToText } from './tool_result_text.js'

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  /** Server name reported in `initialize`. */
  name: string
  /** Server version reported in `initialize`. */
  version: string
  /** Instructions the client may show the model. */
  instructions?: string
  /**
   * The context every call runs against (each call gets a child with its own
   * signal, cancelled when the client cancels the request).
   *
   * @defaultValue a fresh `createDispatchContext()`
   */
  context?: DispatchContext
  /**
   * `openWorldHint` for tools that do not set `meta.mcp.openWorldHint`.
   *
   * @defaultValue false
   */
  openWorldHint?: boolean
  /**
   * Drop the `null`s a client sends for optional properties (see
   * `dropOptionalNulls`) before validating: hosts that relay a strict-mode
   * model send `null` for "absent".
   *
   * @defaultValue true
   */
  dropOptionalNulls?: boolean
  /**
   * Most bytes of a tool's result sent back in the `text` block; a larger
   * result is cut and ends with `[… N bytes truncated …]`. An artifact result
   * is never read whole: only its first lines, up to the cap (see
   * `toolResultToText`). A positive integer, or `Infinity` for no cap.
   *
   * @defaultValue 200,000
   */
  maxResultBytes?: number
  /**
   * The permission gate every call must pass (defaults to the context's).
   * An `ask` goes to the gate's own approver when it has one, else to the
   * client through MCP elicitation when the client supports it; otherwise
   * it is denied. Approvals the client asks to remember last as long as the server.
   */
  permissions?: Permissions
}

/**
 * Create an MCP server for a set of tools.
 *
 * @remarks
 * The server answers `tools/list` with {@link toMcpTool} definitions and
 * `tools/call` by running the tool through `tool.executor(ctx)`, so calls get
 * the same validation, events and error wrapping as anywhere else. Failures
 * are results, not protocol errors: invalid arguments and tool errors come
 * back as `isError: true` with the root cause's `CODE: message` first (e.g.
 * `TOOL_FILE_NOT_FOUND: … [read failed; E_TOOL_DOWNSTREAM_ERROR]`, see `toolFailureText`), so the
 * model can correct itself. `null`s sent for optional properties are dropped
 * first (as strict-mode models send them). Only an unknown tool name is a protocol error
 * (`InvalidParams`). A `ToolRegistry` is read on every request, so hiding or
 * registering a tool changes what the next `tools/list` returns.
 *
 * @param tools - An array, record or `ToolRegistry` of tools.
 * @param options - Name, version, optional context and the result byte cap.
 * @returns The SDK's `Server`, not yet connected: call `server.connect(transport)`.
 * @throws {@link toolsmith/core!E_INVALID_OPTIONS} when `options` is missing or its `name`
 *   or `version` is not a non-empty string, or `maxResultBytes` is invalid.
 *
 * @example
 * ```ts
 * import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
 * const server = createMcpServer(Object.values(createTools({ rootDir: process.cwd() })), { name: 'toolsmith', version: '1.0.0' })
 * await server.connect(new StdioServerTransport())
 * ```
 */
export function createMcpServer(tools: ToolCollection, options: McpServerOptions): Server {
  assertServerIdentity(options)
  const { Server, CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } = mcpSdk()
  const server = new Server(
    { name: options.name, version: options.version },
    { capabilities: { tools: { listChanged: false } }, ...(options.instructions ? { instructions: options.instructions } : {}) },
  )
  const ownContext = options.context === undefined
  const context = options.context ?? createDispatchContext()
  const maxBytes = resolveMaxResultBytes(options.maxResultBytes, 'createMcpServer')
  const gate = options.permissions ?? context.permissions
  // Asks go to the client when the gate has no approver of its own.
  const asking = Permissions.isPermissions(gate) && !gate.hasApprover ? gate.withApprover(elicitationApprover(server), 'mcp-elicitation') : gate
  const names = new ToolNameMap(TOOL_NAME_RULES.mcp)
  const current = (): Tool[] => {
    const list = toolList(tools)
    for (const tool of list) if (names.isLegal(tool.name)) names.toProvider(tool.name)
    return list
  }

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: current().map((tool) => toMcpTool(tool, { names, openWorldHint: options.openWorldHint })),
  }))

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const list = current()
    const name = names.fromProvider(request.params.name) ?? request.params.name
    const tool = list.find((t) => t.name === name)
    if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`)
    const toolCallId = String(extra.requestId)
    // The server's own context is never aborted (nothing outside can reach
    // it), so the request's signal alone is the combined one: linking the two
    // would be work for nothing on every call.
    const link = ownContext ? undefined : linkSignals([context.abortSignal, extra.signal])
    const callContext = { ...createCallContext(context, { toolCallId }), abortSignal: link?.signal ?? extra.signal }
    const ctx = asking === undefined ? callContext : { ...callContext, permissions: asking }
    try {
      const args = request.params.arguments ?? {}
      const result = await tool.executor(ctx)(options.dropOptionalNulls === false ? args : dropOptionalNulls(tool, args))
      return { content: [{ type: 'text', text: await toolResultToText(result, { maxBytes }) }] }
    } catch (error) {
      return { isError: true, content: [{ type: 'text', text: toolFailureText(error) }] }
    } finally {
      link?.release()
    }
  })
  return server
}

type McpSdk = typeof import('@modelcontextprotocol/sdk/server/index.js') & typeof import('@modelcontextprotocol/sdk/types.js')

let sdk: McpSdk | undefined

/**
 * The MCP SDK, loaded on the first `createMcpServer` call: it is the
 * heaviest dependency (≈ 100 ms to import) and most users of the package
 * never serve MCP. `createMcpServer` is synchronous, so the SDK's CommonJS
 * build is required rather than imported; the server it returns speaks the
 * same protocol to any transport (the ESM `StdioServerTransport` included).
 */
function mcpSdk(): McpSdk {
  if (sdk === undefined) {
    const require = createRequire(import.meta.url)
    sdk = {
      ...(require('@modelcontextprotocol/sdk/server/index.js') as object),
      ...(require('@modelcontextprotocol/sdk/types.js') as object),
    } as McpSdk
  }
  return sdk
}

/** The SDK accepts a missing name or version and reports it to clients as is; a missing options object was a raw TypeError. */
function assertServerIdentity(options: unknown): asserts options is McpServerOptions {
  const given = options as Partial<Record<'name' | 'version', unknown>> | null | undefined
  const bad = (['name', 'version'] as const).filter((key) => typeof given?.[key] !== 'string' || given[key] === '')
  if (typeof options === 'object' && options !== null && bad.length === 0) return
  const got =
    typeof options !== 'object' || options === null ? String(options) : bad.map((key) => `${key}: ${JSON.stringify(given?.[key]) ?? 'undefined'}`).join(', ')
  throw new E_INVALID_OPTIONS(
    `createMcpServer(tools, { name, version }) needs the server's name and version, non-empty strings reported to clients in "initialize" (got ${got})`,
    { details: { invalid: bad } },
  )
}
