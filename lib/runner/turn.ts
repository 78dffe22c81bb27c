/**
 * `Turn`: one run of a `TurnRunner` — ask the model, run the calls it asks
 * for through the call pipeline, checkpoint, repeat.
 *
 * @module
 */
import { startModelSpan, startTurnSpan, type SpanHandle } from '../telemetry/spans.js'
import { randomUUID } from 'node:crypto'
import { SpooledArtifact } from '../artifacts/spooled_artifact.js'
import { createCallContext } from '../core/call_context.js'
import type { DispatchContext, ToolOutputChunk } from '../core/dispatch_context.js'
import type { CallHooks } from '../core/pipeline/call_hooks.js'
import { failCall, runWithheld } from '../core/pipeline/call_pipeline.js'
import { CallRun } from '../core/pipeline/call_run.js'
import { INVALID_ARGS_NOT_RECORDED, type Tool } from '../core/tool.js'
import { ToolCall } from '../core/tool_call.js'
import { E_INVALID_OPTIONS, E_JOURNAL_UNAVAILABLE, E_TOOL_NOT_REGISTERED, E_TURN_ABORTED, toolFailureText } from '../exceptions.js'
import { isClaimingJournal, type ClaimingJournal } from '../journal/claiming.js'
import { exceptionFromJson, journalStep } from '../journal/claims.js'
import { safeJson } from '../journal/output.js'
import { canonicalStringify } from '../utils/canonical_json.js'
import type { StoredToolCall } from './checkpoint_codec.js'
import { copyMessages, type Message, type ModelToolCall } from '../providers/messages.js'
import type { SettledResult } from './result_spooler.js'
import { retryWarning } from './retry_warning.js'
import { toolDefinition } from './tool_definition.js'
import { CheckpointWriter, type ChainStart } from './turn_checkpoints.js'
import type { CallOutcome, ResumePoint, TurnHost, TurnIdentity, TurnResult, TurnRunOptions, TurnServices } from './turn_options.js'

/** How long an aborted turn waits for its running tools to stop before giving up on them. */
const ABORT_GRACE_MS = 1_000

/** One `run`: the state of a single turn, discarded when it ends. */
export class Turn {
  readonly #runner: TurnHost
  readonly #prompt: string
  readonly #options: TurnRunOptions
  readonly #services: TurnServices
  readonly #controller = new AbortController()
  readonly #identity: TurnIdentity
  readonly #ctx: DispatchContext
  #messages: Message[]
  readonly #resume: ResumePoint | undefined
  /** The rows' coordinates, seq and the claims made per idempotency key in this attempt (see `claimKeyOf`). */
  readonly #run: CallRun
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

  constructor(runner: TurnHost, prompt: string, options: TurnRunOptions, services: TurnServices, resume: ResumePoint | undefined) {
    if (typeof prompt !== 'string') throw new E_INVALID_OPTIONS('run(prompt) needs a string prompt')
    this.#runner = runner
    this.#prompt = prompt
    this.#options = options
    this.#services = services
    this.#resume = resume
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
    const scope = runner.identity || c
      ? canonicalStringify({ runId: this.#identity.runId, nodeId: this.#identity.nodeId, iteration: this.#identity.iteration })
      : undefined
    this.#run = new CallRun(this.#identity, { claimLeaseMs: runner.claimLeaseMs, claims: resume?.claims ?? {} })
    this.#messages = options.fork ? copyMessages(options.fork.messages) : []
    // Spooled results of the forked turn stay readable through the artifact tools.
    if (options.fork) this.#spooled.push(...options.fork.toolCalls.filter((c) => services.spooler.isSpooled(c)))
    // Last thing that could throw is above: a started span is always ended by run().
    const telemetry = runner.telemetry
    this.#span = startTurnSpan({
      agentName: telemetry?.agentName,
      providerName: telemetry?.providerName,
      model: telemetry?.model,
      identity: this.#identity,
      resumed: c !== undefined,
    })
    this.#ctx = {
      id,
      // Every call through the pipeline is recorded under the turn's run;
      // with an identity (scope) its non-idempotent side effects are durable.
      ...(runner.journal === undefined ? {} : { journal: runner.journal }),
      run: this.#run,
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
      let response: Awaited<ReturnType<TurnHost['model']>>
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
    const state = { claims: this.#run.claims, seq: this.#services.peekSeq() }
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
      results.forEach((outcome, k) => {
        outcomes[i + k] = outcome
      })
      i = end
    }
    return outcomes
  }

