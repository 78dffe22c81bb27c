/**
 * What a permission gate's approver is asked, and what it may answer.
 *
 * @module
 */
import type { PermissionRuleRef } from '../core/dispatch_context.js'

/** What an approver is asked. */
export interface ApprovalRequest {
  /** The tool's name. */
  readonly toolName: string
  /** The args as events record them (`redact(args)` for tools that redact: never a file's content). */
  readonly args: unknown
  /** The rule that asked (`index`, `name`); `null` when the policy's default is `ask`. */
  readonly rule: PermissionRuleRef | null
  /** The rule's reason, if any. */
  readonly reason: string | undefined
  /** What the call acts on: the path or the command line. */
  readonly subject: string | undefined
  /**
   * Set when the path is a file with more than one name (hard links): a
   * path rule cannot see its other names (one may be a file the policy
   * protects), so every `deny` and `ask` path rule applies to it. An
   * allow then lets this very file be read, under this name.
   */
  readonly hardLinks?: number
  /** The executor's `callId`. */
  readonly callId: string
  /** The provider's id of the call, when known. */
  readonly toolCallId: string | undefined
  /** The context's id. */
  readonly turnId: string
  /** Fires when the call is cancelled: stop asking. */
  readonly signal: AbortSignal
}

/** An approver's full answer. */
export interface ApprovalResponse {
  /** Run the call, or refuse it. */
  decision: 'allow' | 'deny'
  /** Shown to the model with a denial, and recorded. */
  note?: string
  /** Apply the same answer to every later call this rule asks about, for the rest of the turn. */
  remember?: boolean
  /**
   * Who answered, for the record; defaults to the approver's name. `'none'`
   * says nobody could answer (no terminal, a client that cannot be asked, no
   * answer in time): the denial then reads "…asks for approval, but NOTE",
   * so the note should say what happened.
   */
  approver?: string
}

/** What an approver may return: `true`/`'allow'`, `false`/`'deny'`, or an {@link ApprovalResponse}. */
export type ApprovalAnswer = boolean | 'allow' | 'deny' | ApprovalResponse

/** Asked about every `ask`. A throw or a malformed answer denies the call. */
export type Approver = (request: ApprovalRequest) => ApprovalAnswer | Promise<ApprovalAnswer>
