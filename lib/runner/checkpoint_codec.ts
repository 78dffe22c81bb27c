/**
 * How tool-call arguments are kept in a turn checkpoint: as the model sent
 * them when the journal would record them so too, otherwise withheld (the
 * journal's redacted form stands in) and, with a `checkpointKey`, sealed
 * with AES-256-GCM so a resume can rebuild them exactly.
 *
 * @module
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto'
import { INVALID_ARGS_NOT_RECORDED, type PreparedCall, type Tool } from '../core/tool.js'
import { callIdOf } from '../core/call_identity.js'
import type { DispatchContext } from '../core/dispatch_context.js'
import { E_INVALID_OPTIONS, E_JOURNAL_CORRUPT } from '../exceptions.js'
import { canonicalStringify } from '../utils/canonical_json.js'
import { errorToJson } from '../journal/output.js'
import type { Message, ModelToolCall } from '../providers/messages.js'

/**
 * What a runner's `checkpointKey` may be: 32 bytes, or a text holding them
 * as 64 hex digits or in base64 (as an environment variable would).
 */
export type CheckpointKeyInput = Uint8Array | string

/** A checked key: its bytes and the short id stored next to what it sealed. */
export interface CheckpointKey {
  /** 16 hex digits derived from the key (HMAC), naming it without revealing it. */
  readonly id: string
  readonly bytes: Buffer
}

/**
 * Why a call's args are not in a checkpoint as the model sent them:
 * `redacted` (valid args the tool's `redact` changes), `invalid` (args that
 * failed validation, or whose preparation threw), `unknown-tool`.
 */
export type WithheldReason = 'redacted' | 'invalid' | 'unknown-tool'

/** A tool call as a checkpoint stores it. */
export interface StoredToolCall extends ModelToolCall {
  /** Set when `args` is not what the model sent but what the journal records in its place. */
  withheld?: WithheldReason
  /** The call's id over its raw args (as in its journal row), so a resume without them finds its claim. */
  callId?: string
  /** For `invalid`: the error as the journal records it, so a resume answers with the same text. */
  errorJson?: string
  /** With a `checkpointKey`: the raw args, sealed (`tsck1.<key id>.<iv>.<ciphertext>.<tag>`, base64url). */
  sealed?: string
}

/** Where a checkpoint belongs: bound into every seal, so a sealed value cannot be moved to another call or turn. */
export interface CheckpointPlace {
  runId: string
  nodeId: string
  iteration: number
}

/** The key placeholder args carry in a rebuilt conversation when the logged form is not an object. */
export const ARGS_NOT_KEPT = 'argumentsNotKept'

const SEAL_VERSION = 'tsck1'

/**
 * Check a `checkpointKey` and derive its id.
 *
 * @param input - 32 bytes, 64 hex digits, or base64 of 32 bytes.
 * @returns The key.
 * @throws `E_INVALID_OPTIONS` for anything that is not 32 bytes.
 */
export function checkpointKeyOf(input: CheckpointKeyInput): CheckpointKey {
  let bytes: Buffer | undefined
  if (input instanceof Uint8Array) bytes = Buffer.from(input)
  else if (typeof input === 'string') {
    const text = input.trim()
    if (/^[0-9a-fA-F]{64}$/.test(text)) bytes = Buffer.from(text, 'hex')
    else if (/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) bytes = Buffer.from(text, 'base64')
  }
  if (bytes?.length !== 32) {
    throw new E_INVALID_OPTIONS(
      'checkpointKey must be 32 bytes: a Uint8Array, 64 hex digits or base64 of 32 bytes ' +
        "(make one with `node -e \"console.log(require('crypto').randomBytes(32).toString('base64'))\"`)",
    )
  }
  const id = createHmac('sha256', bytes).update('toolsmith checkpoint key id').digest('hex').slice(0, 16)
  return { id, bytes }
}

