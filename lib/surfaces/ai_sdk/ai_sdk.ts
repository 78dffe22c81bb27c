/**
 * `toAiSdkTools`: tools as the record the Vercel AI SDK's `generateText({ tools })`
 * and `streamText({ tools })` take, without importing `ai`.
 *
 * @module
 */
import type { DispatchContext } from '../../core/dispatch_context.js'
import type { Tool } from '../../core/tool.js'
import { toolList, type ToolCollection } from '../../core/tool_collection.js'
import { BaseException, errorSummary, toolFailureText } from '../../exceptions.js'
import { createCallContext } from '../../core/call_context.js'
import { linkSignals } from '../../utils/linked_signal.js'
import { aiSdkApproval } from './ai_sdk_approval.js'
import type { JsonSchema } from '../../providers/json_schema.js'
import { dropOptionalNulls } from '../../providers/optional_nulls.js'
import { toToolInputSchema } from '../../providers/tool_input_schema.js'
import { toToolOutputSchema } from '../../providers/tool_output_schema.js'
import { isStructuredToolResult, type StructuredToolResult } from '../../contracts/tool_result.js'
import type { ObjectSchema } from '../../validation.js'
import { validateToolOutput } from '../../core/tool_output.js'
import { TOOL_NAME_RULES, ToolNameMap } from '../../providers/tool_name_map.js'
import { resolveMaxResultBytes, toolResultToText } from '../../providers/tool_result_text.js'

/** The AI SDK's marker for a ready JSON Schema (`jsonSchema()` sets it); a registered symbol, so shared across copies of `ai`. */
const AI_SDK_SCHEMA = Symbol.for('vercel.ai.schema')

/** One problem reported by a Standard Schema validation. */
export interface StandardIssue {
  /** What is wrong (`CODE: message`). */
  readonly message: string
  /** Where, when known. */
  readonly path?: ReadonlyArray<PropertyKey>
}

/** A successful Standard Schema validation. */
export interface StandardSuccess {
  /** The validated value (joi defaults applied). */
  readonly value: unknown
  /** Always absent on success. */
  readonly issues?: undefined
}

/** A failed Standard Schema validation. */
export interface StandardFailure {
  /** The problems found. */
  readonly issues: ReadonlyArray<StandardIssue>
}

/** A Standard Schema validation result. */
export type StandardValidationResult = StandardSuccess | StandardFailure

/**
 * The input schema of an {@link AiSdkTool}.
 *
 * @remarks
 * At run time the object is what the AI SDK's own `jsonSchema(schema)`
 * returns (the SDK then sends `jsonSchema` to the model unchanged), and it
 * also implements Standard Schema and Standard JSON Schema (`~standard`),
 * which is how its type fits `FlexibleSchema` without this package
 * depending on `ai`'s types.
 */
export interface AiSdkInputSchema {
  /** The JSON Schema the model receives (draft 2020-12, from `toJsonSchema`). */
  readonly jsonSchema: JsonSchema
  /** Standard Schema v1 and Standard JSON Schema v1. */
  readonly '~standard': {
    /** Standard Schema version. */
    readonly version: 1
    /** `'toolsmith'`. */
    readonly vendor: string
    /**
     * Validates with the tool's joi schema: the input schema with
     * `convert: false`, optional `null`s dropped first; the output schema as
     * the executor checks results.
     */
    readonly validate: (value: unknown) => Promise<StandardValidationResult>
    /** Standard JSON Schema converters; both return {@link AiSdkInputSchema.jsonSchema}. */
    readonly jsonSchema: {
      /** The schema. */
      readonly input: (options?: unknown) => JsonSchema
      /** Same as `input`: a joi schema is one JSON Schema for what goes in and what comes out. */
      readonly output: (options?: unknown) => JsonSchema
    }
  }
}

/** What the AI SDK passes a tool's `execute` (a subset of its `ToolExecutionOptions`). */
export interface AiSdkToolCallOptions {
  /** The SDK's id of the call. */
  toolCallId: string
  /** Fires when the `generateText` call is aborted. */
  abortSignal?: AbortSignal
}

/** One entry of the record {@link toAiSdkTools} returns: an AI SDK `Tool`. */
export interface AiSdkTool {
  /** What the model reads. */
  description: string
  /** The arguments' schema. */
  inputSchema: AiSdkInputSchema
  /**
   * The schema of the tool's results, for a tool with an output schema (the
   * same object shape as `inputSchema`; the SDK validates stored UI messages'
   * outputs with it, in `validateUIMessages`).
   */
  outputSchema?: AiSdkInputSchema
  /**
   * Runs the tool through `tool.executor(ctx)`; resolves to the result as
   * text or, for a tool with an output schema, to the validated object
   * (which the SDK sends the model as JSON).
   */
  execute: (input: unknown, options: AiSdkToolCallOptions) => Promise<string | StructuredToolResult>
  /**
   * Present when the context has a `Permissions` gate without an approver of
   * its own: true when the policy says `ask`, so the SDK's tool-approval
   * flow asks the application.
   */
  needsApproval?: (input: unknown, options: { toolCallId: string }) => Promise<boolean>
}

