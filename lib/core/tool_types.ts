/**
 * The types of a tool call: what a handler returns and receives, what
 * `prepare` answers and what `tool.executor(ctx)` is. Apart from `tool.ts`
 * so the call pipeline can use them without importing the class.
 *
 * @module
 */
import type { ArgumentRoles } from './argument_roles.js'
import type { ArtifactClass, SpooledArtifactLike } from '../contracts/artifact.js'
import type { ToolResult } from '../contracts/tool_result.js'
import type { Description, ObjectSchema } from '../validation.js'
import type { E_INVALID_TOOL_ARGS } from '../exceptions.js'
import type { DispatchContext, GateVerdict } from './dispatch_context.js'
import type { Registry } from './registry.js'
import type { ToolInputSchema } from './standard_schema.js'

export type { StructuredToolResult, ToolResult } from '../contracts/tool_result.js'

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

/**
 * The function `tool.executor(ctx)` returns.
 *
 * @typeParam Args - What it takes: the tool's argument type (`unknown` when untyped).
 */
export type ToolExecutor<Args = unknown> = (args: Args) => Promise<ToolResult>

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
export interface PreparedExecutor<Args = any> extends ToolExecutor<Args> {
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

/** Returns the artifact class lazily, so `tool.ts` never imports artifact code. */
export type ArtifactConstructorResolver<A extends SpooledArtifactLike = SpooledArtifactLike> = () => ArtifactClass<A>

/** What to do when a tool's name is already taken while merging registries. */
export type CollisionPolicy = 'throw' | 'replace' | 'keep'

/**
 * The input of `new Tool(raw)`.
 *
 * @typeParam A - The artifact type this tool's results are wrapped in (a `SpooledArtifact` subclass);
 *   not the arguments.
 * @typeParam Args - The validated argument type, inferred from `inputSchema`.
 * @typeParam S - The input schema's own type (joi or a Standard Schema), inferred.
 */
export interface RawTool<
  A extends SpooledArtifactLike = SpooledArtifactLike,
  Args = any,
  S extends ToolInputSchema<any> = ToolInputSchema<Args>,
> {
  /** `^[a-zA-Z0-9_-]{1,64}$`: legal for every major provider as is. */
  name: string
  /** What the model reads to decide when to call the tool. */
  description: string
  /**
   * A joi object schema (annotate it — `.description()`, `.example()`… — once
   * for validation and providers alike), or any Standard Schema with JSON
   * Schema output whose JSON Schema is an object (zod 4's `z.object()`,
   * valibot, arktype). The handler's argument type is inferred from it.
   */
  inputSchema: S & ToolInputSchema<Args>
  /** The implementation; private to the tool, run only through `executor(ctx)`. */
  handler: ToolHandler<Args>
  /**
   * A joi object schema the handler's result must satisfy. With it, the
   * handler returns a plain object; the call returns it validated (joi's
   * conversions and defaults applied) or fails with `E_INVALID_TOOL_OUTPUT`.
   * MCP sends it as `structuredContent`, the AI SDK as the tool's output.
   * A result replayed from a journal, or given by `reconcile`, is checked
   * too. Excludes `artifactConstructor`.
   */
  outputSchema?: ObjectSchema
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
  /**
   * Which arguments a permission gate judges, by role (`{ path: 'file' }`,
   * `{ command: 'cmd', commandArgs: 'args' }`): see {@link ArgumentRoles}.
   * Each must name an argument of `inputSchema` of the right type.
   */
  roles?: ArgumentRoles
}


/** The plain-JSON snapshot `tool.describe()` returns. */
export interface ToolDescription {
  /** The tool's name. */
  name: string
  /** The tool's description. */
  description: string
  /**
   * joi's `describe()` of the input schema (rebuild it with `validator.build()`);
   * for a Standard Schema tool, its JSON Schema (draft 2020-12, no `$schema`),
   * and `inputSchemaFormat` says so.
   */
  inputSchema: Description
  /** `'json-schema'` when `inputSchema` is a JSON Schema (a Standard Schema tool); absent for joi. */
  inputSchemaFormat?: 'json-schema'
  /** joi's `describe()` of the output schema, when the tool has one. */
  outputSchema?: Description
  /** Whether the tool changes state outside itself. */
  sideEffect: boolean
  /** Whether running it twice with the same args is safe. */
  idempotent: boolean
}
