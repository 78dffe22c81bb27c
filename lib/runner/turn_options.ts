/**
 * The options and results of `TurnRunner`, and what a turn needs from its runner.
 *
 * @module
 */
import type { TurnTelemetryOptions } from '../telemetry/spans.js'
import type { SpoolStore } from '../artifacts/stores.js'
import type { ToolCall } from '../core/tool_call.js'
import type { ToolCollection } from '../core/tool_collection.js'
import type { ToolCallJournal } from '../journal/contract.js'
import type { TurnCheckpoint } from '../journal/claiming.js'
import type { Permissions } from '../permissions/permissions.js'
import type { CheckpointKey, CheckpointKeyInput, DecodedMessages } from './checkpoint_codec.js'
import type { TurnEvent, TurnEventListener } from './events.js'
import type { Message, TurnModel } from '../providers/messages.js'
import type { ResultSpooler } from './result_spooler.js'
import type { Tool } from '../core/tool.js'

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

/**
 * What a turn reads of its runner: the runner's settings (`TurnRunner`
 * implements it), so the turn does not import the runner class.
 */
export interface TurnHost {
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
  /** The claim lease. */
  readonly claimLeaseMs: number
  /** What the turn's spans record. */
  readonly telemetry: Readonly<TurnTelemetryOptions> | undefined
}

/** What a resumed turn starts from. */
export interface ResumePoint {
  checkpoint: TurnCheckpoint
  claims: Record<string, number>
  decoded: DecodedMessages
}

export interface RunnerState {
  claims: Record<string, number>
  seq: number
}

export interface TurnServices {
  checkpointKey: CheckpointKey | undefined
  tools: Map<string, Tool>
  spooler: ResultSpooler
  spoolStore: SpoolStore
  journalCap: number
  nextSeq(): number
  peekSeq(): number
  emit(event: TurnEvent): void
  /** Whether anyone hears the events (a tool's live output is only passed on then). */
  listening: boolean
}

export interface CallOutcome {
  message: Message
  call: ToolCall
}
