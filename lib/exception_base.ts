/**
 * The exception base: {@link BaseException} (a `code`, a `status`, the
 * `cause` kept), `createException` for one-off classes, and the helpers that
 * turn any thrown value into text a model or a log can read. The kit's own
 * exception classes are in `exceptions.ts`, which re-exports all of this.
 *
 * @module
 */

/** Options accepted by every {@link BaseException} constructor. */
export interface ExceptionOptions<D = Readonly<Record<string, unknown>> | undefined> {
  /** The error (or thrown value of any kind) that caused this one; kept as is. */
  cause?: unknown
  /** Structured, JSON-serialisable facts about the failure (exit code, path, …). */
  details?: D
  /** Overrides the class's static `code` for this instance. */
  code?: string
  /** Overrides the class's static `status` for this instance. */
  status?: number
}

/**
 * The root of every toolsmith exception.
 *
 * @remarks
 * Subclasses declare `static code`, `static status` and `static message`; an
 * instance copies them unless the constructor overrides them. `cause` is kept
 * exactly as given, including values that are not `Error`s (a handler that
 * does `throw 'boom'` still has `'boom'` reachable as the cause).
 *
 * @typeParam D - The shape of {@link BaseException.details}.
 */
export class BaseException<D = Readonly<Record<string, unknown>> | undefined> extends Error {
  /** Machine-readable code shared by every instance of the class. */
  static code: string = 'E_RUNTIME_EXCEPTION'
  /** HTTP-style status shared by every instance of the class. */
  static status: number = 500
  /** Message used when the constructor is given none. */
  static message: string = 'Unexpected error'

  /** Machine-readable code (`E_INVALID_TOOL_ARGS`, `TOOL_PATH_ESCAPE`, …). */
  readonly code: string
  /** HTTP-style status. */
  readonly status: number
  /** Structured facts about the failure. */
  readonly details: D

  /**
   * @param message - Human- and model-readable message; defaults to the class's static `message`.
   * @param options - Cause, details and per-instance code/status overrides.
   */
  constructor(message?: string, options: ExceptionOptions<D> = {}) {
    const ctor = new.target as unknown as typeof BaseException
    super(message ?? ctor.message, 'cause' in options ? { cause: options.cause } : undefined)
    this.name = ctor.name
    this.code = options.code ?? ctor.code
    this.status = options.status ?? ctor.status
    this.details = options.details as D
  }

  /**
   * Returns true when `value` is a toolsmith exception, even one created by
   * another copy of this module (another realm or a duplicated install).
   *
   * @param value - Anything.
   * @returns Whether `value` looks like a {@link BaseException}.
   */
  static isException(value: unknown): value is BaseException<unknown> {
    if (value instanceof BaseException) return true
    return (
      value instanceof Error &&
      typeof (value as { code?: unknown }).code === 'string' &&
      typeof (value as { status?: unknown }).status === 'number'
    )
  }

  /**
   * A plain-JSON view for logs, journals and protocol error payloads.
   *
   * @returns `{ name, code, status, message, details, cause }`, the cause
   *   reduced to its own name/code/message.
   */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      status: this.status,
      message: this.message,
      ...(this.details === undefined ? {} : { details: this.details }),
      ...(this.cause === undefined ? {} : { cause: describeCause(this.cause) }),
    }
  }
}

/**
 * Reduce any thrown value to something `JSON.stringify` can print.
 *
 * @param cause - A thrown value of any kind.
 * @returns A plain object (for errors) or the value's string form.
 */
export function describeCause(cause: unknown): unknown {
  if (cause instanceof BaseException) return cause.toJSON()
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code
    return { name: cause.name, message: cause.message, ...(code === undefined ? {} : { code }) }
  }
  if (cause === null || ['string', 'number', 'boolean'].includes(typeof cause)) return cause
  return String(cause)
}

