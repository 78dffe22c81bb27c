/**
 * `Tool<A>`: the single source of truth for a callable tool.
 *
 * @module
 */
import { isSpooledArtifact, type ArtifactClass, type SpooledArtifactLike } from '../contracts/artifact.js'
import {
  E_INVALID_INITIAL_TOOL_VALUE,
  E_INVALID_TOOL_ARGS,
  E_TOOL_ABORTED,
  E_TOOL_DOWNSTREAM_ERROR,
  errorSummary,
} from '../exceptions.js'
import { hasBrand, isPlainObject } from '../utils/guards.js'
import {
  ValidationException,
  forbiddenOption,
  validateOrThrow,
  validator,
  withoutInputValues,
  type Description,
  type ObjectSchema,
} from '../validation.js'
import { PendingCallId, callIdOf, defineLazyCallId, idempotencyKeyOf, pendingCallIdOf, unrepresentableArgs } from './call_identity.js'
import type { DispatchContext, GateVerdict, GatedToolCall, ToolExecutionEndEvent, ToolExecutionStartEvent } from './dispatch_context.js'
import { hasDateSchema, reviveJsonDates } from './json_dates.js'
import { Registry } from './registry.js'
import { tracingEnabled } from '../telemetry/spans.js'
import { recordVerdict, toolSpanOf } from './call_span.js'

const TOOL_BRAND = Symbol.for('toolsmith.tool')

/** What events record in place of the args when a tool's `redact` throws. */
export const REDACTION_FAILED = '[redaction failed]'

/**
 * What events and journals record in place of args that failed validation:
 * a `redact` written for valid args cannot be trusted with arbitrary input
 * (`({ content, ...rest }) => rest` would pass a stray `password` through).
 */
export const INVALID_ARGS_NOT_RECORDED = '[invalid args not recorded]'

/** What a handler may return: text, bytes, or an artifact wrapping either. */
export type ToolResult = string | Uint8Array | SpooledArtifactLike

/** Facts about one call, handed to the handler as its fourth parameter. */
export interface ToolCallInfo {
  /** `sha256hex(canonicalStringify({ tool, args }))` over the raw args. */
  readonly callId: string
  /**
   * `sha256hex(canonicalStringify({ scope, callId }))`, `scope` being
   * `ctx.idempotencyScope ?? ctx.id`: pass it to external APIs that
   * deduplicate, so a retried attempt cannot act twice.
   */
  readonly idempotencyKey: string
  /** The tool's name. */
  readonly toolName: string
  /** The context's abort signal: stop work when it fires. */
  readonly signal: AbortSignal
  /** The provider's id of the call, when the surface has one. */
  readonly toolCallId?: string | undefined
  /** What the permission gate decided about this run (and judged, e.g. a resolved path), when a gate ran. */
  readonly verdict?: GateVerdict | undefined
}

/**
 * A tool's implementation. Declare all four parameters when the tool has side
 * effects and is not idempotent: `call.idempotencyKey` is how it stays safe
 * across retries.
 *
 * @typeParam Args - The validated argument type.
 */
export type ToolHandler<Args = any> = (
  args: Args,
  ctx: DispatchContext,
  meta: Registry,
  call: ToolCallInfo,
) => ToolResult | Promise<ToolResult>

/**
 * What a tool's {@link RawTool.reconcile} hook found out about a call whose
 * outcome was lost: applied (with its result), not applied, or `undefined`
 * when it cannot tell (the call then fails with `TOOL_OUTCOME_UNKNOWN`).
 */
export type ReconcileAnswer = ReconcileApplied | ReconcileNotApplied | undefined

/** {@link ReconcileAnswer}: the effect happened. */
export interface ReconcileApplied {
  /** Always `true`. */
  applied: true
  /** What the call returns (and what the journal records, for later replays). */
  result: ToolResult
}

/** {@link ReconcileAnswer}: the effect did not happen, so the handler may run now. */
export interface ReconcileNotApplied {
  /** Always `false`. */
  applied: false
}

/** Facts about the interrupted call handed to a {@link RawTool.reconcile} hook. */
export interface ReconcileInfo extends ToolCallInfo {
  /** Epoch milliseconds when the lost run started. */
  readonly startedAtMs: number
  /** The worker that ran it (`host:pid:random`). */
  readonly owner: string
}

