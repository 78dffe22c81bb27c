/**
 * How a call is identified: its `callId` and its idempotency key, computed
 * one way for every surface (executor, runner, MCP, AI SDK).
 *
 * @module
 */
import { E_INVALID_TOOL_ARGS, E_NOT_CANONICALIZABLE, errorSummary } from '../exceptions.js'
import { canonicalStringify, canonicalStringifyDeferring, type DeferredText } from '../utils/canonical_json.js'
import { sha256Hex } from '../utils/hash.js'
import { sha256HexDeferred } from '../utils/long_string_hash.js'

/**
 * `sha256hex(canonicalStringify({ tool, args }))` over the raw args.
 *
 * @remarks
 * Args JSON cannot represent (a cycle, `NaN`, a function…) or that cannot be
 * read (a getter or `Proxy` trap that throws) are refused by validation
 * anyway; for them the id is a hash of a best-effort rendering, so that the
 * failed call can still be recorded under a stable id. It never throws.
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
  return typeof id === 'string' ? id : id.value
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
export function pendingCallIdOf(toolName: string, args: unknown): string | PendingCallId {
  let deferred: DeferredText
  if (typeof args !== 'object' || args === null || hasToJSON(args)) {
    const whole = wholeCall(toolName, args)
    if (typeof whole === 'string') return sha256Hex(whole)
    deferred = whole
  } else {
    // The same text as canonicalStringify({ tool, args }) (keys "args" < "tool"),
    // without building and sorting the wrapper object on every call.
    const inner = canonicalStringifyDeferring(args)
    if (typeof inner === 'string') return sha256Hex(`{"args":${inner},"tool":${JSON.stringify(toolName)}}`)
    // A long string: hashed as it is escaped, never stringified or
    // concatenated (utils/long_string_hash.ts). Same digest.
    deferred = { text: `{"args":${inner.text},"tool":${JSON.stringify(toolName)}}`, strings: inner.strings }
  }
  // Where the hash could fail (JSON.stringify, the fallback for lone
  // surrogates and --jitless, passing V8's string limit), it fails here, as
  // it always did, not at some later read.
  if (deferred.strings.some((string) => string.length > EAGER_HASH_CHARS)) return sha256HexDeferred(deferred)
  return new PendingCallId(deferred)
}

/**
 * Strings longer than this are hashed in `prepare` even so: escaped by
 * `JSON.stringify` (up to 6 characters each, `\u00xx`), a longer one could
 * pass V8's limit of 2^29 − 24 characters and throw.
 *
 * @internal
 */
export const EAGER_HASH_CHARS = Math.floor(((2 ** 29 - 24) - 2) / 6)

/**
 * A callId still to be hashed, shared by everything that exposes it (the
 * prepared call, the call info, the events): the first read hashes, every
 * later read gets the same id, and the text and strings are dropped then.
 * It holds nothing else of the call, so an event a listener keeps does not
 * keep the call's args alive through it.
 *
 * @internal
 */
export class PendingCallId {
  #deferred: DeferredText | undefined
  #id: string | undefined

  /** @param deferred - What {@link sha256HexDeferred} hashes. */
  constructor(deferred: DeferredText) {
    this.#deferred = deferred
  }

  /** Whether the id is hashed already. */
  get ready(): boolean {
    return this.#id !== undefined
  }

  /** The callId, hashed on the first read. */
  get value(): string {
    if (this.#id === undefined) {
      this.#id = sha256HexDeferred(this.#deferred!)
      this.#deferred = undefined
    }
    return this.#id
  }
}

/**
 * Give `target` a `callId` read from `pending`: an own enumerable accessor
 * (spread, `JSON.stringify` and `structuredClone` read it like a field)
 * that turns itself into a plain writable field on the first read or write,
 * so `util.inspect` shows the id from then on and a listener may assign it.
 * On a frozen target it stays an accessor, answering from `pending`.
 *
 * @param target - The object to give the field.
 * @param pending - The shared pending id.
 * @internal
 */
export function defineLazyCallId(target: object, pending: PendingCallId): void {
  Object.defineProperty(target, 'callId', {
    enumerable: true,
    configurable: true,
    get(this: object) {
      const id = pending.value
      settleCallId(this, id)
      return id
    },
    set(this: object, value: unknown) {
      settleCallId(this, value)
    },
  })
}

function settleCallId(target: object, value: unknown): void {
  if (!Object.isExtensible(target) || Object.isFrozen(target)) return
  Object.defineProperty(target, 'callId', { value, writable: true, enumerable: true, configurable: true })
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

/**
 * The `E_INVALID_TOOL_ARGS` for args the callId walk refused: JSON cannot
 * represent them (`NaN`, a cycle), or reading them threw (a getter, a Proxy
 * trap, `toJSON`). An unreadable argument is named by its path, in the
 * message and as the one issue (type `any.unreadable`).
 *
 * @param toolName - The tool's name.
 * @param cause - What {@link pendingCallIdOf} threw.
 * @returns The error; `cause` is its cause.
 * @internal
 */
export function unrepresentableArgs(toolName: string, cause: unknown): E_INVALID_TOOL_ARGS {
  const path = cause instanceof E_NOT_CANONICALIZABLE ? (cause.details as { path?: unknown } | undefined)?.path : undefined
  if (typeof path !== 'string') {
    return new E_INVALID_TOOL_ARGS(`Invalid arguments for tool "${toolName}": ${errorSummary(cause)}`, {
      cause,
      details: { toolName, issues: [] },
    })
  }
  // The walk's message starts "Reading …"; the thrown text is the cause's, which may be anything.
  const what = (cause as Error).message.replace(/^Reading the value/, 'reading the arguments').replace(/^Reading/, 'reading')
  return new E_INVALID_TOOL_ARGS(`Invalid arguments for tool "${toolName}": ${what} (arguments must be plain data)`, {
    cause,
    details: { toolName, issues: [{ path, message: what, type: 'any.unreadable' }] },
  })
}

/**
 * The canonical text of `{ tool, args }` as a whole (args that are not an
 * object, or have `toJSON`). A read that throws is reported with its path
 * in the args, as for any other args, not under the wrapper's `"args"` key.
 */
function wholeCall(toolName: string, args: unknown): string | DeferredText {
  try {
    return canonicalStringifyDeferring({ tool: toolName, args })
  } catch (error) {
    if (!(error instanceof E_NOT_CANONICALIZABLE)) throw error
    const path = (error.details as { path?: unknown } | undefined)?.path
    if (typeof path !== 'string' || !/^args(?![\w$])/.test(path)) throw error
    const inner = path.slice(4).replace(/^\./, '')
    const where = inner === '' ? 'the value' : JSON.stringify(inner)
    throw new E_NOT_CANONICALIZABLE(error.message.replace(JSON.stringify(path), where), { cause: error.cause, details: { path: inner } })
  }
}

/**
 * Whether `args` has a `toJSON` method. A read that throws (a getter, a
 * Proxy) says no: the canonical walk reads it again and reports it, with
 * the path, as the args' error.
 */
function hasToJSON(args: object): boolean {
  try {
    return typeof (args as { toJSON?: unknown }).toJSON === 'function'
  } catch {
    return false
  }
}

/** Some text for args the canonical walk refused; never throws (a Proxy's every trap may). */
function bestEffortText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    try {
      return String(value)
    } catch {
      return '[unreadable]'
    }
  }
}
