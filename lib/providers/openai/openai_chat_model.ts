/**
 * Adapter for the OpenAI Chat Completions API (and compatible servers).
 *
 * @module
 */
import { dropOptionalNulls } from '../optional_nulls.js'
import { toOpenAITools, type OpenAIChatTool } from './openai.js'
import type { Message, ModelRequest, ModelResponse, ModelToolCall, TurnModel } from '../messages.js'
import { parseArguments, unmapCall } from '../model_adapter.js'

/** The function of a Chat Completions tool call. */
export interface OpenAIChatFunctionCall {
  /** The tool's name (as the provider knows it). */
  name: string
  /** The arguments, JSON-encoded. */
  arguments: string
}

/** A tool call of an assistant message. */
export interface OpenAIChatToolCall {
  /** The call's id, echoed by the tool message that answers it. */
  id: string
  /** Always `'function'`. */
  type: 'function'
  /** The function called. */
  function: OpenAIChatFunctionCall
}

/** A system message. */
export interface OpenAIChatSystemMessage {
  /** Always `'system'`. */
  role: 'system'
  /** The text. */
  content: string
}

/** A user message. */
export interface OpenAIChatUserMessage {
  /** Always `'user'`. */
  role: 'user'
  /** The text. */
  content: string
}

/** An assistant message. */
export interface OpenAIChatAssistantMessage {
  /** Always `'assistant'`. */
  role: 'assistant'
  /** The text (`null` on a message that only calls tools). */
  content: string | null
  /** The calls it made. */
  tool_calls?: OpenAIChatToolCall[]
}

/** A tool message: one call's result. */
export interface OpenAIChatToolMessage {
  /** Always `'tool'`. */
  role: 'tool'
  /** The result or error text. */
  content: string
  /** The call it answers. */
  tool_call_id: string
}

/** A Chat Completions message, as the adapter writes it (one interface per role, as the SDK's `ChatCompletionMessageParam`). */
export type OpenAIChatMessage = OpenAIChatSystemMessage | OpenAIChatUserMessage | OpenAIChatAssistantMessage | OpenAIChatToolMessage

/** The part of a Chat Completions request the adapter fills in; add `model` and any other settings. */
export interface OpenAIChatRequestBody {
  /** The conversation. */
  messages: OpenAIChatMessage[]
  /** The tool definitions; absent when no tool is offered. */
  tools?: OpenAIChatTool[]
}

/** A function tool call in a response. */
export interface OpenAIChatFunctionToolCallLike {
  /** The call's id. */
  id: string
  /** `'function'` (loosely typed, so a hand-written response need not say `as const`). */
  type?: string
  /** The function called. */
  function: OpenAIChatFunctionCall
}

/** A custom tool call in a response (openai 6; toolsmith offers function tools only, so it is answered with an error). */
export interface OpenAIChatCustomToolCallLike {
  /** The call's id. */
  id: string
  /** `'custom'`. */
  type: 'custom'
  /** The custom tool called and its free-form input. */
  custom: OpenAIChatCustomCall
}

/** The custom tool of a custom tool call. */
export interface OpenAIChatCustomCall {
  /** The custom tool's name. */
  name: string
  /** Its free-form input. */
  input: string
}

/** A tool call in a response, as loosely as the adapter needs it. */
export type OpenAIChatToolCallLike = OpenAIChatFunctionToolCallLike | OpenAIChatCustomToolCallLike

/** The assistant message of a response choice. */
export interface OpenAIChatResponseMessageLike {
  /** Its text. */
  content?: string | null
  /** Its tool calls. */
  tool_calls?: OpenAIChatToolCallLike[] | null
}

/** One choice of a response. */
export interface OpenAIChatChoiceLike {
  /** The assistant message. */
  message: OpenAIChatResponseMessageLike
}

/** The part of a Chat Completions response the adapter reads. */
export interface OpenAIChatResponseLike {
  /** The choices; the first one is used. */
  choices: OpenAIChatChoiceLike[]
}

