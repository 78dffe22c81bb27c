/**
 * Helpers every provider adapter shares.
 *
 * @module
 */
import type { PropertyKeyMaps } from './property_key_map.js'
import type { Message, ModelResponse, ModelToolCall } from './messages.js'

/**
 * Parse a provider's JSON-encoded arguments. Text that is not JSON is passed on
 * as is, so validation fails with a message the model can act on instead of
 * the adapter throwing.
 *
 * @param text - The arguments as the provider sent them.
 * @returns The parsed value, `{}` for an empty string, or `text` itself.
 *
 * @internal
 */
export function parseArguments(text: unknown): unknown {
  if (typeof text !== 'string') return text ?? {}
  if (text.trim() === '') return {}
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/**
 * The name of the tool each call id refers to, from the assistant messages.
 *
 * @param messages - The conversation.
 * @returns call id → tool name.
 *
 * @internal
 */
export function toolNamesById(messages: readonly Message[]): Map<string, string> {
  const names = new Map<string, string>()
  for (const message of messages) for (const call of message.toolCalls ?? []) names.set(call.id, call.name)
  return names
}

/**
 * A tool call with its name mapped back from the provider's name.
 *
 * @param call - The call as parsed.
 * @param fromProvider - The provider name → tool name lookup.
 * @returns The call under the tool's own name.
 *
 * @internal
 */
export function unmapCall(call: ModelToolCall, fromProvider: (name: string) => string | undefined): ModelToolCall {
  return { ...call, name: fromProvider(call.name) ?? call.name }
}

/**
 * A response whose tool calls carry their arguments under the schema's own
 * keys (providers with a key rule saw renamed ones).
 *
 * @param response - The response, names already mapped back.
 * @param keys - The key maps the definitions were built with, if any.
 * @returns The response with mapped arguments.
 *
 * @internal
 */
export function withArgsMappedBack(response: ModelResponse, keys: PropertyKeyMaps | undefined): ModelResponse {
  if (keys === undefined || keys.renamed.length === 0 || !response.toolCalls?.length) return response
  return { ...response, toolCalls: response.toolCalls.map((call) => ({ ...call, args: keys.argsFromProvider(call.name, call.args) })) }
}
