/**
 * Adapter for the Anthropic Messages API.
 *
 * @module
 */
import { toAnthropicTools, type AnthropicTool } from './anthropic.js'
import { isPlainObject } from '../../utils/guards.js'
import type { Message, ModelRequest, ModelResponse, ModelToolCall, TurnModel } from '../messages.js'
import { unmapCall, withArgsMappedBack } from '../model_adapter.js'

/** A text block. */
export interface AnthropicTextBlock {
  /** Always `'text'`. */
  type: 'text'
  /** The text. */
  text: string
}

/** A tool call of an assistant message. */
export interface AnthropicToolUseBlock {
  /** Always `'tool_use'`. */
  type: 'tool_use'
  /** The call's id (`toolu_…`). */
  id: string
  /** The tool's name (as the provider knows it). */
  name: string
  /** The arguments. */
  input: unknown
}

/** A tool result, sent in a user message. */
export interface AnthropicToolResultBlock {
  /** Always `'tool_result'`. */
  type: 'tool_result'
  /** The id of the `tool_use` it answers. */
  tool_use_id: string
  /** The result or error text. */
  content: string
  /** Set when the call failed. */
  is_error?: boolean
}

/** An extended-thinking block, sent back exactly as received (its `signature` is checked by the API). */
export interface AnthropicThinkingBlock {
  /** Always `'thinking'`. */
  type: 'thinking'
  /** The thinking text. */
  thinking: string
  /** The opaque signature. */
  signature: string
}

/** A redacted thinking block, sent back exactly as received. */
export interface AnthropicRedactedThinkingBlock {
  /** Always `'redacted_thinking'`. */
  type: 'redacted_thinking'
  /** The encrypted thinking. */
  data: string
}

/** A content block of an Anthropic message, as the adapter writes it. */
export type AnthropicContentBlock =
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock
  | AnthropicTextBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock

/** An Anthropic message: roles alternate, tool results travel in user messages. */
export interface AnthropicMessage {
  /** `user` or `assistant`. */
  role: 'user' | 'assistant'
  /** The content blocks. */
  content: AnthropicContentBlock[]
}

/** The part of a Messages request the adapter fills in; add `model`, `max_tokens` and any other settings. */
export interface AnthropicRequestBody {
  /** The system prompt, when one was given. */
  system?: string
  /** The conversation. */
  messages: AnthropicMessage[]
  /** The tool definitions; absent when no tool is offered. */
  tools?: AnthropicTool[]
}

/** A content block of a response, as loosely as the adapter needs it. */
export interface AnthropicResponseBlockLike {
  /** `text` and `tool_use` are read; `thinking` and `redacted_thinking` are kept for the next request; other types are ignored. */
  type: string
  /** The text of a `thinking` block. */
  thinking?: string
  /** The signature of a `thinking` block. */
  signature?: string
  /** The data of a `redacted_thinking` block. */
  data?: string
  /** The text of a `text` block. */
  text?: string
  /** The call id of a `tool_use` block. */
  id?: string
  /** The tool name of a `tool_use` block. */
  name?: string
  /** The arguments of a `tool_use` block. */
  input?: unknown
}

/** The part of a Messages response the adapter reads. */
export interface AnthropicResponseLike {
  /** The content blocks. */
  content: AnthropicResponseBlockLike[]
}

/** Options of {@link anthropicModel}. */
export interface AnthropicModelOptions {
  /** The system prompt. */
  system?: string
}

/**
 * Our messages as Anthropic messages: tool results become `tool_result`
 * blocks of a user message, and consecutive messages of one role are merged,
 * as the API requires. An assistant message keeps the `thinking` and
 * `redacted_thinking` blocks of its response (from `providerMetadata.anthropic`),
 * first and in their order, signatures intact: with extended thinking on, the
 * API refuses a tool result whose assistant turn lost them.
 *
 * @param messages - The neutral conversation.
 * @param toProviderName - Maps a tool name to the provider's.
 * @param toProviderArgs - Maps a call's arguments to the keys the provider saw (see `PropertyKeyMaps`).
 * @returns The provider's messages.
 */
