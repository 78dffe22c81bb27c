/**
 * `TurnRunner`: a provider-neutral agent loop over toolsmith tools.
 *
 * @module
 */
import type { TurnTelemetryOptions } from '../telemetry/spans.js'
import { InMemorySpoolStore, type SpoolStore } from '../artifacts/stores.js'
import { toolList } from '../core/tool_collection.js'
import type { Tool } from '../core/tool.js'
import { E_INVALID_OPTIONS, errorSummary } from '../exceptions.js'
import { isClaimingJournal } from '../journal/claiming.js'
import { DEFAULT_CLAIM_LEASE_MS, journalStep } from '../journal/claims.js'
import { DEFAULT_JOURNAL_MAX_OUTPUT_BYTES, type ToolCallJournal } from '../journal/contract.js'
import { Permissions } from '../permissions/permissions.js'
import { checkpointKeyOf, decodeMessages, type CheckpointKey } from './checkpoint_codec.js'
import type { TurnEvent, TurnEventListener } from './events.js'
import type { TurnModel } from '../providers/messages.js'
import { ResultSpooler } from './result_spooler.js'
import { onFirstUse } from '../utils/first_use.js'
import type {
  RunnerState,
  TurnIdentity,
  TurnResult,
  TurnResumeOptions,
  TurnRunOptions,
  TurnRunnerOptions,
  TurnServices,
} from './turn_options.js'

export type { TurnIdentity, TurnResult, TurnResumeOptions, TurnRunOptions, TurnRunnerOptions } from './turn_options.js'

/**
 * A provider-neutral agent loop: ask the model, run the tools it asks for,
 * hand back the results, repeat until it answers without tool calls.
 *
 * @remarks
 * Each step runs the requested calls through `tool.executor(ctx)`:
 * - consecutive read-only calls (`sideEffect: false`) run in parallel, at most
 *   `concurrency` at a time; a side-effect call runs alone, and calls keep the
 *   model's order around it, so a read after a write sees the write;
 * - a failure (invalid args, unknown tool, handler error) goes back to the model
 *   as a tool message with `isError: true`: the loop never crashes on a tool;
 * - a result over `inlineBudgetBytes` is spooled; the model receives a short
 *   preview and its `callId`, and the forged `artifact_*` tools are offered
 *   from the next step on;
 * - every call becomes a `ToolCall` in the result and a journal row.
 *
 * Aborting `signal` rejects `run` with `E_TURN_ABORTED` straight away; running
 * tools see the abort through their context (bash kills its process group).
 * After the abort nothing new starts: no model call, no queued tool call, and
 * a model answer arriving with the abort is dropped.
 *
 * With an `identity`, `ctx.idempotencyScope` is derived from
 * `runId`, `nodeId` and `iteration`, so `call.idempotencyKey` is the same in
 * every attempt; on `attempt > 1` the model is first told which non-idempotent
 * side-effect tools earlier attempts already ran (from the journal).
 *
 * @example
 * ```ts
 * import { TurnRunner, JsonlJournal, createTools, scriptedModel } from 'toolsmith'
 *
 * const { read, grep } = createTools({ rootDir: process.cwd() })
 * const runner = new TurnRunner({
 *   model: scriptedModel([
 *     { toolCalls: [{ id: 'c1', name: 'read', args: { path: 'package.json' } }] },
 *     { text: 'It is a Node package.' },
 *   ]),
 *   tools: [read, grep],
 *   journal: new JsonlJournal('.toolsmith/journal.jsonl'),
 *   identity: { runId: 'run-1', nodeId: 'inspect', iteration: 0, attempt: 1 },
 * })
 * const result = await runner.run('What is this project?')
 * result.text // 'It is a Node package.'
 * const review = await runner.run('Now review it', { fork: result })
 * ```
 */
export class TurnRunner {
  /** The model callback. */
  readonly model: TurnModel
  /** Most model calls per run. */
  readonly maxSteps: number
  /** Most read-only calls at once. */
  readonly concurrency: number
  /** Largest result sent to the model whole, in bytes. */
  readonly inlineBudgetBytes: number
  /** The journal, if any. */
  readonly journal: ToolCallJournal | undefined
  /** The permission gate, if any. */
  readonly permissions: Permissions | undefined
  /** The identity, if one was given. */
  readonly identity: Readonly<TurnIdentity> | undefined
  /** The constructor's tool allow-list, if any. */
  readonly allowTools: readonly string[] | undefined
  /** The claim lease; see {@link TurnRunnerOptions.claimLeaseMs}. */
  readonly claimLeaseMs: number
  /** What the turn's spans record; see {@link TurnRunnerOptions.telemetry}. */
  readonly telemetry: Readonly<TurnTelemetryOptions> | undefined

