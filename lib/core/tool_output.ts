/**
 * A tool's output schema: what its results are checked against, in one
 * place for every surface (MCP's `structuredContent`, the AI SDK's typed
 * output, provider definitions read the same schema).
 *
 * @module
 */
import { isStructuredToolResult, type StructuredToolResult, type ToolResult } from '../contracts/tool_result.js'
import { E_INVALID_TOOL_OUTPUT } from '../exceptions.js'
import { ValidationException, validator, withoutInputValues, type ObjectSchema } from '../validation.js'

/**
 * joi's defaults (conversion on): the result is code's output, not a
 * model's, and a replay reads it back from JSON, where a `date()` is a
 * string again; conversion makes both validate to the same value.
 */
const OUTPUT_OPTIONS = { abortEarly: false } as const

/** What a result is, for the message when it is not a plain object. */
function kindOf(result: unknown): string {
  if (typeof result === 'string') return 'a string'
  if (result instanceof Uint8Array) return 'bytes'
  if (Array.isArray(result)) return 'an array'
  if (result === null || result === undefined) return String(result)
  if (typeof result === 'object') return `an instance of ${result.constructor?.name ?? 'a class'} (an artifact?)`
  return `a ${typeof result}`
}

/**
 * Check a handler's result against the tool's output schema.
 *
 * @remarks
 * The result must be a plain object (MCP's `structuredContent` is one), so a
 * string, bytes or an artifact fails here, whatever the schema says. joi's
 * conversions and defaults apply; the converted value is what the call
 * returns.
 *
 * @param toolName - The tool, named in the message.
 * @param schema - The tool's output schema.
 * @param result - What the handler returned.
 * @returns The validated (converted) object.
 * @throws {@link toolsmith/core!E_INVALID_TOOL_OUTPUT} naming every failing path.
 * @internal
 */
export async function validateToolOutput(toolName: string, schema: ObjectSchema, result: unknown): Promise<StructuredToolResult> {
  if (!isStructuredToolResult(result)) {
    throw new E_INVALID_TOOL_OUTPUT(
      `Tool "${toolName}" declares an output schema, so its handler must return a plain object matching it; it returned ${kindOf(result)}`,
      { details: { toolName, issues: [{ path: '', message: `expected a plain object, got ${kindOf(result)}`, type: 'object.base' }] } },
    )
  }
  try {
    return (await schema.validateAsync(result, OUTPUT_OPTIONS)) as StructuredToolResult
  } catch (caught) {
    if (!validator.isError(caught)) throw caught
    // The result may carry what the tool read (a token, a row): errors are logged and journaled, values are not.
    const error = new ValidationException(withoutInputValues(caught))
    throw new E_INVALID_TOOL_OUTPUT(`Tool "${toolName}" returned a result its output schema rejects: ${error.message}`, {
      cause: error,
      details: {
        toolName,
        issues: error.details.map((d) => ({ path: d.path.join('.'), message: d.message, type: d.type })),
      },
    })
  }
}

/**
 * A structured tool's result as a journaled call returns it: a replay's is
 * the JSON text its row holds, parsed and checked again; a `reconcile`
 * hook's is an object, checked (checking a value the handler's check
 * already converted gives it back unchanged).
 *
 * @param toolName - The tool.
 * @param schema - Its output schema.
 * @param result - What the pipeline returned.
 * @returns The structured result.
 * @throws {@link toolsmith/core!E_INVALID_TOOL_OUTPUT} when the recorded text is no longer the object (a journal
 *   cap cut it) or fails the schema.
 * @internal
 */
export async function reviveToolOutput(toolName: string, schema: ObjectSchema, result: ToolResult): Promise<ToolResult> {
  if (typeof result !== 'string') return validateToolOutput(toolName, schema, result)
  let parsed: unknown
  try {
    parsed = JSON.parse(result)
  } catch {
    throw notRecorded(toolName)
  }
  // A row over the journal's cap holds `{ truncated: true, bytes, preview }` instead of the result.
  if (isStructuredToolResult(parsed) && parsed.truncated === true && typeof parsed.bytes === 'number' && !isTruncatedResult(schema, parsed)) {
    throw notRecorded(toolName)
  }
  return validateToolOutput(toolName, schema, parsed)
}

/** Whether the schema itself accepts the envelope (a result with those very keys). */
function isTruncatedResult(schema: ObjectSchema, value: unknown): boolean {
  return schema.validate(value).error === undefined
}

function notRecorded(toolName: string): E_INVALID_TOOL_OUTPUT {
  return new E_INVALID_TOOL_OUTPUT(
    `Tool "${toolName}": the journal holds no whole result for this call (its maxOutputBytes cut it), ` +
      'so it cannot be replayed as the object its output schema needs; raise the cap, or call with a new idempotency key',
    { details: { toolName, issues: [] } },
  )
}
