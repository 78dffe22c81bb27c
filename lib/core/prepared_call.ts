/**
 * A prepared call and the call info its run hands the gate and the handler:
 * the objects every call through `tool.executor(ctx)` is made of.
 *
 * @module
 */
import type { E_INVALID_TOOL_ARGS } from '../exceptions.js'
import { defineLazyCallId, idempotencyKeyOf, type PendingCallId } from './call_identity.js'
import { errorSummary } from '../exceptions.js'
import type { DispatchContext, GateVerdict, GatedToolCall, ToolExecutionEndEvent, ToolExecutionStartEvent } from './dispatch_context.js'
import type { ToolCallInfo, ValidCall } from './tool_types.js'

/**
 * The start event. Without `redact` its `args` are the validated args; with
 * it, `args` is an enumerable getter that runs the redaction on first read
 * (spread, `JSON.stringify` and `structuredClone` read it like a field), so
 * a context nobody listens to never pays for it. A callId still to be
 * hashed is read through the same way.
 */
/** @internal */
export function startEvent(toolName: string, turnId: string, prepared: ValidCall, startedAt: number): ToolExecutionStartEvent {
  const pending = unhashedCallId(prepared)
  const redactsLazily = prepared instanceof Prepared && prepared.redactsLazily
  const event = { toolName, turnId, callId: pending ? '' : prepared.callId, args: redactsLazily ? undefined : prepared.loggedArgs, startedAt }
  if (pending) defineLazyCallId(event, pending)
  if (redactsLazily) Object.defineProperty(event, 'args', { enumerable: true, configurable: true, get: () => prepared.loggedArgs })
  return event
}

/** `prepared`'s callId while it is still to be hashed (a long string in its args). */
/** @internal */
export function unhashedCallId(prepared: ValidCall | Prepared<any>): PendingCallId | undefined {
  const pending = prepared instanceof Prepared ? prepared.pendingCallId : undefined
  return pending?.ready === false ? pending : undefined
}

/**
 * What a handler learns about its call, and what the permission gate is
 * asked about (one object per run). A class rather than an object literal
 * with a getter: a literal's accessor is created anew on every call, and
 * this is the hottest path of the kit.
 */
/** @internal */
export class CallInfo implements ToolCallInfo, GatedToolCall {
  // An own field, or (callId still to be hashed) an own enumerable getter.
  readonly callId!: string
  readonly toolName: string
  readonly signal: AbortSignal
  readonly toolCallId?: string | undefined
  /** Set by the permission gate (see {@link GatedToolCall.verdict}). */
  verdict?: GateVerdict | undefined
  readonly #prepared: Prepared<any>

  constructor(prepared: Prepared<any>, signal: AbortSignal) {
    const pending = unhashedCallId(prepared)
    if (pending) defineLazyCallId(this, pending)
    else this.callId = prepared.callId
    this.toolName = prepared.toolName
    this.signal = signal
    this.#prepared = prepared
  }

  /** Read through: the prepared call hashes it on first read (most handlers never look). */
  get idempotencyKey(): string {
    return this.#prepared.idempotencyKey
  }

  /** For the gate: the validated args. */
  get args(): unknown {
    return this.#prepared.args
  }

  /** For the gate: the args as events record them, redacted on first read (a gate that does not ask never reads them). */
  get loggedArgs(): unknown {
    return this.#prepared.loggedArgs
  }

  /** A plain copy (`idempotencyKey` included) for logs and `JSON.stringify`. */
  toJSON(): { callId: string; toolName: string; idempotencyKey: string } {
    return { callId: this.callId, toolName: this.toolName, idempotencyKey: this.idempotencyKey }
  }
}

