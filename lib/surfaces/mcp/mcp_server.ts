/**
 * `createMcpServer`: serve tools over the Model Context Protocol with the
 * SDK's low-level `Server` (v2: the 2026-07-28 revision and the 2025 ones).
 *
 * @module
 */
import { traceContextFromMeta } from '../../telemetry/trace_context.js'
import type {
  CallToolResult,
  InputRequiredResult,
  JSONRPCRequest,
  ListToolsResult,
  ProgressToken,
  Server,
  ServerContext,
} from '@modelcontextprotocol/server'
import { createDispatchContext, type DispatchContext } from '../../core/dispatch_context.js'
import type { Tool } from '../../core/tool.js'
import { toolList, type ToolCollection } from '../../core/tool_collection.js'
import { E_INVALID_OPTIONS, toolFailureText } from '../../exceptions.js'
import { createCallContext } from '../../core/call_context.js'
import { runOf } from '../../core/pipeline/call_run.js'
import type { ToolCallJournal } from '../../journal/contract.js'
import { Permissions } from '../../permissions/permissions.js'
import { clientApproval, resolveApprovalTimeout } from './mcp_elicitation.js'
import { linkSignals } from '../../utils/linked_signal.js'
import { toMcpTool, type McpToolDefinition } from './mcp.js'
import { mcpSdk } from './mcp_sdk.js'
import { isPlainObject } from '../../utils/guards.js'
import { idempotencyKeyProblem, MCP_IDEMPOTENCY_KEY_META } from '../../providers/idempotency_key.js'
import { dropOptionalNulls } from '../../providers/optional_nulls.js'
import { TOOL_NAME_RULES, ToolNameMap } from '../../providers/tool_name_map.js'
import { resolveMaxResultBytes } from '../../providers/tool_result_text.js'
import { toMcpCallResult } from './mcp_call_result.js'
import { startCallProgress } from './mcp_progress.js'
import type { McpSdkServer } from './mcp_types.js'

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
   * The journal every call is recorded in (tool, redacted args, result or
   * error, the permission decision), under the context's run (by default
   * `runId` = the context's id). With a claiming journal (SQLite,
   * PostgreSQL; JSONL within one process) a request whose `_meta` carries
   * {@link MCP_IDEMPOTENCY_KEY_META} is durable: a non-idempotent
   * side-effect call is claimed under that key, and a repeat of the request
   * (a client's retry, or the same request to another server process on the
   * same journal) gets the recorded result without the tool running again.
   * Requests without the key are recorded, never deduplicated.
   *
   * @defaultValue the context's journal, if any
   */
  journal?: ToolCallJournal
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
  /**
   * How long an approval question sent to a 2025-revision client
   * (`elicitation/create`) waits for the answer, in milliseconds, or
   * `Infinity` for no limit. A question left unanswered that long denies the
   * call, saying it timed out. (On 2026-07-28 the question goes back in the
   * answer and nothing waits on the server.)
   *
   * @defaultValue 600,000 (10 minutes: a person reads the question first)
   */
  approvalTimeoutMs?: number
  /**
   * How often a running `tools/call` sends `notifications/progress` when the
   * client asked for it (`_meta.progressToken`): milliseconds, an integer
   * ≥ 10, or `Infinity` for none (no output either). Each notification's
   * `progress` counts up from 1 and its `message` says how long the call has
   * run; a running `bash` call's output comes in notifications of its own.
   *
   * @defaultValue 1000
   */
  progressIntervalMs?: number
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
 * first (as strict-mode models send them). Protocol errors are kept for
 * requests no tool can run, each with one line: `-32602` for an unknown tool
 * name or malformed `tools/call` params (no params, `name` not a string,
 * `arguments` not an object; a `null` `arguments` counts as none), `-32601`
 * for a method the server does not serve. A `ToolRegistry` is read on every
 * request, so hiding or registering a tool changes what the next
 * `tools/list` returns.
 *
 * With a journal (`options.journal`, or the context's) every call is
 * recorded, and a request whose `_meta` carries
 * {@link MCP_IDEMPOTENCY_KEY_META} (`io.github.toolsmith/idempotency-key`)
 * is durable: the key (with the arguments) is the call's identity, so a
 * repeat of a non-idempotent side-effect call replays the recorded result.
 * A key that is not a string of 1 to 256 characters without control
 * characters is refused with `-32602` and one line.
 *
 * When the request carries `_meta.progressToken`, a running call sends
 * `notifications/progress` every `progressIntervalMs` (1 s) until it ends:
 * `progress` counts 1, 2, 3…, `message` is e.g. `bash running for 2.0 s`, and
 * there is no `total`. A client that resets its timeout on progress keeps
 * waiting for a long `bash` or `grep`. A running `bash` call's output is
 * sent too, as it arrives: gathered for 50 ms, as the `message` of
 * notifications of its own (at most 4 KB each); the result is unchanged.
 *
 * `tools/list` and `tools/call` are served through the SDK's
 * `fallbackRequestHandler` (so their params are checked here, not by the
 * SDK's schema): a handler you register with `setRequestHandler` for either
 * method replaces this one, and setting `fallbackRequestHandler` yourself
 * removes both. For stdio, {@link McpStdioServerTransport} also answers the
 * lines that are not JSON-RPC at all and bounds a message's size; the SDK's
 * `StdioServerTransport` leaves those unanswered.
 *
 * @param tools - An array, record or `ToolRegistry` of tools.
 * @param options - Name, version, optional context and journal, the result byte cap and the progress interval.
 * @returns The SDK's `Server`, not yet connected: call `server.connect(transport)`. It is declared as
 *   {@link McpSdkServer} (`connect`, `close`) so that the declarations need no SDK; with the SDK
 *   installed, `as Server` reaches the rest of its API.
 * @throws {@link toolsmith/core!E_INVALID_OPTIONS} when `options` is missing or its `name`
 *   or `version` is not a non-empty string, `maxResultBytes` or `progressIntervalMs` is invalid,
 *   or `journal` and `context.journal` are two different journals.
 *
 * @example
 * ```ts
 * const server = createMcpServer(Object.values(createTools({ rootDir: process.cwd() })), { name: 'toolsmith', version: '1.0.0' })
 * await server.connect(new McpStdioServerTransport())
 * ```
 */
export function createMcpServer(tools: ToolCollection, options: McpServerOptions): McpSdkServer {
  return buildMcpServer(prepareMcpServing(tools, options))
}

/**
 * What every server instance of one serving shares: the context (one run, so
 * rows' seq counts up across requests and instances), the gate and its
 * remembered approvals, the name map. Stdio builds one instance from it;
 * Streamable HTTP builds one per request.
 *
 * @internal
 */
export interface McpServing {
  readonly tools: ToolCollection
  readonly options: McpServerOptions
  readonly context: DispatchContext
  readonly ownContext: boolean
  readonly overlay: Pick<DispatchContext, 'journal' | 'run'> | undefined
  readonly gate: DispatchContext['permissions']
  readonly maxBytes: number
  readonly progressEveryMs: number
  readonly approvalTimeoutMs: number
  readonly names: ToolNameMap
  /**
   * Each tool's `tools/list` entry, built once: a Tool does not change (a
   * registry's list does, and is read on every request), and building one is
   * joi's `describe()` plus the JSON Schema conversion (milliseconds per tool).
   */
  readonly definitions: WeakMap<Tool, McpToolDefinition>
  /** Aborts when the client's input ended (a stdio transport that knows it): a pending 2025 approval stops waiting. */
  readonly inputEnded?: AbortSignal
}

/**
 * Check the options and build the state every instance shares.
 *
 * @internal
 */
export function prepareMcpServing(tools: ToolCollection, options: McpServerOptions): McpServing {
  assertServerIdentity(options)
  const journal = options.journal
  if (journal !== undefined && options.context?.journal !== undefined && options.context.journal !== journal) {
    throw new E_INVALID_OPTIONS('createMcpServer: the journal option and options.context.journal name two journals; give it once', {
      details: { invalid: ['journal'] },
    })
  }
  const context = options.context ?? createDispatchContext(journal === undefined ? {} : { journal })
  return {
    tools,
    options,
    context,
    ownContext: options.context === undefined,
    // A caller's context without a journal records under its own run: one run for
    // the server's calls, so their rows' seq counts up across requests.
    overlay: journal !== undefined && context.journal === undefined ? { journal, run: runOf(context) } : undefined,
    gate: options.permissions ?? context.permissions,
    maxBytes: resolveMaxResultBytes(options.maxResultBytes, 'createMcpServer'),
    progressEveryMs: resolveProgressInterval(options.progressIntervalMs),
    approvalTimeoutMs: resolveApprovalTimeout(options.approvalTimeoutMs),
    names: new ToolNameMap(TOOL_NAME_RULES.mcp),
    definitions: new WeakMap(),
  }
}

/**
 * One SDK `Server` instance over a prepared serving. Declared as
 * {@link McpSdkServer}, as `createMcpServer` is: this module's declarations
 * are public and must not name the optional SDK. The HTTP and stdio entries,
 * which hand it back to the SDK, cast it to `Server` (it is one).
 *
 * @internal
 */
export function buildMcpServer(serving: McpServing): McpSdkServer {
  const { tools, options, context, ownContext, overlay, gate, maxBytes, progressEveryMs, approvalTimeoutMs, names, inputEnded } = serving
  const { Server, ProtocolErrorCode } = mcpSdk()
  const server = new Server(
    { name: options.name, version: options.version },
    { capabilities: { tools: { listChanged: false } }, ...(options.instructions ? { instructions: options.instructions } : {}) },
  )
  // Asks go to the client when the gate has no approver of its own.
  const asksClient = Permissions.isPermissions(gate) && !gate.hasApprover
  const current = (): Tool[] => {
    const list = toolList(tools)
    for (const tool of list) if (names.isLegal(tool.name)) names.toProvider(tool.name)
    return list
  }

  const listTools = (): ListToolsResult => ({
    tools: current().map((tool) => definitionOf(serving, tool)),
  })

  const callTool = async (request: JSONRPCRequest, extra: ServerContext): Promise<CallToolResult | InputRequiredResult> => {
    const { name: providerName, arguments: given, progressToken, idempotencyKey } = callParams(request.params)
    const name = names.fromProvider(providerName) ?? providerName
    const tool = current().find((t) => t.name === name)
    if (tool === undefined) throw rpcError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${providerName}`)
    const signal = extra.mcpReq.signal
    const toolCallId = String(extra.mcpReq.id)
    // The server's own context is never aborted (nothing outside can reach
    // it), so the request's signal alone is the combined one. A caller's
    // context is linked for this call only: released below, so a finished
    // call leaves nothing on that long-lived signal.
    const link = ownContext ? undefined : linkSignals([context.abortSignal, signal])
    const traceContext = traceContextFromMeta(isPlainObject(request.params) ? request.params._meta : undefined)
    // The request id is no identity across connections (clients count from 1):
    // only the client's own key makes the call durable.
    // Asked for progress: a heartbeat, and a running bash call's output as it arrives.
    const progress = progressToken === undefined ? undefined : startCallProgress(tool.name, progressToken, progressEveryMs, extra, context.onToolOutput)
    const callContext = {
      ...createCallContext(context, {
        toolCallId,
        ...(idempotencyKey === undefined ? {} : { idempotencyScope: idempotencyKey }),
        // A `traceparent` in the request's `_meta` makes the call's span a child of the client's.
        ...(traceContext === undefined ? {} : { traceContext }),
        ...(progress?.onToolOutput === undefined ? {} : { onToolOutput: progress.onToolOutput }),
      }),
      ...overlay,
      abortSignal: link?.signal ?? signal,
    }
    const approval = asksClient ? clientApproval(server, extra, inputEnded ?? transportInputEnded(server), approvalTimeoutMs) : undefined
    const permissions = approval === undefined ? gate : (gate as Permissions).withApprover(approval.approver, 'mcp-elicitation')
    const ctx = permissions === undefined ? callContext : { ...callContext, permissions }
    try {
      const args = given ?? {}
      const result = await tool.executor(ctx)(options.dropOptionalNulls === false ? args : dropOptionalNulls(tool, args))
      return await toMcpCallResult(tool, result, { maxBytes })
    } catch (error) {
      // On 2026-07-28 the question goes back in the answer: the client asks its
      // user and retries the same request with the reply.
      const question = approval?.pending()
      if (question !== undefined) return question
      return { isError: true, content: [{ type: 'text', text: toolFailureText(error) }] }
    } finally {
      progress?.stop()
      link?.release()
    }
  }

  // tools/list and tools/call are served by the fallback handler rather than
  // setRequestHandler: the SDK checks a registered method's params against its
  // own schema first, with a less precise message. Here callParams checks
  // them and refuses with -32602 and one line. The SDK still encodes the
  // result for the connection's protocol revision.
  server.fallbackRequestHandler = async (request, extra) => {
    if (request.method === 'tools/list') return listTools()
    if (request.method === 'tools/call') return callTool(request, extra)
    throw rpcError(ProtocolErrorCode.MethodNotFound, `Method not found: ${request.method}`)
  }
  return server
}

function definitionOf(serving: McpServing, tool: Tool): McpToolDefinition {
  let definition = serving.definitions.get(tool)
  if (definition === undefined) {
    definition = toMcpTool(tool, { names: serving.names, openWorldHint: serving.options.openWorldHint })
    serving.definitions.set(tool, definition)
  }
  return definition
}

/** The `inputEnded` signal of a transport that has one (toolsmith's stdio transport, connected by hand). */
function transportInputEnded(server: Server): AbortSignal | undefined {
  const signal = (server.transport as { inputEnded?: unknown } | undefined)?.inputEnded
  return signal instanceof AbortSignal ? signal : undefined
}

/**
 * A JSON-RPC error for the SDK to send as it is: the SDK's own `McpError`
 * prefixes its message with `MCP error <code>: `, and the SDK client
 * prefixes it again when it rethrows, so the model read the code twice.
 */
function rpcError(code: number, message: string): Error & { code: number } {
  return Object.assign(new Error(message), { code })
}

/** `tools/call`'s params, checked with one-line `InvalidParams` errors. */
function callParams(params: unknown): {
  name: string
  arguments: Record<string, unknown> | undefined
  progressToken: ProgressToken | undefined
  idempotencyKey: string | undefined
} {
  const invalid = (message: string): never => {
    throw rpcError(mcpSdk().ProtocolErrorCode.InvalidParams, `Invalid params: ${message}`)
  }
  if (!isPlainObject(params)) return invalid(`tools/call needs "params": { "name": string, "arguments"?: object }, got ${kindOf(params)}`)
  if (typeof params.name !== 'string') return invalid(`tools/call "params.name" must be a string (the tool's name), got ${kindOf(params.name)}`)
  // null is read as "no arguments": some clients send it for a tool without parameters.
  const args = params.arguments ?? undefined
  if (args !== undefined && !isPlainObject(args)) {
    return invalid(`tools/call "params.arguments" must be an object of the tool's arguments, got ${kindOf(args)}`)
  }
  const meta = params._meta
  const token = isPlainObject(meta) ? meta.progressToken : undefined
  const progressToken = typeof token === 'string' || (typeof token === 'number' && Number.isInteger(token)) ? token : undefined
  // Unlike a malformed progress token (ignored: it only costs notifications), a
  // malformed key is refused: the client asked for a durable call and would
  // otherwise get one that may run twice.
  const key = isPlainObject(meta) ? meta[MCP_IDEMPOTENCY_KEY_META] : undefined
  const problem = key === undefined ? undefined : idempotencyKeyProblem(key)
  if (problem !== undefined) return invalid(`tools/call "params._meta[${JSON.stringify(MCP_IDEMPOTENCY_KEY_META)}]" ${problem}`)
  return { name: params.name, arguments: args, progressToken, idempotencyKey: key as string | undefined }
}

function kindOf(value: unknown): string {
  if (value === undefined) return 'none'
  if (value === null) return 'null'
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`
}

const DEFAULT_PROGRESS_INTERVAL_MS = 1000

function resolveProgressInterval(value: unknown): number {
  if (value === undefined) return DEFAULT_PROGRESS_INTERVAL_MS
  if (value === Number.POSITIVE_INFINITY || (typeof value === 'number' && Number.isSafeInteger(value) && value >= 10)) return value
  throw new E_INVALID_OPTIONS(
    `createMcpServer: progressIntervalMs must be an integer ≥ 10 (milliseconds) or Infinity for no progress notifications (got ${String(value)})`,
    { details: { invalid: ['progressIntervalMs'] } },
  )
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
