/**
 * Whether an allow rule's command prefixes cover every command of a call:
 * programs found inside the root, computed words, harmless builtins, and
 * options that run code the command line does not show.
 *
 * @module
 */
import { isComputedWord } from '../shell/shell_words.js'
import { isPathLookup, type CommandSubject } from './command_match.js'
import type { SlotPrefix } from './policy_plan.js'

/**
 * `subject` with each bare command name that `PATH` finds inside the root
 * given as that path (`echo` → `node_modules/.bin/echo`): a bare allow rule
 * then does not cover it, and as a wrapper it covers nothing.
 */
export function withRootPrograms(subject: CommandSubject, lookup: ((name: string) => string | undefined) | undefined): CommandSubject {
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
export function secondWordComputed(argv: readonly string[]): boolean {
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
export function checkPrefixes(entries: readonly SlotPrefix[], name: string, argv: readonly string[], hits: Uint8Array, elsewhere: boolean): boolean {
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
export function harmless(name: string, argv: readonly string[]): boolean {
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

/**
 * Whether `argv` has an option with which the program runs code its command
 * line does not show (see {@link CODE_OPTIONS}).
 */
export function runsConfiguredCode(name: string, argv: readonly string[]): boolean {
  const pattern = CODE_OPTIONS.get(name)
  if (pattern === undefined) return false
  for (let w = 1; w < argv.length; w++) {
    const word = argv[w]!
    if (word === '--') return false
    if (pattern.test(word)) return true
  }
  return false
}
