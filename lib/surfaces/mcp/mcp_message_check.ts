/**
 * What a JSON-RPC line from an MCP client is: a message to hand to the
 * server, or an error to answer with.
 *
 * @module
 */
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server'
import { isPlainObject } from '../../utils/guards.js'
import { mcpCore } from './mcp_sdk.js'

/** JSON-RPC 2.0's error codes for a message that cannot be processed. */
export const JSON_RPC_PARSE_ERROR = -32700
/** The JSON is valid but not a request, notification or response MCP accepts. */
export const JSON_RPC_INVALID_REQUEST = -32600
/** A request whose `params` are not an object. */
export const JSON_RPC_INVALID_PARAMS = -32602

/** The error answer for a line that was not handed to the server. */
export interface JsonRpcRefusal {
  /** The request's id when it could be read, else `null` (JSON-RPC's rule). */
  id: RequestId | null
  code: number
  /** One line, saying what was wrong. */
  message: string
}

/** The verdict on one parsed line. */
export type MessageCheck =
  | { kind: 'message'; message: JSONRPCMessage }
  | { kind: 'refuse'; refusal: JsonRpcRefusal }
  /** A malformed notification or response: JSON-RPC forbids answering either. */
  | { kind: 'drop'; reason: string }

const isRequestId = (id: unknown): id is RequestId => typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id))

const describe = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value)

/**
 * Check one parsed JSON value the way MCP (JSON-RPC 2.0, no batches since
 * protocol 2025-06-18) requires, so every malformed request gets an answer
 * with a one-line reason rather than silence.
 *
 * @param value - The line's `JSON.parse` result.
 * @returns The message (as the SDK's schema parsed it), an error to send back, or a reason to drop it.
 */
export function checkJsonRpcMessage(value: unknown): MessageCheck {
  const refuse = (id: RequestId | null, message: string, code = JSON_RPC_INVALID_REQUEST): MessageCheck => ({
    kind: 'refuse',
    refusal: { id, code, message },
  })
  if (Array.isArray(value)) {
    return refuse(
      null,
      value.length === 0
        ? 'Invalid Request: an empty array is not a message'
        : 'Invalid Request: batches are not supported (MCP removed JSON-RPC batching in 2025-06-18); send one message per line',
    )
  }
  if (!isPlainObject(value)) return refuse(null, `Invalid Request: a message is a JSON object, got ${describe(value)}`)
  const hasId = 'id' in value
  const id = isRequestId(value.id) ? value.id : null
  if (hasId && id === null) {
    return refuse(null, `Invalid Request: "id" must be a string or an integer (MCP forbids null), got ${describe(value.id)}`)
  }
  if (value.jsonrpc !== '2.0') {
    return refuse(id, `Invalid Request: "jsonrpc" must be "2.0", got ${value.jsonrpc === undefined ? 'none' : JSON.stringify(value.jsonrpc)}`)
  }
  const sdk = mcpCore()
  if ('method' in value) {
    if (typeof value.method !== 'string') return refuse(id, `Invalid Request: "method" must be a string, got ${describe(value.method)}`)
    if (value.params !== undefined && !isPlainObject(value.params)) {
      const reason = `Invalid params: "params" of ${value.method} must be an object, got ${describe(value.params)}`
      return hasId ? refuse(id, reason, JSON_RPC_INVALID_PARAMS) : { kind: 'drop', reason }
    }
    const schema = hasId ? sdk.JSONRPCRequestSchema : sdk.JSONRPCNotificationSchema
    const parsed = schema.safeParse(value)
    if (parsed.success) return { kind: 'message', message: parsed.data as JSONRPCMessage }
    const reason = `Invalid Request: ${firstIssue(parsed.error)}`
    return hasId ? refuse(id, reason) : { kind: 'drop', reason }
  }
  if (hasId && ('result' in value || 'error' in value)) {
    const schema = 'result' in value ? sdk.JSONRPCResultResponseSchema : sdk.JSONRPCErrorResponseSchema
    const parsed = schema.safeParse(value)
    if (parsed.success) return { kind: 'message', message: parsed.data as JSONRPCMessage }
    return { kind: 'drop', reason: `Invalid response ${JSON.stringify(id)}: ${firstIssue(parsed.error)}` }
  }
  return refuse(id, 'Invalid Request: a message needs a "method" (request, notification) or an "id" with a "result" or "error" (response)')
}