/** Options of {@link openAIChatModel}. */
export interface OpenAIChatModelOptions {
  /** A system message put first in every request. */
  system?: string
  /**
   * Send strict (Structured Outputs) tool schemas; the `null`s the model then
   * sends for omitted optional fields are dropped before validation.
   *
   * @defaultValue false
   */
  strict?: boolean
}

/**
 * Our messages as Chat Completions messages.
 *
 * @param messages - The neutral conversation.
 * @param options - The system message, and how tool names map to the provider's.
 * @returns The provider's messages.
 */
export function toOpenAIChatMessages(
  messages: readonly Message[],
  options: { system?: string; toProviderName?: (name: string) => string } = {},
): OpenAIChatMessage[] {
  const name = options.toProviderName ?? ((n: string) => n)
  const out: OpenAIChatMessage[] = options.system ? [{ role: 'system', content: options.system }] : []
  for (const message of messages) {
    if (message.role === 'tool') {
      const content = message.isError ? `Error: ${message.content}` : message.content
      out.push({ role: 'tool', tool_call_id: message.toolCallId ?? '', content })
    } else if (message.role === 'assistant' && message.toolCalls?.length) {
      out.push({
        role: 'assistant',
        content: message.content === '' ? null : message.content,
        tool_calls: message.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: name(call.name), arguments: JSON.stringify(call.args ?? {}) },
        })),
      })
    } else {
      out.push({ role: message.role, content: message.content })
    }
  }
  return out
}

/**
 * A Chat Completions response in the neutral shape.
 *
 * @param response - The provider's response.
 * @param fromProviderName - Maps a provider tool name back to the tool's name.
 * @returns `{ text, toolCalls }`.
 */
export function fromOpenAIChatResponse(
  response: OpenAIChatResponseLike,
  fromProviderName: (name: string) => string | undefined = (n) => n,
): ModelResponse {
  const message = response?.choices?.[0]?.message
  const toolCalls: ModelToolCall[] = (message?.tool_calls ?? []).map((call) =>
    'function' in call
      ? unmapCall({ id: call.id, name: call.function.name, args: parseArguments(call.function.arguments) }, fromProviderName)
      : unmapCall({ id: call.id, name: call.custom.name, args: call.custom.input }, fromProviderName),
  )
  return { text: message?.content ?? '', toolCalls }
}

/**
 * Wrap a Chat Completions client call as a {@link TurnModel}.
 *
 * @param send - Sends the request body (add your `model`) and returns the response.
 * @param options - System message and strict schemas.
 * @returns The model callback for `TurnRunner`.
 *
 * @example
 * ```ts
 * import OpenAI from 'openai'
 * const client = new OpenAI()
 * const model = openAIChatModel((body, signal) =>
 *   client.chat.completions.create({ model: 'gpt-4.1', ...body }, { signal }),
 * )
 * ```
 */
export function openAIChatModel(
  send: (body: OpenAIChatRequestBody, signal: AbortSignal) => Promise<OpenAIChatResponseLike>,
  options: OpenAIChatModelOptions = {},
): TurnModel {
  return async (request: ModelRequest) => {
    const { definitions, names } = toOpenAITools(request.tools, { strict: options.strict === true })
    const body: OpenAIChatRequestBody = {
      messages: toOpenAIChatMessages(request.messages, { system: options.system, toProviderName: (n) => names.toProvider(n) }),
      ...(definitions.length ? { tools: definitions } : {}),
    }
    const response = fromOpenAIChatResponse(await send(body, request.signal), (n) => names.fromProvider(n))
    if (!options.strict) return response
    const byName = new Map(request.tools.map((t) => [t.name, t]))
    return {
      ...response,
      toolCalls: response.toolCalls?.map((call) => {
        const tool = byName.get(call.name)
        return tool ? { ...call, args: dropOptionalNulls(tool, call.args) } : call
      }),
    }
  }
}
