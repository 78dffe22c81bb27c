/**
 * `CallRun`: who a context's calls are recorded as (run, node, iteration,
 * attempt), their order (`seq`) and the claims made per idempotency key.
 *
 * @module
 */
import { E_INVALID_OPTIONS } from '../../exceptions.js'
import { DEFAULT_CLAIM_LEASE_MS } from '../../journal/claims.js'

/** The coordinates a journal row is recorded under: one task attempt. */
export interface RunIdentity {
  /** The run (workflow execution). */
  runId: string
  /** The task node. */
  nodeId: string
  /** The loop iteration of the node, from 0. */
  iteration: number
  /** The retry attempt, from 1. */
  attempt: number
}

/** Options of `new CallRun(identity, options)`. */
export interface CallRunOptions {
  /**
   * How long a claim holds without renewal, in milliseconds.
   *
   * @defaultValue 30_000
   */
  claimLeaseMs?: number
  /** Claims already made per idempotency key (a resumed turn's). */
  claims?: Record<string, number> | ReadonlyMap<string, number>
  /**
   * The next `seq`.
   *
   * @defaultValue 0
   */
  seq?: number
}

/**
 * The run state the call pipeline records a context's calls with. One per
 * context (a call context shares its turn's), so `seq` and claim counts run
 * across the calls of the turn.
 */
export class CallRun {
  /** The row coordinates. */
  readonly identity: Readonly<RunIdentity>
  /** The claim lease, in milliseconds. */
  readonly claimLeaseMs: number
  /**
   * Claims made per idempotency key: the n-th call with one key in an
   * attempt is claimed as `key#n` (see `claimKeyOf`). A runner checkpoints it.
   */
  readonly claims: Map<string, number>
  #seq: number

  /**
   * @param identity - The row coordinates; missing fields take the defaults `nodeId: 'call'`, `iteration: 0`, `attempt: 1`.
   * @param options - Lease, claims so far, next seq.
   * @throws `E_INVALID_OPTIONS` for an empty runId or nodeId, a negative iteration, an attempt below 1 or a bad lease.
   */
  constructor(identity: Partial<RunIdentity> & { runId: string }, options: CallRunOptions = {}) {
    const full = { nodeId: 'call', iteration: 0, attempt: 1, ...identity }
    if (typeof full.runId !== 'string' || full.runId === '' || typeof full.nodeId !== 'string' || full.nodeId === '') {
      throw new E_INVALID_OPTIONS('run.runId and run.nodeId must be non-empty strings')
    }
    if (!Number.isSafeInteger(full.iteration) || full.iteration < 0) {
      throw new E_INVALID_OPTIONS(`run.iteration must be an integer >= 0 (got ${String(full.iteration)})`)
    }
    if (!Number.isSafeInteger(full.attempt) || full.attempt < 1) {
      throw new E_INVALID_OPTIONS(`run.attempt must be an integer >= 1 (got ${String(full.attempt)})`)
    }
    const lease = options.claimLeaseMs ?? DEFAULT_CLAIM_LEASE_MS
    if (!Number.isSafeInteger(lease) || lease <= 0) throw new E_INVALID_OPTIONS(`claimLeaseMs must be a positive integer (got ${String(lease)})`)
    this.identity = Object.freeze({ runId: full.runId, nodeId: full.nodeId, iteration: full.iteration, attempt: full.attempt })
    this.claimLeaseMs = lease
    const claims = options.claims
    this.claims = new Map(claims instanceof Map ? claims : Object.entries(claims ?? {}))
    this.#seq = options.seq ?? 0
  }

  /** The `seq` of the next call that brings none, then counts it. */
  nextSeq(): number {
    return this.#seq++
  }

  /** The `seq` the next call would get. */
  peekSeq(): number {
    return this.#seq
  }

  /**
   * How many calls with this idempotency key were claimed before, then counts this one.
   *
   * @param idempotencyKey - The call's key.
   * @returns The occurrence, from 0.
   */
  nextOccurrence(idempotencyKey: string): number {
    const occurrence = this.claims.get(idempotencyKey) ?? 0
    this.claims.set(idempotencyKey, occurrence + 1)
    return occurrence
  }
}

// A duck-typed context that brings a journal but no run: one default run per
// context object, so its calls still count seq and claims together.
const defaults = new WeakMap<object, CallRun>()

/**
 * The run a context records its calls under: its own, or a default one
 * (`runId` = the context's id).
 *
 * @param ctx - The context.
 * @returns The run.
 * @internal
 */
export function runOf(ctx: { readonly id: string; readonly run?: CallRun | undefined }): CallRun {
  if (ctx.run !== undefined) return ctx.run
  let run = defaults.get(ctx)
  if (run === undefined) defaults.set(ctx, (run = new CallRun({ runId: ctx.id })))
  return run
}
