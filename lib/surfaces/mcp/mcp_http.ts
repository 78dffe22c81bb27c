/**
 * `createMcpHttpHandler`: tools served over MCP's Streamable HTTP transport,
 * stateless, to clients of 2026-07-28 and of the 2025 revisions.
 *
 * @module
 */
import { timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
// Type-only, and in no exported declaration: the emitted .d.ts stays free of the optional SDK.
import type { Server } from '@modelcontextprotocol/server'
import type { ToolCollection } from '../../core/tool_collection.js'
import { E_INVALID_OPTIONS } from '../../exceptions.js'
import { buildMcpServer, prepareMcpServing, type McpServerOptions } from './mcp_server.js'
import { mcpNodeSdk, mcpSdk } from './mcp_sdk.js'

/** Options of {@link createMcpHttpHandler}: the server's, plus who may reach it. */
export interface McpHttpHandlerOptions extends McpServerOptions {
  /**
   * The path MCP is served on; any other path is answered `404`.
   *
   * @defaultValue `'/mcp'`
   */
  path?: string
  /**
   * A shared secret every request must carry as `Authorization: Bearer
   * <token>` (compared in constant time); a request without it gets `401`
   * with a `WWW-Authenticate: Bearer` challenge. Required in practice
   * whenever the server is reachable from anything but this machine.
   */
  bearerToken?: string
  /**
   * Hostnames the `Host` header may name (no ports; IPv6 in brackets):
   * against DNS rebinding, a web page's own hostname resolved to 127.0.0.1.
   * `false` turns the check off (behind a balancer that rewrites `Host`, or
   * when a bearer token guards the endpoint).
   *
   * @defaultValue `localhost`, `127.0.0.1` and `[::1]`
   */
  allowedHosts?: readonly string[] | false
  /**
   * Hostnames a browser's `Origin` header may name (as the SDK's
   * `validateOriginHeader` reads them); a request from any other origin gets
   * `403`. Requests without `Origin` (every non-browser client) pass.
   *
   * @defaultValue `localhost`, `127.0.0.1` and `[::1]`
   */
  allowedOrigins?: readonly string[]
  /**
   * Serve clients of the 2025 revisions (2025-11-25, 2025-06-18, …) too,
   * statelessly: each request is answered by a fresh server instance, so
   * such a client's approvals cannot be asked (there is no channel back
   * to it) and are denied. `false` answers them with the unsupported-version error.
   *
   * @defaultValue true
   */
  legacy?: boolean
  /**
   * Largest request body read, in bytes; a larger one is answered `413`.
   *
   * @defaultValue 4 MiB
   */
  maxRequestBodyBytes?: number
}

/** A Streamable HTTP endpoint serving tools. */
export interface McpHttpHandler {
  /** Serve one web-standard request (Workers, Deno, Bun, or any `fetch`-shaped host). */
  readonly fetch: (request: Request) => Promise<Response>
  /** Serve one Node request: pass it to `http.createServer(handler.node)`. */
  readonly node: (req: IncomingMessage, res: ServerResponse) => void
  /** Abort the calls in flight and stop serving; later requests are refused. */
  close(): Promise<void>
}

/**
 * Serve tools over MCP's Streamable HTTP transport.
 *
 * @remarks
 * Stateless: every request is answered by a fresh server instance built
 * from one prepared serving (the context, the journal's run, the permission
 * gate and its remembered approvals are shared), so any replica behind a
 * load balancer can answer any request, and a keyed call
 * (`_meta["io.github.toolsmith/idempotency-key"]`) on a shared claiming
 * journal runs once whichever replica gets it. The SDK's `createMcpHandler`
 * decides each request's revision: 2026-07-28 requests carry their
 * envelope; a 2025 client's `initialize` and every later request are served
 * statelessly (`GET`/`DELETE` session operations answer `405`).
 *
 * In front of it, in order: the path (`404`), the `Host` header (`403`,
 * DNS rebinding), the `Origin` header (`403`), the bearer token (`401`).
 * Approvals on 2026-07-28 come back as `input_required` (the client retries
 * with the reply, to any replica); a 2025 client over HTTP cannot be asked.
 *
 * @param tools - An array, record or `ToolRegistry` of tools.
 * @param options - The server's options, the path, the bearer token and the allowed hosts and origins.
 * @returns `{ fetch, node, close }`.
 * @throws {@link toolsmith/core!E_INVALID_OPTIONS} as {@link createMcpServer} does, or for a bad `path`, `bearerToken` or `maxRequestBodyBytes`.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http'
 * import { createMcpHttpHandler, createTools } from 'toolsmith'
 * const handler = createMcpHttpHandler(Object.values(createTools({ rootDir: process.cwd() })), { name: 'my-tools', version: '1.0.0' })
 * createServer(handler.node).listen(8080, '127.0.0.1')
 * ```
 */
export function createMcpHttpHandler(tools: ToolCollection, options: McpHttpHandlerOptions): McpHttpHandler {
  const { path = '/mcp', bearerToken, allowedHosts, allowedOrigins, legacy, maxRequestBodyBytes, ...serverOptions } = options
  checkHttpOptions(path, bearerToken, maxRequestBodyBytes)
  const serving = prepareMcpServing(tools, serverOptions)
  const sdk = mcpSdk()
  const mcp = sdk.createMcpHandler(() => buildMcpServer(serving) as Server, {
    legacy: legacy === false ? 'reject' : 'stateless',
    ...(maxRequestBodyBytes === undefined ? {} : { maxRequestBodySize: maxRequestBodyBytes }),
  })
  const hosts = allowedHosts === false ? undefined : [...(allowedHosts ?? sdk.localhostAllowedHostnames())]
  const origins = [...(allowedOrigins ?? sdk.localhostAllowedOrigins())]
  const expected = bearerToken === undefined ? undefined : Buffer.from(`Bearer ${bearerToken}`)

  const fetch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url)
    if (url.pathname !== path) return plain(404, `Not found: MCP is served on ${path}`)
    const refused = hostRefusal(request, url, hosts) ?? sdk.originValidationResponse(request, origins)
    if (refused !== undefined) return refused
    if (expected !== undefined && !sameSecret(request.headers.get('authorization'), expected)) {
      return new Response(JSON.stringify({ error: 'invalid_token', error_description: 'This MCP endpoint needs "Authorization: Bearer <token>"' }), {
        status: 401,
        headers: { 'content-type': 'application/json', 'www-authenticate': 'Bearer error="invalid_token"' },
      })
    }
    return mcp.fetch(request)
  }
  const { toNodeHandler } = mcpNodeSdk()
  const toNode = toNodeHandler({ fetch })
  return {
    fetch,
    node: (req, res) => {
      toNode(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' })
        res.end(`Internal error: ${error instanceof Error ? error.message : String(error)}`)
      })
    },
    close: () => mcp.close(),
  }
}

