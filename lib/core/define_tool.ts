/**
 * `defineTool` and `getDefinedToolMetadata`: the `smithers-orchestrator`
 * shape, as a thin factory over {@link Tool}.
 *
 * @module
 */
import type { ObjectSchema } from '../validation.js'
import type { ToolInputSchema } from './standard_schema.js'
import type { ArgumentRoles } from './argument_roles.js'
import type { ToolCallInfo, ToolReconciler, ToolResult } from './tool.js'
import { Tool, warnIdempotencyKeyUnreachable } from './tool.js'

const METADATA = Symbol.for('toolsmith.tool.metadata')

/**
 * Options of {@link defineTool}.
 *
 * @typeParam Args - The validated argument type.
 */
export interface DefineToolOptions<Args = any> {
  /** Tool name, `^[a-zA-Z0-9_-]{1,64}$`. */
  name: string
  /**
   * What the model reads.
   *
   * @defaultValue `name`
   */
  description?: string
  /** A joi object schema for the input, or a Standard Schema with JSON Schema output (zod 4…); `Args` is inferred from it. */
  schema: ToolInputSchema<Args>
  /** A joi object schema `execute`'s result must satisfy; see `RawTool.outputSchema`. */
  outputSchema?: ObjectSchema
  /**
   * Whether the tool changes state outside the sandbox.
   *
   * @defaultValue false
   */
  sideEffect?: boolean
  /**
   * Whether a repeat with the same input is safe.
   *
   * @defaultValue `!sideEffect`
   */
  idempotent?: boolean
  /**
   * Runs the tool with the validated args. Declare `call` when
   * `sideEffect: true, idempotent: false`: its `idempotencyKey` is stable
   * across retries of the same task iteration.
   */
  execute: (args: Args, call: ToolCallInfo) => ToolResult | Promise<ToolResult>
  /** What events, logs and journals record instead of the args; see `RawTool.redact`. */
  redact?: (args: Args) => unknown
  /**
   * How the outcome of an interrupted call is found out, instead of
   * `TOOL_OUTCOME_UNKNOWN`; see `RawTool.reconcile` and docs/runner.md.
   */
  reconcile?: ToolReconciler<Args>
  /** Which arguments a permission gate judges, by role; see `RawTool.roles`. */
  roles?: ArgumentRoles
}

/** What {@link getDefinedToolMetadata} returns. */
export interface DefinedToolMetadata {
  /** The tool's name. */
  name: string
  /** Whether the tool changes state outside itself. */
  sideEffect: boolean
  /** Whether a repeat with the same input is safe. */
  idempotent: boolean
}

/**
 * Define a tool in the `smithers-orchestrator` style.
 *
 * @remarks
 * A non-idempotent side-effect tool whose `execute` omits the `call`
 * parameter triggers one warning per name: it cannot see the idempotency key.
 *
 * @param options - Name, description, schema, flags and `execute`.
 * @returns A {@link Tool}.
 * @throws `E_INVALID_INITIAL_TOOL_VALUE` when the definition is invalid.
 *
 * @example
 * ```ts
 * const placeOrder = defineTool({
 *   name: 'place_order',
 *   schema: validator.object({ sku: validator.string().required() }),
 *   sideEffect: true,
 *   idempotent: false,
 *   execute: async ({ sku }, call) => shop.order(sku, { idempotencyKey: call.idempotencyKey }),
 * })
 * ```
 */
export function defineTool<Args = any>(options: DefineToolOptions<Args>): Tool<any, Args> {
  const { name, schema, sideEffect = false, execute } = options
  const idempotent = options.idempotent ?? !sideEffect
  const tool = new Tool<any, Args>({
    name,
    description: options.description ?? name,
    inputSchema: schema,
    outputSchema: options.outputSchema,
    sideEffect,
    idempotent,
    handler: (args, _ctx, _meta, call) => execute(args, call),
    redact: options.redact,
    reconcile: options.reconcile,
    roles: options.roles,
  })
  if (sideEffect && !idempotent && typeof execute === 'function' && execute.length < 2) {
    warnIdempotencyKeyUnreachable(name, 'execute() takes no `call` parameter and')
  }
  return tool
}

/**
 * Read the `{ name, sideEffect, idempotent }` of a tool.
 *
 * @param value - A {@link Tool}, an object carrying the
 *   `Symbol.for('toolsmith.tool.metadata')` property, or anything else.
 * @returns The metadata, or `null` for non-tools and non-objects.
 */
export function getDefinedToolMetadata(value: unknown): DefinedToolMetadata | null {
  if (Tool.isTool(value)) {
    return { name: value.name, sideEffect: value.sideEffect, idempotent: value.idempotent }
  }
  if ((typeof value === 'object' || typeof value === 'function') && value !== null) {
    const meta = (value as Record<symbol, unknown>)[METADATA] as Partial<DefinedToolMetadata> | undefined
    if (meta && typeof meta.name === 'string') {
      return { name: meta.name, sideEffect: meta.sideEffect === true, idempotent: meta.idempotent !== false }
    }
  }
  return null
}