/** The first zod issue as `path: message`, on one line. */
function firstIssue(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  const issue = error.issues[0]
  if (issue === undefined) return 'not a JSON-RPC message MCP accepts'
  const path = issue.path.map(String).join('.')
  return `${path === '' ? '' : `${path}: `}${issue.message}`.replace(/\s+/g, ' ')
}

/** Scalar JSON values: what may sit between `{` and a top-level `"id"` without opening a nested level. */
const SCALAR = String.raw`(?:"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)`
const ID_VALUE = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`
/** `"id"` among the first members, with only scalar members before it (Python's SDK writes `jsonrpc, id, method, params`). */
const ID_AT_HEAD = new RegExp(String.raw`^\s*\{(?:\s*"(?:[^"\\]|\\.)*"\s*:\s*${SCALAR}\s*,)*?\s*"id"\s*:\s*${ID_VALUE}\s*[,}]`)
/** `"id"` as the last member, right before the closing brace (the TypeScript SDK writes it last). */
const ID_AT_TAIL = new RegExp(String.raw`[{,]\s*"id"\s*:\s*${ID_VALUE}\s*\}\s*$`)

/**
 * The top-level `id` of a line too large to parse, from its first and last
 * few KiB, so the client's pending request fails at once instead of timing
 * out.
 *
 * @remarks
 * Only two shapes are trusted, both unambiguous without parsing the middle:
 * `"id"` preceded by scalar members only (so still at depth 1), or `"id"` as
 * the member right before the line's final `}` (any nested object would
 * close with a second `}` after it). Anything else gives `null`.
 *
 * @param head - The line's first bytes, decoded.
 * @param tail - The line's last bytes, decoded.
 * @returns The id, or `null`.
 */
export function requestIdOfOversizedLine(head: string, tail: string): RequestId | null {
  const match = ID_AT_HEAD.exec(head) ?? ID_AT_TAIL.exec(tail)
  if (match === null) return null
  try {
    const id: unknown = JSON.parse(match[1]!)
    return isRequestId(id) ? id : null
  } catch {
    return null
  }
}

/** JSON-RPC's "Internal error", what the SDK answers when its schema check of a request's params throws. */
const JSON_RPC_INTERNAL_ERROR = -32603

/**
 * The SDK's answer to a request whose params fail the schema of a handler
 * it owns (`initialize`, `ping`…), rewritten as `-32602` with one line.
 *
 * @remarks
 * The SDK parses a registered method's params with zod before the handler
 * runs, and a failure goes out as `-32603` whose message is zod's issue list
 * as pretty-printed JSON. Only that exact shape is rewritten (a JSON array
 * of issues, each with a `path` array and a `message`); every other error
 * passes as it is.
 *
 * @param error - The `error` member of an outgoing response.
 * @returns The replacement, or `undefined` to leave it alone.
 */
export function schemaErrorAsInvalidParams(error: { code: number; message: string }): { code: number; message: string } | undefined {
  if (error.code !== JSON_RPC_INTERNAL_ERROR || !error.message.startsWith('[')) return undefined
  let issues: unknown
  try {
    issues = JSON.parse(error.message)
  } catch {
    return undefined
  }
  if (!Array.isArray(issues) || issues.length === 0) return undefined
  const valid = issues.every((issue) => isPlainObject(issue) && Array.isArray(issue.path) && typeof issue.message === 'string')
  if (!valid) return undefined
  const parts = (issues as { path: PropertyKey[]; message: string }[]).map((issue) => firstIssue({ issues: [issue] }))
  return { code: JSON_RPC_INVALID_PARAMS, message: `Invalid params: ${parts.join('; ')}` }
}
