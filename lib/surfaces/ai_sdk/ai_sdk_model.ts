/**
 * Adapter for an AI SDK `LanguageModel` (specification v3, the providers of
 * `ai@6`, or v4, those of `ai@7`): drive any AI SDK provider through
 * `TurnRunner`, keeping the journal, spooling and retry warnings, without
 * importing `ai`.
 *
 * @module
 */
import { E_INVALID_OPTIONS } from '../../exceptions.js'
import { dropOptionalNulls } from '../../providers/optional_nulls.js'
import { TOOL_NAME_RULES, ToolNameMap } from '../../providers/tool_name_map.js'
import { isPlainObject } from '../../utils/guards.js'
import type { Message, ModelRequest, ModelResponse, ModelToolCall, ProviderMetadata, TurnModel } from '../../providers/messages.js'
import { parseArguments, toolNamesById, unmapCall } from '../../providers/model_adapter.js'

/** A JSON value, as the AI SDK's provider options are typed. */
export type AiSdkJsonValue = null | string | number | boolean | AiSdkJsonObject | AiSdkJsonValue[]

/** A JSON object, as the AI SDK's provider options are typed. */
export type AiSdkJsonObject = { [key: string]: AiSdkJsonValue | undefined }

/** Provider-specific options of a prompt part, keyed by provider (`SharedV3ProviderOptions`). */
export type AiSdkProviderOptions = Record<string, AiSdkJsonObject>

/**
 * A provider's metadata on a result part, keyed by provider, as the adapter
 * reads it: read-only, since `ai@7`'s JSON types are (its objects and arrays
 * are `Readonly`), and `ai@6`'s mutable ones fit too. What the adapter sends
 * back stays {@link AiSdkProviderOptions}, which both majors' prompts take.
 */
export type AiSdkProviderMetadata = Readonly<Record<string, Readonly<Record<string, unknown>>>>

/** A text part of a prompt message. */
export interface AiSdkTextPart {
  /** Always `'text'`. */
  type: 'text'
  /** The text. */
  text: string
}

/** A reasoning part of an assistant message, sent back with the provider's metadata (signatures, encrypted reasoning). */
export interface AiSdkReasoningPart {
  /** Always `'reasoning'`. */
  type: 'reasoning'
  /** The reasoning text. */
  text: string
  /** What the provider attached to it (its `providerMetadata`). */
  providerOptions?: AiSdkProviderOptions
}

/** A tool call of an assistant message. */
export interface AiSdkToolCallPart {
  /** Always `'tool-call'`. */
  type: 'tool-call'
  /** The call's id. */
  toolCallId: string
  /** The tool's name, as the model knows it. */
  toolName: string
  /** The arguments. */
  input: unknown
  /** What the provider attached to the call (Gemini's thought signature…). */
  providerOptions?: AiSdkProviderOptions
}

/** The result of a tool call. */
export interface AiSdkToolResultPart {
  /** Always `'tool-result'`. */
  type: 'tool-result'
  /** The call it answers. */
  toolCallId: string
  /** The tool's name, as the model knows it. */
  toolName: string
  /** The result text, or the error text. */
  output: AiSdkToolResultOutput
}

/** A tool result's output: text, or an error's text. */
export interface AiSdkToolResultOutput {
  /** `'text'` on success, `'error-text'` on failure. */
  type: 'text' | 'error-text'
  /** The text. */
  value: string
}

/** The system message. */
export interface AiSdkSystemMessage {
  /** Always `'system'`. */
  role: 'system'
  /** The text. */
  content: string
}

/** A user message. */
export interface AiSdkUserMessage {
  /** Always `'user'`. */
  role: 'user'
  /** Its text parts. */
  content: AiSdkTextPart[]
}

/** An assistant message: reasoning, text and tool calls. */
export interface AiSdkAssistantMessage {
  /** Always `'assistant'`. */
  role: 'assistant'
  /** Its parts. */
  content: (AiSdkTextPart | AiSdkReasoningPart | AiSdkToolCallPart)[]
}