/**
 * A tool's way to find out whether an interrupted call's effect happened.
 *
 * @typeParam Args - The validated argument type.
 */
export type ToolReconciler<Args = any> = (args: Args, call: ReconcileInfo) => ReconcileAnswer | Promise<ReconcileAnswer>

/** Returns the artifact class lazily, so `tool.ts` never imports artifact code. */
export type ArtifactConstructorResolver<A extends SpooledArtifactLike = SpooledArtifactLike> = () => ArtifactClass<A>

/** What to do when a tool's name is already taken while merging registries. */
export type CollisionPolicy = 'throw' | 'replace' | 'keep'

/**
 * The input of `new Tool(raw)`.
 *
 * @typeParam A - The artifact class that wraps this tool's output.
 * @typeParam Args - The validated argument type.
 */
export interface RawTool<A extends SpooledArtifactLike = SpooledArtifactLike, Args = any> {
  /** `^[a-zA-Z0-9_-]{1,64}$`: legal for every major provider as is. */
  name: string
  /** What the model reads to decide when to call the tool. */
  description: string
  /** A joi object schema; annotate it (`.description()`, `.example()`…) once for validation and providers alike. */
  inputSchema: ObjectSchema<Args>
  /** The implementation; private to the tool, run only through `executor(ctx)`. */
  handler: ToolHandler<Args>
  /** The artifact class for this tool's results, as a thunk. */
  artifactConstructor?: ArtifactConstructorResolver<A>
  /** Free-form metadata; a plain object is turned into a {@link Registry}. */
  meta?: Registry | Record<string, unknown>
  /**
   * Whether the tool lives for one turn only (`ToolRegistry.pruneEphemeral` removes it).
   *
   * @defaultValue false
   */
  ephemeral?: boolean
  /**
   * What `ToolRegistry.merge` does when another tool has the same name.
   *
   * @defaultValue 'throw'
   */
  onCollision?: CollisionPolicy
  /**
   * Whether the tool changes state outside itself.
   *
   * @defaultValue false
   */
  sideEffect?: boolean
  /**
   * Whether running it twice with the same args is safe.
   *
   * @defaultValue `!sideEffect`
   */
  idempotent?: boolean
  /** What events, logs and journals record instead of the args (e.g. a hash of file content). */
  redact?: (args: Args) => unknown
  /**
   * For `sideEffect: true, idempotent: false` tools run with a claiming
   * journal: when an earlier run of the same call was claimed but never
   * finished (its worker crashed), check the world and answer whether the
   * effect happened, instead of failing with `TOOL_OUTCOME_UNKNOWN`.
   */
  reconcile?: ToolReconciler<Args>
}

/** The plain-JSON snapshot `tool.describe()` returns. */
export interface ToolDescription {
  /** The tool's name. */
  name: string
  /** The tool's description. */
  description: string
  /** joi's `describe()` of the input schema: rebuild it with `validator.build()`. */
  inputSchema: Description
  /** Whether the tool changes state outside itself. */
  sideEffect: boolean
  /** Whether running it twice with the same args is safe. */
  idempotent: boolean
}

/** The function `tool.executor(ctx)` returns. */
export type ToolExecutor = (args: unknown) => Promise<ToolResult>

/** What every surface needs to know about a call before it runs; see {@link Tool.prepare}. */
interface PreparedCallBase {
  /** The tool's name. */
  readonly toolName: string
  /** `sha256hex(canonicalStringify({ tool, args }))` over the raw args. */
  readonly callId: string
  /** The idempotency key in the context the call was prepared for. */
  readonly idempotencyKey: string
  /**
   * What events, logs and journals record: `redact(args)` for valid args when
   * the tool has `redact` ({@link REDACTION_FAILED} when it throws), the args
   * themselves when it has none, and {@link INVALID_ARGS_NOT_RECORDED} for
   * args that failed validation. Never the raw args of a failed call.
   */
  readonly loggedArgs: unknown
}

/** A call whose args passed validation: hand it to `executor(ctx).run(prepared)`. */
export interface ValidCall<Args = any> extends PreparedCallBase {
  /** Validation passed. */
  readonly ok: true
  /** The validated args (defaults applied). */
  readonly args: Args
}

