/**
 * The durable part of the call pipeline: a non-idempotent side-effect call
 * with a claiming journal and a stable identity is claimed before it runs,
 * replayed when an earlier run settled it, and reported as
 * `TOOL_OUTCOME_UNKNOWN` (unless the tool reconciles it) when its earlier
 * run's worker died.
 *
 * @module
 */
import type { ToolResult } from '../../contracts/tool_result.js'
import { E_TOOL_ABORTED, errorSummary } from '../../exceptions.js'
import type { ClaimingJournal, ToolCallClaim } from '../../journal/claiming.js'
import {
  acquireClaim,
  claimKeyOf,
  journalStep,
  outcomeUnknown,
  PROCESS_OWNER,
  replayOutcome,
  takeOverClaim,
  type ClaimDecision,
  type SpoolRestorer,
} from '../../journal/claims.js'
import type { ToolCallFlags, ToolCallRow } from '../../journal/contract.js'
import type { DispatchContext } from '../dispatch_context.js'
import type { ReconcileAnswer, ToolReconciler, ValidCall } from '../tool_types.js'
import { runOf } from './call_run.js'

/** What the pipeline needs of a tool. */
export interface PipelineTool {
  /** The tool's name. */
  readonly name: string
  /** Whether it changes state outside itself. */
  readonly sideEffect: boolean
  /** Whether running it twice with the same args is safe. */
  readonly idempotent: boolean
  /** How an interrupted call's outcome is found out, if the tool can. */
  readonly reconcile?: ToolReconciler | undefined
}

/** How a call's outcome was obtained. */
export interface Obtained {
  /** The result (run, reconciled or replayed). */
  result: ToolResult
  /** Set when the call ran under a claim the pipeline must complete. */
  held?: HeldClaim | undefined
  /** Whether the outcome was replayed from the journal. */
  replayed?: boolean
}

/** A claim this worker holds. */
export type HeldClaim = Extract<ClaimDecision, { kind: 'run' }>

/** What a call's row learns on the way besides its outcome. */
export interface CallAudit {
  /** The permission record of the claim a replayed call took its outcome from. */
  replayedPermissionJson: string | null
}

const REPLAYED = Symbol('toolsmith.replayed')
const HELD = Symbol('toolsmith.heldClaim')

/** Whether a thrown value is a replayed outcome. */
export function isReplayed(error: unknown): boolean {
  return (error as { [REPLAYED]?: boolean } | null)?.[REPLAYED] === true
}

/** The claim a thrown value carries (a failure under a held claim), if any. */
export function heldBy(error: unknown): HeldClaim | undefined {
  return (error as { [HELD]?: HeldClaim } | null)?.[HELD]
}

function markReplayed(error: unknown): unknown {
  if (error !== null && typeof error === 'object') Object.defineProperty(error, REPLAYED, { value: true })
  return error
}

/** The flags a row is recorded with. */
export function flagsOf(tool: PipelineTool | undefined): ToolCallFlags {
  return tool ? { sideEffect: tool.sideEffect, idempotent: tool.idempotent } : { sideEffect: false, idempotent: true }
}

/** Run under a held claim; a failure carries the claim so its row records the error. */
async function runHeld(held: HeldClaim, run: () => Promise<ToolResult>): Promise<Obtained> {
  try {
    return { result: await run(), held }
  } catch (error) {
    if (error !== null && typeof error === 'object') Object.defineProperty(error, HELD, { value: held, configurable: true })
    else held.release()
    throw error
  }
}

/** The claim key of a call: a keyed call's own key; else its key and how many calls with it this run claimed before. */
function claimKeyFor(ctx: DispatchContext, idempotencyKey: string): string {
  return claimKeyOf(idempotencyKey, ctx.keyedCall === true ? 0 : runOf(ctx).nextOccurrence(idempotencyKey))
}

function replay(claim: ToolCallClaim, audit: CallAudit, restore: SpoolRestorer | undefined): Obtained {
  audit.replayedPermissionJson = claim.row.permissionJson ?? null
  const outcome = replayOutcome(claim, restore)
  if ('error' in outcome) throw markReplayed(outcome.error)
  return { result: outcome.result, replayed: true }
}

/**
 * Claim a non-idempotent call, then run it, replay it, or report its
 * outcome as unknown. A failure is thrown with the held claim attached, so
 * the pipeline records it in the claim's row.
 *
 * @internal
 */
