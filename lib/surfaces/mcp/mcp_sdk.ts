/**
 * The MCP server SDK (v2), loaded on first use.
 *
 * @module
 */
import { createRequire } from 'node:module'
import { E_OPTIONAL_DEPENDENCY_MISSING } from '../../exceptions.js'

/** The parts of the SDK the server, its stdio entry and its HTTP handler use. */
export type McpSdk = typeof import('@modelcontextprotocol/server')

/** The SDK's stdio entry (`serveStdio`). */
export type McpStdioSdk = typeof import('@modelcontextprotocol/server/stdio')

/** The SDK's protocol core (the JSON-RPC message schemas). */
export type McpCore = typeof import('@modelcontextprotocol/core')

/** The SDK's Node adapter (`toNodeHandler`), for the HTTP handler's `node` form. */
export type McpNodeSdk = typeof import('@modelcontextprotocol/node')

/** What a consumer runs to add the MCP SDK: every MCP surface needs the server, HTTP also the node adapter. */
const INSTALL_HINT = 'npm install @modelcontextprotocol/server @modelcontextprotocol/node'

/**
 * Requires an MCP SDK package, or throws a typed error saying how to add it:
 * the SDK is an optional peer (it and its dependencies are over half of a
 * hello-world install), so a missing package is a setup step, not a bug.
 *
 * @param name - The package (or subpath), for the message.
 * @param load - Requires it: `() => createRequire(import.meta.url)('<the same name>')`, the name
 *   written out, so a bundler (the CLI's) can see and bundle the package.
 * @returns The loaded module.
 * @throws {@link E_OPTIONAL_DEPENDENCY_MISSING} when the package is not installed.
 * @internal
 */
export function requireMcpPackage<T>(name: string, load: () => unknown): T {
  try {
    return load() as T
  } catch (cause) {
    // Only a missing package is a setup step; an error thrown while the package loads is its own failure.
    // (`require` says MODULE_NOT_FOUND, `import()` ERR_MODULE_NOT_FOUND.)
    const code = (cause as { code?: unknown }).code
    if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') throw cause
    // Name the package, not the subpath (`@modelcontextprotocol/server/stdio` is installed as `@modelcontextprotocol/server`).
    const dependency = name.split('/').slice(0, 2).join('/')
    throw new E_OPTIONAL_DEPENDENCY_MISSING(`Serving MCP needs the optional peer dependency "${dependency}": run \`${INSTALL_HINT}\``, {
      cause,
      details: { dependency },
    })
  }
}

let sdk: McpSdk | undefined
let core: McpCore | undefined
let stdio: McpStdioSdk | undefined
let node: McpNodeSdk | undefined

/**
 * The MCP server SDK, loaded on the first call: it is the heaviest
 * dependency and most users of the package never serve MCP.
 * `createMcpServer` is synchronous, so the SDK's CommonJS build is required
 * rather than imported, unless {@link importMcpSdk} loaded it first.
 *
 * @returns The `@modelcontextprotocol/server` module.
 */
export function mcpSdk(): McpSdk {
  sdk ??= requireMcpPackage<McpSdk>('@modelcontextprotocol/server', () => createRequire(import.meta.url)('@modelcontextprotocol/server'))
  return sdk
}

/**
 * The SDK's stdio entry, loaded on first use like {@link mcpSdk}.
 *
 * @returns The `@modelcontextprotocol/server/stdio` module.
 */
export function mcpStdioSdk(): McpStdioSdk {
  stdio ??= requireMcpPackage<McpStdioSdk>('@modelcontextprotocol/server/stdio', () => createRequire(import.meta.url)('@modelcontextprotocol/server/stdio'))
  return stdio
}

/**
 * The SDK's protocol core, loaded on first use like {@link mcpSdk}: the
 * stdio transport checks each line against its JSON-RPC schemas.
 *
 * @returns The `@modelcontextprotocol/core` module.
 */
export function mcpCore(): McpCore {
  core ??= requireMcpPackage<McpCore>('@modelcontextprotocol/core', () => createRequire(import.meta.url)('@modelcontextprotocol/core'))
  return core
}

/**
 * The SDK's Node adapter, loaded on first use like {@link mcpSdk}: only the
 * HTTP handler's `node` form needs it.
 *
 * @returns The `@modelcontextprotocol/node` module.
 */
export function mcpNodeSdk(): McpNodeSdk {
  node ??= requireMcpPackage<McpNodeSdk>('@modelcontextprotocol/node', () => createRequire(import.meta.url)('@modelcontextprotocol/node'))
  return node
}

/**
 * Loads the SDK's ES module build ahead of the synchronous accessors above,
 * which then return it. The command line's `mcp` does this before it builds
 * a server: there (a bundle) the ES module build lets the bundler leave out
 * what the server never uses (most of zod, for one), and the start-up
 * compiles about half the code the CommonJS build would. A module already
 * loaded (by an earlier call of an accessor) is kept: one copy of the SDK's
 * classes per process.
 *
 * @param parts - `http: true` also loads the Node adapter (`--http`).
 * @throws {@link E_OPTIONAL_DEPENDENCY_MISSING} when a package is not installed.
 * @internal
 */
export async function importMcpSdk(parts: { http?: boolean } = {}): Promise<void> {
  const [server, serverStdio, protocol, adapter] = await Promise.all([
    sdk ?? importMcpPackage('@modelcontextprotocol/server', () => import('@modelcontextprotocol/server')),
    stdio ?? importMcpPackage('@modelcontextprotocol/server/stdio', () => import('@modelcontextprotocol/server/stdio')),
    core ?? importMcpPackage('@modelcontextprotocol/core', () => import('@modelcontextprotocol/core')),
    parts.http === true ? (node ?? importMcpPackage('@modelcontextprotocol/node', () => import('@modelcontextprotocol/node'))) : undefined,
  ])
  sdk ??= server
  stdio ??= serverStdio
  core ??= protocol
  if (adapter !== undefined) node ??= adapter
}

/** {@link requireMcpPackage} for `import()`: the same typed error for a missing package. */
async function importMcpPackage<T>(name: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load()
  } catch (cause) {
    return requireMcpPackage<T>(name, () => {
      throw cause
    })
  }
}