/** A call whose args failed validation: it cannot run. */
export interface InvalidCall extends PreparedCallBase {
  /** Validation failed. */
  readonly ok: false
  /** The `E_INVALID_TOOL_ARGS` that running it would throw. */
  readonly error: E_INVALID_TOOL_ARGS
}

/** The outcome of {@link Tool.prepare}. */
export type PreparedCall<Args = any> = ValidCall<Args> | InvalidCall

/**
 * `tool.executor(ctx)`: call it with args, or split the call in two —
 * `prepare(args)` (ids, validation, logged args; no event) then
 * `run(prepared)` (events, handler) — when the caller records the call itself
 * (the turn runner does).
 */
export interface PreparedExecutor extends ToolExecutor {
  /** {@link Tool.prepare} in this executor's context. */
  prepare(args: unknown): Promise<PreparedCall>
  /**
   * Run a call this tool prepared in this context.
   *
   * @throws `E_INVALID_TOOL_ARGS` for an invalid call; `E_INVALID_OPTIONS` for
   *   an object `prepare` did not return.
   */
  run(prepared: PreparedCall): Promise<ToolResult>
}

const rawToolSchema = validator
  .object<RawTool & { trusted?: never }>({
    name: validator
      .string()
      .pattern(/^[a-zA-Z0-9_-]{1,64}$/)
      .rule({ message: { 'string.pattern.base': '"name" must be 1 to 64 letters, digits, "_" or "-" (got {#value})' } })
      .required(),
    description: validator.string().allow('').required(),
    inputSchema: validator
      .any()
      .required()
      .custom((value, helpers) =>
        validator.isSchema(value) && (value as { type?: string }).type === 'object' ? value : helpers.error('any.invalid'),
      )
      .rule({ message: { 'any.invalid': '"inputSchema" must be a joi object schema' } }),
    handler: validator.func().required(),
    artifactConstructor: validator
      .func()
      .custom((value: (...args: unknown[]) => unknown, helpers) => (isClass(value) ? helpers.error('any.class') : value))
      .rule({
        message: {
          'any.class':
            '"artifactConstructor" must be a thunk returning the artifact class: pass () => {#value.name}, not {#value.name} itself',
        },
      }),
    meta: validator
      .any()
      .custom((value, helpers) => (Registry.isRegistry(value) || isPlainObject(value) ? value : helpers.error('any.invalid')))
      .rule({ message: { 'any.invalid': '"meta" must be a Registry or a plain object' } }),
    ephemeral: validator.boolean().default(false),
    // Removed: stored and never read by anything. Refused by name
    // rather than ignored, so nobody relies on a guarantee that does not exist.
    trusted: forbiddenOption('"trusted" was removed: it never had an effect (no surface treats tool output differently); drop it'),
    onCollision: validator.string().valid('throw', 'replace', 'keep').default('throw'),
    sideEffect: validator.boolean().default(false),
    idempotent: validator.boolean(),
    redact: validator.func(),
    reconcile: validator.func(),
  })
  .unknown(false) as unknown as ObjectSchema<RawTool>

const warnedNames = new Set<string>()

/** `asyncValidateOrThrow`'s defaults plus `convert: false`, built once. */
const VALIDATE_OPTIONS = { abortEarly: false, convert: false } as const

/**
 * Emit, once per tool name, the warning that a non-idempotent side-effect
 * tool cannot see its idempotency key.
 *
 * @internal
 */
export function warnIdempotencyKeyUnreachable(name: string, what: string): void {
  if (warnedNames.has(name)) return
  warnedNames.add(name)
  process.emitWarning(
    `Tool "${name}" has sideEffect: true and idempotent: false, but its ${what} ` +
      'cannot see call.idempotencyKey; retries may repeat its side effect.',
    { code: 'TOOLSMITH_IDEMPOTENCY_KEY_UNUSED' },
  )
}

