/**
 * The call pipeline: what `tool.executor(ctx)` does with every call, on
 * every surface (the turn runner, the MCP server, AI SDK tools, the CLI).
 *
 * prepare (callId, validation) → gate (permissions, approval; the decision
 * lands on the call as `call.verdict`) → start event → claim (a durable
 * call) → run → settle (the row with the decision and the redacted args,
 * the result, the end event).
 *
 * A context with no journal and no hooks takes the fast path: the tool's
 * own gate, events and handler, with nothing added per call.
 *
 * @module
 */
import { INVALID_ARGS_NOT_RECORDED } from '../../contracts/logged_args.js'
import { isStructuredToolResult, type ToolResult } from '../../contracts/tool_result.js'
import { E_JOURNAL_UNAVAILABLE, errorSummary } from '../../exceptions.js'
import { isClaimingJournal } from '../../journal/claiming.js'
import { journalStep } from '../../journal/claims.js'
import { DEFAULT_JOURNAL_MAX_OUTPUT_BYTES, permissionToJson, type ToolCallJournal, type ToolCallRow } from '../../journal/contract.js'
import { errorToJson, outputToJson, safeJson } from '../../journal/output.js'
import { tracingEnabled } from '../../telemetry/spans.js'
import { utf8Prefix } from '../../utils/utf8.js'
import { callIdOf, idempotencyKeyOf } from '../call_identity.js'
import { recordReplaySpan } from '../call_span.js'
import type { DispatchContext, PermissionDecisionEvent } from '../dispatch_context.js'
import { CallInfo, type Prepared } from '../prepared_call.js'
import type { PreparedCall, ValidCall } from '../tool_types.js'
import type { PipelineCallStart } from './call_hooks.js'
import { runOf } from './call_run.js'
import { flagsOf, heldBy, isReplayed, runClaimed, runWithheldCall, type CallAudit, type Obtained, type PipelineTool } from './durable.js'

/**
 * The tool's own part of a valid call: gate, `toolExecutionStart`, handler,
 * `toolExecutionEnd`. Bound once per tool (no closure per call).
 */
export type CallStarter = (ctx: DispatchContext, prepared: ValidCall, info: CallInfo) => Promise<ToolResult>

/** The call as a row records it, before its outcome. */
interface CallSubject {
  readonly tool: PipelineTool | undefined
  readonly toolName: string
  readonly callId: string
  readonly idempotencyKey: string
  readonly loggedArgs: unknown
}

/** What the permission gate decided about this run (read off the call object), and a replay's recorded decision. */
interface CallTrack extends CallAudit {
  permission: PermissionDecisionEvent | undefined
}

type Body = (track: CallTrack, startRow: ToolCallRow) => Promise<Obtained>

/**
 * Run a prepared call through the pipeline.
 *
 * @param tool - The tool that prepared it.
 * @param ctx - The context it runs in.
 * @param prepared - What `tool.prepare(args, ctx)` returned.
 * @param starter - The tool's gate, events and handler.
 * @returns The result.
 * @internal
 */
export function runCall(tool: PipelineTool, ctx: DispatchContext, prepared: PreparedCall, starter: CallStarter): Promise<ToolResult> {
  // span: start — the call is prepared (callId, validation); nothing has run.
  if (ctx.journal === undefined && ctx.callHooks === undefined) {
    if (!prepared.ok) return Promise.reject(prepared.error)
    return starter(ctx, prepared, new CallInfo(prepared as Prepared<unknown>, ctx.abortSignal, tool.roles, ctx.toolCallId))
  }
  const subject: CallSubject = {
    tool,
    toolName: prepared.toolName,
    callId: prepared.callId,
    idempotencyKey: prepared.idempotencyKey,
    loggedArgs: prepared.ok ? prepared.loggedArgs : INVALID_ARGS_NOT_RECORDED,
  }
  return recorded(ctx, subject, async (track, startRow) => {
    if (!prepared.ok) throw prepared.error
    const info = new CallInfo(prepared as Prepared<unknown>, ctx.abortSignal, tool.roles, ctx.toolCallId)
    const run = async (): Promise<ToolResult> => {
      try {
        return await starter(ctx, prepared, info)
      } finally {
        // The gate recorded its decision on the call, allowed or refused.
        track.permission = info.verdict?.decision
      }
    }
    const journal = ctx.journal
    // Durable: a claiming journal, a stable identity, and an effect that must not happen twice.
    if (isClaimingJournal(journal) && ctx.idempotencyScope !== undefined && tool.sideEffect && !tool.idempotent) {
      return await runClaimed(journal, tool, ctx, prepared, startRow, track, run)
    }
    return { result: await run() }
  })
}