  readonly #tools: Map<string, Tool>
  readonly #spooler: ResultSpooler
  readonly #onEvent: TurnEventListener | undefined
  readonly #journalCap: number
  readonly #spoolStore: SpoolStore
  readonly #checkpointKey: CheckpointKey | undefined
  #seq = 0

  /**
   * @param options - Model, tools, limits, journal and identity.
   * @throws `E_INVALID_OPTIONS` for a missing model, bad limits, or an identity with bad fields.
   */
  constructor(options: TurnRunnerOptions) {
    if (!options || typeof options.model !== 'function') throw new E_INVALID_OPTIONS('TurnRunner needs a model callback')
    this.model = options.model
    this.maxSteps = positiveInteger('maxSteps', options.maxSteps, 20)
    this.concurrency = positiveInteger('concurrency', options.concurrency, 4)
    this.inlineBudgetBytes = positiveInteger('inlineBudgetBytes', options.inlineBudgetBytes, 16_384)
    this.journal = options.journal
    if (options.permissions !== undefined && !Permissions.isPermissions(options.permissions)) {
      throw new E_INVALID_OPTIONS('TurnRunner: permissions must be a Permissions (new Permissions({ policy }))')
    }
    this.permissions = options.permissions
    this.identity = options.identity ? Object.freeze(checkIdentity(options.identity)) : undefined
    this.allowTools = options.allowTools ? [...options.allowTools] : undefined
    this.#journalCap = journalCapOf(options.journal)
    this.#tools = new Map(toolList(options.tools).map((tool) => [tool.name, tool]))
    this.#spoolStore = options.spoolStore ?? new InMemorySpoolStore()
    this.#spooler = new ResultSpooler(this.#spoolStore)
    this.#onEvent = options.onEvent
    this.claimLeaseMs = positiveInteger('claimLeaseMs', options.claimLeaseMs, DEFAULT_CLAIM_LEASE_MS)
    this.#checkpointKey = options.checkpointKey === undefined ? undefined : checkpointKeyOf(options.checkpointKey)
    this.telemetry = options.telemetry === undefined ? undefined : Object.freeze({ ...options.telemetry })
  }

