/**
 * The permission gate's decision about one call: shared by core (the gate
 * interface, the call pipeline) and the journal (the row's `permissionJson`),
 * so neither imports the other for it.
 *
 * @module
 */

/** Which rule of a permission policy decided: its position and name. */
export interface PermissionRuleRef {
  /** Index into the policy's `rules`. */
  readonly index: number
  /** The rule's name (given, or a summary such as `deny write .env*`). */
  readonly name: string
}

/**
 * Payload of the `permissionDecision` event: what a permission gate decided
 * about one call, and who decided it (see `Permissions` in `toolsmith`).
 */
export interface PermissionDecisionEvent {
  /** The tool's name. */
  toolName: string
  /** The context's `id`. */
  turnId: string
  /** The executor's `callId`. */
  callId: string
  /** The provider's id of the call, when the context carries one. */
  toolCallId?: string
  /** What happened to the call: it ran (`allow`) or was refused (`deny`). */
  decision: 'allow' | 'deny'
  /** What the policy said before any approval: `ask` means someone was asked. */
  policyDecision: 'allow' | 'ask' | 'deny'
  /** The deciding rule (`index` into the policy's rules, and its name); `null` for the policy's default. */
  rule: PermissionRuleRef | null
  /** The rule's reason, when it gives one. */
  reason?: string
  /**
   * Who decided: `policy` (a rule or the default, nobody asked), `remembered`
   * (an approval given earlier in the turn), `none` (an `ask` with nobody to
   * ask: denied), or the approver's name (`approve`, `terminal`,
   * `mcp-elicitation`, `ai-sdk`…).
   */
  approver: string
  /** The approver's note, if any. */
  note?: string
  /** Time spent deciding (asking included), in milliseconds. */
  latencyMs: number
}
