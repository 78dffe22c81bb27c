/**
 * Writing a turn's checkpoints as a chain: a whole checkpoint first, then
 * one delta per step with only the messages and state that changed.
 *
 * @module
 */
import { randomUUID } from 'node:crypto'
import type { DispatchContext } from '../core/dispatch_context.js'
import type { Tool } from '../core/tool.js'
import { encodeMessages, storeToolCall, type CheckpointKey, type StoredToolCall } from './checkpoint_codec.js'
import type { ClaimingJournal, TurnCheckpoint } from '../journal/claiming.js'
import type { Message } from '../providers/messages.js'

/** Who writes: the coordinates of the turn. */
export interface CheckpointOwner {
  runId: string
  nodeId: string
  iteration: number
  attempt: number
}

/** Where a resumed turn's chain stands: what it continues and what is already stored. */
export interface ChainStart {
  /** The record the next delta continues; `undefined` when the next one must be whole. */
  head: string | undefined
  /** How many messages the chain already holds. */
  saved: number
  /** The claim counts the chain already holds. */
  claims: Readonly<Record<string, number>>
  /** The stored form of every call the chain holds, by id. */
  stored: Map<string, StoredToolCall>
}

/** What a checkpoint records of the runner's state. */
export interface CheckpointState {
  claims: ReadonlyMap<string, number>
  seq: number
}

/** One record ready to be stored; `commit()` once the journal has it. */
export interface PendingCheckpoint {
  record: TurnCheckpoint
  commit(): void
}

/**
 * The checkpoint chain of one turn. Only records the journal confirmed are
 * built on: a write that failed leaves the chain where it was.
 */
export class CheckpointWriter {
  readonly #journal: ClaimingJournal
  readonly #owner: CheckpointOwner
  readonly #prompt: string
  readonly #key: CheckpointKey | undefined
  readonly #stored: Map<string, StoredToolCall>
  #head: string | undefined
  #saved: number
  #claims: Map<string, number>

  constructor(journal: ClaimingJournal, owner: CheckpointOwner, prompt: string, key: CheckpointKey | undefined, start?: ChainStart) {
    this.#journal = journal
    this.#owner = owner
    this.#prompt = prompt
    this.#key = key
    this.#stored = start?.stored ?? new Map()
    this.#head = start?.head
    this.#saved = start?.saved ?? 0
    this.#claims = new Map(Object.entries(start?.claims ?? {}))
  }

  /**
   * The next record: a delta when the journal keeps chains and one was
   * stored before, else the whole conversation.
   *
   * @param messages - The whole conversation so far.
   * @param steps - Model calls made.
   * @param done - Whether the turn ended.
   * @param state - Claim counts and the next seq.
   * @param toolFor - The tool a call names, to store its args as the journal would.
   * @param ctx - The turn's context (ids for `prepare`).
   */
  async next(
    messages: readonly Message[],
    steps: number,
    done: boolean,
    state: CheckpointState,
    toolFor: (name: string) => Tool | undefined,
    ctx: Pick<DispatchContext, 'id' | 'idempotencyScope'>,
  ): Promise<PendingCheckpoint> {
    const delta = this.#journal.turnDeltas === true && this.#head !== undefined && this.#saved <= messages.length
    const added = messages.slice(delta ? this.#saved : 0)
    const { runId, nodeId, iteration, attempt } = this.#owner
    for (const message of added) {
      for (const call of message.toolCalls ?? []) {
        if (!this.#stored.has(call.id)) this.#stored.set(call.id, await storeToolCall(call, toolFor(call.name), ctx, { runId, nodeId, iteration }, this.#key))
      }
    }
    const claims: Record<string, number> = {}
    for (const [key, count] of state.claims) if (!delta || this.#claims.get(key) !== count) claims[key] = count
    const checkpointId = randomUUID()
    const record: TurnCheckpoint = {
      runId,
      nodeId,
      iteration,
      attempt,
      prompt: delta ? '' : this.#prompt,
      messagesJson: JSON.stringify(encodeMessages(added, this.#stored)),
      steps,
      stateJson: JSON.stringify({ claims, seq: state.seq }),
      done,
      updatedAtMs: Date.now(),
      checkpointId,
      ...(delta ? { parentId: this.#head! } : {}),
    }
    const total = messages.length
    const claimsNow = new Map(state.claims)
    return {
      record,
      commit: () => {
        this.#head = checkpointId
        this.#saved = total
        this.#claims = claimsNow
      },
    }
  }
}
