/**
 * The claim protocol behind exactly-once side effects: claim a call's key
 * before its handler runs, wait for a live claimant, detect a dead one, keep
 * the lease alive while running, and turn a settled claim back into the
 * result (or error) it recorded.
 *
 * @module
 */
import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import type { ToolResult } from '../contracts/tool_result.js'
import { BaseException, E_JOURNAL_CORRUPT, E_JOURNAL_UNAVAILABLE, E_TOOL_OUTCOME_UNKNOWN, errorSummary } from '../exceptions.js'
import type { ClaimRequest, ClaimingJournal, ToolCallClaim } from './claiming.js'

/** The default lease of a claim: how long a silent claimant is trusted to still be running. */
export const DEFAULT_CLAIM_LEASE_MS = 30_000

const HOST = hostname()

/** This process as a claim owner: `host:pid:random` (the random part tells a reused pid apart). */
export const PROCESS_OWNER = `${HOST}:${process.pid}:${randomBytes(4).toString('hex')}`

// Claim keys this process is running right now: a claim of ours that is not
// here was left behind by a turn of ours that failed (journal down mid-call).
const running = new Set<string>()

/** What {@link acquireClaim} decided. */
export type ClaimDecision =
  /** This worker holds the claim: run the call, then `journal.complete`, then `release()`. */
  | { kind: 'run'; claim: ToolCallClaim; release(): void }
  /** Another run settled it: replay its outcome. */
  | { kind: 'settled'; claim: ToolCallClaim }
  /** Its claimant died without recording the outcome. */
  | { kind: 'abandoned'; claim: ToolCallClaim }

/**
 * The key a call is claimed under: its idempotency key for the first call
 * with these args in an attempt, `key#n` for the n-th repeat, so a model that
 * deliberately repeats a call gets it run again, while a retried or resumed
 * attempt that repeats it the same number of times replays each one.
 *
 * @param idempotencyKey - The call's idempotency key.
 * @param occurrence - How many calls with this key the attempt made before.
 * @returns The claim key.
 */
export function claimKeyOf(idempotencyKey: string, occurrence: number): string {
  return occurrence === 0 ? idempotencyKey : `${idempotencyKey}#${occurrence}`
}

/**
 * Claim a call, waiting while another live worker runs it.
 *
 * @param journal - The claiming journal.
 * @param request - The claim request (owner is usually {@link PROCESS_OWNER}).
 * @param signal - Stops the wait.
 * @returns What to do with the call.
 * @throws `E_JOURNAL_UNAVAILABLE` when the journal fails.
 */
export async function acquireClaim(journal: ClaimingJournal, request: ClaimRequest, signal?: AbortSignal): Promise<ClaimDecision> {
  const first = await journalStep('claim the call', () => journal.claim(request))
  if (first.acquired) return held(journal, first.claim, request.leaseMs)
  let claim = first.claim
  let delay = 5
  for (;;) {
    if (claim.state !== 'running') return { kind: 'settled', claim }
    if (isAbandoned(claim)) return { kind: 'abandoned', claim }
    // A live claimant: its outcome is the result, so wait for it. Polling,
    // not LISTEN/NOTIFY: it works the same on every store and the wait is
    // bounded by the claimant's lease.
    await sleep(delay, undefined, signal ? { signal } : undefined)
    delay = Math.min(delay * 2, 200)
    const next = await journalStep('read the claim', () => journal.getClaim(request.claimKey))
    if (!next) return held(journal, (await journalStep('claim the call', () => journal.claim(request))).claim, request.leaseMs)
    claim = next
  }
}

/**
 * Move an abandoned claim to this process and hold it.
 *
 * @param journal - The journal.
 * @param claim - The abandoned claim.
 * @param owner - The new owner.
 * @param leaseMs - The lease.
 * @returns The held claim, or `undefined` when another worker took it first.
 */
export async function takeOverClaim(
  journal: ClaimingJournal,
  claim: ToolCallClaim,
  owner: string,
  leaseMs: number,
): Promise<Extract<ClaimDecision, { kind: 'run' }> | undefined> {
  const ok = await journalStep('take over the claim', () => journal.takeOver(claim.claimKey, claim.owner, owner, leaseMs))
  if (!ok) return undefined
  return held(journal, { ...claim, owner }, leaseMs)
}

/**
 * Whether a running claim's worker is gone: its lease expired, or it ran on
 * this machine and its process no longer exists (or it is this process and
 * no longer running the call).
 *
 * @param claim - A running claim.
 * @returns `true` when nobody will ever record its outcome.
 */
export function isAbandoned(claim: ToolCallClaim): boolean {
  if (claim.leaseExpired) return true
  if (claim.owner === PROCESS_OWNER) return !running.has(claim.claimKey)
  const [host, pid] = claim.owner.split(':')
  if (host !== HOST || !pid || !/^\d+$/.test(pid)) return false
  try {
    process.kill(Number(pid), 0)
    return false
  } catch (error) {
    // EPERM: the process exists under another user.
    return (error as NodeJS.ErrnoException).code === 'ESRCH'
  }
}