/**
 * A callable tool: name, description, joi input schema, private handler and
 * the artifact class for its output, in one object.
 *
 * @remarks
 * The handler is reachable only through {@link Tool.executor}, which gives
 * every call the same guarantees: a stable `callId`, validation before any
 * event, start and end events, and handler errors wrapped in
 * `E_TOOL_DOWNSTREAM_ERROR` with the original error as `cause`.
 *
 * Subclass it to package a capability (the built-in `ReadTool` … `BashTool`
 * are subclasses); a subclass behaves exactly like a plain instance.
 *
 * @typeParam A - The artifact class that wraps this tool's output.
 * @typeParam Args - The validated argument type the handler receives.
 *
 * @example
 * ```ts
 * import { Tool, validator, createDispatchContext } from 'toolsmith'
 *
 * const weather = new Tool({
 *   name: 'weather',
 *   description: 'Current temperature for a city',
 *   inputSchema: validator.object({ city: validator.string().required().description('City name') }),
 *   handler: async ({ city }) => `It is 21°C in ${city}`,
 * })
 * const ctx = createDispatchContext()
 * await weather.executor(ctx)({ city: 'Oslo' }) // 'It is 21°C in Oslo'
 * ```
 */
export class Tool<A extends SpooledArtifactLike = SpooledArtifactLike, Args = any> {
  /**
   * The joi schema a {@link RawTool} must satisfy: reuse it to validate
   * tool entries nested in your own configuration.
   */
  static readonly schema: ObjectSchema<RawTool> = rawToolSchema

  /** The tool's name. */
  readonly name: string
  /** What the model reads. */
  readonly description: string
  /** The joi object schema for the args. */
  readonly inputSchema: ObjectSchema<Args>
  /** The artifact class thunk, if any. */
  readonly artifactConstructor: ArtifactConstructorResolver<A> | undefined
  /** Free-form metadata. */
  readonly meta: Registry
  /** Whether the tool lives for one turn only. */
  readonly ephemeral: boolean
  /** Collision policy used by `ToolRegistry.merge`. */
  readonly onCollision: CollisionPolicy
  /** Whether the tool changes state outside itself. */
  readonly sideEffect: boolean
  /** Whether running it twice with the same args is safe. */
  readonly idempotent: boolean
  /** What logs record instead of the args, if set. */
  readonly redact: ((args: Args) => unknown) | undefined
  /** How an interrupted call's outcome is found out, if set; see {@link RawTool.reconcile}. */
  readonly reconcile: ToolReconciler<Args> | undefined

  readonly #handler: ToolHandler<Args>
  /** `inputSchema`, made required: a joi object lets `undefined` through, and every handler would meet it. */
  readonly #argsSchema: ObjectSchema<Args>
  #description: ToolDescription | undefined
  /** The input schema's description when it has a `date()` (see `reviveJsonDates`), `null` when it has none. */
  #dates: Description | null | undefined

  /**
   * @param raw - The tool's definition; validated against {@link Tool.schema}.
   * @throws {@link toolsmith/core!E_INVALID_INITIAL_TOOL_VALUE} when `raw` does not satisfy the
   *   schema; the `ValidationException` is the cause.
   */
  constructor(raw: RawTool<A, Args>) {
    let valid: Required<Pick<RawTool<A, Args>, 'ephemeral' | 'onCollision' | 'sideEffect'>> & RawTool<A, Args>
    try {
      valid = validateOrThrow(rawToolSchema, raw, { convert: false }) as typeof valid
    } catch (error) {
      const message = error instanceof ValidationException ? error.message : errorSummary(error)
      throw new E_INVALID_INITIAL_TOOL_VALUE(`Invalid tool definition: ${message}`, { cause: error })
    }
    this.name = valid.name
    this.description = valid.description
    this.inputSchema = valid.inputSchema
    const required = valid.inputSchema.required()
    this.#argsSchema = required.$_getFlag('label') === undefined ? required.label('args') : required
    this.artifactConstructor = valid.artifactConstructor
    this.meta = Registry.isRegistry(valid.meta) ? valid.meta : new Registry(valid.meta ?? {})
    this.ephemeral = valid.ephemeral
    this.onCollision = valid.onCollision
    this.sideEffect = valid.sideEffect
    this.idempotent = valid.idempotent ?? !valid.sideEffect
    this.redact = valid.redact
    this.reconcile = valid.reconcile
    this.#handler = valid.handler
    if (this.sideEffect && !this.idempotent && valid.handler.length < 4) {
      warnIdempotencyKeyUnreachable(this.name, 'handler takes fewer than 4 parameters and')
    }
  }

  /** Brand for {@link Tool.isTool}; realm-safe. */
  get [TOOL_BRAND](): true {
    return true
  }