export async function runClaimed(
  journal: ClaimingJournal,
  tool: PipelineTool,
  ctx: DispatchContext,
  prepared: ValidCall,
  startRow: ToolCallRow,
  audit: CallAudit,
  run: () => Promise<ToolResult>,
): Promise<Obtained> {
  const leaseMs = runOf(ctx).claimLeaseMs
  const signal = ctx.abortSignal
  const request = { claimKey: claimKeyFor(ctx, prepared.idempotencyKey), owner: PROCESS_OWNER, leaseMs, row: startRow, flags: flagsOf(tool) }
  let decision = await acquireClaim(journal, request, signal)
  for (;;) {
    if (decision.kind === 'run') return await runHeld(decision, run)
    if (decision.kind === 'settled') return replay(decision.claim, audit, ctx.callHooks?.restore)
    const answer = await reconcileCall(tool, ctx, prepared, decision.claim)
    if (answer === undefined) throw outcomeUnknown(decision.claim)
    const taken = await takeOverClaim(journal, decision.claim, PROCESS_OWNER, leaseMs)
    if (!taken) {
      // Another worker reconciled it first: take whatever it decided.
      decision = await acquireClaim(journal, request, signal)
      continue
    }
    if (answer.applied) return { result: answer.result, held: taken }
    return await runHeld(taken, run)
  }
}

/**
 * A resumed call whose args were not kept: a durable call's claim gives its
 * recorded outcome (or `TOOL_OUTCOME_UNKNOWN` when its worker died mid-call:
 * `reconcile` would need the args); with no claim it never started, and
 * without its args it cannot start now.
 *
 * @internal
 */
export async function runWithheldCall(
  journal: ClaimingJournal | undefined,
  tool: PipelineTool,
  ctx: DispatchContext,
  startRow: ToolCallRow,
  audit: CallAudit,
): Promise<Obtained> {
  const durable = journal !== undefined && tool.sideEffect && !tool.idempotent
  if (durable) {
    const claimKey = claimKeyFor(ctx, startRow.idempotencyKey)
    if (await journalStep('read the claim', () => journal.getClaim(claimKey))) {
      const request = { claimKey, owner: PROCESS_OWNER, leaseMs: runOf(ctx).claimLeaseMs, row: startRow, flags: flagsOf(tool) }
      const decision = await acquireClaim(journal, request, ctx.abortSignal)
      if (decision.kind === 'settled') return replay(decision.claim, audit, ctx.callHooks?.restore)
      if (decision.kind === 'abandoned') throw outcomeUnknown(decision.claim)
      // The claim was dropped meanwhile (a refused call's) and is now ours: give it back, run nothing.
      try {
        await journalStep('release a claim it cannot run', () => journal.release(decision.claim.claimKey, decision.claim.owner))
      } finally {
        decision.release()
      }
    }
  }
  throw new E_TOOL_ABORTED(
    `${tool.name} was not run again after the resume: its arguments were not kept in the turn's checkpoint ` +
      `(the runner had no checkpointKey)${durable ? ', and the journal shows it had not started' : ''}. ` +
      'Call it again if it is still needed.',
    { details: { toolName: tool.name, reason: 'arguments-not-kept', started: durable ? false : null } },
  )
}

async function reconcileCall(tool: PipelineTool, ctx: DispatchContext, prepared: ValidCall, claim: ToolCallClaim): Promise<ReconcileAnswer> {
  if (!tool.reconcile) return undefined
  try {
    const answer = await tool.reconcile(prepared.args, {
      callId: prepared.callId,
      idempotencyKey: prepared.idempotencyKey,
      toolName: tool.name,
      signal: ctx.abortSignal,
      ...(ctx.toolCallId === undefined ? {} : { toolCallId: ctx.toolCallId }),
      startedAtMs: claim.row.startedAtMs,
      owner: claim.owner,
    })
    if (answer && typeof answer === 'object' && typeof answer.applied === 'boolean') return answer
    return undefined
  } catch (error) {
    process.emitWarning(`reconcile() of tool "${tool.name}" threw: ${errorSummary(error)}; its outcome stays unknown`, {
      code: 'TOOLSMITH_RECONCILE_ERROR',
    })
    return undefined
  }
}
