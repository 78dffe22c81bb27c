/**
 * `PermissionPolicy`: ordered allow / ask / deny rules, and the decision
 * they give a call.
 *
 * @module
 */
import { planOf, type Plan } from './policy_plan.js'
import { Subject } from './policy_subject.js'
import type { Evaluation, PathResolver, PolicyCall, PolicyVerdict, ResolvedSubjectPath } from './policy_types.js'
import { compilePolicy, type CompiledPolicy, type CompiledRule, type PermissionDecision, type RawPermissionPolicy } from './rules.js'

export type { Evaluation, PathResolver, PolicyCall, PolicyVerdict, ResolvedSubjectPath } from './policy_types.js'

const POLICY_BRAND = Symbol.for('toolsmith.permissionPolicy')

const STRENGTH: Record<PermissionDecision, number> = { allow: 0, ask: 1, deny: 2 }

/**
 * An ordered permission policy: `{ tool, match?, decision, reason? }` rules
 * and a default decision.
 *
 * @remarks
 * Every rule that applies to a call is considered: `deny` wins over `ask`,
 * `ask` over `allow`, and among rules of the winning decision the first one
 * is reported. A call no rule matches gets the default (`allow` unless set).
 * Matching fails closed: a path that cannot be resolved inside the root, a
 * command word computed at run time, a predicate that throws, or a rule that
 * names a tool which declares no argument of the rule's kind (see
 * `ArgumentRoles`) counts as matching every `deny` and `ask` rule it meets
 * and no `allow` rule.
 *
 * Path rules judge the argument a tool declares as its `path` or
 * `searchRoot` role, command rules its `command` (with `commandArgs` and
 * `workingDirectory`): tools are known by what they declare, never by name.
 *
 * Rules are plain data (load them from JSON with `loadPermissionPolicy`) plus
 * `when` predicates in code. The policy itself holds no state; `Permissions`
 * enforces it and asks for approvals.
 *
 * @example
 * ```ts
 * const policy = new PermissionPolicy({
 *   rules: [
 *     { tool: ['read', 'write', 'edit', 'grep'], match: { paths: ['.env*', 'secrets/**'] }, decision: 'deny', reason: 'secrets stay secret' },
 *     { tool: 'bash', match: { commands: ['git push', 'npm publish'] }, decision: 'ask' },
 *   ],
 * })
 * ```
 */
export class PermissionPolicy {
  /** The default decision. */
  readonly defaultDecision: PermissionDecision
  /** The compiled rules, in order. */
  readonly rules: readonly CompiledRule[]
  readonly #byTool = new Map<string, readonly CompiledRule[]>()
  readonly #plans = new Map<string, Plan>()

  /**
   * @param raw - `{ default?, rules }`, or an array of rules.
   * @param source - Where the policy came from (a file), for error messages.
   * @throws {@link toolsmith/core!E_INVALID_POLICY} naming the first bad rule by index.
   */
  constructor(raw: RawPermissionPolicy | RawPermissionPolicy['rules'], source?: string) {
    const compiled: CompiledPolicy = compilePolicy(raw, source)
    this.defaultDecision = compiled.defaultDecision
    this.rules = Object.freeze([...compiled.rules])
  }

  /** Brand for {@link PermissionPolicy.isPermissionPolicy}. */
  get [POLICY_BRAND](): true {
    return true
  }

  /**
   * Whether `value` is a policy (from any copy of this package).
   *
   * @param value - Anything.
   * @returns Whether it is a {@link PermissionPolicy}.
   */
  static isPermissionPolicy(value: unknown): value is PermissionPolicy {
    return value instanceof PermissionPolicy || (typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[POLICY_BRAND] === true)
  }

  /**
   * The rules that concern a tool, in order (cached per name).
   *
   * @param toolName - A tool name.
   * @returns Its rules, `*` rules included.
   */
  rulesFor(toolName: string): readonly CompiledRule[] {
    let rules = this.#byTool.get(toolName)
    if (rules === undefined) {
      rules = this.rules.filter((rule) => rule.tools.includes('*') || rule.tools.includes(toolName))
      this.#byTool.set(toolName, rules)
    }
    return rules
  }

