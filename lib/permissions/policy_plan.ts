/**
 * A tool's rules prepared once per tool name for the policy's matching.
 *
 * @module
 */
import type { CommandPrefix } from './command_match.js'
import { abbreviatesSubcommands } from './option_spellings.js'
import type { CompiledRule, PermissionDecision } from './rules.js'

/**
 * A tool's rules, prepared once per tool name: whether a path must be
 * resolved, and its command rules indexed by the executable their prefixes
 * name, so a call checks only the prefixes that can match its commands.
 */
export interface Plan {
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
   * Whether some `allow` rule matches commands. Only such a rule asks which
   * file a bare name runs (a program of the root is not what `allow echo`
   * vouches for); `deny` and `ask` rules compare the name alone, so without
   * one the call's `PATH` is not looked at.
   */
  readonly allowsCommands: boolean
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
export interface SlotPrefix {
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
export interface PrefixIndex {
  readonly always: SlotPrefix[]
  readonly bySecondWord: Map<string, SlotPrefix[]>
}

/**
 * Prepare a tool's rules: which need a path, the command rules' slots and
 * prefix index, and the literal screen of its path globs.
 *
 * @param rules - The tool's rules, in order.
 * @param defaultDecision - The policy's default.
 * @returns The plan.
 */
export function planOf(rules: readonly CompiledRule[], defaultDecision: PermissionDecision): Plan {
  const slots: number[] = []
  const byExecutable = new Map<string, PrefixIndex>()
  let commandRules = 0
  let allowsCommands = false
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
    allowsCommands ||= !strict
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
  return { rules, needsPath: pathRules.length > 0, guardsLinks, slots, commandRules, allowsCommands, byExecutable, pathScreen, screened }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
}
