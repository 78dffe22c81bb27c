/**
 * `Permissions`: enforces a `PermissionPolicy` on every call of a context,
 * asks for approval on `ask`, and remembers approvals for the turn.
 *
 * @module
 */
import path from 'node:path'
import type { DispatchContext, GatedToolCall, PermissionDecisionEvent, ToolCallGate } from '../core/dispatch_context.js'
import { E_INVALID_OPTIONS, E_TOOL_DENIED, errorSummary } from '../exceptions.js'
import { resolveRealRoot, type PathScope } from '../sandbox/files/paths.js'
import type { ApprovalAnswer, ApprovalRequest, ApprovalResponse, Approver } from './approval.js'
import { judgedOf, pathResolver } from './gate_paths.js'
import { PermissionPolicy, type Evaluation, type PathResolver, type PolicyVerdict } from './policy.js'
import type { RawPermissionPolicy } from './rules.js'

export type { ApprovalAnswer, ApprovalRequest, ApprovalResponse, Approver } from './approval.js'

/** Options of `new Permissions(options)`. */
export interface PermissionsOptions {
  /** The policy: a {@link PermissionPolicy}, or the data to build one. */
  policy: PermissionPolicy | RawPermissionPolicy | RawPermissionPolicy['rules']
  /** Asked when a rule says `ask`; without one, `ask` denies (and says so). */
  approve?: Approver
  /**
   * The approver's name in decision records.
   *
   * @defaultValue 'approve'
   */
  approverName?: string
  /**
   * The directory path rules are relative to: use the tools' sandbox root.
   *
   * @defaultValue process.cwd()
   */
  root?: string
  /** Called with every decision (besides the context's `permissionDecision` event). */
  onDecision?: (event: PermissionDecisionEvent) => void
}

/** Approvals remembered for a turn, by rule index (-1 for the default). */
type Memory = Map<number, { decision: 'allow' | 'deny'; note: string | undefined; approver: string }>

interface Shared {
  readonly policy: PermissionPolicy
  readonly root: string
  readonly scope: PathScope
  readonly onDecision: ((event: PermissionDecisionEvent) => void) | undefined
}

const PERMISSIONS_BRAND = Symbol.for('toolsmith.permissions')

/**
 * The permission gate: put it on a context (`createDispatchContext({
 * permissions })`, `new TurnRunner({ permissions })`, `createMcpServer(tools,
 * { permissions })`) and every call through that context obeys the policy.
 *
 * @remarks
 * The executor asks it after validation and before the handler, so the
 * executor, `TurnRunner`, `createMcpServer`, `toAiSdkTools` and the CLI all
 * enforce the same rules. `deny` throws `TOOL_DENIED` (rule and reason in
 * the message, so a model can adapt); `ask` calls `approve` and honours its
 * answer (`remember: true` applies it to the rule for the rest of the turn);
 * `ask` without an approver is a denial that says so. Every decision is
 * reported through `ctx.emitPermissionDecision` and `onDecision` with the
 * rule, the approver and the time taken.
 *
 * Path rules match the resolved root-relative path: `src/../.env` and a
 * symlink to `.env` are `.env`. Use the same `root` as the tools' sandbox.
 *
 * @example
 * ```ts
 * const permissions = new Permissions({
 *   policy: await loadPermissionPolicy('policy.json'),
 *   root: '/srv/project',
 *   approve: async ({ toolName, subject }) => confirm(`Run ${toolName} ${subject}?`),
 * })
 * const ctx = createDispatchContext({ permissions })
 * await tools.write.executor(ctx)({ path: '.env', content: 'x' }) // throws TOOL_DENIED
 * ```
 */
export class Permissions implements ToolCallGate {
  /** The policy enforced. */
  readonly policy: PermissionPolicy
  /** The root path rules are relative to. */
  readonly root: string
  #shared: Shared
  readonly #approve: Approver | undefined
  readonly #approverName: string
  #memory: Memory
  #paths: PathResolver

