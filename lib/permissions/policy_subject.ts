/**
 * One call's path or commands as the policy's rules see them.
 *
 * @module
 */
import { argumentValue } from '../core/argument_roles.js'
import { errorSummary } from '../exceptions.js'
import { commandSubject, type CommandSubject } from './command_match.js'
import { checkPrefixes, harmless, runsConfiguredCode, secondWordComputed, withRootPrograms } from './command_coverage.js'
import { PathGlob } from './glob.js'
import type { Plan } from './policy_plan.js'
import type { PathResolver, PolicyCall, ResolvedSubjectPath } from './policy_types.js'
import type { CompiledRule, PermissionCallInfo } from './rules.js'

/**
 * One call's path or commands, worked out at most once whatever the number
 * of rules. Which arguments are the path and the command is what the tool
 * declares (its argument roles), never guessed from their names.
 *
 * @internal
 */
export class Subject {
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

  /** The name of the argument path rules judge (the tool's `path` or `searchRoot` role); `undefined` when it declares none. */
  get pathArgument(): string | undefined {
    const roles = this.#call.roles
    return roles?.path ?? roles?.searchRoot
  }

  /** The call's path argument, when it is a string. */
  get pathInput(): string | undefined {
    const name = this.pathArgument
    if (name === undefined) return undefined
    const value = argumentValue(this.#call.args, name)
    return typeof value === 'string' ? value : undefined
  }

  /**
   * See {@link Evaluation.undeclared}: the role the deciding rule needed and
   * the tool does not declare.
   */
  undeclared(rule: CompiledRule | undefined): string | undefined {
    if (rule === undefined || rule.decision === 'allow') return undefined
    if (rule.match.kind === 'paths' && this.pathArgument === undefined) return 'path'
    if (rule.match.kind === 'commands' && this.#call.roles?.command === undefined) return 'command'
    return undefined
  }

  /**
   * A rule of a kind whose role the tool does not declare: a rule for every
   * tool (`*`) does not concern it; a rule that names it fails closed
   * (matches as a `deny` or `ask` rule, not as an `allow` one).
   */
  #unjudgeable(rule: CompiledRule, strict: boolean): boolean {
    return strict && rule.tools.includes(this.#call.toolName)
  }

  /** Set the call's resolved path argument, before matching. */
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
        if (this.pathArgument === undefined) return this.#unjudgeable(rule, strict)
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
          // A search root's search skips hidden names (see ArgumentRoles.searchRoot).
          const reach = glob.couldMatchBelow(resolved.relative, this.#call.roles?.searchRoot !== undefined)
          if (reach === true) return true
          if (reach !== false) (needed ??= []).push(...reach)
        }
        return needed === undefined ? false : this.#anyExists(needed)
      }
      case 'commands': {
        if (this.#call.roles?.command === undefined) return this.#unjudgeable(rule, strict)
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
    const elsewhere = commands.movesDirectory || this.#startsElsewhere()
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
    const line = this.#commandLine()
    if (line === undefined) return undefined
    // Which file a bare name runs matters to allow rules only (see Plan.allowsCommands).
    this.#commands = withRootPrograms(commandSubject(line[0], line[1]), this.#plan.allowsCommands ? this.#paths.programs?.() : undefined)
    return this.#commands
  }

  /** The command and its arguments, from the tool's `command` and `commandArgs` roles. */
  #commandLine(): [string, string[]] | undefined {
    const roles = this.#call.roles
    if (roles?.command === undefined) return undefined
    const command = argumentValue(this.#call.args, roles.command)
    if (typeof command !== 'string') return undefined
    const rest = roles.commandArgs === undefined ? undefined : argumentValue(this.#call.args, roles.commandArgs)
    return [command, Array.isArray(rest) ? rest.filter((a): a is string => typeof a === 'string') : []]
  }

  /** Whether the call starts in a directory other than the root (its `workingDirectory` argument). */
  #startsElsewhere(): boolean {
    const name = this.#call.roles?.workingDirectory
    if (name === undefined) return false
    const cwd = argumentValue(this.#call.args, name)
    return typeof cwd === 'string' && cwd !== '' && cwd !== '.' && cwd !== './'
  }

  /** What the call acts on, for messages: the command line or the path as given. */
  describe(): string | undefined {
    if (this.#described === null) {
      const line = this.#commandLine()
      if (line !== undefined) {
        const text = [line[0], ...line[1]].join(' ')
        this.#described = text.length > 200 ? `${text.slice(0, 200)}…` : text
      } else {
        this.#described = this.pathInput
      }
    }
    return this.#described
  }
}
