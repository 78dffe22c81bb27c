/**
 * `Tool<A>`: the single source of truth for a callable tool.
 *
 * @module
 */
import { performance } from 'node:perf_hooks'
import type { ArtifactClass, SpooledArtifactLike } from '../contracts/artifact.js'
import {
  E_INVALID_INITIAL_TOOL_VALUE,
  E_INVALID_TOOL_ARGS,
  E_TOOL_ABORTED,
  E_TOOL_DOWNSTREAM_ERROR,
  errorSummary,
} from '../exceptions.js'
import { canonicalStringify } from '../utils/canonical_json.js'
import { hasBrand, isPlainObject } from '../utils/guards.js'
import { sha256Hex } from '../utils/hash.js'
import {
  ValidationException,
  validateOrThrow,
  validator,
  type Description,
  type ObjectSchema,
} from '../validation.js'
import type { DispatchContext, ToolExecutionEndEvent } from './dispatch_context.js'
import { Registry } from './registry.js'

const TOOL_BRAND = Symbol.for('toolsmith.tool')

/** What events record in place of the args when a tool's `redact` throws. */
export const REDACTION_FAILED = '[redaction failed]'

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
   * Whether the tool's output is trusted (not model- or user-controlled).
   *
   * @defaultValue false
   */
  trusted?: boolean
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

