/**
 * The kit's OpenTelemetry spans, after the GenAI semantic conventions: an
 * `execute_tool` span per tool call, an `invoke_agent` span per turn and a
 * `chat` span per model call.
 *
 * @module
 */
import type { Attributes, Context, Span } from '@opentelemetry/api'
import { activeTracer, providerRegistered, type Api } from './otel_api.js'

/**
 * Whether spans may be made at all: a tracer provider was registered. One
 * property read, without loading `@opentelemetry/api`; a hot path checks it
 * before building a span request.
 *
 * @returns `false` when no provider was registered (then every `start…Span` returns `undefined`).
 */
export function tracingEnabled(): boolean {
  return providerRegistered()
}

/**
 * What a context's calls record on their spans besides ids, names and
 * outcomes. Both are off by default: arguments and results may hold
 * secrets, and the GenAI conventions make them opt-in.
 */
export interface TelemetryOptions {
  /**
   * Record `gen_ai.tool.call.arguments`: the arguments as events and
   * journals record them (what the tool's `redact` made of them), as JSON.
   *
   * @defaultValue false
   */
  recordArguments?: boolean | undefined
  /**
   * Record `gen_ai.tool.call.result`: a successful call's result (text as
   * is, bytes as `[N bytes]`, a spooled artifact as `[artifact]`).
   *
   * @defaultValue false
   */
  recordResults?: boolean | undefined
}

/** {@link TelemetryOptions} of a turn runner, with what its `invoke_agent` and `chat` spans name. */
export interface TurnTelemetryOptions extends TelemetryOptions {
  /** `gen_ai.agent.name`; the turn's span is then `invoke_agent {agentName}`. */
  agentName?: string | undefined
  /** `gen_ai.provider.name` of the model (`openai`, `anthropic`, `gcp.gemini`…); the runner cannot tell it from the model callback. */
  providerName?: string | undefined
  /** `gen_ai.request.model`; each model call's span is then `chat {model}`. */
  model?: string | undefined
}

/** What {@link startToolSpan} needs to know about a call. */
export interface ToolSpanRequest extends TelemetryOptions {
  /** The tool's name. */
  toolName: string
  /** The kit's `callId`; a function when reading it costs (a long argument still to be hashed): called only when a span is made. */
  callId: string | (() => string)
  /** The provider's id of the call (the model's `toolCallId`, MCP's request id), when there is one. */
  toolCallId?: string | undefined
  /** The logged (redacted) args; read only when `recordArguments` is set and the span records. */
  args?: (() => unknown) | undefined
  /** The parent: an OTel `Context`, or `undefined` for the active one. */
  parent?: unknown
}

/** A permission gate's decision, as a tool span records it (`toolsmith.permission.*`). */
export interface SpanDecision {
  /** What happened to the call. */
  decision: 'allow' | 'deny'
  /** Who decided (`policy`, `remembered`, `none`, or the approver's name). */
  approver: string
  /** The deciding rule's name; `null` or absent for the policy's default. */
  rule?: string | null | undefined
}

/** How a call ended, as {@link ToolSpan.end} records it. */
export interface ToolSpanOutcome {
  /** What the call threw; absent on success. */
  error?: unknown
  /** The result, read only when results are recorded and the call succeeded. */
  result?: (() => unknown) | undefined
  /** Whether the outcome was replayed from the journal rather than produced by running the handler. */
  replayed?: boolean | undefined
}

/** A span the kit started, with the context to make its children in. */
export interface SpanHandle {
  /** An OTel `Context` holding this span: the `parent` of child spans. */
  readonly context: unknown
  /**
   * Run `fn` with this span as the active one, so spans made inside it (an
   * HTTP client's, a database driver's) become its children.
   */
  run<T>(fn: () => T): T
  /** End the span; with `error`, as failed (`error.type`, status ERROR). Later calls do nothing. */
  end(outcome?: { error?: unknown }): void
}

/** An `execute_tool` span; see {@link startToolSpan}. */
export interface ToolSpan extends Omit<SpanHandle, 'end'> {
  /** Record the permission gate's decision. */
  decided(decision: SpanDecision): void
  /** End the span with the call's outcome. Later calls do nothing. */
  end(outcome: ToolSpanOutcome): void
}

