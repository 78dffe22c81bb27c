/**
 * The claiming journal: claims (exactly-once runs of non-idempotent side
 * effects) and turn checkpoints, on top of the {@link ToolCallJournal} contract.
 *
 * @module
 */
import type { ToolCallFlags, ToolCallJournal, ToolCallRow } from './contract.js'

/** Where a claimed call stands. */
export type ClaimState = 'running' | 'success' | 'error'

/**
 * The journal's record of one claimed call: the row of the worker that won
 * the claim, its lease, and (once settled) its outcome.
 */
export interface ToolCallClaim {
  /** The key the call was claimed under: its idempotency key, `#n` appended for the n-th repeat in one attempt. */
  claimKey: string
  /** The worker holding (or last holding) the claim: `host:pid:random`. */
  owner: string
  /** `'running'` until the claimant records the outcome (the same as `row.status`). */
  state: ClaimState
  /** Epoch milliseconds (the store's clock) after which a `'running'` claim counts as abandoned. */
  leaseExpiresAtMs: number
  /** Whether the lease had expired when the store read the claim (compared on the store's own clock). */
  leaseExpired: boolean
  /**
   * The claimant's row: its coordinates, tool and redacted input; once
   * settled, also its `outputJson`/`errorJson`, `permissionJson` and `finishedAtMs`.
   */
  row: ClaimedRow
}

/** A claim's row: a {@link ToolCallRow} whose status may still be `'running'`. */
export interface ClaimedRow extends Omit<ToolCallRow, 'status'> {
  /** `'running'` until the outcome is recorded, then `'success'` or `'error'`. */
  status: ClaimState
}

/** What {@link ClaimingJournal.claim} asks for. */
export interface ClaimRequest {
  /** See {@link ToolCallClaim.claimKey}. */
  claimKey: string
  /** The worker asking. */
  owner: string
  /** How long the claim holds without a renewal, in milliseconds. */
  leaseMs: number
  /** The call's row as it starts (`status`, `outputJson`, `errorJson` are ignored). */
  row: ToolCallRow
  /** The tool's flags. */
  flags: ToolCallFlags
}

/** What {@link ClaimingJournal.claim} answers. */
export interface ClaimResult {
  /** `true` when this worker now holds the claim and must run the call. */
  acquired: boolean
  /** The claim as stored: this worker's own when `acquired`, else the earlier one. */
  claim: ToolCallClaim
}

/**
 * A turn as a journal keeps it, so another process can resume it: the
 * conversation up to the last model answer, and the state the runner needs
 * to continue.
 *
 * @remarks
 * The runner writes a turn as a chain: a whole checkpoint (the root, no
 * `parentId`), then one delta per step naming the checkpoint it continues.
 * A journal that declares {@link ClaimingJournal.turnDeltas} keeps every
 * record and `loadTurn` returns the chain folded into one whole checkpoint;
 * to any other journal the runner sends whole checkpoints. Tool-call
 * arguments in `messagesJson` are in the checkpoint form the runner
 * documents (redacted, withheld or sealed where the redaction rules say so):
 * stores keep the text as it is.
 */
export interface TurnCheckpoint {
  /** The run. */
  runId: string
  /** The node. */
  nodeId: string
  /** The iteration. */
  iteration: number
  /** The attempt that wrote it. */
  attempt: number
  /** The prompt of the turn; `''` in a delta (the chain's root holds it). */
  prompt: string
  /**
   * The conversation as JSON (an array of `Message` in checkpoint form), the
   * last model answer included; in a delta, only the messages added since
   * the checkpoint `parentId`.
   */
  messagesJson: string
  /** Model calls made so far. */
  steps: number
  /**
   * The runner's own state as a JSON object (claims made per idempotency
   * key, the next `seq`); in a delta, only what changed. Stores fold a chain
   * one level deep: a delta's key replaces the folded value, and two objects
   * under one key are merged key by key.
   */
  stateJson: string
  /** `true` once the turn ended normally. */
  done: boolean
  /** Epoch milliseconds of the write. */
  updatedAtMs: number
  /**
   * The record's id (random), which a later delta names as its `parentId`.
   * Absent in checkpoints written before chains existed.
   */
  checkpointId?: string
  /**
   * The checkpoint this record continues: present on a delta, absent (or
   * `null`) on a whole checkpoint. `loadTurn` never returns one: it folds
   * the chain.
   */
  parentId?: string | null
}