  /** The registered tools, by name (before any allow-list). */
  get tools(): Tool[] {
    return [...this.#tools.values()]
  }

  /**
   * Run one turn: the prompt goes in as a user message, and the loop runs
   * until the model answers without tool calls or `maxSteps` is reached.
   *
   * @param prompt - The user's request.
   * @param options - Abort signal, a result to fork from, a per-run allow-list.
   * @returns The final text, the conversation, the calls and the step count.
   * @throws `E_TURN_ABORTED` when `signal` fires; whatever the model callback throws.
   */
  async run(prompt: string, options: TurnRunOptions = {}): Promise<TurnResult> {
    const { Turn } = await loadTurn()
    return await new Turn(this, prompt, options, this.#services(options), undefined).run()
  }

  /**
   * Continue an interrupted turn from the journal's checkpoint: the
   * conversation up to the last model answer is rebuilt, that answer's tool
   * calls are run again (a non-idempotent call that already completed is
   * replayed, never re-run; one whose worker died mid-call fails with
   * `TOOL_OUTCOME_UNKNOWN` unless its tool reconciles it), and the loop goes
   * on as in {@link TurnRunner.run}.
   *
   * @remarks
   * Needs a claiming journal (`SqliteJournal`, `PostgresJournal`, or
   * `JsonlJournal` within one process). The resumed turn keeps the
   * checkpoint's run, node, iteration and attempt. Spooled results of the
   * interrupted process stay readable only if `spoolStore` is shared (a
   * `FileSpoolStore` on common storage). A turn that had already ended is
   * returned as it ended, without calling the model.
   *
   * Arguments the checkpoint withheld (no `checkpointKey` when it was
   * written) are shown to the model in the journal's redacted form, and a
   * pending call among them is never run with it: it replays its claim or
   * is answered `TOOL_ABORTED` (see {@link TurnRunnerOptions.checkpointKey}).
   *
   * @param runId - The run to resume.
   * @param options - Node and iteration (when the run has several), abort signal, allow-list, listener.
   * @returns The turn's result; `toolCalls` holds the calls made since the resume.
   * @throws `E_INVALID_OPTIONS` when the journal cannot resume or has no checkpoint for the run,
   *   or the checkpoint is sealed with a `checkpointKey` this runner does not have;
   *   `E_JOURNAL_UNAVAILABLE` when it cannot be read; `E_JOURNAL_CORRUPT` when its chain has a
   *   missing link or a sealed value does not open.
   */
  async resume(runId: string, options: TurnResumeOptions = {}): Promise<TurnResult> {
    const journal = this.journal
    if (!isClaimingJournal(journal)) {
      throw new E_INVALID_OPTIONS('resume() needs a journal that keeps turn checkpoints: SqliteJournal, PostgresJournal or JsonlJournal')
    }
    if (typeof runId !== 'string' || runId === '') throw new E_INVALID_OPTIONS('resume(runId) needs a non-empty run id')
    const mine = this.identity?.runId === runId ? this.identity : undefined
    const scope = {
      ...((options.nodeId ?? mine?.nodeId) === undefined ? {} : { nodeId: (options.nodeId ?? mine?.nodeId)! }),
      ...((options.iteration ?? mine?.iteration) === undefined ? {} : { iteration: (options.iteration ?? mine?.iteration)! }),
    }
    const checkpoint = await journalStep('read the turn checkpoint', () => journal.loadTurn(runId, scope))
    if (!checkpoint) {
      throw new E_INVALID_OPTIONS(`No turn checkpoint for run "${runId}"${scope.nodeId ? ` node "${scope.nodeId}"` : ''} in the journal: nothing to resume`, {
        details: { runId, ...scope },
      })
    }
    const state = parseState(checkpoint.stateJson)
    // Before anything runs: a checkpoint sealed with another key (or none
    // given) is refused here, not halfway through the turn.
    const decoded = decodeMessages(checkpoint.messagesJson, checkpoint, this.#checkpointKey)
    this.#seq = Math.max(this.#seq, state.seq)
    const { Turn } = await loadTurn()
    return await new Turn(this, checkpoint.prompt, options, this.#services(options), { checkpoint, claims: state.claims, decoded }).run()
  }

  #services(options: TurnRunOptions): TurnServices {
    return {
      checkpointKey: this.#checkpointKey,
      tools: this.#tools,
      spooler: this.#spooler,
      spoolStore: this.#spoolStore,
      journalCap: this.#journalCap,
      nextSeq: () => this.#seq++,
      peekSeq: () => this.#seq,
      emit: (event) => {
        safeCall(this.#onEvent, event)
        safeCall(options.onEvent, event)
      },
      listening: this.#onEvent !== undefined || options.onEvent !== undefined,
    }
  }
}

function parseState(json: string): RunnerState {
  try {
    const value = JSON.parse(json) as Partial<RunnerState>
    return { claims: { ...(value.claims ?? {}) }, seq: Number.isSafeInteger(value.seq) ? value.seq! : 0 }
  } catch {
    return { claims: {}, seq: 0 }
  }
}

/** The cap the journal declares ({@link ToolCallJournal.maxOutputBytes}), checked once. */
function journalCapOf(journal: ToolCallJournal | undefined): number {
  const cap = journal?.maxOutputBytes
  if (cap === undefined) return DEFAULT_JOURNAL_MAX_OUTPUT_BYTES
  if (!Number.isSafeInteger(cap) || cap <= 0) {
    throw new E_INVALID_OPTIONS(`journal.maxOutputBytes must be a positive integer (got ${String(cap)})`)
  }
  return cap
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new E_INVALID_OPTIONS(`${name} must be a positive integer (got ${String(value)})`)
  }
  return value
}

function checkIdentity(identity: TurnIdentity): TurnIdentity {
  const { runId, nodeId, iteration, attempt } = identity
  if (typeof runId !== 'string' || runId === '' || typeof nodeId !== 'string' || nodeId === '') {
    throw new E_INVALID_OPTIONS('identity.runId and identity.nodeId must be non-empty strings')
  }
  if (!Number.isSafeInteger(iteration) || iteration < 0) {
    throw new E_INVALID_OPTIONS(`identity.iteration must be an integer >= 0 (got ${String(iteration)})`)
  }
  if (!Number.isSafeInteger(attempt) || attempt < 1) {
    throw new E_INVALID_OPTIONS(`identity.attempt must be an integer >= 1 (got ${String(attempt)})`)
  }
  return { runId, nodeId, iteration, attempt }
}

function safeCall(listener: TurnEventListener | undefined, event: TurnEvent): void {
  if (!listener) return
  try {
    listener(event)
  } catch (error) {
    process.emitWarning(`A turn event listener threw: ${errorSummary(error)}`, { code: 'TOOLSMITH_LISTENER_ERROR' })
  }
}

/**
 * The turn loop (`turn.ts` and what only it uses), loaded by the first
 * `run` or `resume`: `import 'toolsmith'` then compiles none of it.
 */
const loadTurn = onFirstUse(() => import('./turn.js'))
