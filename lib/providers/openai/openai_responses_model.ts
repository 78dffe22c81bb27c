/**
 * Adapter for the OpenAI Responses API (`POST /v1/responses`): function
 * calls are `function_call` / `function_call_output` items, and reasoning
 * items are carried back into the next request.
 *
 * @module
 */
import { dropOptionalNulls } from '../optional_nulls.js'
import { toOpenAIResponsesTools, type OpenAIResponsesTool } from './openai.js'
import { isPlainObject } from '../../utils/guards.js'
import type { Message, ModelRequest, ModelResponse, ModelToolCall, ProviderMetadata, TurnModel } from '../messages.js'
import { parseArguments, unmapCall } from '../model_adapter.js'

/** A message item of the input (`EasyInputMessage`). */
export interface OpenAIResponsesMessageItem {
  /** `user` for the prompt, `assistant` for the model's earlier text. */
  role: 'user' | 'assistant'
  /** The text. */
  content: string
}

/** A function call the model made, sent back as it came. */
export interface OpenAIResponsesFunctionCallItem {
  /** Always `'function_call'`. */
  type: 'function_call'
  /** The call's id, echoed by its output. */
  call_id: string
  /** The tool's name (as the provider knows it). */
  name: string
  /** The arguments, JSON-encoded. */
  arguments: string
  /** The item's own id (`fc_…`), when the response gave one. */
  id?: string
}

/** A function call's result. */
export interface OpenAIResponsesFunctionCallOutputItem {
  /** Always `'function_call_output'`. */
  type: 'function_call_output'
  /** The call it answers. */
  call_id: string
  /** The result, or the error prefixed with `Error: `. */
  output: string
}

/** One summary part of a reasoning item. */
export interface OpenAIResponsesReasoningSummary {
  /** Always `'summary_text'`. */
  type: 'summary_text'
  /** The summary text. */
  text: string
}

/**
 * A reasoning item, sent back exactly as received: with `store: false` and
 * `include: ['reasoning.encrypted_content']` its `encrypted_content` lets the
 * model continue its reasoning across a tool call.
 */
export interface OpenAIResponsesReasoningItem {
  /** Always `'reasoning'`. */
  type: 'reasoning'
  /** The item id (`rs_…`). */
  id: string
  /** The reasoning summary. */
  summary: OpenAIResponsesReasoningSummary[]
  /** The encrypted reasoning, when requested. */
  encrypted_content?: string | null
}

/** An item of the request's `input`, as the adapter writes it. */
export type OpenAIResponsesInputItem =
  | OpenAIResponsesMessageItem
  | OpenAIResponsesReasoningItem
  | OpenAIResponsesFunctionCallItem
  | OpenAIResponsesFunctionCallOutputItem

/** The part of a Responses request the adapter fills in; add `model` and any other settings. */
export interface OpenAIResponsesRequestBody {
  /** The system prompt, when one was given. */
  instructions?: string
  /** The conversation as input items. */
  input: OpenAIResponsesInputItem[]
  /** The tool definitions; absent when no tool is offered. */
  tools?: OpenAIResponsesTool[]
}

/** A content part of a `message` output item. */
export interface OpenAIResponsesContentPartLike {
  /** `output_text` parts are read. */
  type: string
  /** The text of an `output_text` part. */
  text?: string
}

/** A summary part of a `reasoning` output item. */
export interface OpenAIResponsesSummaryLike {
  /** `summary_text`. */
  type: string
  /** The summary text. */
  text: string
}

/** An output item of a response, as loosely as the adapter needs it. */
export interface OpenAIResponsesOutputItemLike {
  /** `message`, `function_call` and `reasoning` are read; other items are ignored. */
  type: string
  /** A `message`'s content parts (`output_text` parts are read). */
  content?: ReadonlyArray<OpenAIResponsesContentPartLike> | null
  /** A `function_call`'s call id. */
  call_id?: string | null
  /** A `function_call`'s tool name. */
  name?: string | null
  /** A `function_call`'s JSON arguments. */
  arguments?: unknown
  /** The item id. */
  id?: string | null
  /** A `reasoning` item's summary. */
  summary?: ReadonlyArray<OpenAIResponsesSummaryLike>
  /** A `reasoning` item's encrypted content. */
  encrypted_content?: string | null
}

/** The part of a Responses API response the adapter reads. */
export interface OpenAIResponsesResponseLike {
  /** The output items. */
  output: ReadonlyArray<OpenAIResponsesOutputItemLike>
}

/** Options of {@link openAIResponsesModel}. */
export interface OpenAIResponsesModelOptions {
  /** The system prompt, sent as `instructions`. */
  system?: string
  /**
   * Send strict tool schemas; the `null`s the model then sends for omitted
   * optional fields are dropped before validation.
   *
   * @defaultValue false
   */
  strict?: boolean
}

/**
 * Our messages as Responses API input items: the prompt a `user` message, an
 * assistant turn its reasoning items (verbatim, from
 * `providerMetadata.openai.reasoning`), its text and one `function_call` per
 * call, and each tool result a `function_call_output`.
 *
 * @param messages - The neutral conversation.
 * @param toProviderName - Maps a tool name to the provider's.
 * @returns The input items.
 */