/**
 * A journal that can also claim calls and keep turn checkpoints: what
 * exactly-once side effects and `TurnRunner.resume` need.
 *
 * @remarks
 * Implemented by {@link SqliteJournal} (one machine, any number of
 * processes), `PostgresJournal` (any number of machines) and
 * {@link JsonlJournal} (one process only: appending to a file cannot make two
 * processes' claims exclusive).
 */
export interface ClaimingJournal extends ToolCallJournal {
  /**
   * Claim a call, atomically: the first worker to ask gets it; everyone else
   * gets the stored claim (running, or settled with its outcome).
   *
   * @param request - Key, owner, lease and the starting row.
   * @returns Whether this worker acquired it, and the claim as stored.
   * @throws `E_JOURNAL_UNAVAILABLE` when the store cannot be reached.
   */
  claim(request: ClaimRequest): Promise<ClaimResult>
  /**
   * Extend a running claim's lease; only its owner can.
   *
   * @param claimKey - The key.
   * @param owner - The owner.
   * @param leaseMs - The new lease, from now.
   * @returns `false` when the claim is no longer this owner's or no longer running.
   */
  renew(claimKey: string, owner: string, leaseMs: number): Promise<boolean>
  /**
   * Move an abandoned running claim to a new owner (compare-and-set on the old owner).
   *
   * @param claimKey - The key.
   * @param fromOwner - The owner the caller saw.
   * @param toOwner - The new owner.
   * @param leaseMs - The new lease.
   * @returns `false` when someone else changed the claim first.
   */
  takeOver(claimKey: string, fromOwner: string, toOwner: string, leaseMs: number): Promise<boolean>
  /**
   * Record the outcome of a claimed call: settle the claim and store `row`
   * as the call's journal row, in one transaction.
   *
   * @param claimKey - The key.
   * @param owner - The owner; a claim held by someone else is left alone.
   * @param row - The finished row.
   * @param flags - The tool's flags.
   * @returns `false` when the claim was not this owner's (nothing was written).
   */
  complete(claimKey: string, owner: string, row: ToolCallRow, flags: ToolCallFlags): Promise<boolean>
  /**
   * Drop a running claim whose call never started (its permission was
   * refused), so a later attempt asks again instead of replaying the refusal.
   *
   * @param claimKey - The key.
   * @param owner - The owner; a claim held by someone else is left alone.
   * @returns `false` when the claim was not this owner's running claim.
   */
  release(claimKey: string, owner: string): Promise<boolean>
  /**
   * A claim by key.
   *
   * @param claimKey - The key.
   * @returns The claim, or `undefined`.
   */
  getClaim(claimKey: string): Promise<ToolCallClaim | undefined>
  /**
   * `true` when {@link ClaimingJournal.saveTurn} keeps every record it is
   * given and {@link ClaimingJournal.loadTurn} folds chains of deltas (see
   * {@link TurnCheckpoint}): the runner then appends only each step's new
   * messages. Otherwise (a journal that keeps one checkpoint per turn) it
   * sends a whole checkpoint every time.
   */
  readonly turnDeltas?: boolean
  /**
   * Store a turn's checkpoint: a whole one, or (with {@link ClaimingJournal.turnDeltas})
   * a delta on an earlier one.
   *
   * @param checkpoint - The checkpoint.
   */
  saveTurn(checkpoint: TurnCheckpoint): Promise<void>
  /**
   * The latest checkpoint of a run, optionally narrowed to a node and
   * iteration, whole: a chain of deltas comes back folded.
   *
   * @param runId - The run.
   * @param scope - The node and iteration, when the run has several.
   * @returns The checkpoint last written, or `undefined`.
   * @throws `E_JOURNAL_CORRUPT` when a chain's link is missing.
   */
  loadTurn(runId: string, scope?: { nodeId?: string; iteration?: number }): Promise<TurnCheckpoint | undefined>
}

/**
 * Whether a journal implements {@link ClaimingJournal}.
 *
 * @param journal - Any journal.
 * @returns `true` when it has every claim and checkpoint method.
 */
export function isClaimingJournal(journal: ToolCallJournal | undefined): journal is ClaimingJournal {
  if (!journal) return false
  const j = journal as Partial<ClaimingJournal>
  return (
    typeof j.claim === 'function' &&
    typeof j.renew === 'function' &&
    typeof j.takeOver === 'function' &&
    typeof j.complete === 'function' &&
    typeof j.release === 'function' &&
    typeof j.getClaim === 'function' &&
    typeof j.saveTurn === 'function' &&
    typeof j.loadTurn === 'function'
  )
}
