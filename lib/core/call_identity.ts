/**
 * How a call is identified: its `callId` and its idempotency key, computed
 * one way for every surface (executor, runner, MCP, AI SDK).
 *
 * @module
 */
import { canonicalStringify, canonicalStringifyDeferring, type DeferredText } from '../utils/canonical_json.js'
import { sha256Hex } from '../utils/hash.js'
import { sha256HexDeferred } from '../utils/long_string_hash.js'

/**
 * `sha256hex(canonicalStringify({ tool, args }))` over the raw args.
 *
 * @remarks
 * Args JSON cannot represent (a cycle, `NaN`, a function…) are refused by
 * validation anyway; for them the id is a hash of a best-effort rendering, so
 * that the failed call can still be recorded under a stable id.
 *
 * @param toolName - The tool's name.
 * @param args - The raw args, as the model sent them.
 * @returns 64 hex characters.
 */
export function callIdOf(toolName: string, args: unknown): string {
  try {
    return strictCallIdOf(toolName, args)
  } catch {
    return sha256Hex(`${toolName}\u0000${bestEffortText(args)}`)
  }
}

/**
 * {@link callIdOf} without the fallback.
 *
 * @param toolName - The tool's name.
 * @param args - The raw args.
 * @returns 64 hex characters.
 * @throws `E_NOT_CANONICALIZABLE` for args JSON cannot represent.
 */
export function strictCallIdOf(toolName: string, args: unknown): string {
  const id = pendingCallIdOf(toolName, args)
  return typeof id === 'string' ? id : sha256HexDeferred(id)
}

/**
 * {@link strictCallIdOf}, except that when the args hold a long string (a
 * `write`'s content) the hashing is left to the caller: the canonical text
 * around the long strings is built now (so every check and error happens
 * now), and the strings themselves are kept. JavaScript strings are
 * immutable, so hashing it later with {@link sha256HexDeferred} gives the
 * id of the args as they were at this call, whatever happens to the args
 * object meanwhile.
 *
 * @param toolName - The tool's name.
 * @param args - The raw args.
 * @returns The callId, or what to hash for it.
 * @throws `E_NOT_CANONICALIZABLE` for args JSON cannot represent.
 * @internal
 */
export function pendingCallIdOf(toolName: string, args: unknown): string | DeferredText {
  if (typeof args !== 'object' || args === null || typeof (args as { toJSON?: unknown }).toJSON === 'function') {
    const whole = canonicalStringifyDeferring({ tool: toolName, args })
    return typeof whole === 'string' ? sha256Hex(whole) : whole
  }
  // The same text as canonicalStringify({ tool, args }) (keys "args" < "tool"),
  // without building and sorting the wrapper object on every call.
  const inner = canonicalStringifyDeferring(args)
  if (typeof inner === 'string') return sha256Hex(`{"args":${inner},"tool":${JSON.stringify(toolName)}}`)
  // A long string: hashed as it is escaped, never stringified or
  // concatenated (utils/long_string_hash.ts). Same digest.
  return { text: `{"args":${inner.text},"tool":${JSON.stringify(toolName)}}`, strings: inner.strings }
}

/**
 * `sha256hex(canonicalStringify({ scope, callId }))`, `scope` being
 * `ctx.idempotencyScope ?? ctx.id`: stable across retries of one task
 * iteration when the runner sets `idempotencyScope`.
 *
 * @param ctx - The context's id and idempotency scope.
 * @param callId - The call's id.
 * @returns 64 hex characters.
 */
export function idempotencyKeyOf(ctx: { readonly id: string; readonly idempotencyScope?: string | undefined }, callId: string): string {
  return sha256Hex(canonicalStringify({ scope: ctx.idempotencyScope ?? ctx.id, callId }))
}

function bestEffortText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}