/**
 * Record a call that cannot run (an unknown tool, args that could not be
 * prepared): its row, its start and end hooks, then the error. Without a
 * journal or hooks, just the error.
 *
 * @param ctx - The context.
 * @param toolName - The tool's name as the caller gave it.
 * @param args - The raw args (never recorded).
 * @param error - Why it cannot run.
 * @param callId - Its callId, when known (a resumed call's).
 * @returns Never: rejects with `error`.
 * @internal
 */
export function failCall(ctx: DispatchContext, toolName: string, args: unknown, error: unknown, callId?: string): Promise<never> {
  if (ctx.journal === undefined && ctx.callHooks === undefined) return Promise.reject(error)
  const id = callId ?? callIdOrEmpty(toolName, args)
  const subject = { tool: undefined, toolName, callId: id, idempotencyKey: idempotencyKeyOf(ctx, id), loggedArgs: INVALID_ARGS_NOT_RECORDED }
  return recorded(ctx, subject, () => Promise.reject(error)) as Promise<never>
}

/**
 * A resumed call whose args were not kept (see `runWithheldCall`), recorded
 * like any call: `loggedArgs` is what the checkpoint kept (the redacted args);
 * `standInArgs` only give it a callId when the checkpoint kept none.
 *
 * @internal
 */
export function runWithheld(
  tool: PipelineTool,
  ctx: DispatchContext,
  callId: string | undefined,
  standInArgs: unknown,
  loggedArgs: unknown,
): Promise<ToolResult> {
  const journal = ctx.journal
  const claiming = isClaimingJournal(journal) && ctx.idempotencyScope !== undefined ? journal : undefined
  const id = callId ?? callIdOrEmpty(tool.name, standInArgs)
  const subject = { tool, toolName: tool.name, callId: id, idempotencyKey: idempotencyKeyOf(ctx, id), loggedArgs }
  return recorded(ctx, subject, (track, startRow) => runWithheldCall(claiming, tool, ctx, startRow, track))
}

