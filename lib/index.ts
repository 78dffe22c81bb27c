/**
 * toolsmith: define a tool once, hand it to any model provider, run it safely.
 *
 * @remarks
 * The root is the union of the subpath entries (`toolsmith/core`,
 * `toolsmith/artifacts`, `toolsmith/tools`, `toolsmith/providers`,
 * `toolsmith/mcp`, `toolsmith/runner`): each entry lists its public names
 * explicitly, and the root re-exports them, so a name is declared public in
 * one place. Helpers that are not part of the API live in
 * `toolsmith/internal` (no stability promise) and are not re-exported here.
 * The MCP SDK loads only when `createMcpServer` is first called.
 *
 * @packageDocumentation
 */
export * from './entries/core.js'
export * from './entries/artifacts.js'
export * from './entries/tools.js'
export * from './entries/providers.js'
export * from './entries/mcp.js'
export * from './entries/runner.js'