/**
 * The error a call fails with when its earlier run's outcome was lost.
 *
 * @param claim - The abandoned claim.
 * @returns `TOOL_OUTCOME_UNKNOWN`, naming the call, when and where it ran.
 */
export function outcomeUnknown(claim: ToolCallClaim): E_TOOL_OUTCOME_UNKNOWN {
  const { row } = claim
  const when = new Date(row.startedAtMs).toISOString()
  return new E_TOOL_OUTCOME_UNKNOWN(
    `${row.toolName} ${row.inputJson} was started at ${when} (attempt ${row.attempt}, worker ${claim.owner}) and never finished: ` +
      'its effect may or may not have happened, so it was not run again. Check whether the effect is there before acting; ' +
      'calling it again with the same arguments runs it again.',
    {
      details: {
        toolName: row.toolName,
        input: safeParse(row.inputJson),
        claimKey: claim.claimKey,
        owner: claim.owner,
        startedAtMs: row.startedAtMs,
        attempt: row.attempt,
      },
    },
  )
}

/**
 * Reads back a result that was too large for the journal and was spooled by
 * the surface that ran the call (the runner's spool store): `undefined` when
 * this store does not hold it.
 */
export type SpoolRestorer = (spoolId: string) => ToolResult | undefined

/**
 * What a settled claim returned: the recorded result, or the recorded error rebuilt.
 *
 * @param claim - A settled claim.
 * @param restore - Reads back a result spooled under the row's `spoolId`, when the surface spools.
 * @returns `{ result }` or `{ error }`.
 */
export function replayOutcome(claim: ToolCallClaim, restore?: SpoolRestorer): { result: ToolResult } | { error: unknown } {
  const { row } = claim
  if (row.status === 'error') return { error: exceptionFromJson(safeParse(row.errorJson ?? 'null')) }
  const output = safeParse(row.outputJson ?? 'null')
  if (typeof output === 'string') return { result: output }
  const envelope = output as { truncated?: unknown; spoolId?: unknown; bytes?: unknown; preview?: unknown } | null
  if (envelope?.truncated === true && typeof envelope.spoolId === 'string') {
    const restored = restore?.(envelope.spoolId)
    if (restored !== undefined) return { result: restored }
    return {
      result:
        `${String(envelope.preview ?? '')}\n[Replayed from the journal: the full result (${String(envelope.bytes)} bytes) ` +
        'was spooled by the worker that ran the call and is not in this spool store.]',
    }
  }
  return { result: row.outputJson ?? '' }
}

/**
 * Rebuild a thrown value from its journal JSON (`describeCause` form), so the
 * model reads the same failure text as the run that recorded it.
 *
 * @param json - The parsed `errorJson`.
 * @returns An exception (or the primitive that was thrown).
 */
export function exceptionFromJson(json: unknown): unknown {
  if (json === null || typeof json !== 'object') return json
  const { name, code, status, message, details, cause } = json as Record<string, unknown>
  const text = typeof message === 'string' ? message : 'Unknown error'
  if (typeof code === 'string' && typeof status === 'number') {
    const error = new BaseException(text, {
      code,
      status,
      ...(details === undefined ? {} : { details: details as Record<string, unknown> }),
      ...(cause === undefined ? {} : { cause: exceptionFromJson(cause) }),
    })
    if (typeof name === 'string') error.name = name
    return error
  }
  const error = new Error(text) as Error & { code?: unknown }
  if (typeof name === 'string') error.name = name
  if (code !== undefined) error.code = code
  return error
}

/**
 * Run one journal operation; any failure becomes `E_JOURNAL_UNAVAILABLE`.
 *
 * @param what - What was being done, for the message.
 * @param operation - The operation.
 * @returns Its value.
 */
export async function journalStep<T>(what: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation()
  } catch (error) {
    // A journal that answered, with something it cannot read back, is not unavailable.
    if (error instanceof E_JOURNAL_UNAVAILABLE || error instanceof E_JOURNAL_CORRUPT) throw error
    throw new E_JOURNAL_UNAVAILABLE(`Could not ${what} in the journal: ${errorSummary(error)}`, { cause: error })
  }
}

function held(journal: ClaimingJournal, claim: ToolCallClaim, leaseMs: number): Extract<ClaimDecision, { kind: 'run' }> {
  running.add(claim.claimKey)
  // Renew at a third of the lease, so two missed renewals still leave it alive.
  const timer = setInterval(() => {
    journal.renew(claim.claimKey, claim.owner, leaseMs).catch(() => undefined)
  }, Math.max(Math.floor(leaseMs / 3), 10))
  timer.unref()
  return {
    kind: 'run',
    claim,
    release: () => {
      clearInterval(timer)
      running.delete(claim.claimKey)
    },
  }
}

function safeParse(json: string): unknown {
  try {
    return JSON.parse(json)
  } catch {
    return json
  }
}