async function recorded(ctx: DispatchContext, subject: CallSubject, body: Body): Promise<ToolResult> {
  const run = runOf(ctx)
  const hooks = ctx.callHooks
  const journal = ctx.journal
  const cap = capOf(journal)
  const startedAtMs = Date.now()
  const started = performance.now()
  const { tool, toolName, callId, idempotencyKey, loggedArgs } = subject
  const start: PipelineCallStart = { toolName, callId, idempotencyKey, loggedArgs, seq: ctx.seq ?? run.nextSeq(), startedAtMs }
  hooks?.start?.(start)
  const startRow: ToolCallRow = {
    ...run.identity,
    seq: start.seq,
    toolName,
    inputJson: safeJson(loggedArgs),
    startedAtMs,
    finishedAtMs: startedAtMs,
    callId,
    idempotencyKey,
    status: 'error',
    outputJson: null,
    errorJson: null,
    permissionJson: null,
  }
  const track: CallTrack = { permission: undefined, replayedPermissionJson: null }
  let result: ToolResult = ''
  let failure: { error: unknown } | undefined
  let row: Pick<ToolCallRow, 'outputJson' | 'status' | 'errorJson'>
  let held: Obtained['held']
  let replayed = false
  try {
    const obtained = await body(track, startRow)
    held = obtained.held
    replayed = obtained.replayed === true
    result = obtained.result
    const settled = hooks?.settle ? await hooks.settle(result, start) : { outputJson: await outputJsonOf(result, cap) }
    row = { status: 'success', outputJson: settled.outputJson, errorJson: null }
  } catch (error) {
    held ??= heldBy(error)
    // The journal could not keep its promise: stop, record nothing more.
    if (error instanceof E_JOURNAL_UNAVAILABLE) {
      held?.release()
      throw error
    }
    replayed = isReplayed(error)
    if (held && (error as { code?: unknown }).code === 'TOOL_DENIED' && isClaimingJournal(journal)) {
      // The gate refused before the handler: nothing happened, so the claim
      // goes away and a later attempt asks again rather than replaying the
      // refusal. The refusal is recorded as an ordinary row.
      const refused = held
      held = undefined
      try {
        await journalStep('release the claim of a refused call', () => journal.release(refused.claim.claimKey, refused.claim.owner))
      } finally {
        refused.release()
      }
    }
    row = { status: 'error', outputJson: null, errorJson: errorToJson(error, cap) }
    failure = { error }
  }
  const finishedAtMs = Date.now()
  // A replay ran no handler, so the tool made no span: one stands for the call here.
  if (replayed && tracingEnabled()) {
    recordReplaySpan(toolName, subject, ctx, track.replayedPermissionJson, failure ?? { result: () => result })
  }
  // span: end — the outcome is known (result or failure, replayed, the gate's verdict).
  hooks?.end?.({ ...start, isError: failure !== undefined, ...(failure ? { error: failure.error } : {}), replayed, durationMs: performance.now() - started })
  if (journal !== undefined) {
    const finished: ToolCallRow = {
      ...startRow,
      finishedAtMs,
      ...row,
      ...(replayed ? { replayed } : {}),
      // A replayed call met no gate here: its row keeps the decision of the run that made it.
      permissionJson: track.permission === undefined ? track.replayedPermissionJson : permissionToJson(track.permission),
    }
    await write(journal, finished, tool, held)
  }
  if (failure) throw failure.error
  return result
}

async function write(journal: ToolCallJournal, row: ToolCallRow, tool: PipelineTool | undefined, held: Obtained['held']): Promise<void> {
  if (held && isClaimingJournal(journal)) {
    // The outcome goes into the claim's own row, in the same transaction as
    // the journal row: if it cannot be written the call fails with
    // E_JOURNAL_UNAVAILABLE, and a resume reports it as TOOL_OUTCOME_UNKNOWN
    // rather than running it again.
    try {
      const mine = await journalStep('record the outcome of a claimed call', () => journal.complete(held.claim.claimKey, held.claim.owner, row, flagsOf(tool)))
      if (!mine) {
        process.emitWarning(
          `The claim on the ${row.toolName} call lapsed while it ran and another worker took it over; its outcome was not recorded twice`,
          { code: 'TOOLSMITH_CLAIM_LOST' },
        )
      }
    } finally {
      held.release()
    }
    return
  }
  try {
    await journal.record(row, flagsOf(tool))
  } catch (error) {
    // A journal failure must not cost the caller its result; make it visible instead.
    process.emitWarning(`Could not journal the ${row.toolName} call: ${errorSummary(error)}`, { code: 'TOOLSMITH_JOURNAL_ERROR' })
  }
}

/** The cap the journal declares, or the default. */
function capOf(journal: ToolCallJournal | undefined): number {
  const cap = journal?.maxOutputBytes
  return cap !== undefined && Number.isSafeInteger(cap) && cap > 0 ? cap : DEFAULT_JOURNAL_MAX_OUTPUT_BYTES
}

/** What a row records of a result when the surface does not settle it: its text (an artifact's read), capped. */
async function outputJsonOf(result: ToolResult, cap: number): Promise<string> {
  // A structured result is recorded as its JSON; a replay parses it back (see `Tool`).
  if (typeof result === 'string' || result instanceof Uint8Array || isStructuredToolResult(result)) return outputToJson(result, cap)
  const bytes = await result.byteLength()
  if (bytes <= cap) return outputToJson(await result.asString(), cap)
  return JSON.stringify({ truncated: true, bytes, preview: utf8Prefix(await result.head(20), 1_024) })
}

function callIdOrEmpty(toolName: string, args: unknown): string {
  try {
    return callIdOf(toolName, args)
  } catch {
    // Args no JSON can hold (a cycle, a BigInt): the row still needs an id.
    return callIdOf(toolName, null)
  }
}
