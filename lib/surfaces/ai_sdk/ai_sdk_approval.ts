/**
 * The AI SDK's tool approval (`needsApproval`) for a permission policy's
 * `ask`: the SDK stops and returns a `tool-approval-request`, the
 * application answers with a `tool-approval-response`, and the SDK runs the
 * call only when it was approved.
 *
 * @module
 */
import type { DispatchContext } from '../../core/dispatch_context.js'
import type { Tool } from '../../core/tool.js'
import { Permissions } from '../../permissions/permissions.js'

/** What `toAiSdkTools` wires into each tool when the context's gate should ask through the SDK. */
export interface AiSdkApproval {
  /** The SDK's `needsApproval`: true when the policy says `ask` for this call. */
  needsApproval: (input: unknown, options: { toolCallId: string }) => Promise<boolean>
  /** The gate `execute` runs under: an `ask` the SDK already approved for this call id is allowed. */
  gateFor: (toolCallId: string) => Permissions
}

/**
 * The approval hooks for one tool, or `undefined` when the context has no
 * `Permissions` gate or the gate has an approver of its own (which then
 * answers inside `execute`).
 *
 * @param tool - The tool.
 * @param ctx - The turn's context.
 * @param prepare - What `execute` does to the input before the executor (optional nulls dropped).
 * @returns The hooks, or `undefined`.
 * @internal
 */
export function aiSdkApproval(tool: Tool, ctx: DispatchContext, prepare: (input: unknown) => unknown): AiSdkApproval | undefined {
  const gate = ctx.permissions
  if (!Permissions.isPermissions(gate) || gate.hasApprover) return undefined
  // Only calls the SDK was told need approval may be approved by it: the SDK
  // runs `execute` for those only after a `tool-approval-response` says yes.
  const asked = new Set<string>()
  const approved = gate.withApprover(
    (request) => (request.toolCallId !== undefined && asked.has(request.toolCallId) ? { decision: 'allow' } : { decision: 'deny', note: 'the AI SDK was not asked to approve this call' }),
    'ai-sdk',
  )
  return {
    needsApproval: async (input, { toolCallId }) => {
      const prepared = await tool.prepare(prepare(input), ctx)
      // Invalid args fail in `execute` with E_INVALID_TOOL_ARGS; nothing to approve.
      if (!prepared.ok) return false
      const needed = (await gate.preview({ toolName: tool.name, callId: prepared.callId, args: prepared.args, roles: tool.roles })) === 'ask'
      if (needed) asked.add(toolCallId)
      return needed
    },
    gateFor: () => approved,
  }
}