/** What {@link startTurnSpan} records about a turn. */
export interface TurnSpanRequest {
  /** `gen_ai.agent.name`, and the span's name `invoke_agent {agentName}`. */
  agentName?: string | undefined
  /** `gen_ai.provider.name` (`openai`, `anthropic`, `gcp.gemini`…), when known. */
  providerName?: string | undefined
  /** `gen_ai.request.model`, when known. */
  model?: string | undefined
  /** The turn's identity: `toolsmith.run.id`, `toolsmith.node.id`, `toolsmith.iteration`, `toolsmith.attempt`. */
  identity?: { runId: string; nodeId: string; iteration: number; attempt: number } | undefined
  /** Whether the turn continues a checkpoint (`toolsmith.turn.resumed`). */
  resumed?: boolean | undefined
  /** The parent: an OTel `Context`, or `undefined` for the active one. */
  parent?: unknown
}

/** What {@link startModelSpan} records about one model call. */
export interface ModelSpanRequest {
  /** `gen_ai.request.model`, and the span's name `chat {model}`. */
  model?: string | undefined
  /** `gen_ai.provider.name`, when known. */
  providerName?: string | undefined
  /** The step of the turn, from 0 (`toolsmith.turn.step`). */
  step: number
  /** The parent: an OTel `Context` (the turn's), or `undefined` for the active one. */
  parent?: unknown
}

const SPAN_KIND_INTERNAL = 0
const SPAN_KIND_CLIENT = 2
const STATUS_ERROR = 2

/**
 * Start the `execute_tool` span of one call.
 *
 * @remarks
 * Span name `execute_tool {toolName}`, kind INTERNAL; attributes
 * `gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.type`
 * (`function`), `gen_ai.tool.call.id` (the provider's id) and
 * `toolsmith.tool.call_id` (the kit's `callId`), set at creation so a
 * sampler sees them. Arguments and result only when opted in.
 *
 * @param request - The call, its parent and what to record.
 * @returns The span, or `undefined` when no tracer provider is registered
 *   (or `@opentelemetry/api` is not installed): then nothing else is done.
 */
export function startToolSpan(request: ToolSpanRequest): ToolSpan | undefined {
  const active = activeTracer()
  if (active === undefined) return undefined
  const { api, tracer } = active
  const attributes: Attributes = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': request.toolName,
    'gen_ai.tool.type': 'function',
    'toolsmith.tool.call_id': typeof request.callId === 'function' ? request.callId() : request.callId,
  }
  if (request.toolCallId !== undefined) attributes['gen_ai.tool.call.id'] = request.toolCallId
  const parent = parentContext(api, request.parent)
  const span = tracer.startSpan(`execute_tool ${request.toolName}`, { kind: SPAN_KIND_INTERNAL, attributes }, parent)
  const recording = span.isRecording()
  if (recording && request.recordArguments === true && request.args !== undefined) {
    span.setAttribute('gen_ai.tool.call.arguments', jsonAttribute(request.args))
  }
  return new KitToolSpan(api, span, api.trace.setSpan(parent, span), recording && request.recordResults === true)
}

/**
 * Start the `invoke_agent` span of one turn (kind INTERNAL).
 *
 * @param request - The agent's name, provider and model when known, the turn's identity, the parent.
 * @returns The span and the context for its children, or `undefined` when no provider is registered.
 */
export function startTurnSpan(request: TurnSpanRequest = {}): SpanHandle | undefined {
  const active = activeTracer()
  if (active === undefined) return undefined
  const { api, tracer } = active
  const attributes: Attributes = { 'gen_ai.operation.name': 'invoke_agent' }
  if (request.agentName !== undefined) attributes['gen_ai.agent.name'] = request.agentName
  if (request.providerName !== undefined) attributes['gen_ai.provider.name'] = request.providerName
  if (request.model !== undefined) attributes['gen_ai.request.model'] = request.model
  const identity = request.identity
  if (identity !== undefined) {
    attributes['toolsmith.run.id'] = identity.runId
    attributes['toolsmith.node.id'] = identity.nodeId
    attributes['toolsmith.iteration'] = identity.iteration
    attributes['toolsmith.attempt'] = identity.attempt
  }
  if (request.resumed === true) attributes['toolsmith.turn.resumed'] = true
  const name = request.agentName === undefined ? 'invoke_agent' : `invoke_agent ${request.agentName}`
  const parent = parentContext(api, request.parent)
  const span = tracer.startSpan(name, { kind: SPAN_KIND_INTERNAL, attributes }, parent)
  return new KitSpan(api, span, api.trace.setSpan(parent, span))
}

/**
 * Start the inference span of one model call: name `chat {model}` (`chat`
 * when the model is not known), kind CLIENT, `gen_ai.operation.name` `chat`.
 *
 * @param request - Model, provider, step and the parent (the turn's context).
 * @returns The span and its context, or `undefined` when no provider is registered.
 */
