/**
 * `Tool<A>`: the single source of truth for a callable tool.
 *
 * @module
 */
import { tracingEnabled } from '../telemetry/spans.js'
import { recordVerdict, toolSpanOf } from './call_span.js'
import { checkArgumentRoles, type ArgumentRoles } from './argument_roles.js'
import { INVALID_ARGS_NOT_RECORDED, REDACTION_FAILED } from '../contracts/logged_args.js'
import type { SpooledArtifactLike } from '../contracts/artifact.js'
import {
  E_INVALID_INITIAL_TOOL_VALUE,
  E_INVALID_TOOL_ARGS,
  E_TOOL_ABORTED,
  E_TOOL_DOWNSTREAM_ERROR,
  errorSummary,
} from '../exceptions.js'
import { hasBrand } from '../utils/guards.js'
import {
  ValidationException,
  validateOrThrow,
  validator,
  withoutInputValues,
  type Description,
  type ObjectSchema,
} from '../validation.js'
import { type PendingCallId, callIdOf, pendingCallIdOf, unrepresentableArgs } from './call_identity.js'
import type { DispatchContext } from './dispatch_context.js'
import { failCall, runCall, type CallStarter } from './pipeline/call_pipeline.js'
import { type CallInfo, Prepared, emitEnd, startEvent, warnListenerError } from './prepared_call.js'
import type {
  ArtifactConstructorResolver,
  CollisionPolicy,
  PreparedCall,
  PreparedExecutor,
  RawTool,
  ToolDescription,
  ToolHandler,
  ToolReconciler,
  ToolResult,
  ValidCall,
} from './tool_types.js'
import { hasDateSchema, reviveJsonDates } from './json_dates.js'
import { describeOnce, describeSnapshot } from './joi_descriptions.js'
import { Registry } from './registry.js'
import { rawToolSchema } from './tool_schema.js'
import { isStandardInputSchema, standardJsonOf, validateStandard, type InferToolInput, type StandardInputSchema, type ToolInputSchema } from './standard_schema.js'
import { reviveToolOutput, validateToolOutput } from './tool_output.js'

const TOOL_BRAND = Symbol.for('toolsmith.tool')

export { INVALID_ARGS_NOT_RECORDED, REDACTION_FAILED } from '../contracts/logged_args.js'

export type {
  ArtifactConstructorResolver,
  CollisionPolicy,
  InvalidCall,
  PreparedCall,
  PreparedExecutor,
  RawTool,
  StructuredToolResult,
  ReconcileAnswer,
  ReconcileApplied,
  ReconcileInfo,
  ReconcileNotApplied,
  ToolCallInfo,
  ToolDescription,
  ToolExecutor,
  ToolHandler,
  ToolReconciler,
  ToolResult,
  ValidCall,
} from './tool_types.js'

const warnedNames = new Set<string>()

/**
 * Definitions the kit wrote itself (the built-in tools'): constants that
 * satisfy {@link Tool.schema} (spec/tools/ready_instances.spec.ts checks
 * each, and that their roles pass `checkArgumentRoles`), so the constructor
 * applies the schema's defaults without running joi and asks nothing of
 * their input schemas (built on first use). `import 'toolsmith'` builds the
 * five ready tools, and it loads no joi.
 */
const kitDefinitions = new WeakMap<object, KitExtras>()

/** What the kit knows of its own definitions beyond what a {@link RawTool} says. */
interface KitExtras {
  /** The input's JSON Schema, generated at build time from the joi schema (see {@link kitInputJsonSchema}). */
  inputJsonSchema?: Readonly<Record<string, unknown>>
}

/** The built-ins' precomputed input JSON Schemas, by tool. */
const kitJsonSchemas = new WeakMap<object, { readonly json: Readonly<Record<string, unknown>>; readonly inputSchema: unknown }>()

/**
 * Mark a tool definition as the kit's own: see `kitDefinitions`. Not for
 * definitions that come from outside the kit.
 *
 * @param raw - A definition written in the kit's source.
 * @param extras - Its input's JSON Schema, precomputed.
 * @returns `raw`.
 * @internal
 */
export function kitDefinition<T extends object>(raw: T, extras: KitExtras = {}): T {
  kitDefinitions.set(raw, extras)
  return raw
}

