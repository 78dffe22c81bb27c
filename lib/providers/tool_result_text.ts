/**
 * `toolResultToText`: the text a model receives for a tool's result, capped
 * in bytes.
 *
 * @module
 */
import { E_INVALID_OPTIONS } from '../exceptions.js'
import { utf8BoundaryBefore, utf8Prefix } from '../utils/utf8.js'
import type { ToolResult } from '../core/tool.js'
import { isStructuredToolResult } from '../contracts/tool_result.js'

/** The byte cap {@link toolResultToText} applies unless told otherwise. */
export const DEFAULT_TOOL_RESULT_MAX_BYTES = 200_000

/** Options of {@link toolResultToText}. */
export interface ToolResultTextOptions {
  /**
   * Most UTF-8 bytes of the result to return (the truncation marker comes on
   * top). A positive integer, or `Infinity` for no cap.
   *
   * @defaultValue 200,000 ({@link DEFAULT_TOOL_RESULT_MAX_BYTES})
   */
  maxBytes?: number
}

/** The line-streaming part of a `SpooledArtifact` this module relies on. */
interface ArtifactLike {
  byteLength(): Promise<number>
  scan(from?: number, to?: number, options?: { maxLineBytes?: number }): AsyncIterable<{ text: string }>
  asString(): Promise<string>
}

/**
 * Turn a tool's result into the text sent back to a model, at most
 * `maxBytes` bytes of it.
 *
 * @remarks
 * Strings are returned as they are and bytes are decoded as UTF-8 (invalid
 * sequences become U+FFFD); either is cut on a UTF-8 character boundary when
 * over the cap. An artifact's `byteLength()` is checked first: one within the
 * cap is read whole; a larger one is never loaded: only its first lines are
 * streamed (through `scan`, each line itself capped) until the budget is
 * spent. Whatever was cut ends with a line `[… N bytes truncated …]`, `N`
 * being the bytes not shown. An object with only `asString()` is read with it
 * and then cut; any other plain object (a structured result) is its JSON, cut
 * like text; anything else is `String(value)`.
 *
 * @param result - What `tool.executor(ctx)(args)` resolved to.
 * @param options - The byte cap.
 * @returns The text: at most `maxBytes` bytes plus, when cut, the marker line.
 * @throws {@link toolsmith/core!E_INVALID_OPTIONS} when `maxBytes` is not a positive integer or `Infinity`.
 *
 * @example
 * ```ts
 * const text = await toolResultToText(await tool.executor(ctx)(args), { maxBytes: 50_000 })
 * ```
 */
export async function toolResultToText(result: ToolResult, options: ToolResultTextOptions = {}): Promise<string> {
  const maxBytes = resolveMaxResultBytes(options.maxBytes, 'toolResultToText')
  if (typeof result === 'string') return capText(result, maxBytes)
  if (result instanceof Uint8Array) return capBytes(result, maxBytes)
  if (isArtifactLike(result)) return artifactText(result, maxBytes)
  const asString = (result as { asString?: unknown } | null)?.asString
  if (typeof asString === 'function') return capText(String(await asString.call(result)), maxBytes)
  // A structured result (a tool with an output schema) is read as its JSON, as MCP's text block carries it.
  if (isStructuredToolResult(result)) return capText(JSON.stringify(result), maxBytes)
  return capText(String(result), maxBytes)
}

/**
 * Check a `maxBytes` / `maxResultBytes` option.
 *
 * @param value - The option; `undefined` means the default.
 * @param where - Who is asking, for the error message.
 * @returns The cap in bytes.
 * @throws {@link toolsmith/core!E_INVALID_OPTIONS} when not a positive integer or `Infinity`.
 *
 * @internal
 */
export function resolveMaxResultBytes(value: number | undefined, where: string): number {
  if (value === undefined) return DEFAULT_TOOL_RESULT_MAX_BYTES
  if (value === Infinity || (Number.isInteger(value) && value > 0)) return value
  throw new E_INVALID_OPTIONS(`${where}: the result byte cap must be a positive integer or Infinity (got ${String(value)})`)
}

function marker(omitted: number): string {
  return `\n[… ${omitted} bytes truncated …]`
}

function capText(text: string, maxBytes: number): string {
  // Every UTF-16 unit is at most 3 UTF-8 bytes: skip the encoding for short text.
  if (text.length * 3 <= maxBytes) return text
  const bytes = Buffer.from(text, 'utf8')
  return bytes.length <= maxBytes ? text : capBytes(bytes, maxBytes)
}

function capBytes(bytes: Uint8Array, maxBytes: number): string {
  if (bytes.length <= maxBytes) return new TextDecoder().decode(bytes)
  const cut = utf8BoundaryBefore(bytes, maxBytes)
  return new TextDecoder().decode(bytes.subarray(0, cut)) + marker(bytes.length - cut)
}

async function artifactText(artifact: ArtifactLike, maxBytes: number): Promise<string> {
  const total = await artifact.byteLength()
  if (total <= maxBytes) return artifact.asString()
  const parts: string[] = []
  let used = 0
  // Each line is decoded at most maxBytes long, so one huge line stays bounded too.
  for await (const line of artifact.scan(1, undefined, { maxLineBytes: maxBytes })) {
    const piece = parts.length === 0 ? line.text : `\n${line.text}`
    const size = Buffer.byteLength(piece, 'utf8')
    if (used + size > maxBytes) {
      const cut = utf8Prefix(piece, maxBytes - used)
      parts.push(cut)
      used += Buffer.byteLength(cut, 'utf8')
      break
    }
    parts.push(piece)
    used += size
    if (used >= maxBytes) break
  }
  return parts.join('') + marker(Math.max(0, total - used))
}

function isArtifactLike(value: unknown): value is ArtifactLike {
  const v = value as Partial<Record<keyof ArtifactLike, unknown>> | null
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.byteLength === 'function' &&
    typeof v.scan === 'function' &&
    typeof v.asString === 'function'
  )
}