/** Options of {@link toAiSdkTools}. */
export interface AiSdkToolsOptions {
  /**
   * Name map for the record's keys; defaults to a fresh one for the
   * `portable` rule (legal for every provider the SDK can talk to).
   */
  names?: ToolNameMap
  /**
   * Drop the `null`s a model sends for optional properties (see
   * `dropOptionalNulls`) before validating; needed when the SDK's provider
   * sends strict schemas.
   *
   * @defaultValue true
   */
  dropOptionalNulls?: boolean
  /**
   * Most bytes of a tool's result `execute` returns; a larger result is cut
   * and ends with `[… N bytes truncated …]`. An artifact result is never read
   * whole: only its first lines, up to the cap (see `toolResultToText`). A
   * structured result (a tool with an output schema) is returned whole. A
   * positive integer, or `Infinity` for no cap.
   *
   * @defaultValue 200,000
   */
  maxResultBytes?: number
}

/**
 * Turn tools into the record `generateText({ tools })` takes.
 *
 * @remarks
 * - `ai` is an optional peer: nothing here imports it. Each schema is the
 *   object the SDK's `jsonSchema()` builds (marked with the registered symbol
 *   `Symbol.for('vercel.ai.schema')`), so the SDK sends our JSON Schema as
 *   is, and it also implements Standard Schema for type compatibility.
 * - The SDK does not validate: each call runs `tool.executor(ctx)` with a
 *   per-call context (see `createCallContext`) whose `toolCallId` is the
 *   SDK's and whose `abortSignal` fires when either `ctx` or the SDK's
 *   `abortSignal` does; optional `null`s are dropped first.
 * - The SDK's `toolCallId`, within `ctx.idempotencyScope` (else within
 *   `ctx` itself), is the call's stable identity: with a journal on `ctx`
 *   (`createDispatchContext({ journal })`) every call is recorded, and a
 *   non-idempotent side-effect call is claimed, so a step replayed with the
 *   same `toolCallId` gets the recorded result without the tool running
 *   again (`TOOL_OUTCOME_UNKNOWN` when the first run was cut off).
 * - A failure is rethrown as the same exception class whose message is the
 *   one failure text of every surface, root cause first (`E_INVALID_TOOL_ARGS: …`,
 *   `TOOL_FILE_NOT_FOUND: … [read failed; E_TOOL_DOWNSTREAM_ERROR]`; see
 *   `toolFailureText`): the SDK turns a throwing `execute` into
 *   a `tool-error` the model reads in the next step, never a crash.
 * - Keys are the tools' names, renamed through `options.names` when a
 *   provider would reject them.
 * - A tool with an output schema gets `outputSchema`, and its `execute`
 *   resolves to the validated object (the tool's typed output; an invalid
 *   result is an `E_INVALID_TOOL_OUTPUT` tool error).
 *
 * @param tools - An array, record or `ToolRegistry` of tools.
 * @param ctx - The turn's context: its events fire for every call, its journal records every call.
 * @param options - Name map, null handling and the result byte cap.
 * @returns A record of AI SDK tools keyed by (provider-legal) name.
 *
 * @example
 * ```ts
 * import { generateText, stepCountIs } from 'ai'
 * const ctx = createDispatchContext()
 * const result = await generateText({
 *   model, prompt: 'Fix the failing test',
 *   tools: toAiSdkTools(Object.values(createTools({ rootDir })), ctx),
 *   stopWhen: stepCountIs(10),
 * })
 * ```
 */
export function toAiSdkTools(
  tools: ToolCollection,
  ctx: DispatchContext,
  options: AiSdkToolsOptions = {},
): Record<string, AiSdkTool> {
  const list = toolList(tools)
  const names = options.names ?? new ToolNameMap(TOOL_NAME_RULES.portable, list.map((t) => t.name))
  const dropNulls = options.dropOptionalNulls !== false
  const maxBytes = resolveMaxResultBytes(options.maxResultBytes, 'toAiSdkTools')
  return Object.fromEntries(list.map((tool) => [names.toProvider(tool.name), toAiSdkTool(tool, ctx, dropNulls, maxBytes)]))
}