/** A prepared call; the idempotency key is hashed on first read (most handlers never look at it), and so is a redaction. */
/** @internal */
export class Prepared<Args> {
  readonly toolName: string
  // An own field; while a long string's hash is pending, an own enumerable
  // accessor that hashes once and becomes the field (defineLazyCallId).
  readonly callId!: string
  readonly ok: boolean
  readonly args: Args | undefined
  readonly error: E_INVALID_TOOL_ARGS | undefined
  readonly #issuer: object
  // The context's two ids, not the context: a prepared call must not keep a turn alive.
  readonly #contextId: string
  readonly #idempotencyScope: string | undefined
  #idempotencyKey: string | undefined
  #loggedArgs: unknown
  #redactor: ((args: Args) => unknown) | undefined
  // The shared pending id, for the call info and events of this call;
  // undefined when hashed in `prepare`. Private: a prepared call's own
  // enumerable fields are what a spread or JSON of it shows.
  readonly #pendingCallId: PendingCallId | undefined

  constructor(
    issuer: object,
    toolName: string,
    callId: string | PendingCallId,
    ctx: { readonly id: string; readonly idempotencyScope?: string | undefined },
    loggedArgs: unknown,
    ok: boolean,
    args: Args | undefined,
    error: E_INVALID_TOOL_ARGS | undefined,
    redactor?: (args: Args) => unknown,
  ) {
    this.toolName = toolName
    if (typeof callId === 'string') {
      this.callId = callId
    } else {
      this.#pendingCallId = callId
      defineLazyCallId(this, callId)
    }
    this.#loggedArgs = loggedArgs
    this.#redactor = redactor
    this.ok = ok
    this.args = args
    this.error = error
    this.#issuer = issuer
    this.#contextId = ctx.id
    this.#idempotencyScope = ctx.idempotencyScope
  }

  /** Whether `value` is a call prepared by `tool`. */
  static isIssuedBy(value: unknown, tool: object): boolean {
    return value instanceof Prepared && value.#issuer === tool
  }

  /** The callId while it is still to be hashed, shared with the call info and events. */
  get pendingCallId(): PendingCallId | undefined {
    return this.#pendingCallId
  }

  /** Whether {@link Prepared.loggedArgs} is still to be computed by the tool's `redact`. */
  get redactsLazily(): boolean {
    return this.#redactor !== undefined
  }

  /** What events and journals record; a redaction runs once, on first read. */
  get loggedArgs(): unknown {
    const redactor = this.#redactor
    if (redactor !== undefined) {
      this.#redactor = undefined
      this.#loggedArgs = redactor(this.args as Args)
    }
    return this.#loggedArgs
  }

  get idempotencyKey(): string {
    this.#idempotencyKey ??= idempotencyKeyOf({ id: this.#contextId, idempotencyScope: this.#idempotencyScope }, this.callId)
    return this.#idempotencyKey
  }
}

/**
 * Emit `toolExecutionEnd` for a run of `prepared`; a listener that throws is reported, never rethrown.
 *
 * @internal
 */
export function emitEnd(ctx: DispatchContext, prepared: ValidCall, startedAt: number, started: number, error: unknown): void {
  const durationMs = performance.now() - started
  const isError = error !== undefined
  const pending = unhashedCallId(prepared)
  const event: ToolExecutionEndEvent = {
    toolName: prepared.toolName,
    turnId: ctx.id,
    callId: pending ? '' : prepared.callId,
    startedAt,
    endedAt: startedAt + Math.round(durationMs),
    durationMs,
    isError,
  }
  // Added only on failure (no spread of a fresh object on every success).
  if (isError) event.error = error
  if (pending) defineLazyCallId(event, pending)
  try {
    ctx.emitToolExecutionEnd(event)
  } catch (listenerError) {
    warnListenerError(listenerError)
  }
}

/**
 * Report a listener that threw, without breaking the call.
 *
 * @internal
 */
export function warnListenerError(error: unknown): void {
  process.emitWarning(`A tool event listener threw: ${errorSummary(error)}`, { code: 'TOOLSMITH_LISTENER_ERROR' })
}
