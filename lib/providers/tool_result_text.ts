/**
 * `toolResultToText`: the text a model receives for a tool's result.
 *
 * @module
 */
import type { ToolResult } from '../core/tool.js'

/**
 * Turn a tool's result into the text sent back to a model.
 *
 * @remarks
 * Strings are returned as they are, bytes are decoded as UTF-8 (invalid
 * sequences become U+FFFD), and an artifact is read whole with its
 * `asString()`; anything else is `String(value)`.
 *
 * @param result - What `tool.executor(ctx)(args)` resolved to.
 * @returns The text.
 */
export async function toolResultToText(result: ToolResult): Promise<string> {
  if (typeof result === 'string') return result
  if (result instanceof Uint8Array) return new TextDecoder().decode(result)
  const asString = (result as { asString?: unknown } | null)?.asString
  if (typeof asString === 'function') return String(await asString.call(result))
  return String(result)
}