/**
 * The code and message of any thrown value, as one line: `CODE: message`.
 *
 * @param value - A thrown value of any kind.
 * @returns `CODE: message` for coded errors (and plain objects with a
 *   `message`), the message for other errors, and `String(value)` for
 *   everything else.
 */
export function errorSummary(value: unknown): string {
  // Plain objects thrown as errors (`throw { code, message }`) are common in
  // callback-era libraries; their code and message matter as much.
  if (value !== null && typeof value === 'object') {
    const { code, message } = value as { code?: unknown; message?: unknown }
    if (typeof message === 'string') {
      return typeof code === 'string' && code.length > 0 ? `${code}: ${message}` : message
    }
    if (typeof code === 'string' && code.length > 0) return code
  }
  return String(value)
}

/**
 * The one text form of a tool failure, on every surface (CLI, MCP, the turn
 * runner, the AI SDK): the root cause's `CODE: message` first, then the
 * wrapper's context in brackets.
 *
 * @remarks
 * `E_TOOL_DOWNSTREAM_ERROR` wraps what a handler threw; a model (or a person)
 * acts on the cause, so the cause leads:
 * `TOOL_FILE_NOT_FOUND: … [read failed; E_TOOL_DOWNSTREAM_ERROR]`. Any other
 * error reads as {@link errorSummary} gives it.
 *
 * @param error - What a call threw.
 * @returns One text, never empty.
 */
export function toolFailureText(error: unknown): string {
  const { root, context } = toolFailureParts(error)
  return context === undefined ? root : `${root} [${context}]`
}

/** The two parts of {@link toolFailureText}. */
export interface ToolFailureParts {
  /** The root cause's `CODE: message`. */
  root: string
  /** The wrappers' context (`read failed; E_TOOL_DOWNSTREAM_ERROR`), when the error was wrapped. */
  context: string | undefined
}

/**
 * {@link toolFailureText} in two parts, for surfaces that print the root
 * and the context apart (the CLI prints a command's output between them).
 *
 * @param error - What a call threw.
 * @returns The root cause's `CODE: message` and the wrapper's context, if any.
 */
export function toolFailureParts(error: unknown): ToolFailureParts {
  const wrapper = error as { code?: unknown; cause?: unknown; details?: { toolName?: unknown } } | null
  if (wrapper !== null && typeof wrapper === 'object' && wrapper.code === 'E_TOOL_DOWNSTREAM_ERROR' && wrapper.cause !== undefined) {
    const toolName = typeof wrapper.details?.toolName === 'string' ? `${wrapper.details.toolName} failed; ` : ''
    const mine = `${toolName}E_TOOL_DOWNSTREAM_ERROR`
    // A handler that ran another tool: the innermost cause still leads.
    const inner = toolFailureParts(wrapper.cause)
    return { root: inner.root, context: inner.context === undefined ? mine : `${inner.context}; ${mine}` }
  }
  return { root: errorSummary(error), context: undefined }
}

/** The constructor type {@link createException} returns. */
export interface ExceptionClass {
  /** Creates an instance; see {@link BaseException}'s constructor. */
  new (message?: string, options?: ExceptionOptions): BaseException
  /** Machine-readable code of every instance. */
  code: string
  /** HTTP-style status of every instance. */
  status: number
  /** Default message. */
  message: string
}

/**
 * Create a one-off exception class without writing a subclass by hand.
 *
 * @param message - The default message.
 * @param code - The machine-readable code.
 * @param status - The HTTP-style status; defaults to 500.
 * @returns A new {@link BaseException} subclass.
 *
 * @example
 * ```ts
 * const E_QUOTA = createException('Quota exceeded', 'E_QUOTA', 429)
 * throw new E_QUOTA()
 * ```
 */
export function createException(message: string, code: string, status = 500): ExceptionClass {
  const exception = class extends BaseException {
    static override code = code
    static override status = status
    static override message = message
  }
  // An instance's name is its class's: without this it would be '' (an
  // anonymous class), and `String(error)` and stacks would lose the code.
  Object.defineProperty(exception, 'name', { value: code })
  return exception
}