/** A tool message: the results of one step's calls. */
export interface AiSdkToolMessage {
  /** Always `'tool'`. */
  role: 'tool'
  /** The results. */
  content: AiSdkToolResultPart[]
}

/** A message of a `LanguageModelV3Prompt` (the same in `LanguageModelV4Prompt`), as the adapter writes it. */
export type AiSdkPromptMessage = AiSdkSystemMessage | AiSdkUserMessage | AiSdkAssistantMessage | AiSdkToolMessage

/** A function tool offered to the model (`LanguageModelV3FunctionTool`, `LanguageModelV4FunctionTool`). */
export interface AiSdkFunctionTool {
  /** Always `'function'`. */
  type: 'function'
  /** The tool's name (legal for every provider the SDK can talk to). */
  name: string
  /** What the model reads. */
  description: string
  /** The JSON Schema of the arguments (root always an object). */
  inputSchema: Record<string, unknown>
}

/** The call options the adapter passes to `doGenerate` (a subset of `LanguageModelV3CallOptions` and of `LanguageModelV4CallOptions`). */
export interface AiSdkCallOptions {
  /** The conversation. */
  prompt: AiSdkPromptMessage[]
  /** The tools; absent when none is offered. */
  tools?: AiSdkFunctionTool[]
  /** Fires when the turn is aborted. */
  abortSignal?: AbortSignal
  /** Most output tokens. */
  maxOutputTokens?: number
  /** Sampling temperature. */
  temperature?: number
  /** Provider-specific options (`{ anthropic: { thinking: … } }`…). */
  providerOptions?: AiSdkProviderOptions
}

/** One content part of a `doGenerate` result, as loosely as the adapter needs it. */
export interface AiSdkContentLike {
  /** `text`, `reasoning` and `tool-call` are read; other parts are ignored. */
  type: string
  /** The text of a `text` or `reasoning` part. */
  text?: string
  /** A `tool-call`'s id. */
  toolCallId?: string
  /** A `tool-call`'s tool name. */
  toolName?: string
  /** A `tool-call`'s arguments, JSON-encoded. */
  input?: string
  /** Set on calls the provider ran itself; those are not the runner's to run. */
  providerExecuted?: boolean
  /** The provider's metadata of the part, kept for the next request. */
  providerMetadata?: AiSdkProviderMetadata
}

/** The part of a `doGenerate` result the adapter reads. */
export interface AiSdkGenerateResultLike {
  /** The content parts. */
  content: ReadonlyArray<AiSdkContentLike>
}

/**
 * An AI SDK language model object (`LanguageModelV3` or `LanguageModelV4`,
 * what `openai('gpt-5')`, `anthropic('claude-…')` or `google('gemini-…')`
 * return with `ai@6` or `ai@7`), as loosely as the adapter needs it.
 */
export interface AiSdkLanguageModel {
  /** `'v3'` (`ai@6`'s providers) or `'v4'` (`ai@7`'s). */
  readonly specificationVersion: string
  /** The provider id. */
  readonly provider: string
  /** The model id. */
  readonly modelId: string
  /** Generates one response. */
  doGenerate(options: AiSdkCallOptions): PromiseLike<AiSdkGenerateResultLike>
}

/** Options of {@link aiSdkModel}. */
export interface AiSdkModelOptions {
  /** A system message put first in every prompt. */
  system?: string
  /** Passed to `doGenerate` as is (e.g. `{ anthropic: { thinking: { type: 'enabled', budgetTokens: 4000 } } }`). */
  providerOptions?: AiSdkProviderOptions
  /** Most output tokens per step. */
  maxOutputTokens?: number
  /** Sampling temperature. */
  temperature?: number
  /**
   * Drop the `null`s a model sends for optional properties before validating
   * (providers that send strict schemas make the model send them).
   *
   * @defaultValue true
   */
  dropOptionalNulls?: boolean
}

