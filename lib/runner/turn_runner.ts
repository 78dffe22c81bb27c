/**
 * `TurnRunner`: a provider-neutral agent loop over toolsmith tools.
 *
 * @module
 */
import { randomUUID } from 'node:crypto'
import type { SpooledArtifact } from '../artifacts/spooled_artifact.js'
import { InMemorySpoolStore, type SpoolStore } from '../artifacts/stores.js'
import { createCallContext } from '../core/call_context.js'
import { callIdOf, idempotencyKeyOf } from '../core/call_identity.js'
import type { DispatchContext, PermissionDecisionEvent } from '../core/dispatch_context.js'
import { Permissions } from '../permissions/permissions.js'
import {
  INVALID_ARGS_NOT_RECORDED,
  type PreparedCall,
  type PreparedExecutor,
  type Tool,
  type ToolResult,
  type ValidCall,
} from '../core/tool.js'
import { ToolCall } from '../core/tool_call.js'
import { toolList, type ToolCollection } from '../core/tool_collection.js'
import {
  E_INVALID_OPTIONS,
  E_JOURNAL_UNAVAILABLE,
  E_TOOL_ABORTED,
  E_TOOL_NOT_REGISTERED,
  E_TURN_ABORTED,
  errorSummary,
  toolFailureText,
} from '../exceptions.js'
import { canonicalStringify } from '../utils/canonical_json.js'
import type { TurnEvent, TurnEventListener } from './events.js'
import {
  acquireClaim,
  claimKeyOf,
  DEFAULT_CLAIM_LEASE_MS,
  exceptionFromJson,
  journalStep,
  outcomeUnknown,
  PROCESS_OWNER,
  replayOutcome,
  takeOverClaim,
  type ClaimDecision,
} from './claims.js'
import {
  DEFAULT_JOURNAL_MAX_OUTPUT_BYTES,
  errorToJson,
  isClaimingJournal,
  permissionToJson,
  safeJson,
  type ClaimingJournal,
  type ToolCallClaim,
  type ToolCallJournal,
  type ToolCallRow,
  type TurnCheckpoint,
} from './journal.js'
import { copyMessages, type Message, type ModelToolCall, type TurnModel } from './messages.js'
import {
  checkpointKeyOf,
  decodeMessages,
  type CheckpointKey,
  type CheckpointKeyInput,
  type DecodedMessages,
  type StoredToolCall,
} from './checkpoint_codec.js'
import { CheckpointWriter, type ChainStart } from './turn_checkpoints.js'
import { retryWarning } from './retry_warning.js'
import { ResultSpooler } from './result_spooler.js'
import { toolDefinition } from './tool_definition.js'
import { startModelSpan, startTurnSpan, type SpanHandle, type TurnTelemetryOptions } from '../telemetry/spans.js'

/** Who is running: the smithers-style coordinates of one task attempt. */
export interface TurnIdentity {
  /** The run (workflow execution). */
  runId: string
  /** The task node. */
  nodeId: string
  /** The loop iteration of the node, from 0. */
  iteration: number
  /** The retry attempt, from 1. */
  attempt: number
}

