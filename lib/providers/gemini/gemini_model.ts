/**
 * Adapter for the Gemini API (`generateContent`).
 *
 * @module
 */
import { toGeminiFunctionDeclarations, type GeminiFunctionDeclaration } from './gemini.js'
import { isPlainObject } from '../../utils/guards.js'
import type { Message, ModelRequest, ModelResponse, ModelToolCall, ProviderMetadata, TurnModel } from '../messages.js'
import { toolNamesById, unmapCall, withArgsMappedBack } from '../model_adapter.js'

/** A text part. */
export interface GeminiTextPart {
  /** The text. */
  text: string
  /** The thought signature the model attached to this part, sent back as received. */
  thoughtSignature?: string
}

/** A function call the model made. */
export interface GeminiFunctionCall {
  /** The call's id, when the model gave one. */
  id?: string
  /** The function's name (as the provider knows it). */
  name: string
  /** The arguments (an object, as `@google/genai`'s `FunctionCall.args`). */
  args: Record<string, unknown>
}

/** A part carrying a function call. */
export interface GeminiFunctionCallPart {
  /** The call. */
  functionCall: GeminiFunctionCall
  /**
   * The thought signature of the call, sent back as received: Gemini 3
   * answers 400 "Function call is missing a thought_signature" without it.
   */
  thoughtSignature?: string
}

/**
 * A function's result: `output` on success, `error` on failure (a type
 * alias, so it fits the SDK's `Record<string, unknown>`).
 */
export type GeminiFunctionResponseBody = {
  /** The result text. */
  output?: string
  /** The error text. */
  error?: string
}

/** The answer to a function call. */
export interface GeminiFunctionResponse {
  /** The id of the call it answers, when known. */
  id?: string
  /** The name of the function called. */
  name: string
  /** The result. */
  response: GeminiFunctionResponseBody
}

/** A part carrying a function response. */
export interface GeminiFunctionResponsePart {
  /** The response. */
  functionResponse: GeminiFunctionResponse
}

/** A part of Gemini content, as the adapter writes it. */
export type GeminiPart = GeminiTextPart | GeminiFunctionCallPart | GeminiFunctionResponsePart

/** The system instruction of a request. */
export interface GeminiSystemInstruction {
  /** Its text parts. */
  parts: GeminiTextPart[]
}

/** One entry of a request's `tools`. */
export interface GeminiToolsEntry {
  /** The function declarations. */
  functionDeclarations: GeminiFunctionDeclaration[]
}

/** One turn of Gemini content. */
export interface GeminiContent {
  /** `user` or `model`; function responses travel as `user`. */
  role: 'user' | 'model'
  /** The parts. */
  parts: GeminiPart[]
}

/** What the adapter builds; pass `contents` and the rest through to `generateContent` (see the example). */
export interface GeminiRequestBody {
  /** The conversation. */
  contents: GeminiContent[]
  /** The system instruction, when one was given. */
  systemInstruction?: GeminiSystemInstruction
  /** The tools; absent when no tool is offered. */
  tools?: GeminiToolsEntry[]
}

/** A function call in a response, as loosely as the adapter needs it. */
export interface GeminiFunctionCallLike {
  /** The call's id, if any. */
  id?: string
  /** The function's name. */
  name?: string
  /** The arguments. */
  args?: unknown
}

/** A part of a response. */
export interface GeminiResponsePartLike {
  /** Text. */
  text?: string
  /** Set on thought summaries, which are skipped. */
  thought?: boolean
  /** A function call. */
  functionCall?: GeminiFunctionCallLike
  /** The part's thought signature, kept for the next request. */
  thoughtSignature?: string
}

/** The content of a candidate. */
export interface GeminiResponseContentLike {
  /** Its parts. */
  parts?: GeminiResponsePartLike[]
}

/** One candidate of a response. */
export interface GeminiCandidateLike {
  /** Its content. */
  content?: GeminiResponseContentLike
}

/** The part of a `generateContent` response the adapter reads. */
export interface GeminiResponseLike {
  /** The candidates; the first one is used. */
  candidates?: GeminiCandidateLike[]
}

/** Options of {@link geminiModel}. */
export interface GeminiModelOptions {
  /** The system instruction. */
  system?: string
}

/**
 * Our messages as Gemini contents: assistant → `model`, tool results →
 * `functionResponse` parts of a `user` turn (named after the call they
 * answer), consecutive turns of one role merged.
 *
 * @param messages - The neutral conversation.
 * @param toProviderName - Maps a tool name to the provider's.
 * @param toProviderArgs - Maps a call's arguments to the keys the provider saw (see `PropertyKeyMaps`).
 * @returns The provider's contents (thought signatures back on their parts).
 */
