/**
 * The provider-neutral conversation shapes `TurnRunner` speaks: messages, tool
 * definitions, and the model callback's request and response.
 *
 * @module
 */
import type { ToolDescription } from '../core/tool.js'

/**
 * Provider data an adapter needs back on the next request, keyed by adapter
 * (`anthropic`, `gemini`, `openai`, `aiSdk`): Anthropic's `thinking` blocks
 * with their signatures, Gemini's `thoughtSignature`s, OpenAI's reasoning
 * items. The runner keeps it on the message (and `copyMessages` copies it)
 * without reading it; an adapter ignores other adapters' keys.
 */
export type ProviderMetadata = Record<string, unknown>

/** A tool call as a model asks for it. */
export interface ModelToolCall {
  /** The provider's id for the call (`call_…`, `toolu_…`); the runner makes one up when empty. */
  id: string
  /** The tool's name. */
  name: string
  /** The arguments, already parsed from JSON. */
  args: unknown
  /** What the adapter must send back with this call (Gemini's part-level `thoughtSignature`…). */
  providerMetadata?: ProviderMetadata
}

/** Who wrote a {@link Message}. */
export type MessageRole = 'user' | 'assistant' | 'tool'

/**
 * One entry of the conversation.
 *
 * @remarks
 * - `user`: the prompt (and, on a retried attempt, the side-effect warning);
 * - `assistant`: the model's text, with the `toolCalls` it asked for;
 * - `tool`: one call's result (or error, with `isError: true`), linked to the
 *   call by `toolCallId`.
 */
export interface Message {
  /** Who wrote it. */
  role: MessageRole
  /** The text; for a tool message, the result or the error. */
  content: string
  /** On an assistant message: the calls it asked for, in order. */
  toolCalls?: ModelToolCall[]
  /** On a tool message: the id of the call it answers. */
  toolCallId?: string
  /** On a tool message: whether the call failed. */
  isError?: boolean
  /** On an assistant message: what the adapter must send back with it (thinking blocks, reasoning items…). */
  providerMetadata?: ProviderMetadata
}

/**
 * A tool as the model is offered it: the tool's `describe()` plus its input
 * schema as JSON Schema (draft 2020-12), ready for any provider.
 */
export interface ToolDefinition extends ToolDescription {
  /** The input schema as a JSON Schema object. */
  jsonSchema: Record<string, unknown>
}

/** What the runner hands the model callback at each step. */
export interface ModelRequest {
  /** The conversation so far (a copy: changing it changes nothing). */
  messages: Message[]
  /** The tools the model may call at this step. */
  tools: ToolDefinition[]
  /** Fires when the turn is aborted: pass it to your HTTP client. */
  signal: AbortSignal
  /** The step number, starting at 0. */
  step: number
}

/** What the model callback returns: text, tool calls, or both. */
export interface ModelResponse {
  /** The model's text. */
  text?: string
  /** The tools it wants to call; none ends the turn. */
  toolCalls?: ModelToolCall[]
  /** Kept on the assistant message this response becomes, for the adapter's next request. */
  providerMetadata?: ProviderMetadata
}

/** The model callback: one request in, one response out. Bring any provider through an adapter. */
export type TurnModel = (request: ModelRequest) => Promise<ModelResponse> | ModelResponse

/**
 * A deep copy of a conversation, so a fork or a caller can never change the original.
 *
 * @param messages - The messages.
 * @returns Independent copies.
 */
export function copyMessages(messages: readonly Message[]): Message[] {
  return messages.map((message) => {
    const copy: Message = { role: message.role, content: message.content }
    if (message.toolCalls) {
      copy.toolCalls = message.toolCalls.map((c) => ({
        id: c.id,
        name: c.name,
        args: cloneArgs(c.args),
        ...(c.providerMetadata === undefined ? {} : { providerMetadata: cloneArgs(c.providerMetadata) as ProviderMetadata }),
      }))
    }
    if (message.toolCallId !== undefined) copy.toolCallId = message.toolCallId
    if (message.isError !== undefined) copy.isError = message.isError
    if (message.providerMetadata !== undefined) copy.providerMetadata = cloneArgs(message.providerMetadata) as ProviderMetadata
    return copy
  })
}

function cloneArgs(args: unknown): unknown {
  try {
    return structuredClone(args)
  } catch {
    return args
  }
}