  /**
   * One model call, through the call pipeline (`tool.executor(ctx)`): the
   * pipeline records its row, claims it when durable and replays it; the
   * runner hands it the call's seq, hears its start and end (the turn's
   * `tool-start` and `tool-end`) and settles its result (spooling a large one).
   */
  async #runCall(call: ModelToolCall, tool: Tool | undefined, seq: number, step: number): Promise<CallOutcome> {
    const { emit, spooler, spoolStore } = this.#services
    const kept = this.#withheld.get(call.id)
    let pending: ToolCall | undefined
    let settled: SettledResult | undefined
    const hooks: CallHooks = {
      start: (c) => {
        pending = newToolCall(call, c.callId, c.startedAtMs)
        emit({ type: 'tool-start', step, seq, toolName: call.name, toolCallId: call.id, args: c.loggedArgs })
      },
      settle: async (result, c) => {
        settled = await spooler.settle(tool!, result, {
          callId: c.callId,
          toolCallId: call.id,
          inlineBudgetBytes: this.#runner.inlineBudgetBytes,
          journalMaxBytes: this.#services.journalCap,
        })
        return { outputJson: settled.outputJson }
      },
      restore: (spoolId) => {
        const reader = spoolStore.read(spoolId)
        return reader ? new SpooledArtifact(reader) : undefined
      },
      end: (c) =>
        emit({
          type: 'tool-end',
          step,
          seq,
          toolName: call.name,
          toolCallId: call.id,
          callId: c.callId,
          durationMs: c.durationMs,
          isError: c.isError,
          ...(c.isError ? { error: toolFailureText(c.error) } : {}),
          bytes: c.isError ? 0 : (settled?.bytes ?? 0),
          spooled: c.isError ? false : (settled?.spooled ?? false),
          ...(c.replayed ? { replayed: true } : {}),
        }),
    }
    // A tool's output as it arrives (bash), as events between tool-start and tool-end; nobody listening, nothing decoded.
    const live = this.#services.listening
      ? { onToolOutput: ({ stream, text }: ToolOutputChunk) => emit({ type: 'tool-output', step, seq, toolName: call.name, toolCallId: call.id, stream, text }) }
      : {}
    const ctx = createCallContext(this.#ctx, { toolCallId: call.id, seq, hooks, ...live })
    try {
      if (!tool) return await failCall(ctx, call.name, call.args, this.#unknownTool(call.name))
      // A resumed call whose args the checkpoint did not keep is never run
      // with the stand-in args: args that failed validation fail again with
      // the recorded error, others get their recorded outcome (or none).
      if (kept?.withheld === 'invalid') return await failCall(ctx, call.name, call.args, exceptionFromJson(parseJson(kept.errorJson)), kept.callId)
      if (kept) await runWithheld(tool, ctx, kept.callId, call.args, kept.withheld === 'redacted' ? kept.args : INVALID_ARGS_NOT_RECORDED)
      else await tool.executor(ctx)(call.args)
      const done = pending!.complete(settled!.artifact, new Date())
      if (settled!.spooled) {
        spooler.markSpooled(done)
        this.#spooled.push(done)
      }
      return { call: done, message: { role: 'tool', toolCallId: call.id, content: settled!.content } }
    } catch (error) {
      // The journal could not keep its promise: stop the turn, run nothing more.
      if (error instanceof E_JOURNAL_UNAVAILABLE) throw error
      const failed = (pending ?? newToolCall(call, '', Date.now())).fail(error, new Date())
      return { call: failed, message: { role: 'tool', toolCallId: call.id, content: toolFailureText(error), isError: true } }
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