  /**
   * Decide a call.
   *
   * @param call - Tool name, callId and validated args.
   * @param paths - Resolves path arguments inside the root.
   * @returns The decision, the deciding rule and the call's subject.
   */
  async decide(call: PolicyCall, paths: PathResolver): Promise<PolicyVerdict> {
    const verdict = await this.evaluate(call, paths)
    return { decision: verdict.decision, rule: verdict.rule, subject: verdict.subject }
  }

  /**
   * {@link PermissionPolicy.decide} without a promise when none is needed
   * (no path to resolve, no directory to look into), and with `subject`
   * worked out only when read: what the gate runs on every call.
   *
   * @param call - Tool name, callId and validated args.
   * @param paths - Resolves path arguments inside the root.
   * @returns The verdict, or a promise of it.
   * @internal
   */
  evaluate(call: PolicyCall, paths: PathResolver): Evaluation | Promise<Evaluation> {
    const plan = this.#planFor(call.toolName)
    const subject = new Subject(call, paths, plan)
    if (plan.needsPath) {
      // Its path is resolved once, whatever the number of rules: without a
      // promise once the real root is known and no symlink is on the way.
      const input = subject.pathInput
      if (input !== undefined) {
        const resolved = paths.resolve(input)
        if (resolved instanceof Promise) return resolved.then((found) => this.#judge(plan, subject.withPath(found), 0, undefined))
        subject.withPath(resolved)
      }
    }
    return this.#judge(plan, subject, 0, undefined)
  }

  /** The rules from `start` on, synchronously until a match needs the file system. */
  #judge(plan: Plan, subject: Subject, start: number, best: CompiledRule | undefined): Evaluation | Promise<Evaluation> {
    const rules = plan.rules
    for (let i = start; i < rules.length; i++) {
      const rule = rules[i]!
      if (best !== undefined && STRENGTH[rule.decision] <= STRENGTH[best.decision]) continue
      const matched = subject.matches(rule, i)
      if (matched === false) continue
      if (matched !== true) return this.#judgeAfter(plan, subject, i, best, matched)
      best = rule
      if (rule.decision === 'deny') break
    }
    return new Verdict(best?.decision ?? this.defaultDecision, best, subject)
  }

  async #judgeAfter(plan: Plan, subject: Subject, i: number, best: CompiledRule | undefined, pending: Promise<boolean>): Promise<Evaluation> {
    const rule = plan.rules[i]!
    if (!(await pending)) return this.#judge(plan, subject, i + 1, best)
    return rule.decision === 'deny' ? new Verdict('deny', rule, subject) : this.#judge(plan, subject, i + 1, rule)
  }

  #planFor(toolName: string): Plan {
    let plan = this.#plans.get(toolName)
    if (plan === undefined) {
      plan = planOf(this.rulesFor(toolName), this.defaultDecision)
      this.#plans.set(toolName, plan)
    }
    return plan
  }
}

/** A verdict whose `subject` (a string built from the args) is made only when read: an allowed call never reads it. */
class Verdict implements Evaluation {
  readonly decision: PermissionDecision
  readonly rule: CompiledRule | undefined
  readonly #of: Subject

  constructor(decision: PermissionDecision, rule: CompiledRule | undefined, of: Subject) {
    this.decision = decision
    this.rule = rule
    this.#of = of
  }

  get subject(): string | undefined {
    return this.#of.describe()
  }

  get path(): ResolvedSubjectPath | undefined | null {
    return this.#of.path
  }

  get guardsLinks(): boolean {
    return this.#of.guardsLinks
  }

  get unknowable(): string | undefined {
    return this.rule?.match.kind === 'commands' && this.rule.decision !== 'allow' ? this.#of.unknowable : undefined
  }

  get pathArgument(): string | undefined {
    return this.#of.pathArgument
  }

  get undeclared(): string | undefined {
    return this.#of.undeclared(this.rule)
  }
}