/**
 * The checkpoint form of one call: its args as sent when the journal would
 * record exactly them, else withheld with the journal's form in their place
 * (and sealed when there is a key).
 *
 * @param call - The call as the model asked for it.
 * @param tool - The tool it names, if offered.
 * @param ctx - The turn's context (ids only; `prepare` emits nothing).
 * @param place - The turn, bound into the seal.
 * @param key - The runner's `checkpointKey`, if any.
 * @returns The stored call.
 */
export async function storeToolCall(
  call: ModelToolCall,
  tool: Tool | undefined,
  ctx: Pick<DispatchContext, 'id' | 'idempotencyScope'>,
  place: CheckpointPlace,
  key: CheckpointKey | undefined,
): Promise<StoredToolCall> {
  const base: StoredToolCall = { id: call.id, name: call.name, args: call.args, ...(call.providerMetadata ? { providerMetadata: call.providerMetadata } : {}) }
  let withheld: StoredToolCall
  if (!tool) {
    withheld = { ...base, args: INVALID_ARGS_NOT_RECORDED, withheld: 'unknown-tool', callId: callIdOf(call.name, call.args) }
  } else {
    let prepared: PreparedCall
    try {
      prepared = await tool.prepare(call.args, ctx)
    } catch (error) {
      // The runner answers such a call with this error: record it like one that failed validation.
      withheld = { ...base, args: INVALID_ARGS_NOT_RECORDED, withheld: 'invalid', callId: callIdOf(call.name, call.args), errorJson: errorToJson(error) }
      return seal(withheld, call, place, key)
    }
    if (!prepared.ok) {
      // Never redacted: a tool's redact is written for valid args only.
      withheld = { ...base, args: INVALID_ARGS_NOT_RECORDED, withheld: 'invalid', callId: prepared.callId, errorJson: errorToJson(prepared.error) }
    } else {
      const logged = prepared.loggedArgs
      // Kept as sent only when that is exactly what the journal records: a
      // tool without `redact` (its valid args hold nothing the rules hide),
      // or a `redact` that changed nothing.
      if (!tool.redact || sameJson(logged, call.args)) return base
      withheld = { ...base, args: logged, withheld: 'redacted', callId: prepared.callId }
    }
  }
  return seal(withheld, call, place, key)
}

/**
 * A conversation in checkpoint form: every tool call replaced by its stored form.
 *
 * @param messages - The messages.
 * @param stored - Stored forms by tool-call id; a call without one is kept as it is.
 * @returns JSON-ready messages.
 */
export function encodeMessages(messages: readonly Message[], stored: ReadonlyMap<string, StoredToolCall>): Message[] {
  return messages.map((message) =>
    message.toolCalls ? { ...message, toolCalls: message.toolCalls.map((call) => stored.get(call.id) ?? call) } : message,
  )
}

/** A checkpoint's conversation, rebuilt. */
export interface DecodedMessages {
  /** The conversation for the model: exact args where kept or unsealed, the journal's form where withheld. */
  messages: Message[]
  /** The withheld calls' stored forms by id, so writing the conversation again keeps them as they are. */
  stored: Map<string, StoredToolCall>
  /** The calls whose args could not be rebuilt (no seal), by id. */
  withheld: Map<string, StoredToolCall>
}

/**
 * Rebuild a checkpoint's conversation.
 *
 * @param messagesJson - The folded checkpoint's messages.
 * @param place - The turn.
 * @param key - The runner's key, if any.
 * @returns The messages and what is known of each call.
 * @throws `E_INVALID_OPTIONS` when args are sealed and the runner has no key or another one;
 *   `E_JOURNAL_CORRUPT` when a seal does not open with its key or the JSON is not a conversation.
 */
