/**
 * The per-turn context every executor runs against: identity, cancellation
 * and the observability events.
 *
 * @module
 */
import { randomUUID } from 'node:crypto'
import type { ArgumentRoles } from './argument_roles.js'
import type { PermissionDecisionEvent } from '../contracts/permission_decision.js'
import type { ToolCallJournal } from '../journal/contract.js'
import type { CallHooks } from './pipeline/call_hooks.js'
import { CallRun, type RunIdentity } from './pipeline/call_run.js'

export type { PermissionDecisionEvent, PermissionRuleRef } from '../contracts/permission_decision.js'
import type { TelemetryOptions } from '../telemetry/spans.js'

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

/**
 * What a permission gate is told about a call that passed validation.
 *
 * @remarks
 * Core knows no policy: `Permissions` (lib/permissions) implements
 * {@link ToolCallGate} and the executor calls it for every valid call.
 */
export interface GatedToolCall {
  /** The tool's name. */
  readonly toolName: string
  /** The executor's `callId`. */
  readonly callId: string
  /** The validated args (defaults applied). */
  readonly args: unknown
  /** What events record instead of the args (`redact(args)` when the tool has one). */
  readonly loggedArgs: unknown
  /** The provider's id of the call, when the surface has one (the runner's and the AI SDK's `toolCallId`, MCP's request id). */
  readonly toolCallId?: string | undefined
  /** The tool's declared argument roles (`Tool.roles`): which arguments the gate judges as a path or a command. */
  readonly roles?: Readonly<ArgumentRoles> | undefined
  /**
   * What the gate decided about this run, recorded on the call by the gate
   * before it returns or throws. The call pipeline writes it into the call's
   * journal row and span, and the handler of this run (which receives this
   * same object as its call info) reads what the gate judged from it.
   */
  verdict?: GateVerdict | undefined
}

/**
 * A permission gate's decision about one run of a call, carried by the call
 * itself from the gate to the pipeline (journal row, span) and the handler.
 */
export interface GateVerdict {
  /** The decision, exactly as the `permissionDecision` event reported it. */
  readonly decision: PermissionDecisionEvent
  /**
   * What the gate judged, by argument name (e.g. a path's resolution): the
   * handler of this run acts on exactly that or refuses. Opaque to core: the
   * gate and the tools that read it agree on its shape.
   */
  readonly judged?: ReadonlyMap<string, object> | undefined
}

/**
 * Decides whether a validated call may run. The executor calls
 * `authorize` after validation and before the handler (and before the
 * `toolExecutionStart` event), and awaits it when it returns a promise;
 * throwing (or rejecting) refuses the call with that error. The call object
 * is the same one the handler then receives as its call info.
 */
export interface ToolCallGate {
  /**
   * Allow the call by returning, refuse it by throwing (`TOOL_DENIED`).
   *
   * @param call - The validated call.
   * @param ctx - The context it runs in.
   */
  authorize(call: GatedToolCall, ctx: DispatchContext): void | Promise<void>
}

/**
 * Payload of the `networkRequest` event: one decision of the allowlist proxy
 * of a sandbox with `allowNetwork: { domains }`, made before any byte was
 * sent to the host.
 */
export interface NetworkRequestEvent {
  /** The tool whose command asked (`bash`). */
  toolName: string
  /** The context's `id`. */
  turnId: string
  /** The call's `callId`. */
  callId: string
  /** The host the program asked for (lower case, no brackets). */
  host: string
  /** The port it asked for. */
  port: number
  /** `CONNECT` (a tunnel, e.g. HTTPS) or the method of a plain HTTP request. */
  method: string
  /** Whether the proxy let it through. */
  allowed: boolean
  /** Why: the matching entry, or why it was refused. */
  reason: string
  /** The allowlist entry that matched, if one did. */
  rule?: string
  /** The address the proxy connected to, when allowed. */
  address?: string
  /** Epoch milliseconds of the decision. */
  at: number
}

/**
 * Payload of the `protectedPathCreated` event: protected paths (the
 * sandbox's `readOnlyPaths`: a `.git`, a shell startup file, editor or agent
 * settings…) that a `bash` command created. A mount cannot stop a command
 * from creating one in a folder it may write, so the kit looks after the
 * command and reports what is new; from then on the path is read-only to
 * every tool. Emitted once per call that created any.
 */
