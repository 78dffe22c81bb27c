/**
 * The events a `TurnRunner` reports while it works: for progress output,
 * logging and tests.
 *
 * @module
 */
import type { NetworkRequestEvent, PermissionDecisionEvent, ProtectedPathCreatedEvent } from '../core/dispatch_context.js'
import type { ToolCallRow } from '../journal/contract.js'
import type { ModelToolCall } from '../providers/messages.js'

/** A turn began. */
export interface TurnStartEvent {
  /** Discriminator. */
  type: 'turn-start'
  /** The prompt. */
  prompt: string
  /** The attempt number (1 without an identity). */
  attempt: number
}

/** A retried attempt was warned about earlier side effects. */
export interface RetryWarningEvent {
  /** Discriminator. */
  type: 'retry-warning'
  /** The message text the model receives. */
  content: string
  /** The journal rows it lists. */
  calls: ToolCallRow[]
}

/** The model was asked for its next step. */
export interface ModelStartEvent {
  /** Discriminator. */
  type: 'model-start'
  /** Step number, from 0. */
  step: number
  /** Names of the tools offered. */
  tools: string[]
}

/** The model answered. */
export interface ModelEndEvent {
  /** Discriminator. */
  type: 'model-end'
  /** Step number, from 0. */
  step: number
  /** Its text, possibly empty. */
  text: string
  /**
   * The calls it asked for, without their args: args are logged once, by
   * each call's `tool-start`, as the tool redacts them (events are logs, and
   * raw args may hold a password).
   */
  toolCalls: Pick<ModelToolCall, 'id' | 'name'>[]
  /** How long the model took, in milliseconds. */
  durationMs: number
}

/** A tool call started. */
export interface ToolStartEvent {
  /** Discriminator. */
  type: 'tool-start'
  /** Step number, from 0. */
  step: number
  /** The call's journal sequence number. */
  seq: number
  /** The tool's name. */
  toolName: string
  /** The provider's call id. */
  toolCallId: string
  /** The args, redacted as the journal stores them. */
  args: unknown
}

/**
 * Output of a running tool call as it arrives (`bash`: a chunk of the
 * command's stdout or stderr, decoded, never splitting a character),
 * between its `tool-start` and `tool-end`. The call's result is unchanged:
 * the model still gets the whole output, bounded, at the end. Not sent for
 * a call the journal replays.
 */
export interface ToolOutputTurnEvent {
  /** Discriminator. */
  type: 'tool-output'
  /** Step number, from 0. */
  step: number
  /** The call's journal sequence number. */
  seq: number
  /** The tool's name. */
  toolName: string
  /** The provider's call id. */
  toolCallId: string
  /** Which stream the text came from. */
  stream: 'stdout' | 'stderr'
  /** The text. */
  text: string
}

/** A tool call settled. */
export interface ToolEndEvent {
  /** Discriminator. */
  type: 'tool-end'
  /** Step number, from 0. */
  step: number
  /** The call's journal sequence number. */
  seq: number
  /** The tool's name. */
  toolName: string
  /** The provider's call id. */
  toolCallId: string
  /** The executor's `callId` (what forged artifact tools take). */
  callId: string
  /** Wall time of the call, in milliseconds. */
  durationMs: number
  /** Whether it failed. */
  isError: boolean
  /** `CODE: message` of the failure, when `isError`. */
  error?: string
  /** Size of the result in bytes (0 on error). */
  bytes: number
  /** Whether the result was spooled instead of inlined. */
  spooled: boolean
  /**
   * `true` when the handler did not run: a claimed call's recorded outcome
   * was replayed from the journal (another attempt or worker already ran it).
   */
  replayed?: boolean
}

/**
 * The permission gate decided a call (between its `tool-start` and
 * `tool-end`): rule, decision, approver and latency.
 */
export interface PermissionDecisionTurnEvent extends PermissionDecisionEvent {
  /** Discriminator. */
  type: 'permission-decision'
}

/**
 * A command of a tool call asked the allowlist proxy for a host (sandboxes
 * with `allowNetwork: { domains }`): what it asked and what was decided.
 */
export interface NetworkRequestTurnEvent extends Omit<NetworkRequestEvent, 'turnId'> {
  /** Discriminator. */
  type: 'network-request'
}

/**
 * A `bash` command of a tool call created protected paths (the sandbox's
 * `readOnlyPaths`: a `.git`, a shell startup file…), which can run code on
 * the host later: each path and the rule it matches.
 */
export interface ProtectedPathCreatedTurnEvent extends Omit<ProtectedPathCreatedEvent, 'turnId'> {
  /** Discriminator. */
  type: 'protected-path-created'
}

/** The turn finished. */
export interface TurnEndEvent {
  /** Discriminator. */
  type: 'turn-end'
  /** Model calls made. */
  steps: number
  /** The final text. */
  text: string
}

/** Everything `TurnRunner` reports through `onEvent`. */
export type TurnEvent =
  | TurnStartEvent
  | RetryWarningEvent
  | ModelStartEvent
  | ModelEndEvent
  | ToolStartEvent
  | ToolOutputTurnEvent
  | ToolEndEvent
  | PermissionDecisionTurnEvent
  | NetworkRequestTurnEvent
  | ProtectedPathCreatedTurnEvent
  | TurnEndEvent

/** A listener for {@link TurnEvent}s; one that throws is ignored. */
export type TurnEventListener = (event: TurnEvent) => void