/**
 * Our messages as a `LanguageModelV3Prompt` (equally a `LanguageModelV4Prompt`:
 * the parts written here are the same in both): the system message first,
 * consecutive tool results in one `tool` message, and each assistant turn's
 * reasoning parts back first with the provider's metadata as
 * `providerOptions` (Anthropic signatures, OpenAI encrypted reasoning).
 *
 * @param messages - The neutral conversation.
 * @param options - The system message, and how tool names map to the model's.
 * @returns The prompt.
 */
export function toAiSdkPrompt(
  messages: readonly Message[],
  options: { system?: string; toProviderName?: (name: string) => string } = {},
): AiSdkPromptMessage[] {
  const name = options.toProviderName ?? ((n: string) => n)
  const names = toolNamesById(messages)
  const out: AiSdkPromptMessage[] = options.system ? [{ role: 'system', content: options.system }] : []
  for (const message of messages) {
    if (message.role === 'tool') {
      const id = message.toolCallId ?? ''
      const part: AiSdkToolResultPart = {
        type: 'tool-result',
        toolCallId: id,
        toolName: name(names.get(id) ?? 'unknown'),
        output: { type: message.isError ? 'error-text' : 'text', value: message.content },
      }
      const last = out.at(-1)
      if (last?.role === 'tool') last.content.push(part)
      else out.push({ role: 'tool', content: [part] })
    } else if (message.role === 'assistant') {
      const content: (AiSdkTextPart | AiSdkReasoningPart | AiSdkToolCallPart)[] = reasoningOf(message.providerMetadata)
      if (message.content) content.push({ type: 'text', text: message.content })
      for (const call of message.toolCalls ?? []) {
        const providerOptions = metadataOf(call.providerMetadata)
        content.push({
          type: 'tool-call',
          toolCallId: call.id,
          toolName: name(call.name),
          input: call.args ?? {},
          ...(providerOptions ? { providerOptions } : {}),
        })
      }
      if (content.length > 0) out.push({ role: 'assistant', content })
    } else {
      out.push({ role: 'user', content: [{ type: 'text', text: message.content }] })
    }
  }
  return out
}

/**
 * A `doGenerate` result in the neutral shape.
 *
 * @param result - What the model's `doGenerate` returned.
 * @param fromProviderName - Maps a tool name back to the tool's.
 * @returns `{ text, toolCalls }`; reasoning parts and each call's provider metadata are kept in `providerMetadata.aiSdk`.
 */
export function fromAiSdkResult(
  result: AiSdkGenerateResultLike,
  fromProviderName: (name: string) => string | undefined = (n) => n,
): ModelResponse {
  const parts = result?.content ?? []
  const text = parts
    .filter((p) => p.type === 'text')
    .map((p) => p.text ?? '')
    .join('')
  const toolCalls: ModelToolCall[] = parts
    .filter((p) => p.type === 'tool-call' && p.providerExecuted !== true)
    .map((p) => {
      const call = unmapCall({ id: p.toolCallId ?? '', name: p.toolName ?? '', args: parseArguments(p.input) }, fromProviderName)
      return p.providerMetadata ? { ...call, providerMetadata: { aiSdk: p.providerMetadata } } : call
    })
  const reasoning = parts
    .filter((p) => p.type === 'reasoning')
    .map((p) => ({ type: 'reasoning' as const, text: p.text ?? '', ...(p.providerMetadata ? { providerOptions: p.providerMetadata } : {}) }))
  return { text, toolCalls, ...(reasoning.length ? { providerMetadata: { aiSdk: { reasoning } } } : {}) }
}

