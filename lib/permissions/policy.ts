/**
 * `PermissionPolicy`: ordered allow / ask / deny rules, and the decision
 * they give a call.
 *
 * @module
 */
import { errorSummary } from '../exceptions.js'
import { isComputedWord } from '../sandbox/shell_words.js'
import { commandSubject, isPathLookup, type CommandPrefix, type CommandSubject } from './command_match.js'
import { abbreviatesSubcommands } from './option_spellings.js'
import { PathGlob } from './glob.js'
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
  /**
   * How many names (hard links) it has, when it is a regular file with more
   * than one: a rule sees only this name, so such a path cannot be judged
   * (it matches every `deny` and `ask` path rule and no `allow` one).
   */
  readonly hardLinks?: number | undefined
}

/** How the policy resolves path arguments and checks that a path exists (supplied by `Permissions`). */
export interface PathResolver {
  /**
   * Resolve a path argument; `undefined` when it escapes the root or is
   * invalid. May answer without a promise (then the call is judged without one).
   */
  resolve(input: string): ResolvedSubjectPath | undefined | Promise<ResolvedSubjectPath | undefined>
  /** Whether a root-relative path exists. */
  exists(relative: string): Promise<boolean>
  /**
   * For one call: a function from a bare command name to the root-relative
   * path of the program `PATH` finds for it, when that lies inside the root
   * (see `root_programs.ts`); `undefined` when no lookup is done.
   */
  programs?(): ((name: string) => string | undefined) | undefined
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
      const input = (call.args as { path?: unknown } | null)?.path
      if (typeof input === 'string') {
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

/**
 * A tool's rules, prepared once per tool name: whether a path must be
 * resolved, and its command rules indexed by the executable their prefixes
 * name, so a call checks only the prefixes that can match its commands.
 */
interface Plan {
  /** The tool's rules, in order. */
  readonly rules: readonly CompiledRule[]
  /** Whether some rule matches paths. */
  readonly needsPath: boolean
  /**
   * Whether a path of this tool can be refused (a `deny` or `ask` path rule,
   * or path rules under a default that is not `allow`): then a handler must
   * not act on a file whose other names were never judged.
   */
  readonly guardsLinks: boolean
  /** For each rule, its slot among the command rules; -1 for other rules. */
  readonly slots: readonly number[]
  /** How many command rules. */
  readonly commandRules: number
  /**
   * Every literal text the path globs of this tool require, as one regular
   * expression (V8 tests an alternation of literals in tens of
   * nanoseconds): a path that contains none of them matches no glob that
   * has one, which spares testing those globs one by one. `undefined` when
   * no glob has one.
   */
  readonly pathScreen: RegExp | undefined
  /** For each rule: a path rule all of whose globs the screen covers. */
  readonly screened: readonly boolean[]
  /** Executable name → its command rules' prefixes (see {@link PrefixIndex}). */
  readonly byExecutable: ReadonlyMap<string, PrefixIndex>
}

/** A command rule's prefix, the rule's slot, and whether it matches as a `deny`/`ask` rule (see {@link CommandPrefix}). */
interface SlotPrefix {
  readonly slot: number
  readonly prefix: CommandPrefix
  readonly strict: boolean
}

/**
 * The prefixes that start with one executable name: those checked against
 * every command of that name (`rm`, and `rm -rf`: option words may be
 * spelled many ways; the deny/ask prefixes of a program whose subcommands
 * can be abbreviated, `npm publ`), and the others by their second word, an operand. Such
 * a prefix advances past its second word only on an equal word of the
 * command (options may sit between), or on a computed word (`$X`, `pus?`),
 * which could be it: a command with neither cannot match, so `git status`
 * is checked against no `git push…` prefix at all, while `git "$X"` (a
 * computed word where the second word would be) is checked against all of
 * them.
 */
interface PrefixIndex {
  readonly always: SlotPrefix[]
  readonly bySecondWord: Map<string, SlotPrefix[]>
}

function planOf(rules: readonly CompiledRule[], defaultDecision: PermissionDecision): Plan {
  const slots: number[] = []
  const byExecutable = new Map<string, PrefixIndex>()
  let commandRules = 0
  const literals = new Set<string>()
  const screened: boolean[] = []
  for (const rule of rules) {
    screened.push(rule.match.kind === 'paths' && rule.match.globs.every((glob) => glob.requiredText !== undefined))
    if (rule.match.kind === 'paths') for (const glob of rule.match.globs) for (const text of glob.requiredText ?? []) literals.add(text)
    if (rule.match.kind !== 'commands') {
      slots.push(-1)
      continue
    }
    const slot = commandRules++
    slots.push(slot)
    const strict = rule.decision !== 'allow'
    for (const prefix of rule.match.prefixes) {
      const name = prefix.words[0]!
      let index = byExecutable.get(name)
      if (index === undefined) byExecutable.set(name, (index = { always: [], bySecondWord: new Map() }))
      const second = prefix.words[1]
      if (second === undefined || (second.startsWith('-') && second.length > 1 && second !== '--') || (strict && abbreviatesSubcommands(name))) {
        index.always.push({ slot, prefix, strict })
        continue
      }
      let entries = index.bySecondWord.get(second)
      if (entries === undefined) index.bySecondWord.set(second, (entries = []))
      entries.push({ slot, prefix, strict })
    }
  }
  const pathScreen = literals.size === 0 ? undefined : new RegExp([...literals].map(escapeRegExp).join('|'))
  const pathRules = rules.filter((rule) => rule.match.kind === 'paths')
  const guardsLinks = pathRules.length > 0 && (defaultDecision !== 'allow' || pathRules.some((rule) => rule.decision !== 'allow'))
  return { rules, needsPath: pathRules.length > 0, guardsLinks, slots, commandRules, byExecutable, pathScreen, screened }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
}

/**
 * What `evaluate` says: a verdict, and the call's path as resolved (`null`
 * when it has none or no path rule applies, `undefined` when it does not
 * resolve inside the root).
 *
 * @internal
 */
export interface Evaluation extends PolicyVerdict {
  /** The resolved path argument, as the resolver returned it. */
  readonly path: ResolvedSubjectPath | undefined | null
  /** Whether the tool's path rules can refuse a path (see `Plan.guardsLinks`): the handler must then refuse a file with other names. */
  readonly guardsLinks: boolean
  /**
   * Why the call's commands cannot be known (a computed command word, a
   * program running code of its own), when a command rule decided it
   * because of that: the denial says so.
   */
  readonly unknowable: string | undefined
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
}

/** One call's path or commands, worked out at most once whatever the number of rules. */
class Subject {
  readonly #call: PolicyCall
  readonly #paths: PathResolver
  readonly #plan: Plan
  #info: PermissionCallInfo | undefined
  /** `null`: no path argument; `undefined`: it cannot be resolved inside the root. */
  #path: ResolvedSubjectPath | undefined | null = null
  /** `PathGlob.subjectOf(#path.relative)`, made once for every glob. */
  #pathText = ''
  /** Whether the path contains any literal text of the tool's globs (`Plan.pathScreen`), tested once. */
  #literalSeen: boolean | undefined
  #commands: CommandSubject | undefined
  /** Per command rule (by slot): 1 when one of its prefixes matches one of the call's commands. */
  #hits: Uint8Array | undefined
  /** Whether every command of the call is covered by an allow prefix (set with `#hits`). */
  #allCovered = false
  #described: string | undefined | null = null

  constructor(call: PolicyCall, paths: PathResolver, plan: Plan) {
    this.#call = call
    this.#paths = paths
    this.#plan = plan
  }

  /** The resolved path argument (see {@link Evaluation.path}). */
  get path(): ResolvedSubjectPath | undefined | null {
    return this.#path
  }

  /** See {@link Evaluation.guardsLinks}. */
  get guardsLinks(): boolean {
    return this.#plan.guardsLinks
  }

  /** See {@link Evaluation.unknowable}. */
  get unknowable(): string | undefined {
    return this.#commands?.dynamic
  }

  /** Set the call's resolved `path` argument, before matching. */
  withPath(resolved: ResolvedSubjectPath | undefined): this {
    this.#path = resolved
    if (resolved !== undefined) this.#pathText = PathGlob.subjectOf(resolved.relative)
    return this
  }

  /**
   * Whether the rule (at `position` in the plan) matches; a promise only
   * when a directory's contents must be looked at.
   */
  matches(rule: CompiledRule, position: number): boolean | Promise<boolean> {
    const strict = rule.decision !== 'allow'
    const match = rule.match
    switch (match.kind) {
      case 'any':
        return true
      case 'when':
        try {
          return match.when(this.#call.args, (this.#info ??= { toolName: this.#call.toolName, callId: this.#call.callId })) === true
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
        // Other names of the file are invisible here (one may be `.env`): fail closed.
        if (resolved.hardLinks !== undefined) return strict
        const text = this.#pathText
        const seen = (this.#literalSeen ??= this.#plan.pathScreen === undefined || this.#plan.pathScreen.test(text))
        const below = strict && resolved.isDirectory
        // No literal text of any glob in the path: no screened glob can match it.
        if (!seen && !below && this.#plan.screened[position] === true) return false
        let needed: string[] | undefined
        for (const glob of match.globs) {
          if ((seen || glob.requiredText === undefined) && glob.matchesSubject(text)) return true
          if (!below) continue
          // A search of a directory reaches what lies below it.
          const reach = glob.couldMatchBelow(resolved.relative, this.#call.toolName === 'grep')
          if (reach === true) return true
          if (reach !== false) (needed ??= []).push(...reach)
        }
        return needed === undefined ? false : this.#anyExists(needed)
      }
      case 'commands': {
        const commands = this.#commandSubject()
        if (commands === undefined) return false
        if (commands.dynamic !== undefined) return strict
        const hit = (this.#hits ??= this.#matchCommands(commands))[this.#plan.slots[position]!] === 1
        // An allow prefix grants the call only when every command of it is covered.
        return hit && (strict || this.#allCovered)
      }
    }
  }

  /**
   * Every command rule's answer at once: each command is checked only
   * against the prefixes that start with its executable's name (a prefix
   * naming another executable cannot match it), and among those, see
   * {@link PrefixIndex}.
   */
  #matchCommands(commands: CommandSubject): Uint8Array {
    const hits = new Uint8Array(this.#plan.commandRules)
    const { commands: argvs, names, passThrough } = commands
    // A call an allow prefix cannot vouch for (see CommandSubject.opaque) is covered by none.
    let covered = commands.opaque === undefined
    // Whether a command may run outside the root (a `cd`, or the call's own `opts.cwd`): a relative
    // program path (`bin/x`) is then another file, and git may work on another repository.
    const elsewhere = commands.movesDirectory || startsElsewhere(this.#call.args)
    for (let i = 0; i < argvs.length; i++) {
      const name = names[i]!
      const index = this.#plan.byExecutable.get(name)
      // An allow rule covers a script only when every command it runs is
      // covered: by an allow prefix, as a wrapper of covered commands, or as
      // a harmless builtin. `npm test; git push` is not `npm test`.
      const argv = argvs[i]!
      let allowed = passThrough[i] === true || harmless(name, argv)
      if (index === undefined) {
        covered &&= allowed
        continue
      }
      if (checkPrefixes(index.always, name, argv, hits, elsewhere)) allowed = true
      if (index.bySecondWord.size > 0) {
        if (secondWordComputed(argv)) {
          // A computed word could be any second word: every prefix decides for itself.
          for (const entries of index.bySecondWord.values()) if (checkPrefixes(entries, name, argv, hits, elsewhere)) allowed = true
        } else {
          for (let w = 1; w < argv.length; w++) {
            const entries = index.bySecondWord.get(argv[w]!)
            if (entries !== undefined && checkPrefixes(entries, name, argv, hits, elsewhere)) allowed = true
          }
        }
      }
      // git in another directory may be a nested repository, whose configuration and hooks the root's rules never saw.
      covered &&= allowed && !runsConfiguredCode(name, argv) && !(name === 'git' && elsewhere)
    }
    this.#allCovered = covered
    return hits
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
    this.#commands = withRootPrograms(commandSubject(args.cmd, rest), this.#paths.programs?.())
    return this.#commands
  }

  /** What the call acts on, for messages: the command line or the path as given. */
  describe(): string | undefined {
    if (this.#described === null) this.#described = describeArgs(this.#call.args)
    return this.#described
  }
}

/**
 * `subject` with each bare command name that `PATH` finds inside the root
 * given as that path (`echo` → `node_modules/.bin/echo`): a bare allow rule
 * then does not cover it, and as a wrapper it covers nothing.
 */
function withRootPrograms(subject: CommandSubject, lookup: ((name: string) => string | undefined) | undefined): CommandSubject {
  if (lookup === undefined) return subject
  let commands: (readonly string[])[] | undefined
  let passThrough: boolean[] | undefined
  for (let i = 0; i < subject.commands.length; i++) {
    const argv = subject.commands[i]!
    const word = argv[0]
    if (word === undefined || word === '' || word.includes('/') || isComputedWord(word)) continue
    const file = lookup(word)
    if (file === undefined) continue
    ;(commands ??= [...subject.commands])[i] = [file, ...argv.slice(1)]
    ;(passThrough ??= [...subject.passThrough])[i] = false
  }
  return commands === undefined ? subject : { ...subject, commands, passThrough: passThrough! }
}

/**
 * Whether a computed word ({@link isComputedWord}) stands where a prefix's
 * second word could be compared: the first operand, past options and the
 * values they may take (the walk of `CommandPrefix`). A computed word later
 * on (`git add src/*.ts`) is never compared with a second word.
 */
function secondWordComputed(argv: readonly string[]): boolean {
  let afterOption = false
  for (let w = 1; w < argv.length; w++) {
    const word = argv[w]!
    if (isComputedWord(word)) return true
    if (word === '--') return w + 1 < argv.length && isComputedWord(argv[w + 1]!)
    if (word.startsWith('-') && word !== '-') afterOption = !word.includes('=')
    else if (afterOption) afterOption = false
    else return false
  }
  return false
}

/**
 * Mark in `hits` the rules whose prefixes among `entries` match one
 * command, and say whether an `allow` prefix does (an allow rule already
 * hit by an earlier command is checked again until one covers this one).
 */
function checkPrefixes(entries: readonly SlotPrefix[], name: string, argv: readonly string[], hits: Uint8Array, elsewhere: boolean): boolean {
  let allowed = false
  for (let e = 0; e < entries.length; e++) {
    const { slot, prefix, strict } = entries[e]!
    if (hits[slot] === 1 && (strict || allowed)) continue
    // An allow rule for `bin/x` names a file relative to the root: after a `cd` it is another one.
    if (!strict && elsewhere && prefix.path !== undefined && !prefix.path.startsWith('/')) continue
    if (!prefix.matchesNamed(name, argv, strict)) continue
    hits[slot] = 1
    if (!strict) allowed = true
  }
  return allowed
}

/**
 * Commands that act on nothing but the shell's own state or its output, and
 * the words that open or close the shell's compound commands: an allow rule
 * for a script need not name them (`cd src && npm test` is covered by an
 * allow rule for `npm test`). A command substitution in them is a command of
 * its own and is judged as one.
 */
const HARMLESS = new Set(['cd', 'pushd', 'popd', 'pwd', 'true', 'false', ':', 'echo', 'printf', 'test', '[', 'for', 'case', 'select', 'fi', 'done', 'esac'])

/**
 * A harmless builtin, given plain words: `-v` (`test -v 'a[$(…)]'`,
 * `printf -v NAME`) evaluates or assigns a variable, and `${…}`, `$(…)` and
 * backquotes can run code, so neither is harmless (`cd "$DIR"` is).
 */
function harmless(name: string, argv: readonly string[]): boolean {
  // `./echo` and `bin/cd` are files of the root, not the builtins.
  if (!HARMLESS.has(name) || !isPathLookup(argv[0]!)) return false
  for (let w = 1; w < argv.length; w++) {
    const word = argv[w]!
    if (word.startsWith('-v') || word.includes('${') || word.includes('$(') || word.includes('`')) return false
  }
  return true
}

/**
 * Options with which an allowed program runs code its command line does
 * not show (`git -c core.fsmonitor=…`, `npm --node-options=…`): an allow
 * prefix does not cover a command that has one.
 */
const CODE_OPTIONS: ReadonlyMap<string, RegExp> = new Map([
  // -C, --git-dir and --work-tree: another repository, whose configuration and hooks the root's rules never saw.
  ['git', /^(?:-c$|-c.|--config-env|--exec-path|--upload-pack|--receive-pack|--template|-C$|--git-dir|--work-tree)/],
  ['npm', /^--(?:node-options|script-shell|userconfig|globalconfig|prefix|call)(?:=|$)|^-c$/],
  ['pnpm', /^--(?:node-options|script-shell|config\.)|^-c$/],
  ['yarn', /^--(?:node-options|script-shell)/],
  ['node', /^(?:-e|--eval|-p|--print|-r|--require|--import|--loader|--experimental-loader)(?:=|$)/],
])

/** Whether the call starts in a directory other than the root (`bash`'s `opts.cwd`). */
function startsElsewhere(args: unknown): boolean {
  const cwd = (args as { opts?: { cwd?: unknown } } | null)?.opts?.cwd
  return typeof cwd === 'string' && cwd !== '' && cwd !== '.' && cwd !== './'
}

function runsConfiguredCode(name: string, argv: readonly string[]): boolean {
  const pattern = CODE_OPTIONS.get(name)
  if (pattern === undefined) return false
  for (let w = 1; w < argv.length; w++) {
    const word = argv[w]!
    if (word === '--') return false
    if (pattern.test(word)) return true
  }
  return false
}

function describeArgs(value: unknown): string | undefined {
  const args = value as { path?: unknown; cmd?: unknown; args?: unknown } | null
  if (typeof args?.cmd === 'string') {
    const line = [args.cmd, ...(Array.isArray(args.args) ? args.args.map(String) : [])].join(' ')
    return line.length > 200 ? `${line.slice(0, 200)}…` : line
  }
  if (typeof args?.path === 'string') return args.path
  return undefined
}
