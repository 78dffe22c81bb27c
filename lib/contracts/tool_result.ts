/**
 * What a tool call returns, shared by core (handlers, the pipeline) and the
 * journal (replayed results).
 *
 * @module
 */
import type { SpooledArtifactLike } from './artifact.js'

/** What a handler may return: text, bytes, or an artifact wrapping either. */
export type ToolResult = string | Uint8Array | SpooledArtifactLike