  /**
   * Returns true when `value` is a Tool, including one from another copy of
   * this package or another realm.
   *
   * @param value - Anything.
   * @returns Whether `value` is a Tool.
   */
  static isTool(value: unknown): value is Tool {
    return value instanceof Tool || hasBrand(value, TOOL_BRAND)
  }

  /**
   * Validate args against the input schema (async rules allowed, no type
   * conversion, defaults applied). The args themselves are required, whatever
   * the schema says: `undefined` is refused (`"args" is required`) like
   * `null` or a non-object (`"args" must be of type object`).
   *
   * @param args - The raw arguments.
   * @returns The validated arguments.
   * @throws {@link toolsmith/core!E_INVALID_TOOL_ARGS} naming every failing field; the
   *   `ValidationException` is the cause.
   */
  async validate(args: unknown): Promise<Args> {
    try {
      // Straight to joi with one shared options object: `asyncValidateOrThrow`
      // spreads a fresh options object per call, which costs joi a slow
      // preferences merge and, at ~1 µs, most of the executor's overhead.
      if (this.#dates === undefined) {
        const description = this.inputSchema.describe()
        this.#dates = hasDateSchema(description) ? description : null
      }
      const input = this.#dates === null ? args : reviveJsonDates(this.#dates, args)
      return (await this.#argsSchema.validateAsync(input, VALIDATE_OPTIONS)) as Args
    } catch (caught) {
      if (!validator.isError(caught)) throw caught
      // Args come from a model and may hold secrets; the error is logged and journaled.
      const error = new ValidationException(withoutInputValues(caught))
      throw new E_INVALID_TOOL_ARGS(`Invalid arguments for tool "${this.name}": ${error.message}`, {
        cause: error,
        details: {
          toolName: this.name,
          issues: error.details.map((d) => ({ path: d.path.join('.'), message: d.message, type: d.type })),
        },
      })
    }
  }

  /**
   * Bind the tool to a turn: returns the one function that runs it.
   *
   * @remarks
   * Each call, in order:
   * 1. computes `callId` from the tool name and the **raw** args;
   * 2. validates (a failure throws `E_INVALID_TOOL_ARGS` and emits nothing;
   *    args that are `undefined`, `null` or not an object fail here too);
   * 3. asks `ctx.permissions` (when set) whether the call may run; a
   *    refusal throws its `TOOL_DENIED` as is and emits nothing;
   * 4. emits `toolExecutionStart` (args redacted when `redact` is set; a
   *    `redact` that throws records {@link REDACTION_FAILED} instead, never
   *    the raw args, and the call goes on);
   * 5. runs the handler with `call.signal = ctx.abortSignal` (an already
   *    aborted context fails with `TOOL_ABORTED` instead);
   * 6. emits `toolExecutionEnd` with `isError`;
   * 7. returns the handler's result unchanged, or throws
   *    `E_TOOL_DOWNSTREAM_ERROR` whose message carries the cause's code and
   *    message and whose `cause` is exactly what the handler threw.
   *
   * A listener that throws never breaks the call. Create the executor once
   * per turn and reuse it.
   *
   * @param ctx - The turn's dispatch context.
   * @returns `(args) => Promise<result>`.
   */
  executor(ctx: DispatchContext): PreparedExecutor {
    const execute = ((args: unknown): Promise<ToolResult> => this.#execute(ctx, args)) as PreparedExecutor
    execute.prepare = (args) => this.prepare(args, ctx)
    execute.run = (prepared) => this.#runPrepared(ctx, prepared)
    return execute
  }

  /**
   * Everything known about a call before it runs, computed one way for every
   * surface: the executor, the turn runner, MCP and the AI SDK all go
   * through here.
   *
   * @remarks
   * Never throws for bad args: an invalid call comes back with `ok: false`,
   * its `error`, its ids and {@link INVALID_ARGS_NOT_RECORDED} as
   * `loggedArgs`, so it can be recorded without its raw args. Emits nothing.
   *
   * @param args - The raw args.
   * @param ctx - The context whose idempotency scope keys the call.
   * @returns The prepared call.
   */
  async prepare(args: unknown, ctx: Pick<DispatchContext, 'id' | 'idempotencyScope'>): Promise<PreparedCall<Args>> {
    // With a long string in the args (a write's content) the hashing waits
    // for the first read of callId: a call nobody observes (no listener, no
    // journal, no gate) never hashes its content. Checks and errors happen here.
    let callId: string | PendingCallId
    try {
      callId = pendingCallIdOf(this.name, args)
    } catch (cause) {
      const error = unrepresentableArgs(this.name, cause)
      return this.#issue(new Prepared<Args>(this, this.name, callIdOf(this.name, args), ctx, INVALID_ARGS_NOT_RECORDED, false, undefined, error))
    }
    let validated: Args
    try {
      validated = await this.validate(args)
    } catch (error) {
      if (!(error instanceof E_INVALID_TOOL_ARGS)) throw error
      return this.#issue(new Prepared<Args>(this, this.name, callId, ctx, INVALID_ARGS_NOT_RECORDED, false, undefined, error))
    }
    // With `redact`, what is logged is computed on first read (a listener, a
    // journal): `write`'s redaction hashes the whole content, which a call
    // nobody observes should not pay for.
    if (this.redact) return this.#issue(new Prepared<Args>(this, this.name, callId, ctx, undefined, true, validated, undefined, this.#redactor))
    return this.#issue(new Prepared<Args>(this, this.name, callId, ctx, validated, true, validated, undefined))
  }

  // Every Prepared is built by `#issue` with its issuing tool: `run` refuses
  // look-alikes (which could smuggle unvalidated args) and other tools' calls.
  // A field, not a WeakSet: adding to a WeakSet costs as much as validating
  // a small call.
  #issue(prepared: Prepared<Args>): PreparedCall<Args> {
    return prepared as unknown as PreparedCall<Args>
  }

  async #execute(ctx: DispatchContext, args: unknown): Promise<ToolResult> {
    const prepared = await this.prepare(args, ctx)
    if (!prepared.ok) throw prepared.error
    return this.#start(ctx, prepared)
  }