  /**
   * @param options - Policy, approver, root and decision listener.
   * @throws {@link toolsmith/core!E_INVALID_POLICY} for a malformed policy;
   *   {@link toolsmith/core!E_INVALID_OPTIONS} for bad options.
   */
  constructor(options: PermissionsOptions) {
    if (typeof options !== 'object' || options === null || options.policy === undefined) {
      throw new E_INVALID_OPTIONS('new Permissions({ policy }) needs a policy')
    }
    if (options.approve !== undefined && typeof options.approve !== 'function') throw new E_INVALID_OPTIONS('Permissions: approve must be a function')
    if (options.onDecision !== undefined && typeof options.onDecision !== 'function') throw new E_INVALID_OPTIONS('Permissions: onDecision must be a function')
    if (options.root !== undefined && (typeof options.root !== 'string' || options.root === '')) throw new E_INVALID_OPTIONS('Permissions: root must be a directory path')
    const policy = PermissionPolicy.isPermissionPolicy(options.policy) ? options.policy : new PermissionPolicy(options.policy)
    const root = path.resolve(options.root ?? process.cwd())
    let realRoot: Promise<string> | undefined
    // The resolved value too, once known: paths are then judged without a promise.
    let knownRoot: string | undefined
    const scope: PathScope = {
      rootDir: root,
      realRoot: () => {
        realRoot ??= resolveRealRoot(root).then(
          (real) => (knownRoot = real),
          (error: unknown) => {
            realRoot = undefined
            throw error
          },
        )
        return realRoot
      },
    }
    this.#shared = { policy, root, scope, onDecision: options.onDecision }
    this.policy = policy
    this.root = root
    this.#approve = options.approve
    this.#approverName = options.approverName ?? 'approve'
    this.#memory = new Map()
    this.#paths = pathResolver(scope, () => knownRoot)
  }

  /** Brand for {@link Permissions.isPermissions}. */
  get [PERMISSIONS_BRAND](): true {
    return true
  }

  /**
   * Whether `value` is a {@link Permissions} (from any copy of this package).
   *
   * @param value - Anything.
   * @returns Whether it is one.
   */
  static isPermissions(value: unknown): value is Permissions {
    return value instanceof Permissions || (typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[PERMISSIONS_BRAND] === true)
  }

  /**
   * The same gate with no remembered approvals: what a runner uses for each
   * new turn.
   *
   * @returns A fresh gate with this one's policy, approver, root and listener.
   */
  forTurn(): Permissions {
    return this.#derive(this.#approve, this.#approverName, new Map())
  }

  /**
   * The same gate (and the same remembered approvals) with another approver:
   * how a surface that can ask (an MCP client, a terminal) plugs in.
   *
   * @param approve - The approver; `undefined` for none (`ask` then denies).
   * @param name - Its name in decision records.
   * @returns The derived gate.
   */
  withApprover(approve: Approver | undefined, name: string): Permissions {
    return this.#derive(approve, name, this.#memory)
  }

  /** Whether an approver is set. */
  get hasApprover(): boolean {
    return this.#approve !== undefined
  }