export function startModelSpan(request: ModelSpanRequest): SpanHandle | undefined {
  const active = activeTracer()
  if (active === undefined) return undefined
  const { api, tracer } = active
  const attributes: Attributes = { 'gen_ai.operation.name': 'chat', 'toolsmith.turn.step': request.step }
  if (request.model !== undefined) attributes['gen_ai.request.model'] = request.model
  if (request.providerName !== undefined) attributes['gen_ai.provider.name'] = request.providerName
  const name = request.model === undefined ? 'chat' : `chat ${request.model}`
  const parent = parentContext(api, request.parent)
  const span = tracer.startSpan(name, { kind: SPAN_KIND_CLIENT, attributes }, parent)
  return new KitSpan(api, span, api.trace.setSpan(parent, span))
}

/** The given parent when it is a Context, else the active one. */
function parentContext(api: Api, parent: unknown): Context {
  if (parent !== undefined && parent !== null && typeof (parent as Context).getValue === 'function') return parent as Context
  return api.context.active()
}

class KitSpan implements SpanHandle {
  readonly context: Context
  protected readonly api: Api
  protected readonly span: Span
  #ended = false

  constructor(api: Api, span: Span, context: Context) {
    this.api = api
    this.span = span
    this.context = context
  }

  run<T>(fn: () => T): T {
    return this.api.context.with(this.context, fn)
  }

  end(outcome: { error?: unknown } = {}): void {
    if (this.#ended) return
    this.#ended = true
    if (outcome.error !== undefined) recordError(this.span, outcome.error)
    this.span.end()
  }
}

class KitToolSpan extends KitSpan implements ToolSpan {
  readonly #recordResults: boolean

  constructor(api: Api, span: Span, context: Context, recordResults: boolean) {
    super(api, span, context)
    this.#recordResults = recordResults
  }

  decided(decision: SpanDecision): void {
    this.span.setAttribute('toolsmith.permission.decision', decision.decision)
    this.span.setAttribute('toolsmith.permission.approver', decision.approver)
    if (typeof decision.rule === 'string') this.span.setAttribute('toolsmith.permission.rule', decision.rule)
  }

  override end(outcome: ToolSpanOutcome = {}): void {
    if (outcome.replayed === true) this.span.setAttribute('toolsmith.tool.call.replayed', true)
    if (outcome.error === undefined && this.#recordResults && outcome.result !== undefined) {
      this.span.setAttribute('gen_ai.tool.call.result', resultAttribute(outcome.result))
    }
    super.end(outcome)
  }
}

/**
 * `error.type` (the error's code, e.g. `TOOL_DENIED`, else its class name),
 * the cause's type when it has one (`toolsmith.error.cause_type`: what a
 * handler threw inside `E_TOOL_DOWNSTREAM_ERROR`), and status ERROR with the
 * error's message.
 */
function recordError(span: Span, error: unknown): void {
  span.setAttribute('error.type', errorType(error))
  const cause = (error as { cause?: unknown } | null)?.cause
  if (cause !== undefined && cause !== null) span.setAttribute('toolsmith.error.cause_type', errorType(cause))
  const message = (error as { message?: unknown } | null)?.message
  span.setStatus(typeof message === 'string' ? { code: STATUS_ERROR, message } : { code: STATUS_ERROR })
}

/** A low-cardinality name for what was thrown: its string `code`, its class name, or `_OTHER`. */
export function errorType(error: unknown): string {
  if (error === null || typeof error !== 'object') return '_OTHER'
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string' && code !== '') return code
  const name = (error as { constructor?: { name?: unknown } }).constructor?.name
  return typeof name === 'string' && name !== '' && name !== 'Object' ? name : '_OTHER'
}

/** A value as a span attribute: JSON (attributes hold no nested objects), or a placeholder when it cannot be serialised. */
function jsonAttribute(read: () => unknown): string {
  try {
    return JSON.stringify(read()) ?? 'null'
  } catch {
    return '[not serialisable]'
  }
}

/** A tool result as a span attribute: text as is, bytes and artifacts by a placeholder (an artifact is read lazily, a span ends now). */
function resultAttribute(read: () => unknown): string {
  try {
    const value = read()
    if (typeof value === 'string') return value
    if (value instanceof Uint8Array) return `[${value.byteLength} bytes]`
    if (value !== null && typeof value === 'object' && typeof (value as { asString?: unknown }).asString === 'function') return '[artifact]'
    return JSON.stringify(value) ?? 'null'
  } catch {
    return '[not serialisable]'
  }
}