export function toAnthropicMessages(
  messages: readonly Message[],
  toProviderName: (name: string) => string = (n) => n,
  toProviderArgs: (name: string, args: unknown) => unknown = (_n, args) => args,
): AnthropicMessage[] {
  const out: AnthropicMessage[] = []
  const push = (role: AnthropicMessage['role'], blocks: AnthropicContentBlock[]): void => {
    if (blocks.length === 0) return
    const last = out.at(-1)
    if (last?.role === role) last.content.push(...blocks)
    else out.push({ role, content: blocks })
  }
  for (const message of messages) {
    if (message.role === 'tool') {
      push('user', [
        {
          type: 'tool_result',
          tool_use_id: message.toolCallId ?? '',
          content: message.content,
          ...(message.isError ? { is_error: true } : {}),
        },
      ])
    } else if (message.role === 'assistant') {
      const blocks: AnthropicContentBlock[] = thinkingBlocksOf(message)
      if (message.content) blocks.push({ type: 'text', text: message.content })
      for (const call of message.toolCalls ?? []) {
        blocks.push({ type: 'tool_use', id: call.id, name: toProviderName(call.name), input: toProviderArgs(call.name, call.args ?? {}) })
      }
      push('assistant', blocks)
    } else {
      push('user', [{ type: 'text', text: message.content }])
    }
  }
  return out
}

/**
 * An Anthropic response in the neutral shape.
 *
 * @param response - The provider's response.
 * @param fromProviderName - Maps a provider tool name back to the tool's name.
 * @returns `{ text, toolCalls }`, and `providerMetadata.anthropic.thinking` (the thinking blocks, verbatim) when there are any.
 */
export function fromAnthropicResponse(
  response: AnthropicResponseLike,
  fromProviderName: (name: string) => string | undefined = (n) => n,
): ModelResponse {
  const blocks = response?.content ?? []
  const text = blocks
    .filter((b) => b.type === 'text')
    .map((b) => b.text ?? '')
    .join('')
  const toolCalls: ModelToolCall[] = blocks
    .filter((b) => b.type === 'tool_use')
    .map((b) => unmapCall({ id: b.id ?? '', name: b.name ?? '', args: b.input ?? {} }, fromProviderName))
  const thinking: AnthropicContentBlock[] = []
  for (const b of blocks) {
    if (b.type === 'thinking') thinking.push({ type: 'thinking', thinking: b.thinking ?? '', signature: b.signature ?? '' })
    else if (b.type === 'redacted_thinking') thinking.push({ type: 'redacted_thinking', data: b.data ?? '' })
  }
  return { text, toolCalls, ...(thinking.length ? { providerMetadata: { anthropic: { thinking } } } : {}) }
}

/** The thinking blocks an assistant message carries for Anthropic. */
function thinkingBlocksOf(message: Message): AnthropicContentBlock[] {
  const stored = message.providerMetadata?.anthropic
  const list = isPlainObject(stored) && Array.isArray(stored.thinking) ? (stored.thinking as unknown[]) : []
  return list.filter(
    (b): b is AnthropicThinkingBlock | AnthropicRedactedThinkingBlock =>
      isPlainObject(b) && (b.type === 'thinking' || b.type === 'redacted_thinking'),
  )
}

/**
 * Wrap an Anthropic Messages client call as a {@link TurnModel}.
 *
 * @param send - Sends the request body (add `model` and `max_tokens`) and returns the response.
 * @param options - The system prompt.
 * @returns The model callback for `TurnRunner`.
 *
 * @example
 * ```ts
 * import Anthropic from '@anthropic-ai/sdk'
 * const client = new Anthropic()
 * const model = anthropicModel((body, signal) =>
 *   client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 4096, ...body }, { signal }),
 * )
 * ```
 */
export function anthropicModel(
  send: (body: AnthropicRequestBody, signal: AbortSignal) => Promise<AnthropicResponseLike>,
  options: AnthropicModelOptions = {},
): TurnModel {
  return async (request: ModelRequest) => {
    const { definitions, names, keys } = toAnthropicTools(request.tools)
    const body: AnthropicRequestBody = {
      ...(options.system ? { system: options.system } : {}),
      messages: toAnthropicMessages(request.messages, (n) => names.toProvider(n), (n, args) => keys?.argsToProvider(n, args) ?? args),
      ...(definitions.length ? { tools: definitions } : {}),
    }
    const response = fromAnthropicResponse(await send(body, request.signal), (n) => names.fromProvider(n))
    return withArgsMappedBack(response, keys)
  }
}
