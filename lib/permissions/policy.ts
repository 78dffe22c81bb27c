/**
 * `PermissionPolicy`: ordered allow / ask / deny rules, and the decision
 * they give a call.
 *
 * @module
 */
import { errorSummary } from '../exceptions.js'
import { commandSubject, type CommandSubject } from './command_match.js'
import { compilePolicy, type CompiledPolicy, type CompiledRule, type PermissionCallInfo, type PermissionDecision, type RawPermissionPolicy } from './rules.js'

const POLICY_BRAND = Symbol.for('toolsmith.permissionPolicy')

/**
 * Where a path argument lands, as the policy sees it: root-relative, after
 * `..` and symlinks; `undefined` when it cannot be resolved inside the root.
 */
export interface ResolvedSubjectPath {
  /** Root-relative, `/`-separated; `.` for the root. */
  readonly relative: string
  /** Whether it is an existing directory (rules about what lies below then count too). */
  readonly isDirectory: boolean
}

/** How the policy resolves path arguments and checks that a path exists (supplied by `Permissions`). */
export interface PathResolver {
  /** Resolve a path argument; `undefined` when it escapes the root or is invalid. */
  resolve(input: string): Promise<ResolvedSubjectPath | undefined>
  /** Whether a root-relative path exists. */
  exists(relative: string): Promise<boolean>
}

/** A call as the policy sees it. */
export interface PolicyCall extends PermissionCallInfo {
  /** The validated args. */
  readonly args: unknown
}

/** What the policy says about a call. */
export interface PolicyVerdict {
  /** The decision. */
  readonly decision: PermissionDecision
  /** The deciding rule; `undefined` when none matched (the default applies). */
  readonly rule: CompiledRule | undefined
  /** What the call acts on, for messages: the resolved path or the command line. */
  readonly subject: string | undefined
}

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
 * command word computed at run time, or a predicate that throws counts as
 * matching every `deny` and `ask` rule it meets and no `allow` rule.
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
  readonly #plans = new Map<string, { rules: readonly CompiledRule[]; needsPath: boolean }>()

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
    const { rules, needsPath } = this.#compiledFor(call.toolName)
    const subject = new Subject(call, paths)
    // The one await of most calls: resolving the path, once, and only when a path rule applies.
    if (needsPath) await subject.resolvePath()
    let best: CompiledRule | undefined
    for (const rule of rules) {
      if (best !== undefined && STRENGTH[rule.decision] <= STRENGTH[best.decision]) continue
      let matched = subject.matches(rule)
      if (matched !== true && matched !== false) matched = await matched
      if (!matched) continue
      best = rule
      if (rule.decision === 'deny') break
    }
    return { decision: best?.decision ?? this.defaultDecision, rule: best, subject: subject.describe() }
  }

  #compiledFor(toolName: string): { rules: readonly CompiledRule[]; needsPath: boolean } {
    let entry = this.#plans.get(toolName)
    if (entry === undefined) {
      const rules = this.rulesFor(toolName)
      entry = { rules, needsPath: rules.some((rule) => rule.match.kind === 'paths') }
      this.#plans.set(toolName, entry)
    }
    return entry
  }
}

/** One call's path or commands, worked out at most once whatever the number of rules. */
class Subject {
  readonly #call: PolicyCall
  readonly #paths: PathResolver
  readonly #info: PermissionCallInfo
  #path: ResolvedSubjectPath | undefined | null = null
  #commands: CommandSubject | undefined

  constructor(call: PolicyCall, paths: PathResolver) {
    this.#call = call
    this.#paths = paths
    this.#info = { toolName: call.toolName, callId: call.callId }
  }

  /** Resolve the call's `path` argument (when it has one) before matching. */
  async resolvePath(): Promise<void> {
    const input = (this.#call.args as { path?: unknown } | null)?.path
    this.#path = typeof input === 'string' ? await this.#paths.resolve(input) : null
  }

  /** Whether the rule matches; a promise only when a directory's contents must be looked at. */
  matches(rule: CompiledRule): boolean | Promise<boolean> {
    const strict = rule.decision !== 'allow'
    const match = rule.match
    switch (match.kind) {
      case 'any':
        return true
      case 'when':
        try {
          return match.when(this.#call.args, this.#info) === true
        } catch (error) {
          process.emitWarning(`Permission rule rules[${rule.index}] (${rule.name}) threw: ${errorSummary(error)}; treated as ${strict ? 'matching' : 'not matching'}`, {
            code: 'TOOLSMITH_PERMISSION_PREDICATE_ERROR',
          })
          return strict
        }
      case 'paths': {
        const resolved = this.#path
        if (resolved === null) return false // no path argument
        if (resolved === undefined) return strict // cannot be resolved inside the root
        let needed: string[] | undefined
        for (const glob of match.globs) {
          if (glob.matches(resolved.relative)) return true
          if (!strict || !resolved.isDirectory) continue
          // A search of a directory reaches what lies below it.
          const below = glob.couldMatchBelow(resolved.relative, this.#call.toolName === 'grep')
          if (below === true) return true
          if (below !== false) (needed ??= []).push(...below)
        }
        return needed === undefined ? false : this.#anyExists(needed)
      }
      case 'commands': {
        const commands = this.#commandSubject()
        if (commands === undefined) return false
        if (commands.dynamic !== undefined) return strict
        const { commands: argvs, names } = commands
        for (let i = 0; i < argvs.length; i++) {
          const name = names[i]!
          if (!match.executables.has(name)) continue
          for (const prefix of match.prefixes) if (prefix.matchesNamed(name, argvs[i]!)) return true
        }
        return false
      }
    }
  }

  async #anyExists(paths: readonly string[]): Promise<boolean> {
    for (const needed of paths) if (await this.#paths.exists(needed)) return true
    return false
  }

  #commandSubject(): CommandSubject | undefined {
    if (this.#commands !== undefined) return this.#commands
    const args = this.#call.args as { cmd?: unknown; args?: unknown } | null
    if (typeof args?.cmd !== 'string') return undefined
    const rest = Array.isArray(args.args) ? args.args.filter((a): a is string => typeof a === 'string') : []
    this.#commands = commandSubject(args.cmd, rest)
    return this.#commands
  }

  describe(): string | undefined {
    const args = this.#call.args as { path?: unknown; cmd?: unknown; args?: unknown } | null
    if (typeof args?.cmd === 'string') {
      const line = [args.cmd, ...(Array.isArray(args.args) ? args.args.map(String) : [])].join(' ')
      return line.length > 200 ? `${line.slice(0, 200)}…` : line
    }
    if (typeof args?.path === 'string') return args.path
    return undefined
  }
}