/**
 * The `Host` check. A request handed to `fetch` in process (or by a runtime
 * that keeps the host in the URL only) has no `Host` header: its URL's host
 * is what it addressed.
 */
function hostRefusal(request: Request, url: URL, hosts: string[] | undefined): Response | undefined {
  if (hosts === undefined) return undefined
  const sdk = mcpSdk()
  if (request.headers.has('host')) return sdk.hostHeaderValidationResponse(request, hosts)
  const checked = sdk.validateHostHeader(url.host, hosts)
  return checked.ok ? undefined : plain(403, `Forbidden: ${checked.message}`)
}

function sameSecret(header: string | null, expected: Buffer): boolean {
  if (header === null) return false
  const given = Buffer.from(header)
  return given.length === expected.length && timingSafeEqual(given, expected)
}

function plain(status: number, text: string): Response {
  return new Response(text, { status, headers: { 'content-type': 'text/plain; charset=utf-8' } })
}

function checkHttpOptions(path: unknown, bearerToken: unknown, maxBody: unknown): void {
  const invalid = (name: string, message: string): never => {
    throw new E_INVALID_OPTIONS(`createMcpHttpHandler: ${message}`, { details: { invalid: [name] } })
  }
  if (typeof path !== 'string' || !path.startsWith('/')) invalid('path', `path must be a string starting with "/" (got ${JSON.stringify(path)})`)
  if (bearerToken !== undefined && (typeof bearerToken !== 'string' || bearerToken.length < 16 || !/^[!-~]+$/.test(bearerToken))) {
    invalid('bearerToken', 'bearerToken must be a string of at least 16 characters of visible ASCII (no spaces)')
  }
  if (maxBody !== undefined && (!Number.isSafeInteger(maxBody) || (maxBody as number) < 1)) {
    invalid('maxRequestBodyBytes', `maxRequestBodyBytes must be a positive integer (got ${String(maxBody)})`)
  }
}