/** Options of `new TurnRunner(options)`. */
export interface TurnRunnerOptions {
  /** The model callback (wrap a provider SDK with `openAIChatModel`, `anthropicModel` or `geminiModel`). */
  model: TurnModel
  /**
   * The tools the model may call: an array, a record or a `ToolRegistry` of
   * tools (`createTools({ rootDir })` gives the five built-ins as a record).
   */
  tools: ToolCollection
  /**
   * Most model calls per `run`; the turn ends after the step that reaches it.
   *
   * @defaultValue 20
   */
  maxSteps?: number
  /**
   * Most read-only calls (`sideEffect: false`) running at once.
   *
   * @defaultValue 4
   */
  concurrency?: number
  /**
   * Results up to this many UTF-8 bytes go to the model whole; larger ones are
   * spooled and the model gets a preview and `artifact_*` tools to page through them.
   *
   * @defaultValue 16_384
   */
  inlineBudgetBytes?: number
  /** Where every call is recorded. */
  journal?: ToolCallJournal
  /**
   * The task attempt this runner acts for. It scopes idempotency keys (stable
   * across attempts of one iteration) and, on `attempt > 1`, makes the runner
   * warn the model about side effects earlier attempts already caused.
   *
   * @defaultValue a fresh `runId` per run, `nodeId: 'turn'`, `iteration: 0`, `attempt: 1`
   */
  identity?: TurnIdentity
  /** Names of the registered tools the model is offered; all when omitted. */
  allowTools?: readonly string[]
  /**
   * Where large results are spooled.
   *
   * @defaultValue a new `InMemorySpoolStore` per runner
   */
  spoolStore?: SpoolStore
  /** Called with every {@link TurnEvent}. */
  onEvent?: TurnEventListener
  /**
   * The permission gate every call must pass. Each `run` gets
   * `permissions.forTurn()` (approvals remembered for that turn only); each
   * decision is a `permission-decision` event and goes into the call's
   * journal row (`permissionJson`), and a denial is the call's error result
   * (`TOOL_DENIED`), which the model reads.
   */
  permissions?: Permissions
  /**
   * How long a claim on a non-idempotent call holds without renewal, in
   * milliseconds. The runner renews it every third of this while the handler
   * runs; a claim whose lease lapsed is treated as its worker's death
   * (`TOOL_OUTCOME_UNKNOWN`). Claims by a dead process on the same host are
   * detected at once, whatever the lease.
   *
   * @defaultValue 30_000
   */
  claimLeaseMs?: number
  /**
   * The key that seals, in turn checkpoints, the tool-call arguments the
   * journal's redaction rules keep out of it (a `write`'s content, an
   * `edit`'s patch, args that failed validation…), so that `resume`
   * rebuilds them exactly: 32 bytes (a `Uint8Array`, 64 hex digits or
   * base64), used with AES-256-GCM. Without it those arguments are not
   * stored at all, and a resumed turn shows the model the journal's redacted
   * form of them (see docs/runner.md, "What a checkpoint stores").
   */
  checkpointKey?: CheckpointKeyInput
  /**
   * OpenTelemetry: what the turn's `invoke_agent` span, its model calls'
   * `chat` spans and its calls' `execute_tool` spans record beyond ids and
   * outcomes (agent name, provider, model; arguments and results are opt-in).
   * Spans are made whenever a tracer provider is registered.
   */
  telemetry?: TurnTelemetryOptions
}

/** Options of {@link TurnRunner.resume}. */
export interface TurnResumeOptions extends Omit<TurnRunOptions, 'fork'> {
  /** The node to resume, when the run has checkpoints of several; defaults to the runner's identity, else the latest. */
  nodeId?: string
  /** The iteration to resume; defaults like `nodeId`. */
  iteration?: number
}

/** Options of {@link TurnRunner.run}. */
export interface TurnRunOptions {
  /** Aborting it stops the turn at once and cancels running tools (bash processes are killed). */
  signal?: AbortSignal
  /** Start from a copy of this earlier result's conversation; it is never changed. */
  fork?: TurnResult
  /** Overrides the constructor's `allowTools` for this run. */
  allowTools?: readonly string[]
  /** Called with every {@link TurnEvent} of this run, after the constructor's listener. */
  onEvent?: TurnEventListener
}

/** What {@link TurnRunner.run} returns. */
export interface TurnResult {
  /** The model's last text. */
  text: string
  /** The whole conversation, forked messages included. */
  messages: Message[]
  /** Every call of this run, completed or failed, in the model's order. */
  toolCalls: ToolCall[]
  /** How many times the model was called. */
  steps: number
}

/** How long an aborted turn waits for its running tools to stop before giving up on them. */
const ABORT_GRACE_MS = 1_000

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
    }
  }
}

/** What a resumed turn starts from. */
interface ResumePoint {
  checkpoint: TurnCheckpoint
  claims: Record<string, number>
  decoded: DecodedMessages
}

interface RunnerState {
  claims: Record<string, number>
  seq: number
}

function parseState(json: string): RunnerState {
  try {
    const value = JSON.parse(json) as Partial<RunnerState>
    return { claims: { ...(value.claims ?? {}) }, seq: Number.isSafeInteger(value.seq) ? value.seq! : 0 }
  } catch {
    return { claims: {}, seq: 0 }
  }
}

interface TurnServices {
  checkpointKey: CheckpointKey | undefined
  tools: Map<string, Tool>
  spooler: ResultSpooler
  spoolStore: SpoolStore
  journalCap: number
  nextSeq(): number
  peekSeq(): number
  emit(event: TurnEvent): void
}

/** How a call's outcome was obtained. */
interface Obtained {
  result: ToolResult
  /** Set when the call ran under a claim this turn must complete. */
  held?: Extract<ClaimDecision, { kind: 'run' }>
  replayed?: boolean
}

/** What a call's row learns on the way besides its outcome. */
interface CallAudit {
  /** The permission record of the claim a replayed call took its outcome from. */
  replayedPermissionJson: string | null
}

interface CallOutcome {
  message: Message
  call: ToolCall
}