export function decodeMessages(messagesJson: string, place: CheckpointPlace, key: CheckpointKey | undefined): DecodedMessages {
  let parsed: unknown
  try {
    parsed = JSON.parse(messagesJson)
  } catch {
    parsed = undefined
  }
  if (!Array.isArray(parsed)) throw corrupt(place, 'its conversation is not a JSON list of messages')
  const stored = new Map<string, StoredToolCall>()
  const withheld = new Map<string, StoredToolCall>()
  const messages = (parsed as Message[]).map((message) => {
    if (!Array.isArray(message?.toolCalls)) return message
    const toolCalls = (message.toolCalls as StoredToolCall[]).map((call): ModelToolCall => {
      // A call kept as sent is stored again from its args (a checkpoint of
      // the previous version keeps every call so, redacted or not); one
      // withheld can only be stored again as it is.
      if (call.withheld !== undefined) stored.set(call.id, call)
      const rebuilt: ModelToolCall = { id: call.id, name: call.name, args: call.args, ...(call.providerMetadata ? { providerMetadata: call.providerMetadata } : {}) }
      if (call.withheld === undefined) return rebuilt
      if (call.sealed !== undefined) return { ...rebuilt, args: unseal(call, place, key) }
      withheld.set(call.id, call)
      return { ...rebuilt, args: placeholder(call.args) }
    })
    return { ...message, toolCalls }
  })
  return { messages, stored, withheld }
}

/** What the model is shown for args a checkpoint did not keep: the journal's form, as an object. */
function placeholder(logged: unknown): unknown {
  return logged !== null && typeof logged === 'object' && !Array.isArray(logged) ? logged : { [ARGS_NOT_KEPT]: logged }
}

function seal(stored: StoredToolCall, call: ModelToolCall, place: CheckpointPlace, key: CheckpointKey | undefined): StoredToolCall {
  if (!key) return stored
  let plain: string
  try {
    plain = JSON.stringify(call.args)
  } catch {
    return stored // Not JSON (a cycle, a BigInt): nothing a provider sent; stays withheld.
  }
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key.bytes, iv)
  cipher.setAAD(aad(place, call))
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
  const sealed = [SEAL_VERSION, key.id, iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.')
  // With a seal the call needs nothing else to be rebuilt: no id or error text beside it.
  const { callId: _callId, errorJson: _errorJson, ...rest } = stored
  return { ...rest, sealed }
}

function unseal(call: StoredToolCall, place: CheckpointPlace, key: CheckpointKey | undefined): unknown {
  const parts = String(call.sealed).split('.')
  if (parts.length !== 5 || parts[0] !== SEAL_VERSION) throw corrupt(place, `the sealed arguments of call ${call.id} are not in a known form`)
  const [, keyId, iv, body, tag] = parts as [string, string, string, string, string]
  if (!key) {
    throw new E_INVALID_OPTIONS(
      `The checkpoint of run "${place.runId}" keeps tool-call arguments sealed with a checkpointKey (key id ${keyId}): ` +
        'resume it with a TurnRunner given the same checkpointKey',
      { details: { ...place, keyId } },
    )
  }
  if (keyId !== key.id) {
    throw new E_INVALID_OPTIONS(
      `The checkpoint of run "${place.runId}" was sealed with another checkpointKey (key id ${keyId}; this runner's is ${key.id}): ` +
        'resume it with the key it was written with',
      { details: { ...place, keyId, runnerKeyId: key.id } },
    )
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.bytes, Buffer.from(iv, 'base64url'))
    decipher.setAAD(aad(place, call))
    decipher.setAuthTag(Buffer.from(tag, 'base64url'))
    const plain = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8')
    return JSON.parse(plain) as unknown
  } catch {
    throw corrupt(place, `the sealed arguments of call ${call.id} do not open with key ${keyId} (changed, moved from another call, or damaged)`)
  }
}

function aad(place: CheckpointPlace, call: { id: string; name: string }): Buffer {
  return Buffer.from([SEAL_VERSION, place.runId, place.nodeId, String(place.iteration), call.id, call.name].join('\u0000'), 'utf8')
}

function sameJson(a: unknown, b: unknown): boolean {
  try {
    return canonicalStringify(a) === canonicalStringify(b)
  } catch {
    return false
  }
}

function corrupt(place: CheckpointPlace, problem: string): E_JOURNAL_CORRUPT {
  return new E_JOURNAL_CORRUPT(
    `The checkpoint of run "${place.runId}" node "${place.nodeId}" iteration ${place.iteration} cannot be read back: ${problem}`,
    { details: { ...place, problem } },
  )
}
