/**
 * Turn checkpoints as chains of deltas: what every store does to hand back
 * a whole checkpoint from the records it appended.
 *
 * @module
 */
import { E_JOURNAL_CORRUPT } from '../exceptions.js'
import type { TurnCheckpoint } from './claiming.js'

/**
 * Fold the chain that ends at `head` into one whole checkpoint: the root's
 * prompt, every record's messages in chain order, the state folded one
 * level deep, and the head's steps, attempt, `done` and time.
 *
 * @remarks
 * The chain is followed by `parentId`, not by write order, so records of
 * an abandoned branch (a worker that kept writing after another one resumed
 * the turn) are never mixed in: the conversation is always one worker's.
 *
 * @param head - The latest record of the turn.
 * @param records - The turn's records (any order; others are ignored).
 * @returns The whole checkpoint, `checkpointId` the head's, without `parentId`.
 * @throws `E_JOURNAL_CORRUPT` when a link is missing, loops, or a record's JSON does not parse.
 * @internal
 */
export function foldTurnChain(head: TurnCheckpoint, records: Iterable<TurnCheckpoint>): TurnCheckpoint {
  if (!head.parentId) return withoutParent(head)
  const byId = new Map<string, TurnCheckpoint>()
  for (const record of records) if (record.checkpointId) byId.set(record.checkpointId, record)
  const path: TurnCheckpoint[] = [head]
  const seen = new Set<string>([head.checkpointId ?? ''])
  for (let at = head; at.parentId; ) {
    const parent = byId.get(at.parentId)
    if (!parent || seen.has(at.parentId)) throw brokenChain(head, at.parentId, parent ? 'loops back on itself' : 'is missing')
    seen.add(at.parentId)
    path.push(parent)
    at = parent
  }
  path.reverse()
  const messages: unknown[] = []
  let state: Record<string, unknown> = {}
  for (const record of path) {
    const part = parseJson(record.messagesJson, head)
    if (!Array.isArray(part)) throw brokenChain(head, record.checkpointId ?? '?', 'holds messages that are not a list')
    for (const message of part) messages.push(message)
    state = foldState(state, parseJson(record.stateJson, head))
  }
  return withoutParent({ ...head, prompt: path[0]!.prompt, messagesJson: JSON.stringify(messages), stateJson: JSON.stringify(state) })
}

/**
 * The checkpoint to resume from when a store has both a chain head and a
 * whole checkpoint in the table an earlier version wrote: the later one
 * (the chain on a tie).
 *
 * @param head - The latest chain record, if any.
 * @param legacy - The earlier version's checkpoint, if any.
 * @returns The one to use.
 * @internal
 */
export function newerCheckpoint(head: TurnCheckpoint | undefined, legacy: TurnCheckpoint | undefined): TurnCheckpoint | undefined {
  if (!head) return legacy
  if (!legacy) return head
  return legacy.updatedAtMs > head.updatedAtMs ? legacy : head
}

function foldState(into: Record<string, unknown>, delta: unknown): Record<string, unknown> {
  if (!isObject(delta)) return into
  const out = { ...into }
  for (const [key, value] of Object.entries(delta)) {
    const before = out[key]
    out[key] = isObject(before) && isObject(value) ? { ...before, ...value } : value
  }
  return out
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function parseJson(text: string, head: TurnCheckpoint): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw brokenChain(head, head.checkpointId ?? '?', 'holds JSON that does not parse')
  }
}

function withoutParent(checkpoint: TurnCheckpoint): TurnCheckpoint {
  const { parentId: _parentId, ...rest } = checkpoint
  return rest
}

function brokenChain(head: TurnCheckpoint, checkpointId: string, problem: string): E_JOURNAL_CORRUPT {
  const turn = `run "${head.runId}" node "${head.nodeId}" iteration ${head.iteration}`
  return new E_JOURNAL_CORRUPT(
    `The checkpoint chain of ${turn} cannot be rebuilt: record ${checkpointId} ${problem}. ` +
      'The journal was edited or only partly restored; resume cannot continue this turn (start it again with run()).',
    { details: { runId: head.runId, nodeId: head.nodeId, iteration: head.iteration, checkpointId, problem } },
  )
}
