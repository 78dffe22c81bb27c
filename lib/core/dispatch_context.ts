/**
 * The per-turn context every executor runs against: identity, cancellation
 * and the two observability events.
 *
 * @module
 */
import { randomUUID } from 'node:crypto'

/** Payload of the `toolExecutionStart` event. */
export interface ToolExecutionStartEvent {
  /** The tool's name. */
  toolName: string
  /** The context's `id`. */
  turnId: string
  /** `sha256hex(canonicalStringify({ tool, args }))` over the raw args. */
  callId: string
  /** The validated args, or what the tool's `redact` made of them. */
  args: unknown
  /** Epoch milliseconds when the handler was about to run. */
  startedAt: number
}

/** Payload of the `toolExecutionEnd` event. */
export interface ToolExecutionEndEvent {
  /** The tool's name. */
  toolName: string
  /** The context's `id`. */
  turnId: string
  /** Same value as in the matching start event. */
  callId: string
  /** Epoch milliseconds, as in the start event. */
  startedAt: number
  /** Epoch milliseconds when the handler settled. */
  endedAt: number
  /** `endedAt - startedAt`, measured with a monotonic clock. */
  durationMs: number
  /** Whether the handler failed. */
  isError: boolean
  /** The `E_TOOL_DOWNSTREAM_ERROR` the executor throws, when `isError`. */
  error?: unknown
}

/** Event names and payloads a {@link ObservableDispatchContext} emits. */
export interface DispatchEvents {
  /** Emitted after validation, just before the handler runs. */
  toolExecutionStart: ToolExecutionStartEvent
  /** Emitted once the handler has returned or thrown. */
  toolExecutionEnd: ToolExecutionEndEvent
}

/** A listener for one of the {@link DispatchEvents}. */
export type DispatchListener<E extends keyof DispatchEvents> = (event: DispatchEvents[E]) => void

/**
 * What `Tool.executor(ctx)` needs: any object with these members works
 * (duck-typed), so a runner can bring its own.
 */
export interface DispatchContext {
  /** Unique id of the turn; reported as `turnId` in events. */
  readonly id: string
  /** Cancels every call made through this context. */
  readonly abortSignal: AbortSignal
  /**
   * Scope of `call.idempotencyKey`; defaults to `id`. A runner sets it to
   * something stable across retries (run, node, iteration) so the key is too.
   */
  readonly idempotencyScope?: string
  /** Called by the executor just before the handler runs. */
  emitToolExecutionStart(event: ToolExecutionStartEvent): void
  /** Called by the executor once the handler has settled. */
  emitToolExecutionEnd(event: ToolExecutionEndEvent): void
}

/** The context {@link createDispatchContext} returns: a {@link DispatchContext} you can listen to and abort. */
export interface ObservableDispatchContext extends DispatchContext {
  /**
   * Abort every call running, or yet to run, on this context.
   *
   * @param reason - Becomes `abortSignal.reason`.
   */
  abort(reason?: unknown): void
  /**
   * Add a listener.
   *
   * @param event - Event name.
   * @param listener - Called synchronously with the payload; a listener that throws is ignored.
   * @returns This context.
   */
  on<E extends keyof DispatchEvents>(event: E, listener: DispatchListener<E>): this
  /**
   * Remove a listener added with {@link ObservableDispatchContext.on}.
   *
   * @param event - Event name.
   * @param listener - The same function.
   * @returns This context.
   */
  off<E extends keyof DispatchEvents>(event: E, listener: DispatchListener<E>): this
}

/** Options of {@link createDispatchContext}. */
export interface DispatchContextOptions {
  /**
   * Turn id.
   *
   * @defaultValue a random UUID
   */
  id?: string
  /** Scope for idempotency keys; see {@link DispatchContext.idempotencyScope}. */
  idempotencyScope?: string
  /** An outer signal; aborting it aborts the context. */
  signal?: AbortSignal
  /** Listeners to attach at once. */
  onToolExecutionStart?: DispatchListener<'toolExecutionStart'>
  /** Listeners to attach at once. */
  onToolExecutionEnd?: DispatchListener<'toolExecutionEnd'>
}

/**
 * Create a dispatch context.
 *
 * @remarks
 * Listeners run synchronously in the order they were added. One that throws
 * is skipped (the error is reported with `process.emitWarning`) and never
 * breaks the call or the other listeners.
 *
 * @param options - Id, idempotency scope, outer signal and initial listeners.
 * @returns A context to pass to `tool.executor(ctx)`.
 *
 * @example
 * ```ts
 * const ctx = createDispatchContext()
 * ctx.on('toolExecutionEnd', (e) => console.log(e.toolName, e.durationMs, e.isError))
 * await myTool.executor(ctx)({ city: 'Oslo' })
 * ```
 */
export function createDispatchContext(options: DispatchContextOptions = {}): ObservableDispatchContext {
  const controller = new AbortController()
  if (options.signal) {
    const outer = options.signal
    if (outer.aborted) controller.abort(outer.reason)
    else outer.addEventListener('abort', () => controller.abort(outer.reason), { once: true })
  }
  const listeners: { [E in keyof DispatchEvents]: Set<DispatchListener<E>> } = {
    toolExecutionStart: new Set(),
    toolExecutionEnd: new Set(),
  }
  const emit = <E extends keyof DispatchEvents>(event: E, payload: DispatchEvents[E]): void => {
    for (const listener of listeners[event]) {
      try {
        listener(payload)
      } catch (error) {
        process.emitWarning(`A ${event} listener threw: ${String((error as Error)?.message ?? error)}`, {
          code: 'TOOLSMITH_LISTENER_ERROR',
        })
      }
    }
  }
  const context: ObservableDispatchContext = {
    id: options.id ?? randomUUID(),
    idempotencyScope: options.idempotencyScope,
    abortSignal: controller.signal,
    abort: (reason?: unknown) => controller.abort(reason),
    emitToolExecutionStart: (event) => emit('toolExecutionStart', event),
    emitToolExecutionEnd: (event) => emit('toolExecutionEnd', event),
    on(event, listener) {
      listeners[event].add(listener)
      return this
    },
    off(event, listener) {
      listeners[event].delete(listener)
      return this
    },
  }
  if (options.onToolExecutionStart) context.on('toolExecutionStart', options.onToolExecutionStart)
  if (options.onToolExecutionEnd) context.on('toolExecutionEnd', options.onToolExecutionEnd)
  return context
}
