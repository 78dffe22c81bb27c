/**
 * Command prefixes for `bash` permission rules: every command a call would
 * run, wrappers and `sh -c` scripts unwrapped with the same tables the
 * network guard uses, so `env X=1 git push`, `sh -c "git  push"` and
 * `xargs git push` cannot dodge a rule about `git push`.
 *
 * @module
 */
import path from 'node:path'
import { E_INVALID_POLICY } from '../exceptions.js'
import { unwrap } from '../sandbox/network_wrappers.js'
import { splitScript, splitWords } from '../sandbox/shell_words.js'

/** How deep wrappers are unwrapped before the call is treated as unknowable. */
const MAX_DEPTH = 8

/** The commands a `bash` call would run, as far as they can be known before it runs. */
export interface CommandSubject {
  /** Every simple command reached: the call itself, then what its wrappers and scripts run. */
  readonly commands: readonly (readonly string[])[]
  /** `executableName` of each command's first word, in the same order. */
  readonly names: readonly string[]
  /** Set when some command is only known at run time (`$cmd`, `eval "$x"`, `xargs -I{} {}`): why. */
  readonly dynamic: string | undefined
}

/**
 * Everything `cmd args…` would run, wrappers unwrapped.
 *
 * @param cmd - The executable as given to `bash`.
 * @param args - Its arguments.
 * @returns The commands, and why some cannot be known when that is so.
 */
export function commandSubject(cmd: string, args: readonly string[]): CommandSubject {
  // The commands are kept as given (not copied): the subject is read, never changed.
  const commands: string[][] = []
  const names: string[] = []
  const dynamic = collect([cmd, ...args], 0, commands, names)
  return { commands, names, dynamic }
}

function collect(argv: readonly string[], depth: number, out: string[][], names: string[]): string | undefined {
  if (argv.length === 0) return undefined
  if (depth > MAX_DEPTH) return 'the command nests too many wrappers to be checked'
  const executable = argv[0]!
  const name = executableName(executable)
  out.push(argv as string[])
  names.push(name)
  if (executable === '' || executable.includes('$') || executable.includes('`')) {
    return `the command word ${JSON.stringify(executable)} is computed when the script runs`
  }
  const rest = argv.slice(1)
  let wrapped: string[][] | { dynamic: string } | undefined
  if (name === 'eval') wrapped = splitScript(rest.join(' '))
  else if (name === 'alias' || name === 'trap') return `\`${name}\` makes the shell run a command built at run time`
  else if (name === 'git' && gitAlias(rest)) return '`git -c alias.*` defines an alias that could name any subcommand'
  else wrapped = unwrap(name, rest)
  if (wrapped === undefined) return undefined
  if (!Array.isArray(wrapped)) return wrapped.dynamic
  let dynamic: string | undefined
  for (const command of wrapped) dynamic ??= collect(command, depth + 1, out, names)
  return dynamic
}

function gitAlias(rest: readonly string[]): boolean {
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!
    const config = word === '-c' || word === '--config-env' ? rest[i + 1] : word.startsWith('--config-env=') ? word.slice(13) : undefined
    if (config !== undefined && config.toLowerCase().startsWith('alias.')) return true
    if (!word.startsWith('-')) return false
  }
  return false
}

/**
 * The name an executable word stands for: basename, lower case, without a
 * Windows `.exe` (`/usr/bin/Git.exe` → `git`).
 *
 * @param word - A command word.
 * @returns Its name.
 */
export function executableName(word: string): string {
  // A bare name (the usual case) is its own basename: no path parsing.
  const lower = (path.sep === '/' && !word.includes('/') ? word : path.basename(word)).toLowerCase()
  return lower.endsWith('.exe') ? lower.slice(0, -4) : lower
}

/**
 * A compiled command prefix (`git push`, `npm publish`, `rm -rf`).
 *
 * @remarks
 * The first word is compared as an executable name (basename, any case);
 * the others must follow in order, with only options and their values in
 * between: `git -C repo push origin` and `npm --registry x publish` match
 * `git push` and `npm publish`, while `git commit -m push` does not.
 */
export class CommandPrefix {
  /** The prefix as written. */
  readonly source: string
  /** Its words. */
  readonly words: readonly string[]

  /**
   * @param source - The prefix, words split as a shell would (quotes honoured).
   * @throws {@link toolsmith/core!E_INVALID_POLICY} for an empty prefix or shell operators in it.
   */
  constructor(source: string) {
    if (typeof source !== 'string' || source.trim() === '') throw new E_INVALID_POLICY('a command prefix must be a non-empty string')
    const commands = splitScript(source)
    if (commands.length !== 1) {
      throw new E_INVALID_POLICY(`command prefix ${JSON.stringify(source)} must be one simple command (no ;, |, &&, $( ) or assignments)`)
    }
    const words = splitWords(source)
    this.source = source
    this.words = [executableName(words[0]!), ...words.slice(1)]
  }

  /**
   * Whether one command starts with this prefix.
   *
   * @param argv - A command, executable first.
   * @returns Whether it matches.
   */
  matches(argv: readonly string[]): boolean {
    if (argv.length === 0) return false
    return this.matchesNamed(executableName(argv[0]!), argv)
  }

  /**
   * {@link CommandPrefix.matches} with the executable's name already worked
   * out (a policy checks one command against many prefixes).
   *
   * @param name - `executableName(argv[0])`.
   * @param argv - The command, executable first.
   * @returns Whether it matches.
   */
  matchesNamed(name: string, argv: readonly string[]): boolean {
    if (name !== this.words[0]) return false
    return this.words.length === 1 || this.#from(argv, 1, 1, false, false)
  }

  #from(argv: readonly string[], i: number, k: number, afterOption: boolean, optionsEnded: boolean): boolean {
    if (k === this.words.length) return true
    if (i >= argv.length) return false
    const word = argv[i]!
    if (word === this.words[k] && this.#from(argv, i + 1, k + 1, false, optionsEnded || word === '--')) return true
    if (optionsEnded) return false
    if (word === '--') return this.#from(argv, i + 1, k, false, true)
    // An option is skipped; so may be the word after it (its value, when it takes one).
    if (word.startsWith('-') && word !== '-') return this.#from(argv, i + 1, k, !word.includes('='), false)
    if (afterOption) return this.#from(argv, i + 1, k, false, false)
    return false
  }
}