  async #runPrepared(ctx: DispatchContext, prepared: PreparedCall): Promise<ToolResult> {
    if (!Prepared.isIssuedBy(prepared, this)) {
      throw new E_INVALID_TOOL_ARGS(`run(prepared) needs a call prepared by tool "${this.name}" (executor(ctx).prepare(args))`, {
        details: { toolName: this.name, issues: [] },
      })
    }
    if (!prepared.ok) throw prepared.error
    return this.#start(ctx, prepared)
  }

  // Written without per-call closures: this path runs thousands of times per
  // task and its overhead is budgeted against bare validation + hashing.
  async #start(ctx: DispatchContext, prepared: ValidCall<Args>): Promise<ToolResult> {
    // The permission gate: after validation, before any event or handler. A
    // refusal (TOOL_DENIED) is thrown as is, never wrapped: the handler never ran.
    // One object per run is both what the gate is asked about and the
    // handler's call info, so what the gate worked out for this run (a
    // path's resolution) can be handed to the handler of this run only.
    const info = new CallInfo(prepared as Prepared<Args>, ctx.abortSignal)
    // The call's `execute_tool` span; with no tracer provider registered, one property read and nothing else.
    const span = tracingEnabled() ? toolSpanOf(this.name, prepared, info, ctx) : undefined
    const gate = ctx.permissions
    if (gate !== undefined) {
      try {
        // A gate that allows at once returns nothing: no await, no microtask.
        const pending = gate.authorize(info, ctx)
        if (pending !== undefined) await pending
      } catch (refusal) {
        if (span !== undefined) {
          recordVerdict(span, info.verdict)
          span.end({ error: refusal })
        }
        throw refusal
      }
      if (span !== undefined) recordVerdict(span, info.verdict)
    }
    const startedAt = Date.now()
    const started = performance.now()
    try {
      ctx.emitToolExecutionStart(startEvent(this.name, ctx.id, prepared, startedAt))
    } catch (error) {
      warnListenerError(error)
    }
    let result: ToolResult
    try {
      // Inside the span, the handler's own spans (an HTTP client's) are its children.
      result = await (span === undefined ? this.#run(prepared, ctx, info) : span.run(() => this.#run(prepared, ctx, info)))
    } catch (cause) {
      const error = new E_TOOL_DOWNSTREAM_ERROR(`${this.name} failed: ${errorSummary(cause)}`, {
        cause,
        details: { toolName: this.name, callId: prepared.callId, causeCode: (cause as { code?: unknown } | null)?.code },
      })
      this.#emitEnd(ctx, prepared, startedAt, started, error)
      span?.end({ error })
      throw error
    }
    this.#emitEnd(ctx, prepared, startedAt, started, undefined)
    if (span !== undefined) span.end({ result: () => result })
    return result
  }

  /** {@link Tool.#redacted} bound once per tool, not once per call. */
  readonly #redactor = (validated: Args): unknown => this.#redacted(validated)

  // A broken redact() must neither break the call nor leak the raw args into
  // events and journals, so it fails closed to a placeholder.
  #redacted(validated: Args): unknown {
    try {
      return this.redact!(validated)
    } catch (error) {
      process.emitWarning(`redact() of tool "${this.name}" threw: ${errorSummary(error)}; args were not recorded`, {
        code: 'TOOLSMITH_REDACT_ERROR',
      })
      return REDACTION_FAILED
    }
  }

  #emitEnd(ctx: DispatchContext, prepared: ValidCall<Args>, startedAt: number, started: number, error: unknown): void {
    const durationMs = performance.now() - started
    const isError = error !== undefined
    const pending = unhashedCallId(prepared)
    const event: ToolExecutionEndEvent = {
      toolName: this.name,
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
   * A plain-JSON snapshot of the definition: everything a provider adapter
   * needs, and `validator.build(d.inputSchema)` rebuilds the schema.
   *
   * @returns `{ name, description, inputSchema, sideEffect, idempotent }`; a fresh copy each call.
   */
  describe(): ToolDescription {
    this.#description ??= {
      name: this.name,
      description: this.description,
      inputSchema: this.inputSchema.describe(),
      sideEffect: this.sideEffect,
      idempotent: this.idempotent,
    }
    return structuredClone(this.#description)
  }

  #run(prepared: ValidCall<Args>, ctx: DispatchContext, info: CallInfo): ToolResult | Promise<ToolResult> {
    const signal = ctx.abortSignal
    if (signal.aborted) {
      throw new E_TOOL_ABORTED(`Call to "${this.name}" was cancelled before it started`, { cause: signal.reason })
    }
    return this.#handler(prepared.args, ctx, this.meta, info)
  }
}