/**
 * A built-in tool's input JSON Schema, as `toToolInputSchema` would make it
 * from its joi schema, without joi (generated; spec/tools/builtin_json_schemas.spec.ts
 * checks them): listing the built-ins over MCP loads no joi.
 *
 * @param tool - Any tool.
 * @returns A fresh copy, or `undefined` for a tool without one.
 * @internal
 */
export function kitInputJsonSchema(tool: object): Record<string, unknown> | undefined {
  const kit = kitJsonSchemas.get(tool)
  if (kit === undefined) return undefined
  // A subclass that describes itself otherwise, or an input schema put in
  // the built-in's place, is described as any tool is.
  const own = tool as Partial<Tool>
  if (own.describe !== Tool.prototype.describe || own.inputSchema !== kit.inputSchema) return undefined
  return structuredClone(kit.json)
}

/** A joi input schema as `validate` runs it: required, labelled `args` unless it has a label. */
function requiredArgs<Args>(input: ObjectSchema<Args>): ObjectSchema<Args> {
  const required = input.required()
  return required.$_getFlag('label') === undefined ? required.label('args') : required
}

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
 * A callable tool: name, description, input schema (joi, or any Standard
 * Schema with JSON Schema output such as zod 4), private handler and the
 * artifact class for its output, in one object.
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
 * @typeParam A - The artifact type this tool's results are wrapped in (a `SpooledArtifact`
 *   subclass; the default for tools without one). Not the arguments: those are `Args`.
 * @typeParam Args - The validated argument type the handler receives, inferred from `inputSchema`
 *   (a Standard Schema's output type; joi's `ObjectSchema<T>` gives `T`, an untyped `validator.object()` `any`).
 * @typeParam S - The input schema's own type, inferred.
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
export class Tool<
  A extends SpooledArtifactLike = SpooledArtifactLike,
  Args = any,
  S extends ToolInputSchema<any> = ToolInputSchema<Args>,