export function toGeminiContents(
  messages: readonly Message[],
  toProviderName: (name: string) => string = (n) => n,
  toProviderArgs: (name: string, args: unknown) => unknown = (_n, args) => args,
): GeminiContent[] {
  const out: GeminiContent[] = []
  const names = toolNamesById(messages)
  const push = (role: GeminiContent['role'], parts: GeminiPart[]): void => {
    if (parts.length === 0) return
    const last = out.at(-1)
    if (last?.role === role) last.parts.push(...parts)
    else out.push({ role, parts })
  }
  for (const message of messages) {
    if (message.role === 'tool') {
      const id = message.toolCallId
      const name = toProviderName(names.get(id ?? '') ?? 'unknown')
      const response = message.isError ? { error: message.content } : { output: message.content }
      push('user', [{ functionResponse: { ...(id ? { id } : {}), name, response } }])
    } else if (message.role === 'assistant') {
      const textSignature = signatureOf(message.providerMetadata)
      const parts: GeminiPart[] = message.content
        ? [{ text: message.content, ...(textSignature === undefined ? {} : { thoughtSignature: textSignature }) }]
        : []
      for (const call of message.toolCalls ?? []) {
        const args = toProviderArgs(call.name, call.args ?? {})
        const signature = signatureOf(call.providerMetadata)
        parts.push({
          functionCall: { id: call.id, name: toProviderName(call.name), args: isPlainObject(args) ? args : {} },
          ...(signature === undefined ? {} : { thoughtSignature: signature }),
        })
      }
      push('model', parts)
    } else {
      push('user', [{ text: message.content }])
    }
  }
  return out
}

/**
 * A Gemini response in the neutral shape (thought parts are skipped).
 *
 * @remarks
 * A part's `thoughtSignature` is kept: a call's in its `providerMetadata.gemini`,
 * the first text part's in the response's, and {@link toGeminiContents} puts
 * each back on its part (Gemini 3 refuses a function call sent back without it).
 *
 * @param response - The provider's response.
 * @param fromProviderName - Maps a provider tool name back to the tool's name.
 * @returns `{ text, toolCalls }`; calls without an id get one from the runner.
 */
export function fromGeminiResponse(
  response: GeminiResponseLike,
  fromProviderName: (name: string) => string | undefined = (n) => n,
): ModelResponse {
  const parts = response?.candidates?.[0]?.content?.parts ?? []
  const text = parts
    .filter((p) => typeof p.text === 'string' && !p.thought)
    .map((p) => p.text)
    .join('')
  const toolCalls: ModelToolCall[] = parts
    .filter((p) => p.functionCall)
    .map((p) => {
      const call = unmapCall({ id: p.functionCall!.id ?? '', name: p.functionCall!.name ?? '', args: p.functionCall!.args ?? {} }, fromProviderName)
      return typeof p.thoughtSignature === 'string' ? { ...call, providerMetadata: { gemini: { thoughtSignature: p.thoughtSignature } } } : call
    })
  const textSignature = parts.find((p) => typeof p.text === 'string' && !p.thought && typeof p.thoughtSignature === 'string')?.thoughtSignature
  return { text, toolCalls, ...(textSignature === undefined ? {} : { providerMetadata: { gemini: { thoughtSignature: textSignature } } }) }
}

/** The Gemini thought signature kept in a message's or call's provider metadata. */
function signatureOf(metadata: ProviderMetadata | undefined): string | undefined {
  const gemini = metadata?.gemini
  return isPlainObject(gemini) && typeof gemini.thoughtSignature === 'string' ? gemini.thoughtSignature : undefined
}

/**
 * Wrap a Gemini `generateContent` call as a {@link TurnModel}.
 *
 * @param send - Sends the request and returns the response.
 * @param options - The system instruction.
 * @returns The model callback for `TurnRunner`.
 *
 * @example
 * ```ts
 * import { GoogleGenAI } from '@google/genai'
 * const ai = new GoogleGenAI({})
 * const model = geminiModel(({ contents, tools, systemInstruction }, signal) =>
 *   ai.models.generateContent({ model: 'gemini-2.5-flash', contents, config: { tools, systemInstruction, abortSignal: signal } }),
 * )
 * ```
 */
export function geminiModel(
  send: (body: GeminiRequestBody, signal: AbortSignal) => Promise<GeminiResponseLike>,
  options: GeminiModelOptions = {},
): TurnModel {
  return async (request: ModelRequest) => {
    const { definitions, names, keys } = toGeminiFunctionDeclarations(request.tools)
    const body: GeminiRequestBody = {
      contents: toGeminiContents(request.messages, (n) => names.toProvider(n), (n, args) => keys?.argsToProvider(n, args) ?? args),
      ...(options.system ? { systemInstruction: { parts: [{ text: options.system }] } } : {}),
      ...(definitions.length ? { tools: [{ functionDeclarations: definitions }] } : {}),
    }
    const response = fromGeminiResponse(await send(body, request.signal), (n) => names.fromProvider(n))
    return withArgsMappedBack(response, keys)
  }
}