const rawToolSchema: ObjectSchema<RawTool> = validator
  .object<RawTool>({
    name: validator
      .string()
      .pattern(/^[a-zA-Z0-9_-]{1,64}$/)
      .required()
      .messages({ 'string.pattern.base': '"name" must be 1 to 64 letters, digits, "_" or "-" (got {#value})' }),
    description: validator.string().allow('').required(),
    inputSchema: validator
      .any()
      .required()
      .custom((value, helpers) =>
        validator.isSchema(value) && (value as { type?: string }).type === 'object' ? value : helpers.error('any.invalid'),
      )
      .messages({ 'any.invalid': '"inputSchema" must be a joi object schema' }),
    handler: validator.func().required(),
    artifactConstructor: validator.func(),
    meta: validator
      .any()
      .custom((value, helpers) => (Registry.isRegistry(value) || isPlainObject(value) ? value : helpers.error('any.invalid')))
      .messages({ 'any.invalid': '"meta" must be a Registry or a plain object' }),
    ephemeral: validator.boolean().default(false),
    trusted: validator.boolean().default(false),
    onCollision: validator.string().valid('throw', 'replace', 'keep').default('throw'),
    sideEffect: validator.boolean().default(false),
    idempotent: validator.boolean(),
    redact: validator.func(),
  })
  .unknown(false)

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
  /** Whether the tool's output is trusted. */
  readonly trusted: boolean
  /** Collision policy used by `ToolRegistry.merge`. */
  readonly onCollision: CollisionPolicy
  /** Whether the tool changes state outside itself. */
  readonly sideEffect: boolean
  /** Whether running it twice with the same args is safe. */
  readonly idempotent: boolean
  /** What logs record instead of the args, if set. */
  readonly redact: ((args: Args) => unknown) | undefined

  readonly #handler: ToolHandler<Args>
  /** `inputSchema`, made required: a joi object lets `undefined` through, and every handler would meet it. */
  readonly #argsSchema: ObjectSchema<Args>
  #description: ToolDescription | undefined

  /**
   * @param raw - The tool's definition; validated against {@link Tool.schema}.
   * @throws {@link E_INVALID_INITIAL_TOOL_VALUE} when `raw` does not satisfy the
   *   schema; the `ValidationException` is the cause.
   */
  constructor(raw: RawTool<A, Args>) {
    let valid: Required<Pick<RawTool<A, Args>, 'ephemeral' | 'trusted' | 'onCollision' | 'sideEffect'>> & RawTool<A, Args>
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
    this.trusted = valid.trusted
    this.onCollision = valid.onCollision
    this.sideEffect = valid.sideEffect
    this.idempotent = valid.idempotent ?? !valid.sideEffect
    this.redact = valid.redact
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
   * @throws {@link E_INVALID_TOOL_ARGS} naming every failing field; the
   *   `ValidationException` is the cause.
   */
  async validate(args: unknown): Promise<Args> {
    try {
      // Straight to joi with one shared options object: `asyncValidateOrThrow`
      // spreads a fresh options object per call, which costs joi a slow
      // preferences merge and, at ~1 µs, most of the executor's overhead.
      return (await this.#argsSchema.validateAsync(args, VALIDATE_OPTIONS)) as Args
    } catch (caught) {
      if (!validator.isError(caught)) throw caught
      const error = new ValidationException(caught)
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
   * 3. emits `toolExecutionStart` (args redacted when `redact` is set; a
   *    `redact` that throws records {@link REDACTION_FAILED} instead, never
   *    the raw args, and the call goes on);
   * 4. runs the handler with `call.signal = ctx.abortSignal` (an already
   *    aborted context fails with `TOOL_ABORTED` instead);
   * 5. emits `toolExecutionEnd` with `isError`;
   * 6. returns the handler's result unchanged, or throws
   *    `E_TOOL_DOWNSTREAM_ERROR` whose message carries the cause's code and
   *    message and whose `cause` is exactly what the handler threw.
   *
   * A listener that throws never breaks the call. Create the executor once
   * per turn and reuse it.
   *
   * @param ctx - The turn's dispatch context.
   * @returns `(args) => Promise<result>`.
   */
  executor(ctx: DispatchContext): ToolExecutor {
    return (args: unknown): Promise<ToolResult> => this.#execute(ctx, args)
  }

  // Written without per-call closures: this path runs thousands of times per
  // task and its overhead is budgeted against bare validation + hashing.
  async #execute(ctx: DispatchContext, args: unknown): Promise<ToolResult> {
    const callId = this.#callId(args)
    const validated = await this.validate(args)
    const startedAt = Date.now()
    const started = performance.now()
    const loggedArgs = this.redact ? this.#redacted(validated) : validated
    try {
      ctx.emitToolExecutionStart({ toolName: this.name, turnId: ctx.id, callId, args: loggedArgs, startedAt })
    } catch (error) {
      warnListenerError(error)
    }
    let result: ToolResult
    try {
      result = await this.#run(validated, ctx, callId)
    } catch (cause) {
      const error = new E_TOOL_DOWNSTREAM_ERROR(`${this.name} failed: ${errorSummary(cause)}`, {
        cause,
        details: { toolName: this.name, callId, causeCode: (cause as { code?: unknown } | null)?.code },
      })
      this.#emitEnd(ctx, callId, startedAt, started, error)
      throw error
    }
    this.#emitEnd(ctx, callId, startedAt, started, undefined)
    return result
  }

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

  #emitEnd(ctx: DispatchContext, callId: string, startedAt: number, started: number, error: unknown): void {
    const durationMs = performance.now() - started
    const isError = error !== undefined
    const event: ToolExecutionEndEvent = {
      toolName: this.name,
      turnId: ctx.id,
      callId,
      startedAt,
      endedAt: startedAt + Math.round(durationMs),
      durationMs,
      isError,
    }
    // Added only on failure (no spread of a fresh object on every success).
    if (isError) event.error = error
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

  #callId(args: unknown): string {
    try {
      return sha256Hex(canonicalStringify({ tool: this.name, args }))
    } catch (cause) {
      throw new E_INVALID_TOOL_ARGS(`Invalid arguments for tool "${this.name}": ${errorSummary(cause)}`, {
        cause,
        details: { toolName: this.name, issues: [] },
      })
    }
  }

  #run(args: Args, ctx: DispatchContext, callId: string): ToolResult | Promise<ToolResult> {
    const signal = ctx.abortSignal
    if (signal.aborted) {
      throw new E_TOOL_ABORTED(`Call to "${this.name}" was cancelled before it started`, { cause: signal.reason })
    }
    const name = this.name
    let idempotencyKey: string | undefined
    const call: ToolCallInfo = {
      callId,
      toolName: name,
      signal,
      // Computed on first read: most handlers never look at it.
      get idempotencyKey() {
        idempotencyKey ??= sha256Hex(canonicalStringify({ scope: ctx.idempotencyScope ?? ctx.id, callId }))
        return idempotencyKey
      },
    }
    return this.#handler(args, ctx, this.meta, call)
  }
}

function warnListenerError(error: unknown): void {
  process.emitWarning(`A tool event listener threw: ${errorSummary(error)}`, { code: 'TOOLSMITH_LISTENER_ERROR' })
}