/**
 * Wrap an AI SDK language model as a {@link TurnModel}.
 *
 * @remarks
 * The adapter calls the model's own `doGenerate` (the `LanguageModelV3`
 * interface of `ai@6`'s providers, or `LanguageModelV4` of `ai@7`'s: for
 * text, reasoning, tool calls and text tool results the two agree, so one
 * code path serves both), so `ai` is never imported:
 * it stays an optional peer. The runner, not the SDK, runs the tools, so a
 * turn keeps the journal, result spooling and retry warnings. Tool names
 * follow the `portable` rule; calls the provider executed itself
 * (`providerExecuted`) are left to the provider. A model id string
 * (`'openai/gpt-5'`) needs the SDK's gateway: resolve it first
 * (`gateway('openai/gpt-5')`).
 *
 * @param model - The model (`openai('gpt-5')`, `anthropic('claude-sonnet-4-5')`, a `MockLanguageModelV3` or `MockLanguageModelV4`…).
 * @param options - System message, provider options, token and temperature settings.
 * @returns The model callback for `TurnRunner`.
 * @throws {@link toolsmith/core!E_INVALID_OPTIONS} when `model` is not a v3 or v4 language model object.
 *
 * @example
 * ```ts
 * import { openai } from '@ai-sdk/openai'
 * const runner = new TurnRunner({ model: aiSdkModel(openai('gpt-5')), tools: createTools({ rootDir }) })
 * ```
 */
export function aiSdkModel(model: AiSdkLanguageModel, options: AiSdkModelOptions = {}): TurnModel {
  if (typeof model !== 'object' || model === null) {
    throw new E_INVALID_OPTIONS(
      `aiSdkModel(model) needs an AI SDK language model object, got ${JSON.stringify(model)}; resolve a model id first (gateway('openai/gpt-5'))`,
    )
  }
  // v2 (ai@5) differs where the adapter reads and writes (tool results, usage); v3 and v4 agree there.
  if (typeof model.doGenerate !== 'function' || !SPECIFICATION_VERSIONS.has(model.specificationVersion)) {
    throw new E_INVALID_OPTIONS(
      `aiSdkModel(model) needs a LanguageModelV3 (the providers of ai@6) or LanguageModelV4 (the providers of ai@7); got specificationVersion ${JSON.stringify(model.specificationVersion)}`,
    )
  }
  const dropNulls = options.dropOptionalNulls !== false
  return async (request: ModelRequest) => {
    const names = new ToolNameMap(TOOL_NAME_RULES.portable, request.tools.map((t) => t.name))
    const tools: AiSdkFunctionTool[] = request.tools.map((t) => ({
      type: 'function',
      name: names.toProvider(t.name),
      description: t.description,
      inputSchema: t.jsonSchema,
    }))
    const result = await model.doGenerate({
      prompt: toAiSdkPrompt(request.messages, { system: options.system, toProviderName: (n) => names.toProvider(n) }),
      ...(tools.length ? { tools } : {}),
      abortSignal: request.signal,
      ...(options.providerOptions ? { providerOptions: options.providerOptions } : {}),
      ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    })
    const response = fromAiSdkResult(result, (n) => names.fromProvider(n))
    if (!dropNulls || !response.toolCalls?.length) return response
    const byName = new Map(request.tools.map((t) => [t.name, t]))
    return {
      ...response,
      toolCalls: response.toolCalls.map((call) => {
        const tool = byName.get(call.name)
        return tool ? { ...call, args: dropOptionalNulls(tool, call.args) } : call
      }),
    }
  }
}

/** The language model specifications the adapter speaks. */
const SPECIFICATION_VERSIONS: ReadonlySet<string> = new Set(['v3', 'v4'])

function aiSdk(metadata: ProviderMetadata | undefined): Record<string, unknown> | undefined {
  const value = metadata?.aiSdk
  return isPlainObject(value) ? value : undefined
}

function metadataOf(metadata: ProviderMetadata | undefined): AiSdkProviderOptions | undefined {
  const value = metadata?.aiSdk
  return isPlainObject(value) ? (value as AiSdkProviderOptions) : undefined
}

function reasoningOf(metadata: ProviderMetadata | undefined): AiSdkReasoningPart[] {
  const list = aiSdk(metadata)?.reasoning
  return Array.isArray(list) ? list.filter((p): p is AiSdkReasoningPart => isPlainObject(p) && p.type === 'reasoning') : []
}