function toAiSdkTool(tool: Tool, ctx: DispatchContext, dropNulls: boolean, maxBytes: number): AiSdkTool {
  const prepare = (input: unknown): unknown => (dropNulls ? dropOptionalNulls(tool, input) : input)
  const approval = aiSdkApproval(tool, ctx, prepare)
  const outputSchema = tool.outputSchema
  return {
    description: tool.description,
    inputSchema: inputSchemaOf(tool, prepare),
    ...(outputSchema === undefined ? {} : { outputSchema: outputSchemaOf(tool.name, outputSchema) }),
    ...(approval ? { needsApproval: approval.needsApproval } : {}),
    execute: async (input, { toolCallId, abortSignal }) => {
      // Linked for this call only and released when it ends: the turn's
      // context may serve many calls, and nothing of a finished one stays on it.
      const link = abortSignal === undefined ? undefined : linkSignals([ctx.abortSignal, abortSignal])
      const turnCtx = {
        ...createCallContext(ctx, { toolCallId, idempotencyScope: callScope(ctx, toolCallId) }),
        abortSignal: link?.signal ?? ctx.abortSignal,
      }
      const callCtx = approval ? { ...turnCtx, permissions: approval.gateFor(toolCallId) } : turnCtx
      try {
        const result = await tool.executor(callCtx)(prepare(input))
        // The executor validated a structured result: the SDK gets the object, its typed output.
        if (outputSchema !== undefined && isStructuredToolResult(result)) return result
        return await toolResultToText(result, { maxBytes })
      } catch (error) {
        throw withCodeInMessage(error)
      } finally {
        link?.release()
      }
    },
  }
}

/**
 * The call's stable identity: the SDK's `toolCallId` within the context's
 * `idempotencyScope` (a workflow step), else within the context itself.
 * Never the bare id: a provider's ids are unique per response at best (a
 * local model may number its calls `call_0`, `call_1` in every
 * conversation), so a bare id would let one conversation replay another's
 * call. Within a scope, a replayed step that brings the same `toolCallId`
 * gets the recorded result.
 */
function callScope(ctx: DispatchContext, toolCallId: string): string {
  return JSON.stringify([ctx.idempotencyScope ?? ctx.id, toolCallId])
}

function inputSchemaOf(tool: Tool, prepare: (input: unknown) => unknown): AiSdkInputSchema {
  let json: JsonSchema | undefined
  const schema = (): JsonSchema => (json ??= toToolInputSchema(tool.inputSchema))
  return {
    [AI_SDK_SCHEMA]: true,
    _type: undefined,
    get jsonSchema() {
      return schema()
    },
    // Present but empty on purpose: the executor validates, so failures carry our error codes.
    validate: undefined,
    '~standard': {
      version: 1,
      vendor: 'toolsmith',
      validate: async (value: unknown): Promise<StandardValidationResult> => {
        try {
          return { value: await tool.validate(prepare(value)) }
        } catch (error) {
          return { issues: [{ message: errorSummary(error) }] }
        }
      },
      jsonSchema: { input: schema, output: schema },
    },
  } as AiSdkInputSchema
}

function outputSchemaOf(toolName: string, schema: ObjectSchema): AiSdkInputSchema {
  let json: JsonSchema | undefined
  const jsonOf = (): JsonSchema => (json ??= toToolOutputSchema({ outputSchema: schema.describe() })!)
  const check = async (value: unknown): Promise<StandardValidationResult> => {
    try {
      return { value: await validateToolOutput(toolName, schema, value) }
    } catch (error) {
      return { issues: [{ message: errorSummary(error) }] }
    }
  }
  return {
    [AI_SDK_SCHEMA]: true,
    _type: undefined,
    get jsonSchema() {
      return jsonOf()
    },
    // Unlike the input's, set: the SDK calls it only on stored UI messages (`validateUIMessages`), never on a live call.
    validate: async (value: unknown) => {
      const result = await check(value)
      return result.issues === undefined
        ? { success: true, value: result.value }
        : { success: false, error: new TypeError(result.issues.map((i) => i.message).join('; ')) }
    },
    '~standard': { version: 1, vendor: 'toolsmith', validate: check, jsonSchema: { input: jsonOf, output: jsonOf } },
  } as AiSdkInputSchema
}

/**
 * The same exception, its message the one failure text (`toolFailureText`),
 * and that text is all the model reads: `ai@6` sends it `error.message`,
 * `ai@7` sends `error.toString()`, which would put the class name in front
 * (`E_TOOL_DOWNSTREAM_ERROR: BOOM: …`) and the root cause second; so
 * `toString()` of the rethrown error is its message.
 */
function withCodeInMessage(error: unknown): unknown {
  if (!(error instanceof BaseException)) return error
  const Exception = error.constructor as new (message: string, options: object) => BaseException<unknown>
  try {
    const rethrown = new Exception(toolFailureText(error), {
      cause: error.cause,
      details: error.details,
      code: error.code,
      status: error.status,
    })
    Object.defineProperty(rethrown, 'toString', { value: () => rethrown.message, configurable: true, writable: true })
    return rethrown
  } catch {
    return error
  }
}
