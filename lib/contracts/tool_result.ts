/**
 * What a tool call returns, shared by core (handlers, the pipeline) and the
 * journal (replayed results).
 *
 * @module
 */
import { isPlainObject } from '../utils/guards.js'
import type { SpooledArtifactLike } from './artifact.js'

/**
 * What a tool with an output schema returns: a plain object of JSON values,
 * checked against the schema (MCP sends it as `structuredContent`).
 */
export type StructuredToolResult = { [key: string]: unknown }

/** What a handler may return: text, bytes, an artifact wrapping either, or (with an output schema) a plain object. */
export type ToolResult = string | Uint8Array | SpooledArtifactLike | StructuredToolResult

/**
 * Whether a result is structured: a plain object (an object literal), never
 * an artifact, bytes or a class instance.
 *
 * @param result - A tool's result.
 * @returns Whether it is a {@link StructuredToolResult}.
 */
export function isStructuredToolResult(result: unknown): result is StructuredToolResult {
  return isPlainObject(result)
}