/**
 * The start event. Without `redact` its `args` are the validated args; with
 * it, `args` is an enumerable getter that runs the redaction on first read
 * (spread, `JSON.stringify` and `structuredClone` read it like a field), so
 * a context nobody listens to never pays for it. A callId still to be
 * hashed is read through the same way.
 */
function startEvent(toolName: string, turnId: string, prepared: ValidCall, startedAt: number): ToolExecutionStartEvent {
  const pending = unhashedCallId(prepared)
  const redactsLazily = prepared instanceof Prepared && prepared.redactsLazily
  const event = { toolName, turnId, callId: pending ? '' : prepared.callId, args: redactsLazily ? undefined : prepared.loggedArgs, startedAt }
  if (pending) defineLazyCallId(event, pending)
  if (redactsLazily) Object.defineProperty(event, 'args', { enumerable: true, configurable: true, get: () => prepared.loggedArgs })
  return event
}

/** `prepared`'s callId while it is still to be hashed (a long string in its args). */
function unhashedCallId(prepared: ValidCall | Prepared<any>): PendingCallId | undefined {
  const pending = prepared instanceof Prepared ? prepared.pendingCallId : undefined
  return pending?.ready === false ? pending : undefined
}

/**
 * What a handler learns about its call, and what the permission gate is
 * asked about (one object per run). A class rather than an object literal
 * with a getter: a literal's accessor is created anew on every call, and
 * this is the hottest path of the kit.
 */
class CallInfo implements ToolCallInfo, GatedToolCall {
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
class Prepared<Args> {
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
 * Whether a function is a class rather than a thunk. A native `class` cannot
 * be called (its source starts with `class`); a transpiled one is told apart
 * by a prototype carrying the artifact brand.
 */
function isClass(fn: (...args: unknown[]) => unknown): boolean {
  if (/^class[\s{]/.test(Function.prototype.toString.call(fn))) return true
  const proto = (fn as { prototype?: unknown }).prototype
  return isSpooledArtifact(proto)
}

function warnListenerError(error: unknown): void {
  process.emitWarning(`A tool event listener threw: ${errorSummary(error)}`, { code: 'TOOLSMITH_LISTENER_ERROR' })
}