/** One `run`: the state of a single turn, discarded when it ends. */
class Turn {
  readonly #runner: TurnRunner
  readonly #prompt: string
  readonly #options: TurnRunOptions
  readonly #services: TurnServices
  readonly #controller = new AbortController()
  readonly #identity: TurnIdentity
  readonly #ctx: DispatchContext
  #messages: Message[]
  readonly #resume: ResumePoint | undefined
  /** Claims made per idempotency key in this attempt (see `claimKeyOf`). */
  readonly #claimCounts: Map<string, number>
  readonly #toolCalls: ToolCall[] = []
  readonly #spooled: ToolCall[] = []
  readonly #running = new Set<Promise<unknown>>()
  /** Calls of the resumed answer whose args the checkpoint did not keep (no `checkpointKey`), by id. */
  readonly #withheld: ReadonlyMap<string, StoredToolCall>
  /** Where the resumed checkpoint's chain stands, for the writer made on the first checkpoint. */
  readonly #chainStart: ChainStart | undefined
  #checkpoints: CheckpointWriter | undefined
  /** The turn's `invoke_agent` span: the parent of its model and tool spans. */
  readonly #span: SpanHandle | undefined

  constructor(runner: TurnRunner, prompt: string, options: TurnRunOptions, services: TurnServices, resume: ResumePoint | undefined) {
    if (typeof prompt !== 'string') throw new E_INVALID_OPTIONS('run(prompt) needs a string prompt')
    this.#runner = runner
    this.#prompt = prompt
    this.#options = options
    this.#services = services
    this.#resume = resume
    this.#claimCounts = new Map(Object.entries(resume?.claims ?? {}))
    this.#withheld = resume?.decoded.withheld ?? new Map()
    this.#chainStart = resume && {
      head: resume.checkpoint.checkpointId,
      saved: resume.decoded.messages.length,
      claims: resume.claims,
      stored: resume.decoded.stored,
    }
    const id = randomUUID()
    const c = resume?.checkpoint
    this.#identity = c
      ? { runId: c.runId, nodeId: c.nodeId, iteration: c.iteration, attempt: c.attempt }
      : runner.identity
        ? { ...runner.identity }
        : { runId: id, nodeId: 'turn', iteration: 0, attempt: 1 }
    this.#messages = options.fork ? copyMessages(options.fork.messages) : []
    // Spooled results of the forked turn stay readable through the artifact tools.
    if (options.fork) this.#spooled.push(...options.fork.toolCalls.filter((c) => services.spooler.isSpooled(c)))
    // Last: nothing after it throws, so a started span is always ended by run().
    const telemetry = runner.telemetry
    this.#span = startTurnSpan({
      agentName: telemetry?.agentName,
      providerName: telemetry?.providerName,
      model: telemetry?.model,
      identity: this.#identity,
      resumed: c !== undefined,
    })
    const scope = runner.identity || c
      ? canonicalStringify({ runId: this.#identity.runId, nodeId: this.#identity.nodeId, iteration: this.#identity.iteration })
      : undefined
    this.#ctx = {
      id,
      abortSignal: this.#controller.signal,
      ...(scope === undefined ? {} : { idempotencyScope: scope }),
      emitToolExecutionStart: () => undefined,
      emitToolExecutionEnd: () => undefined,
      ...(runner.permissions === undefined ? {} : { permissions: runner.permissions.forTurn() }),
      emitPermissionDecision: (event) => services.emit({ type: 'permission-decision', ...event }),
      emitNetworkRequest: ({ turnId: _turnId, ...event }) => services.emit({ type: 'network-request', ...event }),
      emitProtectedPathCreated: ({ turnId: _turnId, ...event }) => services.emit({ type: 'protected-path-created', ...event }),
      ...(this.#span === undefined ? {} : { traceContext: this.#span.context }),
      ...(telemetry === undefined ? {} : { telemetry }),
    }
  }

  async run(): Promise<TurnResult> {
    const signal = this.#options.signal
    const onAbort = (): void => this.#controller.abort(signal?.reason)
    try {
      if (signal?.aborted) throw this.#abortError()
      signal?.addEventListener('abort', onAbort, { once: true })
      try {
        return await this.#loop()
      } finally {
        signal?.removeEventListener('abort', onAbort)
      }
    } catch (error) {
      this.#span?.end({ error })
      throw error
    } finally {
      this.#span?.end()
    }
  }

  async #loop(): Promise<TurnResult> {
    const { emit } = this.#services
    emit({ type: 'turn-start', prompt: this.#prompt, attempt: this.#identity.attempt })
    let text = ''
    let steps = 0
    const resumed = this.#resume?.checkpoint
    if (resumed) {
      this.#messages = this.#resume!.decoded.messages
      steps = resumed.steps
      const last = this.#messages.at(-1)
      text = last?.role === 'assistant' ? last.content : ''
      const pending = last?.role === 'assistant' ? (last.toolCalls ?? []) : []
      if (resumed.done || (last?.role === 'assistant' && pending.length === 0)) {
        emit({ type: 'turn-end', steps, text })
        return { text, messages: copyMessages(this.#messages), toolCalls: [], steps }
      }
      if (pending.length > 0) {
        const tools = this.#offeredTools()
        const outcomes = await this.#untilAborted(this.#runCalls(pending, new Map(tools.map((t) => [t.name, t])), steps - 1))
        for (const outcome of outcomes) {
          this.#messages.push(outcome.message)
          this.#toolCalls.push(outcome.call)
        }
      }
    } else {
      await this.#warnAboutEarlierSideEffects()
      this.#messages.push({ role: 'user', content: this.#prompt })
    }
    while (steps < this.#runner.maxSteps) {
      // Tools that stop on the abort settle before the abort path does: without
      // this check the loop would ask the model again with a dead signal.
      if (this.#controller.signal.aborted) throw await this.#afterAbort()
      const step = steps
      const tools = this.#offeredTools()
      emit({ type: 'model-start', step, tools: tools.map((t) => t.name) })
      const started = performance.now()
      const request = { messages: copyMessages(this.#messages), tools: tools.map(toolDefinition), signal: this.#controller.signal, step }
      const telemetry = this.#runner.telemetry
      const modelSpan = startModelSpan({ model: telemetry?.model, providerName: telemetry?.providerName, step, parent: this.#span?.context })
      let response: Awaited<ReturnType<TurnModel>>
      try {
        // Inside the model's span, the provider client's own spans (HTTP) are its children.
        response = await this.#untilAborted(
          Promise.resolve().then(() => (modelSpan === undefined ? this.#runner.model(request) : modelSpan.run(() => this.#runner.model(request)))),
        )
      } catch (error) {
        modelSpan?.end({ error })
        throw error
      }
      modelSpan?.end()
      steps++
      text = typeof response?.text === 'string' ? response.text : ''
      const calls = normaliseCalls(response?.toolCalls, step, usedCallIds(this.#messages))
      emit({ type: 'model-end', step, text, toolCalls: calls.map(({ id, name }) => ({ id, name })), durationMs: performance.now() - started })
      const providerMetadata = response?.providerMetadata
      this.#messages.push({ role: 'assistant', content: text, ...(calls.length ? { toolCalls: calls } : {}), ...(providerMetadata ? { providerMetadata } : {}) })
      if (calls.length === 0) break
      const offered = new Map(tools.map((t) => [t.name, t]))
      // Before any call runs: a worker that dies from here on can be resumed
      // with this answer's calls, and they get the same seqs and claim keys.
      await this.#checkpoint(steps, false, offered)
      const outcomes = await this.#untilAborted(this.#runCalls(calls, offered, step))
      for (const outcome of outcomes) {
        this.#messages.push(outcome.message)
        this.#toolCalls.push(outcome.call)
      }
    }
    await this.#checkpoint(steps, true)
    emit({ type: 'turn-end', steps, text })
    return { text, messages: copyMessages(this.#messages), toolCalls: [...this.#toolCalls], steps }
  }

  /** The journal claims go through, when this turn is durable: a claiming journal and a stable identity. */
  get #claiming(): ClaimingJournal | undefined {
    const journal = this.#runner.journal
    return isClaimingJournal(journal) && (this.#runner.identity || this.#resume) ? journal : undefined
  }

  /**
   * Append the turn's checkpoint: the messages since the last one (all of
   * them the first time, or to a journal without chains), tool-call args in
   * checkpoint form (see `storeToolCall`).
   */
  async #checkpoint(steps: number, done: boolean, offered?: ReadonlyMap<string, Tool>): Promise<void> {
    const journal = this.#claiming
    if (!journal) return
    this.#checkpoints ??= new CheckpointWriter(journal, this.#identity, this.#prompt, this.#services.checkpointKey, this.#chainStart)
    const tools = this.#services.tools
    const state = { claims: this.#claimCounts, seq: this.#services.peekSeq() }
    const next = await this.#untilAborted(
      this.#checkpoints.next(this.#messages, steps, done, state, (name) => offered?.get(name) ?? tools.get(name), this.#ctx),
    )
    await this.#untilAborted(journalStep('save the turn checkpoint', () => journal.saveTurn(next.record)))
    next.commit()
  }

  /** Registered tools passing the allow-list, plus artifact tools for every spooled result so far. */
  #offeredTools(): Tool[] {
    const allow = this.#options.allowTools ?? this.#runner.allowTools
    const allowed = [...this.#services.tools.values()].filter((t) => !allow || allow.includes(t.name))
    if (this.#spooled.length === 0) return allowed
    const names = new Set(allowed.map((t) => t.name))
    return [...allowed, ...this.#services.spooler.artifactTools(this.#spooled).filter((t) => !names.has(t.name))]
  }

  async #warnAboutEarlierSideEffects(): Promise<void> {
    const journal = this.#runner.journal
    const { attempt, runId, nodeId, iteration } = this.#identity
    if (!journal || !this.#runner.identity || attempt <= 1) return
    const rows = (await this.#untilAborted(journal.sideEffectsFor({ runId, nodeId, iteration }))).filter(
      (row) => row.attempt < attempt,
    )
    if (rows.length === 0) return
    const content = retryWarning(rows, attempt, { replays: this.#claiming !== undefined })
    this.#messages.push({ role: 'user', content })
    this.#services.emit({ type: 'retry-warning', content, calls: rows })
  }

  /** Split the calls into groups that keep the model's order: runs of read-only calls, and single side-effect calls. */
  async #runCalls(calls: ModelToolCall[], offered: Map<string, Tool>, step: number): Promise<CallOutcome[]> {
    const seqs = calls.map(() => this.#services.nextSeq())
    const outcomes: CallOutcome[] = new Array(calls.length)
    let i = 0
    while (i < calls.length) {
      if (this.#controller.signal.aborted) throw this.#abortError()
      const tool = offered.get(calls[i]!.name)
      if (tool?.sideEffect) {
        outcomes[i] = await this.#track(this.#runCall(calls[i]!, tool, seqs[i]!, step))
        i++
        continue
      }
      let end = i
      while (end < calls.length && !offered.get(calls[end]!.name)?.sideEffect) end++
      const group = calls.slice(i, end).map((call, k) => () => this.#runCall(call, offered.get(call.name), seqs[i + k]!, step))
      const results = await pool(group, this.#runner.concurrency, (p) => this.#track(p), this.#controller.signal)
      if (this.#controller.signal.aborted) throw this.#abortError()
      results.forEach((outcome, k) => (outcomes[i + k] = outcome))
      i = end
    }
    return outcomes
  }

  async #runCall(call: ModelToolCall, tool: Tool | undefined, seq: number, step: number): Promise<CallOutcome> {
    const { emit, spooler } = this.#services
    const startedAtMs = Date.now()
    const started = performance.now()
    const ctx = createCallContext(this.#ctx, { toolCallId: call.id })
    // The gate's decision about this call goes into its journal row (and on
    // to the turn's listeners, as a `permission-decision` event).
    let permission: PermissionDecisionEvent | undefined
    const audit: CallAudit = { replayedPermissionJson: null }
    ctx.emitPermissionDecision = (event) => {
      permission = event
      this.#ctx.emitPermissionDecision?.(event)
    }
    const executor = tool?.executor(ctx)
    // The one call path: ids, validation and what may be logged, exactly as
    // the executor computes them. An unknown tool's args were never checked
    // by anyone, so they are not recorded either.
    let prepared: PreparedCall | undefined
    let prepareError: unknown
    // A resumed call whose args the checkpoint did not keep is never
    // prepared or run with the stand-in args: args that failed validation
    // fail again with the recorded error, others get their recorded outcome.
    const kept = this.#withheld.get(call.id)
    if (kept?.withheld === 'invalid') prepareError = exceptionFromJson(parseJson(kept.errorJson))
    else if (!kept) {
      try {
        prepared = await executor?.prepare(call.args)
      } catch (error) {
        prepareError = error
      }
    }
    const callId = prepared?.callId ?? kept?.callId ?? callIdOf(call.name, call.args)
    const idempotencyKey = prepared?.idempotencyKey ?? idempotencyKeyOf(ctx, callId)
    const input = prepared?.ok ? prepared.loggedArgs : kept?.withheld === 'redacted' ? kept.args : INVALID_ARGS_NOT_RECORDED
    const pending = newToolCall(call, callId, startedAtMs)
    emit({ type: 'tool-start', step, seq, toolName: call.name, toolCallId: call.id, args: input })

    let outcome: CallOutcome
    let row: Pick<ToolCallRow, 'outputJson' | 'status' | 'errorJson'>
    let bytes = 0
    let spooled = false
    let obtained: Obtained | undefined
    let replayed = false
    const claiming = this.#claiming
    const durable = claiming !== undefined && tool !== undefined && prepared?.ok === true && tool.sideEffect && !tool.idempotent
    const startRow: ToolCallRow = {
      ...this.#identity,
      seq,
      toolName: call.name,
      inputJson: safeJson(input),
      startedAtMs,
      finishedAtMs: startedAtMs,
      callId,
      idempotencyKey,
      status: 'error',
      outputJson: null,
      errorJson: null,
      permissionJson: null,
    }
    try {
      if (!tool || !executor) throw this.#unknownTool(call.name)
      if (prepareError !== undefined) throw prepareError
      if (kept) {
        obtained = await this.#runWithheld(tool, startRow, ctx.abortSignal, audit)
        replayed = obtained.replayed === true
      } else if (durable) {
        obtained = await this.#runClaimed(claiming, tool, executor, prepared as ValidCall, startRow, ctx.abortSignal, audit)
        replayed = obtained.replayed === true
      } else obtained = { result: await executor.run(prepared!) }
      const result = obtained.result
      const settled = await spooler.settle(tool, result, {
        callId,
        toolCallId: call.id,
        inlineBudgetBytes: this.#runner.inlineBudgetBytes,
        journalMaxBytes: this.#services.journalCap,
      })
      bytes = settled.bytes
      spooled = settled.spooled
      const done = pending.complete(settled.artifact, new Date())
      if (spooled) {
        spooler.markSpooled(done)
        this.#spooled.push(done)
      }
      outcome = { call: done, message: { role: 'tool', toolCallId: call.id, content: settled.content } }
      row = { status: 'success', outputJson: settled.outputJson, errorJson: null }
    } catch (error) {
      // The journal could not keep its promise: stop the turn, run nothing more.
      if (error instanceof E_JOURNAL_UNAVAILABLE) throw error
      replayed = (error as { [REPLAYED]?: boolean } | null)?.[REPLAYED] === true
      const held = (error as { [HELD]?: Obtained['held'] } | null)?.[HELD]
      if (held && claiming && (error as { code?: unknown }).code === 'TOOL_DENIED') {
        // The permission gate refused before the handler: nothing happened, so
        // the claim goes away and a later attempt asks again rather than
        // replaying the refusal. The refusal is journaled as an ordinary row.
        try {
          await journalStep('release the claim of a refused call', () => claiming.release(held.claim.claimKey, held.claim.owner))
        } finally {
          held.release()
        }
      } else if (held) obtained = { result: '', held }
      const failed = pending.fail(error, new Date())
      outcome = { call: failed, message: { role: 'tool', toolCallId: call.id, content: toolFailureText(error), isError: true } }
      row = { status: 'error', outputJson: null, errorJson: errorToJson(error, this.#services.journalCap) }
    }
    const finishedAtMs = Date.now()
    emit({
      type: 'tool-end',
      step,
      seq,
      toolName: call.name,
      toolCallId: call.id,
      callId,
      durationMs: performance.now() - started,
      isError: row.status === 'error',
      ...(row.status === 'error' ? { error: outcome.message.content } : {}),
      bytes,
      spooled,
      ...(replayed ? { replayed } : {}),
    })
    const finished: ToolCallRow = {
      ...startRow,
      finishedAtMs,
      ...row,
      ...(replayed ? { replayed } : {}),
      // A replayed call met no gate here: its row keeps the decision of the run that made it.
      permissionJson: permission === undefined ? audit.replayedPermissionJson : permissionToJson(permission),
    }
    const held = obtained?.held
    if (held && claiming && tool) {
      // The outcome goes into the claim's own row, in the same transaction as
      // the journal row: if it cannot be written the turn stops, and a resume
      // reports the call as TOOL_OUTCOME_UNKNOWN rather than running it again.
      try {
        const flags = { sideEffect: tool.sideEffect, idempotent: tool.idempotent }
        const mine = await journalStep('record the outcome of a claimed call', () =>
          claiming.complete(held.claim.claimKey, held.claim.owner, finished, flags),
        )
        if (!mine) {
          process.emitWarning(
            `The claim on the ${call.name} call lapsed while it ran and another worker took it over; its outcome was not recorded twice`,
            { code: 'TOOLSMITH_CLAIM_LOST' },
          )
        }
      } finally {
        held.release()
      }
    } else await this.#journal(finished, tool)
    return outcome
  }

  /**
   * Claim a non-idempotent call, then run it, replay it, or report its
   * outcome as unknown. A failure is thrown with the held claim attached, so
   * the caller records it in the claim's row.
   */
  async #runClaimed(
    journal: ClaimingJournal,
    tool: Tool,
    executor: PreparedExecutor,
    prepared: ValidCall,
    startRow: ToolCallRow,
    signal: AbortSignal,
    audit: CallAudit,
  ): Promise<Obtained> {
    const key = prepared.idempotencyKey
    const occurrence = this.#claimCounts.get(key) ?? 0
    this.#claimCounts.set(key, occurrence + 1)
    const leaseMs = this.#runner.claimLeaseMs
    const flags = { sideEffect: tool.sideEffect, idempotent: tool.idempotent }
    const request = { claimKey: claimKeyOf(key, occurrence), owner: PROCESS_OWNER, leaseMs, row: startRow, flags }
    let decision = await acquireClaim(journal, request, signal)
    for (;;) {
      if (decision.kind === 'run') return await runHeld(decision, () => executor.run(prepared))
      if (decision.kind === 'settled') {
        audit.replayedPermissionJson = decision.claim.row.permissionJson ?? null
        const replay = replayOutcome(decision.claim, this.#services.spoolStore)
        if ('error' in replay) throw markReplayed(replay.error)
        return { result: replay.result, replayed: true }
      }
      const answer = await this.#reconcile(tool, prepared, decision.claim, signal)
      if (answer === undefined) throw outcomeUnknown(decision.claim)
      const taken = await takeOverClaim(journal, decision.claim, PROCESS_OWNER, leaseMs)
      if (!taken) {
        // Another worker reconciled it first: take whatever it decided.
        decision = await acquireClaim(journal, request, signal)
        continue
      }
      if (answer.applied) return { result: answer.result, held: taken }
      return await runHeld(taken, () => executor.run(prepared))
    }
  }

  /**
   * A resumed call whose args were not kept: a non-idempotent call's claim
   * gives its recorded outcome (or `TOOL_OUTCOME_UNKNOWN` when its worker
   * died mid-call: `reconcile` would need the args); with no claim it never
   * started, and without its args it cannot start now.
   */
  async #runWithheld(tool: Tool, startRow: ToolCallRow, signal: AbortSignal, audit: CallAudit): Promise<Obtained> {
    const journal = this.#claiming
    const durable = journal !== undefined && tool.sideEffect && !tool.idempotent
    if (durable) {
      const key = startRow.idempotencyKey
      const occurrence = this.#claimCounts.get(key) ?? 0
      this.#claimCounts.set(key, occurrence + 1)
      const claimKey = claimKeyOf(key, occurrence)
      if (await journalStep('read the claim', () => journal.getClaim(claimKey))) {
        const flags = { sideEffect: tool.sideEffect, idempotent: tool.idempotent }
        const decision = await acquireClaim(journal, { claimKey, owner: PROCESS_OWNER, leaseMs: this.#runner.claimLeaseMs, row: startRow, flags }, signal)
        if (decision.kind === 'settled') {
          audit.replayedPermissionJson = decision.claim.row.permissionJson ?? null
          const replay = replayOutcome(decision.claim, this.#services.spoolStore)
          if ('error' in replay) throw markReplayed(replay.error)
          return { result: replay.result, replayed: true }
        }
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

  async #reconcile(tool: Tool, prepared: ValidCall, claim: ToolCallClaim, signal: AbortSignal): Promise<{ applied: true; result: ToolResult } | { applied: false } | undefined> {
    if (!tool.reconcile) return undefined
    try {
      const answer = await tool.reconcile(prepared.args, {
        callId: prepared.callId,
        idempotencyKey: prepared.idempotencyKey,
        toolName: tool.name,
        signal,
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

  async #journal(row: ToolCallRow, tool: Tool | undefined): Promise<void> {
    const journal = this.#runner.journal
    if (!journal) return
    const flags = tool ? { sideEffect: tool.sideEffect, idempotent: tool.idempotent } : { sideEffect: false, idempotent: true }
    try {
      await journal.record(row, flags)
    } catch (error) {
      // A journal failure must not cost the model its result; make it visible instead.
      process.emitWarning(`Could not journal the ${row.toolName} call: ${errorSummary(error)}`, {
        code: 'TOOLSMITH_JOURNAL_ERROR',
      })
    }
  }

  #unknownTool(name: string): E_TOOL_NOT_REGISTERED {
    const available = this.#offeredTools().map((t) => t.name)
    return new E_TOOL_NOT_REGISTERED(
      `Unknown tool "${name}". Available tools: ${available.length ? available.join(', ') : 'none'}`,
      { details: { name, available } },
    )
  }

  #track<T>(promise: Promise<T>): Promise<T> {
    this.#running.add(promise)
    const forget = (): void => void this.#running.delete(promise)
    promise.then(forget, forget)
    return promise
  }

  /** Settle with `promise`, or reject with `E_TURN_ABORTED` as soon as the turn is aborted. */
  async #untilAborted<T>(promise: Promise<T>): Promise<T> {
    const signal = this.#controller.signal
    if (signal.aborted) {
      promise.catch(() => undefined)
      throw await this.#afterAbort()
    }
    let onAbort!: () => void
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => void this.#afterAbort().then(reject)
      signal.addEventListener('abort', onAbort, { once: true })
    })
    try {
      const value = await Promise.race([promise, aborted])
      // Settled in the same moment as the abort: the abort wins, nothing after it runs.
      if (signal.aborted) throw await this.#afterAbort()
      return value
    } finally {
      signal.removeEventListener('abort', onAbort)
      promise.catch(() => undefined)
    }
  }

  /** Give running tools a moment to stop (bash reaps its process group), then build the error. */
  async #afterAbort(): Promise<E_TURN_ABORTED> {
    if (this.#running.size > 0) {
      let timer: NodeJS.Timeout | undefined
      await Promise.race([
        Promise.allSettled([...this.#running]),
        new Promise((resolve) => (timer = setTimeout(resolve, ABORT_GRACE_MS))),
      ])
      clearTimeout(timer)
    }
    return this.#abortError()
  }

  #abortError(): E_TURN_ABORTED {
    const reason = this.#options.signal?.reason
    return new E_TURN_ABORTED(`The turn was aborted${reason instanceof Error ? `: ${reason.message}` : ''}`, {
      cause: reason,
      details: { toolCalls: this.#toolCalls.length },
    })
  }
}

const REPLAYED = Symbol('toolsmith.replayed')
const HELD = Symbol('toolsmith.heldClaim')

function markReplayed(error: unknown): unknown {
  if (error !== null && typeof error === 'object') Object.defineProperty(error, REPLAYED, { value: true })
  return error
}

/** Run under a held claim; a failure carries the claim so its row records the error. */
async function runHeld(held: Extract<ClaimDecision, { kind: 'run' }>, run: () => Promise<ToolResult>): Promise<Obtained> {
  try {
    return { result: await run(), held }
  } catch (error) {
    if (error !== null && typeof error === 'object') Object.defineProperty(error, HELD, { value: held, configurable: true })
    else held.release()
    throw error
  }
}

/**
 * Run task factories with at most `limit` in flight; results keep the input
 * order. No task starts once `signal` has fired (the caller then throws).
 */
async function pool<T>(
  tasks: (() => Promise<T>)[],
  limit: number,
  track: (p: Promise<T>) => Promise<T>,
  signal: AbortSignal,
): Promise<T[]> {
  const results: T[] = new Array(tasks.length)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < tasks.length && !signal.aborted) {
      const index = next++
      results[index] = await track(tasks[index]!())
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker))
  return results
}

// Providers require tool-call ids to be unique within a conversation, and
// results are matched back by id: a missing or repeated id is replaced by a
// fresh one (`<id>_2`, `call_<step>_<index>`…), never passed on twice.
function normaliseCalls(calls: ModelToolCall[] | undefined, step: number, used: Set<string>): ModelToolCall[] {
  if (!Array.isArray(calls)) return []
  return calls.map((call, index) => {
    const given = typeof call?.id === 'string' && call.id.length > 0 ? call.id : `call_${step}_${index}`
    let id = given
    for (let n = 2; used.has(id); n++) id = `${given}_${n}`
    used.add(id)
    const name = typeof call?.name === 'string' ? call.name : String(call?.name)
    return { id, name, args: call?.args ?? {}, ...(call?.providerMetadata ? { providerMetadata: call.providerMetadata } : {}) }
  })
}

function parseJson(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? 'null') as unknown
  } catch {
    return text
  }
}

function usedCallIds(messages: readonly Message[]): Set<string> {
  const used = new Set<string>()
  for (const message of messages) {
    for (const call of message.toolCalls ?? []) used.add(call.id)
    if (message.toolCallId) used.add(message.toolCallId)
  }
  return used
}

function newToolCall(call: ModelToolCall, checksum: string, createdAtMs: number): ToolCall {
  try {
    return new ToolCall({ id: call.id, tool: call.name || '?', args: call.args, checksum, createdAt: new Date(createdAtMs) })
  } catch {
    return new ToolCall({ id: call.id, tool: call.name || '?', args: safeJson(call.args), checksum, createdAt: new Date(createdAtMs) })
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