  #derive(approve: Approver | undefined, name: string, memory: Memory): Permissions {
    const gate = new Permissions({ policy: this.policy, root: this.root, ...(approve ? { approve } : {}), approverName: name })
    // Shared, not copied: the root's resolution cache, the listener, and (for
    // withApprover) the turn's remembered approvals, seen by every view.
    gate.#shared = this.#shared
    gate.#paths = this.#paths
    gate.#memory = memory
    return gate
  }

  /**
   * What the gate would do with a call, without asking anyone or reporting
   * anything: `ask` only when an approver would be asked (an answer
   * remembered for the turn is applied).
   *
   * @param call - The validated call (`loggedArgs` is not needed; `roles` are the tool's, `Tool.roles`).
   * @returns `allow`, `ask` or `deny`.
   */
  async preview(call: Pick<GatedToolCall, 'toolName' | 'callId' | 'args' | 'roles'>): Promise<'allow' | 'ask' | 'deny'> {
    const verdict = await this.policy.evaluate({ toolName: call.toolName, callId: call.callId, args: call.args, roles: call.roles }, this.#paths)
    if (verdict.decision !== 'ask') return verdict.decision
    return this.#memory.get(verdict.rule?.index ?? -1)?.decision ?? 'ask'
  }

  /**
   * Decide one validated call; the executor calls this.
   *
   * @remarks
   * Returns `undefined` when the policy allows the call outright with
   * nothing to look up on disk (most calls: no promise, no await); otherwise
   * a promise that resolves when the call may run and rejects with
   * `TOOL_DENIED` when it may not. It never throws synchronously.
   *
   * @param call - The call.
   * @param ctx - Its context (decisions are reported through `ctx.emitPermissionDecision`).
   * @returns `undefined`, or a promise of the decision.
   * @throws {@link toolsmith/core!E_TOOL_DENIED} (as a rejection) when the call may not run.
   */
  authorize(call: GatedToolCall, ctx: DispatchContext): void | Promise<void> {
    const started = performance.now()
    let evaluated: Evaluation | Promise<Evaluation>
    try {
      evaluated = this.policy.evaluate(call, this.#paths)
    } catch (error) {
      return Promise.reject(error)
    }
    if (evaluated instanceof Promise) return evaluated.then((verdict) => this.#decided(call, ctx, verdict, started))
    try {
      return this.#decided(call, ctx, evaluated, started)
    } catch (error) {
      return Promise.reject(error)
    }
  }

  /** Act on the policy's verdict: report an allow and return, deny, or ask. */
  #decided(call: GatedToolCall, ctx: DispatchContext, verdict: Evaluation, started: number): void | Promise<void> {
    const rule = verdict.rule === undefined ? null : verdict.rule.ref
    const reason = verdict.rule?.reason
    const toolCallId = call.toolCallId
    if (verdict.decision === 'allow') {
      // The common path, kept free of object spreads.
      const event: PermissionDecisionEvent = {
        toolName: call.toolName,
        turnId: ctx.id,
        callId: call.callId,
        decision: 'allow',
        policyDecision: 'allow',
        rule,
        approver: 'policy',
        latencyMs: performance.now() - started,
      }
      if (typeof toolCallId === 'string') event.toolCallId = toolCallId
      if (reason !== undefined) event.reason = reason
      this.#report(call, ctx, event, judgedOf(verdict, false))
      return
    }
    return this.#refuseOrAsk(call, ctx, verdict, started, toolCallId)
  }

  async #refuseOrAsk(call: GatedToolCall, ctx: DispatchContext, verdict: Evaluation, started: number, toolCallId: string | undefined): Promise<void> {
    const reason = verdict.rule?.reason
    if (verdict.decision === 'deny') {
      this.#report(call, ctx, { ...baseEvent(call, ctx, verdict, toolCallId), decision: 'deny', approver: 'policy', latencyMs: performance.now() - started })
      throw denial(call.toolName, verdict, 'policy', undefined, `${describeRule(verdict)} denies it${reason ? `: ${reason}` : ''}`)
    }
    const key = verdict.rule?.index ?? -1
    // A file with several names matched the rule only because its other
    // names cannot be seen: an approval given for other files does not cover it.
    const hardLinked = verdict.path?.hardLinks !== undefined
    const remembered = this.#memory.get(key)
    if (remembered !== undefined && !(hardLinked && remembered.decision === 'allow')) {
      const note = remembered.note
      const allowed = remembered.decision === 'allow'
      this.#report(
        call,
        ctx,
        { ...baseEvent(call, ctx, verdict, toolCallId), decision: remembered.decision, approver: 'remembered', ...(note ? { note } : {}), latencyMs: performance.now() - started },
        allowed ? judgedOf(verdict, false) : undefined,
      )
      if (allowed) return
      throw denial(call.toolName, verdict, 'remembered', note, `${describeRule(verdict)} asks for approval, and ${remembered.approver} declined calls like this earlier in the turn${note ? `: ${note}` : ''}`)
    }
    if (this.#approve === undefined) {
      this.#report(call, ctx, { ...baseEvent(call, ctx, verdict, toolCallId), decision: 'deny', approver: 'none', latencyMs: performance.now() - started })
      throw denial(call.toolName, verdict, 'none', undefined, `${describeRule(verdict)} asks for approval${reason ? ` (${reason})` : ''}, and no approver is configured to ask, so it is denied`)
    }
    const answer = await this.#ask(call, ctx, verdict, toolCallId)
    if (answer.remember) this.#memory.set(key, { decision: answer.decision, note: answer.note, approver: answer.approver })
    this.#report(
      call,
      ctx,
      {
        ...baseEvent(call, ctx, verdict, toolCallId),
        decision: answer.decision,
        approver: answer.approver,
        ...(answer.note ? { note: answer.note } : {}),
        latencyMs: performance.now() - started,
      },
      answer.decision === 'allow' ? judgedOf(verdict, true) : undefined,
    )
    if (answer.decision === 'allow') return
    // Approver "none" is the approver's way of saying nobody could answer (no
    // terminal, a client without elicitation, no answer in time): its note
    // says why, and "none declined" would say nothing.
    const why =
      answer.approver === 'none'
        ? `asks for approval, but ${answer.note ?? 'nobody could be asked'}`
        : `asks for approval, and ${answer.approver} declined${answer.note ? `: ${answer.note}` : ''}`
    throw denial(call.toolName, verdict, answer.approver, answer.note, `${describeRule(verdict)} ${why}`)
  }

  async #ask(call: GatedToolCall, ctx: DispatchContext, verdict: Evaluation, toolCallId: string | undefined): Promise<Required<Pick<ApprovalResponse, 'decision' | 'approver'>> & ApprovalResponse> {
    const request: ApprovalRequest = Object.freeze({
      toolName: call.toolName,
      args: call.loggedArgs,
      rule: verdict.rule === undefined ? null : verdict.rule.ref,
      reason: verdict.rule?.reason,
      subject: verdict.subject,
      ...(verdict.path?.hardLinks === undefined ? {} : { hardLinks: verdict.path.hardLinks }),
      callId: call.callId,
      toolCallId,
      turnId: ctx.id,
      signal: ctx.abortSignal,
    })
    let answer: ApprovalAnswer
    try {
      answer = await this.#approve!(request)
    } catch (error) {
      return { decision: 'deny', approver: this.#approverName, note: `the approval failed: ${errorSummary(error)}` }
    }
    if (answer === true || answer === 'allow') return { decision: 'allow', approver: this.#approverName }
    if (answer === false || answer === 'deny') return { decision: 'deny', approver: this.#approverName }
    if (typeof answer === 'object' && answer !== null && (answer.decision === 'allow' || answer.decision === 'deny')) {
      return {
        decision: answer.decision,
        approver: typeof answer.approver === 'string' && answer.approver !== '' ? answer.approver : this.#approverName,
        ...(typeof answer.note === 'string' && answer.note !== '' ? { note: answer.note } : {}),
        ...(answer.remember === true ? { remember: true } : {}),
      }
    }
    return { decision: 'deny', approver: this.#approverName, note: 'the approver gave no answer (expected allow or deny)' }
  }

  /**
   * Record the decision on the call (what the pipeline records with it, and,
   * for an allowed run, what was judged: the handler of this run acts on
   * exactly that), then tell the listeners.
   */
  #report(call: GatedToolCall, ctx: DispatchContext, event: PermissionDecisionEvent, judged?: ReadonlyMap<string, object>): void {
    call.verdict = judged === undefined ? { decision: event } : { decision: event, judged }
    if (ctx.emitPermissionDecision !== undefined) this.#tell(ctx, ctx.emitPermissionDecision, event)
    if (this.#shared.onDecision !== undefined) this.#tell(ctx, this.#shared.onDecision, event)
  }

  #tell(ctx: DispatchContext, listener: (event: PermissionDecisionEvent) => void, event: PermissionDecisionEvent): void {
    try {
      listener.call(ctx, event)
    } catch (error) {
      process.emitWarning(`A permissionDecision listener threw: ${errorSummary(error)}`, { code: 'TOOLSMITH_LISTENER_ERROR' })
    }
  }
}

/** What every decision record of a call shares. */
function baseEvent(call: GatedToolCall, ctx: DispatchContext, verdict: PolicyVerdict, toolCallId: string | undefined): Omit<PermissionDecisionEvent, 'decision' | 'approver' | 'latencyMs'> {
  return {
    toolName: call.toolName,
    turnId: ctx.id,
    callId: call.callId,
    ...(typeof toolCallId === 'string' ? { toolCallId } : {}),
    policyDecision: verdict.decision,
    rule: verdict.rule === undefined ? null : verdict.rule.ref,
    ...(verdict.rule?.reason === undefined ? {} : { reason: verdict.rule.reason }),
  }
}

function describeRule(verdict: PolicyVerdict): string {
  return verdict.rule === undefined ? "the policy's default" : `rules[${verdict.rule.index}] (${JSON.stringify(verdict.rule.name)})`
}

function denial(toolName: string, verdict: Evaluation, approver: string, note: string | undefined, why: string): E_TOOL_DENIED {
  const subject = verdict.subject === undefined ? '' : ` ${JSON.stringify(verdict.subject)}`
  const links = verdict.path?.hardLinks
  const linked =
    // Said whenever the path decided it: a path rule, or the default an allow rule would have overridden.
    links !== undefined && (verdict.rule === undefined || verdict.rule.match.kind === 'paths')
      ? ` (the file has ${links} names (hard links), and a path rule cannot see the others, so every deny and ask path rule applies to it)`
      : ''
  // A command rule that matched only because what runs cannot be known: say why, or the rule's reason misleads.
  const unknowable = verdict.unknowable === undefined ? '' : ` (what the command runs cannot be known before it runs: ${verdict.unknowable}; so every deny and ask command rule applies)`
  // A rule that names a tool which does not declare the argument it judges: say so, or the denial reads as arbitrary.
  const undeclared =
    verdict.undeclared === undefined
      ? ''
      : ` (${toolName} declares no ${verdict.undeclared} argument (its roles.${verdict.undeclared}), so every deny and ask ${verdict.undeclared} rule that names it applies to every call)`
  return new E_TOOL_DENIED(
    `Permission denied for ${toolName}${subject}${linked}${unknowable}${undeclared}: ${why}. Do not retry the same call; do something else, or ask the user.`,
    {
      details: {
        toolName,
        rule: verdict.rule === undefined ? null : { index: verdict.rule.index, name: verdict.rule.name },
        policyDecision: verdict.decision,
        ...(verdict.rule?.reason === undefined ? {} : { reason: verdict.rule.reason }),
        approver,
        ...(note === undefined ? {} : { note }),
      },
    },
  )
}