> {
  /**
   * The joi schema a {@link RawTool} must satisfy: reuse it to validate
   * tool entries nested in your own configuration.
   */
  static readonly schema: ObjectSchema<RawTool> = rawToolSchema

  /** The tool's name. */
  readonly name: string
  /** What the model reads. */
  readonly description: string
  /** The input schema, as given: a joi object schema or a Standard Schema. */
  readonly inputSchema: S
  /** The joi object schema results are checked against, if set; see {@link RawTool.outputSchema}. */
  readonly outputSchema: ObjectSchema | undefined
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
  /** What a permission gate judges, by role (frozen); `undefined` when the tool declares none. */
  readonly roles: Readonly<ArgumentRoles> | undefined

  readonly #handler: ToolHandler<Args>
  /**
   * A joi `inputSchema`, made required (a joi object lets `undefined`
   * through, and every handler would meet it); built by the first
   * validation, as each joi modifier clones the schema.
   */
  #argsSchema: ObjectSchema<Args> | undefined
  /** A Standard Schema `inputSchema` and its JSON Schema (what `describe()` carries). */
  readonly #standard: { schema: StandardInputSchema<Args>; json: Record<string, unknown> } | undefined
  /** The input schema's description when it has a `date()` (see `reviveJsonDates`), `null` when it has none. */
  #dates: Description | null | undefined

  /**
   * @param raw - The tool's definition; validated against {@link Tool.schema}.
   * @throws {@link toolsmith/core!E_INVALID_INITIAL_TOOL_VALUE} when `raw` does not satisfy the
   *   schema; the `ValidationException` is the cause.
   */
  constructor(raw: RawTool<A, Args, S>) {
    let valid: Required<Pick<RawTool<A, Args, S>, 'ephemeral' | 'onCollision' | 'sideEffect'>> & RawTool<A, Args, S>
    const extras = kitDefinitions.get(raw)
    const kit = extras !== undefined
    if (kit) {
      if (extras.inputJsonSchema !== undefined) kitJsonSchemas.set(this, { json: extras.inputJsonSchema, inputSchema: raw.inputSchema })
      valid = { ephemeral: false, onCollision: 'throw', sideEffect: false, ...raw }
    } else {
      try {
        valid = validateOrThrow(rawToolSchema, raw, { convert: false }) as typeof valid
      } catch (error) {
        const message = error instanceof ValidationException ? error.message : errorSummary(error)
        throw new E_INVALID_INITIAL_TOOL_VALUE(`Invalid tool definition: ${message}`, { cause: error })
      }
    }
    this.name = valid.name
    this.description = valid.description
    this.inputSchema = valid.inputSchema
    const input: ToolInputSchema<Args> = valid.inputSchema
    // A kit definition's input schema is joi, built on first use: asking it
    // anything here would build it (and load joi) at `import 'toolsmith'`.
    if (!kit && isStandardInputSchema(input)) {
      this.#standard = { schema: input as StandardInputSchema<Args>, json: standardJsonOf(valid.name, input) }
    }
    this.outputSchema = valid.outputSchema
    this.artifactConstructor = valid.artifactConstructor
    this.meta = Registry.isRegistry(valid.meta) ? valid.meta : new Registry(valid.meta ?? {})
    this.ephemeral = valid.ephemeral
    this.onCollision = valid.onCollision
    this.sideEffect = valid.sideEffect
    this.idempotent = valid.idempotent ?? !valid.sideEffect
    this.redact = valid.redact
    this.reconcile = valid.reconcile
    if (valid.roles === undefined) this.roles = undefined
    else if (kit) this.roles = Object.freeze({ ...valid.roles })
    else this.roles = checkArgumentRoles(this.name, valid.roles, this.#standard?.json ?? (input as ObjectSchema<Args>))
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
   *   `ValidationException` is the cause (a Standard Schema's issues are in `details.issues`).
   */
  async validate(args: unknown): Promise<Args> {
    if (this.#standard !== undefined) return validateStandard(this.name, this.#standard.schema, args)
    const argsSchema = (this.#argsSchema ??= requiredArgs(this.inputSchema as ObjectSchema<Args>))
    try {
      // Straight to joi with one shared options object: `asyncValidateOrThrow`
      // spreads a fresh options object per call, which costs joi a slow
      // preferences merge and, at ~1 µs, most of the executor's overhead.
      if (this.#dates === undefined) {
        const description = describeOnce(this.inputSchema as ObjectSchema)
        this.#dates = hasDateSchema(description) ? description : null
      }
      const input = this.#dates === null ? args : reviveJsonDates(this.#dates, args)
      return (await argsSchema.validateAsync(input, VALIDATE_OPTIONS)) as Args
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
   * Bind the tool to a turn: returns the one function that runs it — the
   * call pipeline (`core/pipeline/`), the same on every surface.
   *
   * @remarks
   * Each call, in order:
   * 1. computes `callId` from the tool name and the **raw** args;
   * 2. validates (a failure throws `E_INVALID_TOOL_ARGS` and emits nothing;
   *    args that are `undefined`, `null` or not an object fail here too);
   * 3. asks `ctx.permissions` (when set) whether the call may run; a
   *    refusal throws its `TOOL_DENIED` as is and emits no execution event;
   *    the gate's decision is recorded on the call (`call.verdict`);
   * 4. emits `toolExecutionStart` (args redacted when `redact` is set; a
   *    `redact` that throws records {@link REDACTION_FAILED} instead, never
   *    the raw args, and the call goes on);
   * 5. with `ctx.journal` claiming, an idempotency scope on the context and
   *    a non-idempotent side-effect tool, claims the call first (before the
   *    gate): a settled claim replays its outcome, a dead claimant's call
   *    fails with `TOOL_OUTCOME_UNKNOWN` unless `reconcile` answers;
   * 6. runs the handler with `call.signal = ctx.abortSignal` (an already
   *    aborted context fails with `TOOL_ABORTED` instead);
   * 7. emits `toolExecutionEnd` with `isError`; with `ctx.journal`, records
   *    the call's row (every call: allowed, denied, invalid, failed, replayed);
   * 8. returns the handler's result unchanged (with `outputSchema`: the
   *    validated object, or `E_INVALID_TOOL_OUTPUT`, not wrapped), or throws
   *    `E_TOOL_DOWNSTREAM_ERROR` whose message carries the cause's code and
   *    message and whose `cause` is exactly what the handler threw.
   *
   * A listener that throws never breaks the call. Create the executor once
   * per turn and reuse it.
   *
   * @param ctx - The turn's dispatch context.
   * @returns `(args) => Promise<result>`.
   */
  executor(ctx: DispatchContext): PreparedExecutor<InferToolInput<S>> {
    const execute = ((args: unknown): Promise<ToolResult> => this.#execute(ctx, args)) as PreparedExecutor<InferToolInput<S>>
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
    let prepared: PreparedCall<Args>
    try {
      prepared = await this.prepare(args, ctx)
    } catch (error) {
      // A validator that broke (not bad args): recorded like any failed call.
      return await failCall(ctx, this.name, args, error)
    }
    return this.#revived(ctx, runCall(this, ctx, prepared, this.#starter))
  }

  /**
   * With a journal, a result may not come from this run's handler: a replay
   * brings the JSON text its row holds, a `reconcile` hook an object of its
   * own. Either is parsed and checked like a handler's result.
   */
  #revived(ctx: DispatchContext, pending: Promise<ToolResult>): Promise<ToolResult> {
    const schema = this.outputSchema
    if (schema === undefined || ctx.journal === undefined) return pending
    return pending.then((result) => reviveToolOutput(this.name, schema, result))
  }

  async #runPrepared(ctx: DispatchContext, prepared: PreparedCall): Promise<ToolResult> {
    if (!Prepared.isIssuedBy(prepared, this)) {
      throw new E_INVALID_TOOL_ARGS(`run(prepared) needs a call prepared by tool "${this.name}" (executor(ctx).prepare(args))`, {
        details: { toolName: this.name, issues: [] },
      })
    }
    return this.#revived(ctx, runCall(this, ctx, prepared, this.#starter))
  }

  /** {@link Tool.#start} bound once per tool: the pipeline's way to the gate, events and handler. */
  readonly #starter: CallStarter = (ctx, prepared, info) => this.#start(ctx, prepared as ValidCall<Args>, info)

  // Written without per-call closures: this path runs thousands of times per
  // task and its overhead is budgeted against bare validation + hashing.
  async #start(ctx: DispatchContext, prepared: ValidCall<Args>, info: CallInfo): Promise<ToolResult> {
    // The permission gate: after validation, before any event or handler. A
    // refusal (TOOL_DENIED) is thrown as is, never wrapped: the handler never ran.
    // One object per run is both what the gate is asked about and the
    // handler's call info, so what the gate worked out for this run (a
    // path's resolution) can be handed to the handler of this run only.
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
      emitEnd(ctx, prepared, startedAt, started, error)
      span?.end({ error })
      throw error
    }
    if (this.outputSchema !== undefined) {
      try {
        result = await validateToolOutput(this.name, this.outputSchema, result)
      } catch (error) {
        // Thrown as is, not wrapped: the handler ran fine and broke its own contract.
        emitEnd(ctx, prepared, startedAt, started, error)
        span?.end({ error })
        throw error
      }
    }
    emitEnd(ctx, prepared, startedAt, started, undefined)
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

  /**
   * A plain-JSON snapshot of the definition: everything a provider adapter
   * needs. For a joi tool `validator.build(d.inputSchema)` rebuilds the
   * schema; for a Standard Schema tool `inputSchema` is its JSON Schema and
   * `inputSchemaFormat` is `'json-schema'`.
   *
   * @returns `{ name, description, inputSchema, inputSchemaFormat?, outputSchema?, sideEffect, idempotent }`; a fresh copy each call.
   */
  describe(): ToolDescription {
    // The joi parts are snapshots a provider can map back to the live schema
    // (no validator.build() of them), and fresh copies the caller owns.
    return {
      name: this.name,
      description: this.description,
      ...(this.#standard === undefined
        ? { inputSchema: describeSnapshot(this.inputSchema as ObjectSchema) }
        : { inputSchema: structuredClone(this.#standard.json), inputSchemaFormat: 'json-schema' as const }),
      ...(this.outputSchema === undefined ? {} : { outputSchema: describeSnapshot(this.outputSchema) }),
      sideEffect: this.sideEffect,
      idempotent: this.idempotent,
    }
  }

  #run(prepared: ValidCall<Args>, ctx: DispatchContext, info: CallInfo): ToolResult | Promise<ToolResult> {
    const signal = ctx.abortSignal
    if (signal.aborted) {
      throw new E_TOOL_ABORTED(`Call to "${this.name}" was cancelled before it started`, { cause: signal.reason })
    }
    return this.#handler(prepared.args, ctx, this.meta, info)
  }
}

