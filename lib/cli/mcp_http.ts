/**
 * `toolsmith mcp --http`: the five built-in tools served over Streamable HTTP.
 *
 * @module
 */
import { createServer } from 'node:http'
import { isIP } from 'node:net'
import type { AddressInfo } from 'node:net'
import { createMcpHttpHandler, type McpHttpHandlerOptions } from '../surfaces/mcp/mcp_http.js'
import type { ToolCollection } from '../core/tool_collection.js'
import type { CliIo } from './io.js'
import { CliUsageError } from './usage.js'

/** Where `--http` binds. */
export interface HttpBinding {
  /** The address (an IP or a hostname). */
  host: string
  /** The port; 0 for any free one. */
  port: number
  /** Whether only this machine can reach it. */
  loopback: boolean
}

/** The environment variable holding the bearer token clients must send. */
export const MCP_TOKEN_ENV = 'TOOLSMITH_MCP_TOKEN'

/**
 * Read `--http [HOST:]PORT` (`8080`, `127.0.0.1:8080`, `[::1]:8080`, `0.0.0.0:8080`).
 *
 * @param spec - The flag's value.
 * @returns The binding.
 * @throws {@link CliUsageError} for a value that is not one.
 */
export function parseHttpBinding(spec: string): HttpBinding {
  const match = /^(?:(\[[0-9a-fA-F:.]+\]|[^:[\]]+):)?(\d{1,5})$/.exec(spec)
  const port = match === null ? Number.NaN : Number(match[2])
  if (match === null || port > 65535) {
    throw new CliUsageError(`--http takes [HOST:]PORT (e.g. 8080, 127.0.0.1:8080 or [::1]:8080), not "${spec}"`, 'mcp')
  }
  const host = (match[1] ?? '127.0.0.1').replace(/^\[(.*)\]$/, '$1')
  return { host, port, loopback: host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.')) }
}

/**
 * Serve until SIGINT or SIGTERM.
 *
 * @param binding - Where to listen.
 * @param tools - The tools.
 * @param options - The server's options (and allowed origins).
 * @param io - Where the address is announced (stderr).
 * @param env - Where the bearer token is read from.
 * @returns 0 once stopped.
 * @throws {@link CliUsageError} when bound beyond loopback without a token, or the port is taken.
 */
export async function serveHttp(
  binding: HttpBinding,
  tools: ToolCollection,
  options: McpHttpHandlerOptions,
  io: CliIo,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const token = env[MCP_TOKEN_ENV]
  if (token !== undefined && token.length < 16) throw new CliUsageError(`${MCP_TOKEN_ENV} must hold at least 16 characters`, 'mcp')
  if (!binding.loopback && token === undefined) {
    throw new CliUsageError(
      `--http ${binding.host}:${binding.port} is reachable beyond this machine: set ${MCP_TOKEN_ENV} to a secret of 16+ characters, which clients send as "Authorization: Bearer <secret>"`,
      'mcp',
    )
  }
  const handler = createMcpHttpHandler(tools, {
    ...options,
    ...(token === undefined ? {} : { bearerToken: token }),
    // Beyond loopback the Host is whatever name clients use; the token guards instead.
    ...(binding.loopback ? {} : { allowedHosts: false as const }),
  })
  const server = createServer(handler.node)
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE' || error.code === 'EACCES' || error.code === 'EADDRNOTAVAIL'
          ? new CliUsageError(`--http cannot listen on ${binding.host}:${binding.port}: ${error.code === 'EADDRINUSE' ? 'the port is in use' : error.message}`, 'mcp')
          : error,
      )
    })
    server.listen(binding.port, binding.host, resolve)
  })
  const address = server.address() as AddressInfo
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address
  io.stderr.write(`toolsmith mcp: serving MCP on http://${shown}:${address.port}/mcp\n`)
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve)
    process.once('SIGINT', resolve)
  })
  await handler.close().catch(() => undefined)
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return 0
}