export function toOpenAIResponsesInput(
  messages: readonly Message[],
  toProviderName: (name: string) => string = (n) => n,
): OpenAIResponsesInputItem[] {
  const out: OpenAIResponsesInputItem[] = []
  for (const message of messages) {
    if (message.role === 'tool') {
      const output = message.isError ? `Error: ${message.content}` : message.content
      out.push({ type: 'function_call_output', call_id: message.toolCallId ?? '', output })
    } else if (message.role === 'assistant') {
      out.push(...reasoningOf(message.providerMetadata))
      if (message.content) out.push({ role: 'assistant', content: message.content })
      for (const call of message.toolCalls ?? []) {
        const itemId = openai(call.providerMetadata)?.itemId
        out.push({
          type: 'function_call',
          call_id: call.id,
          name: toProviderName(call.name),
          arguments: JSON.stringify(call.args ?? {}),
          ...(typeof itemId === 'string' ? { id: itemId } : {}),
        })
      }
    } else {
      out.push({ role: 'user', content: message.content })
    }
  }
  return out
}

/**
 * A Responses API response in the neutral shape.
 *
 * @param response - The provider's response.
 * @param fromProviderName - Maps a provider tool name back to the tool's name.
 * @returns `{ text, toolCalls }`; reasoning items go to `providerMetadata.openai.reasoning`, each call's item id to
 *   its `providerMetadata.openai.itemId`.
 */
export function fromOpenAIResponsesResponse(
  response: OpenAIResponsesResponseLike,
  fromProviderName: (name: string) => string | undefined = (n) => n,
): ModelResponse {
  const items = response?.output ?? []
  const text = items
    .filter((item) => item.type === 'message')
    .flatMap((item) => item.content ?? [])
    .filter((part) => part.type === 'output_text')
    .map((part) => part.text ?? '')
    .join('')
  const toolCalls: ModelToolCall[] = items
    .filter((item) => item.type === 'function_call')
    .map((item) => {
      const call = unmapCall({ id: item.call_id ?? '', name: item.name ?? '', args: parseArguments(item.arguments) }, fromProviderName)
      return item.id ? { ...call, providerMetadata: { openai: { itemId: item.id } } } : call
    })
  const reasoning: OpenAIResponsesReasoningItem[] = items
    .filter((item) => item.type === 'reasoning' && typeof item.id === 'string')
    .map((item) => ({
      type: 'reasoning',
      id: item.id!,
      summary: (item.summary ?? []).map((s) => ({ type: 'summary_text', text: s.text })),
      ...(item.encrypted_content ? { encrypted_content: item.encrypted_content } : {}),
    }))
  return { text, toolCalls, ...(reasoning.length ? { providerMetadata: { openai: { reasoning } } } : {}) }
}

/**
 * Wrap a Responses API client call as a {@link TurnModel}.
 *
 * @remarks
 * Stateless: every request carries the whole conversation as input items
 * (no `previous_response_id`), so a forked or retried turn works the same.
 * Reasoning items come back as received; with `store: false`, ask for
 * `include: ['reasoning.encrypted_content']` so they carry the reasoning.
 *
 * @param send - Sends the request body (add your `model`) and returns the response.
 * @param options - System prompt and strict schemas.
 * @returns The model callback for `TurnRunner`.
 *
 * @example
 * ```ts
 * import OpenAI from 'openai'
 * const client = new OpenAI()
 * const model = openAIResponsesModel((body, signal) =>
 *   client.responses.create({ model: 'gpt-5', store: false, include: ['reasoning.encrypted_content'], ...body }, { signal }),
 * )
 * ```
 */
export function openAIResponsesModel(
  send: (body: OpenAIResponsesRequestBody, signal: AbortSignal) => Promise<OpenAIResponsesResponseLike>,
  options: OpenAIResponsesModelOptions = {},
): TurnModel {
  return async (request: ModelRequest) => {
    const { definitions, names } = toOpenAIResponsesTools(request.tools, { strict: options.strict === true })
    const body: OpenAIResponsesRequestBody = {
      ...(options.system ? { instructions: options.system } : {}),
      input: toOpenAIResponsesInput(request.messages, (n) => names.toProvider(n)),
      ...(definitions.length ? { tools: definitions } : {}),
    }
    const response = fromOpenAIResponsesResponse(await send(body, request.signal), (n) => names.fromProvider(n))
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

function openai(metadata: ProviderMetadata | undefined): Record<string, unknown> | undefined {
  const value = metadata?.openai
  return isPlainObject(value) ? value : undefined
}

function reasoningOf(metadata: ProviderMetadata | undefined): OpenAIResponsesReasoningItem[] {
  const list = openai(metadata)?.reasoning
  return Array.isArray(list) ? list.filter((item): item is OpenAIResponsesReasoningItem => isPlainObject(item) && item.type === 'reasoning') : []
}
