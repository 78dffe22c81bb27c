/**
 * The idempotency key a surface takes from its caller (MCP `_meta`, the
 * CLI's `--idempotency-key`): its `_meta` name and what a valid one is.
 *
 * @module
 */

/**
 * The `_meta` key of a `tools/call` request that makes the call durable:
 * `params._meta["io.github.toolsmith/idempotency-key"]`.
 *
 * @remarks
 * Named with a reverse-DNS prefix, as the MCP specification asks of `_meta`
 * keys that are not the protocol's own. A request that carries it is
 * claimed in the server's journal under that key: a repeat (a client's
 * retry, or the same request sent to another server process sharing the
 * journal) gets the recorded result without the tool running again.
 */
export const MCP_IDEMPOTENCY_KEY_META = 'io.github.toolsmith/idempotency-key'

/** The longest idempotency key accepted, in characters (a UUID is 36, a SHA-256 hex digest 64). */
export const MAX_IDEMPOTENCY_KEY_CHARS = 256

/**
 * What is wrong with a caller's idempotency key, or `undefined` when it is
 * usable: a string of 1 to {@link MAX_IDEMPOTENCY_KEY_CHARS} characters
 * without control characters (it is printed on one line in audits and
 * errors).
 *
 * @param key - The key as given.
 * @returns A phrase to follow the key's name (`must be …, got …`), or `undefined`.
 */
export function idempotencyKeyProblem(key: unknown): string | undefined {
  if (typeof key !== 'string') return `must be a string, got ${key === null ? 'null' : Array.isArray(key) ? 'an array' : `a ${typeof key}`}`
  if (key.length === 0) return 'must not be empty'
  if (key.length > MAX_IDEMPOTENCY_KEY_CHARS) return `must be at most ${MAX_IDEMPOTENCY_KEY_CHARS} characters, got ${key.length}`
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f]/.test(key)) return 'must not contain control characters (newlines, tabs…)'
  return undefined
}