export interface ProtectedPathCreatedEvent {
  /** The tool whose command created them (`bash`). */
  toolName: string
  /** The context's `id`. */
  turnId: string
  /** The call's `callId`. */
  callId: string
  /** Each new protected path, with the `readOnlyPaths` entry it matches. */
  paths: Array<{
    /** The path, relative to the sandbox root. */
    path: string
    /** The `readOnlyPaths` entry it matches (e.g. `**\/.git`). */
    rule: string
  }>
  /** Epoch milliseconds when the kit found them (just after the command). */
  at: number
}

/**
 * A piece of a running tool's output, handed to
 * {@link DispatchContext.onToolOutput} as it arrives (`bash`: each chunk its
 * command writes).
 */
export interface ToolOutputChunk {
  /** The tool whose call wrote it (`bash`). */
  toolName: string
  /** The call's `callId`. */
  callId: string
  /** Which of the command's streams it came from. */
  stream: 'stdout' | 'stderr'
  /**
   * The text, decoded as UTF-8; a character split across two reads is held
   * back until it is whole. Never empty.
   */
  text: string
}

/** Event names and payloads a {@link ObservableDispatchContext} emits. */
export interface DispatchEvents {
  /** Emitted after validation, just before the handler runs. */
  toolExecutionStart: ToolExecutionStartEvent
  /** Emitted once the handler has returned or thrown. */
  toolExecutionEnd: ToolExecutionEndEvent
  /** Emitted once per call that met a permission gate, allowed or denied. */
  permissionDecision: PermissionDecisionEvent
  /** Emitted by `bash` for every request its command made through the allowlist proxy. */
  networkRequest: NetworkRequestEvent
  /** Emitted by `bash` when its command created protected paths (`readOnlyPaths`). */
  protectedPathCreated: ProtectedPathCreatedEvent
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
  /**
   * Where every call through this context is recorded (a `JsonlJournal`,
   * `SqliteJournal` or `PostgresJournal`): allowed, denied (with the gate's
   * decision), invalid, failed and replayed calls alike. With a claiming
   * journal and an {@link DispatchContext.idempotencyScope}, calls of
   * non-idempotent side-effect tools are durable (claimed, replayed, never
   * run twice). None by default: nothing is recorded.
   */
  readonly journal?: ToolCallJournal | undefined
  /** Who the rows are recorded as, their `seq` and the claims made; see {@link CallRun}. */
  readonly run?: CallRun | undefined
  /** The provider's id of the call, on a per-call context (`createCallContext`). */
  readonly toolCallId?: string | undefined
  /** The row's `seq` for this call, on a per-call context; else `run.nextSeq()`. */
  readonly seq?: number | undefined
  /**
   * `true` when {@link DispatchContext.idempotencyScope} names this one call
   * (a surface's key, set by `createCallContext`): its claim key is its
   * idempotency key, whatever calls with the same key came before.
   */
  readonly keyedCall?: boolean | undefined
  /** A surface's hooks for this call (the turn runner's); see {@link CallHooks}. */
  readonly callHooks?: CallHooks | undefined
  /** Called by the executor just before the handler runs. */
  emitToolExecutionStart(event: ToolExecutionStartEvent): void
  /** Called by the executor once the handler has settled. */
  emitToolExecutionEnd(event: ToolExecutionEndEvent): void
  /**
   * The permission gate every call through this context must pass (after
   * validation, before the handler); none when absent.
   */
  readonly permissions?: ToolCallGate
  /** Called by the permission gate with every decision it takes. */
  emitPermissionDecision?(event: PermissionDecisionEvent): void
  /**
   * Called by `bash` for each decision of the allowlist proxy. Optional: a
   * context without it simply does not hear them.
   */
  emitNetworkRequest?(event: NetworkRequestEvent): void
  /**
   * Called by `bash` when its command created protected paths. Optional: a
   * context without it does not hear them (the call's result still names them).
   */
  emitProtectedPathCreated?(event: ProtectedPathCreatedEvent): void
  /**
   * Hears a call's output while it runs: `bash` calls it with each chunk its
   * command writes to stdout or stderr, in the order they arrive (none for a
   * call the journal replays). Optional, and free when absent: the output is
   * then not decoded twice. It changes nothing else: the call's result (or
   * error) is the same, with the same `maxOutputBytes` truncation, and the
   * chunks are not bounded by it. A callback that throws is reported with
   * `process.emitWarning` and does not stop the command.
   */
  readonly onToolOutput?: ((chunk: ToolOutputChunk) => void) | undefined
  /**
   * The OpenTelemetry `Context` whose span is the parent of every call's
   * `execute_tool` span (a turn's `invoke_agent` span, an MCP request's
   * `traceparent`); the active context when absent.
   */
  readonly traceContext?: unknown
  /** What calls record on their spans beyond ids and outcomes (arguments, results); nothing more when absent. */
  readonly telemetry?: TelemetryOptions | undefined
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
  /** Where every call is recorded; see {@link DispatchContext.journal}. */
  journal?: ToolCallJournal
  /**
   * The coordinates rows are recorded under.
   *
   * @defaultValue `{ runId: <the context's id>, nodeId: 'call', iteration: 0, attempt: 1 }`
   */
  run?: Partial<RunIdentity>
  /**
   * How long a claim on a durable call holds without renewal, in milliseconds.
   *
   * @defaultValue 30_000
   */
  claimLeaseMs?: number
  /** Listeners to attach at once. */
  onToolExecutionStart?: DispatchListener<'toolExecutionStart'>
  /** Listeners to attach at once. */
  onToolExecutionEnd?: DispatchListener<'toolExecutionEnd'>
  /** Listeners to attach at once. */
  onPermissionDecision?: DispatchListener<'permissionDecision'>
  /** The permission gate every call must pass (a `Permissions`); none by default. */
  permissions?: ToolCallGate
  /** Listeners to attach at once. */
  onNetworkRequest?: DispatchListener<'networkRequest'>
  /** Listeners to attach at once. */
  onProtectedPathCreated?: DispatchListener<'protectedPathCreated'>
  /** Hears the calls' output as it arrives; see {@link DispatchContext.onToolOutput}. */
  onToolOutput?: (chunk: ToolOutputChunk) => void
  /** The parent of the calls' spans; see {@link DispatchContext.traceContext}. */
  traceContext?: unknown
  /** Opt in to recording arguments and results on the calls' spans; see {@link DispatchContext.telemetry}. */
  telemetry?: TelemetryOptions
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
    permissionDecision: new Set(),
    networkRequest: new Set(),
    protectedPathCreated: new Set(),
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
  const id = options.id ?? randomUUID()
  const context: ObservableDispatchContext = {
    id,
    idempotencyScope: options.idempotencyScope,
    abortSignal: controller.signal,
    abort: (reason?: unknown) => controller.abort(reason),
    emitToolExecutionStart: (event) => emit('toolExecutionStart', event),
    emitToolExecutionEnd: (event) => emit('toolExecutionEnd', event),
    emitPermissionDecision: (event) => emit('permissionDecision', event),
    ...(options.permissions === undefined ? {} : { permissions: options.permissions }),
    ...(options.journal === undefined ? {} : { journal: options.journal }),
    ...(options.journal === undefined && options.run === undefined
      ? {}
      : { run: new CallRun({ runId: id, ...options.run }, { ...(options.claimLeaseMs === undefined ? {} : { claimLeaseMs: options.claimLeaseMs }) }) }),
    ...(options.telemetry === undefined ? {} : { telemetry: options.telemetry }),
    ...(options.traceContext === undefined ? {} : { traceContext: options.traceContext }),
    ...(options.onToolOutput === undefined ? {} : { onToolOutput: options.onToolOutput }),
    emitNetworkRequest: (event) => emit('networkRequest', event),
    emitProtectedPathCreated: (event) => emit('protectedPathCreated', event),
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
  if (options.onPermissionDecision) context.on('permissionDecision', options.onPermissionDecision)
  if (options.onNetworkRequest) context.on('networkRequest', options.onNetworkRequest)
  if (options.onProtectedPathCreated) context.on('protectedPathCreated', options.onProtectedPathCreated)
  return context
}
