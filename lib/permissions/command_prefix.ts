/**
 * A command prefix of a permission rule (`git push`, `rm -rf`), and how it
 * matches one command's words.
 *
 * @module
 */
import path from 'node:path'
import { E_INVALID_POLICY } from '../exceptions.js'
import { computedWordPattern, isComputedWord, splitScript, splitWords } from '../shell/shell_words.js'
import { abbreviates, optionRequirement, type OptionRequirement } from './option_spellings.js'
import { isPathLookup } from './command_paths.js'

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
 * The first word is compared as an executable name (basename, any case).
 * How the other words match depends on what the rule decides:
 *
 * - **`deny` and `ask` (`strict`, the default)** catch every spelling of
 *   the command. Operand words (`push`, `publish`) must follow in order,
 *   with only options and their values in between (`git -C repo push`
 *   matches `git push`; `git commit -m push` does not); the subcommand of
 *   a program that takes abbreviations may be abbreviated (`npm publ`). Option words are
 *   looked for anywhere after the operand before them, up to `--`, in any
 *   order, as GNU programs read them: a short cluster is a set of letters
 *   (`rm -rf` matches `rm -fr`, `rm -r -f`, `rm x -f -r`), per-program
 *   synonyms count (`-R` and `--recursive` for `rm -r`, see
 *   `option_spellings.ts`), and a long option matches its unambiguous
 *   abbreviations (`--rec`). A word computed when the script runs
 *   (see `isComputedWord` in `lib/shell/shell_words.ts`) fails closed: a substitution (`$X`, `"$(…)"`)
 *   matches whatever the prefix compares it with, a glob or brace
 *   expansion (`pus?`, `{push,}`) every word of its shape (and may also be
 *   an option, or nothing), and either satisfies every option a prefix
 *   needs when it could start with `-`.
 * - **`allow` (`strict` false)** grants only what is written: the words in
 *   order as given, options with their values skipped between them, and a
 *   computed word matches only its own text in the prefix, so no allow
 *   rule is granted by a word that could be something else.
 */
export class CommandPrefix {
  /** The prefix as written. */
  readonly source: string
  /** Its words. */
  readonly words: readonly string[]
  /**
   * The program's path when the prefix names one (`./bin/echo` →
   * `bin/echo`, normalized): as an `allow` rule it then covers only that
   * path; `undefined` for a bare name (`echo`), which covers a `PATH`
   * lookup and the system's own directories (`/usr/bin/echo`), never a
   * file named by another path (`./echo`).
   */
  readonly path: string | undefined
  /** For each word from the second: the options it needs when it is an option word (strict matching), else `undefined`. */
  readonly #options: readonly (OptionRequirement[] | undefined)[]

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
    this.path = words[0]!.includes('/') ? path.posix.normalize(words[0]!) : undefined
    const operands: string[] = [this.words[0]!]
    const options: (OptionRequirement[] | undefined)[] = [undefined]
    for (let k = 1; k < this.words.length; k++) {
      const required = optionRequirement(this.words[k]!, operands)
      options.push(required)
      if (required === undefined) operands.push(this.words[k]!)
    }
    this.#options = options
  }

  /**
   * Whether one command starts with this prefix.
   *
   * @param argv - A command, executable first.
   * @param strict - Match as a `deny`/`ask` rule does (every spelling, computed words fail closed; the default), or as an `allow` rule does (as written).
   * @returns Whether it matches.
   */
  matches(argv: readonly string[], strict = true): boolean {
    if (argv.length === 0) return false
    return this.matchesNamed(executableName(argv[0]!), argv, strict)
  }

  /**
   * {@link CommandPrefix.matches} with the executable's name already worked
   * out (a policy checks one command against many prefixes).
   *
   * @param name - `executableName(argv[0])`.
   * @param argv - The command, executable first.
   * @param strict - As for {@link CommandPrefix.matches}.
   * @returns Whether it matches.
   */
  matchesNamed(name: string, argv: readonly string[], strict = true): boolean {
    if (name !== this.words[0]) return false
    // Deny and ask rules catch every spelling of the program (`./rm`, `/tmp/x/rm`); an allow rule only the one it wrote.
    if (!strict && !(this.path === undefined ? isPathLookup(argv[0]!) : path.posix.normalize(argv[0]!) === this.path)) return false
    if (this.words.length === 1) return true
    return strict ? this.#strict(argv, 1, 1, false, false) : this.#literal(argv, 1, 1, false, false)
  }

  /** `allow` matching: the words as written, in order, options and their values skipped between them. */
  #literal(argv: readonly string[], i: number, k: number, afterOption: boolean, optionsEnded: boolean): boolean {
    if (k === this.words.length) return true
    if (i >= argv.length) return false
    const word = argv[i]!
    if (word === this.words[k] && this.#literal(argv, i + 1, k + 1, false, optionsEnded || word === '--')) return true
    // A word that could become something else grants nothing, not even as an option's value
    // (the same text as the prefix's own word, `ls *.ts` for `ls *.ts`, is what the rule wrote).
    if (isComputedWord(word)) return false
    if (optionsEnded) return false
    if (word === '--') return this.#literal(argv, i + 1, k, false, true)
    // An option is skipped; so may be the word after it (its value, when it takes one).
    if (word.startsWith('-') && word !== '-') return this.#literal(argv, i + 1, k, !word.includes('='), false)
    if (afterOption) return this.#literal(argv, i + 1, k, false, false)
    return false
  }

  /** `deny`/`ask` matching: every spelling, and a computed word fails closed. */
  #strict(argv: readonly string[], i: number, k: number, afterOption: boolean, optionsEnded: boolean): boolean {
    if (k === this.words.length) return true
    const options = this.#options[k]
    if (options !== undefined) {
      // Option words: present anywhere from here to `--`, in any spelling; then the operands go on from here.
      if (optionsEnded || !optionsPresent(argv, i, options)) return false
      return this.#strict(argv, i, k + 1, afterOption, optionsEnded)
    }
    if (i >= argv.length) return false
    const word = argv[i]!
    if (isComputedWord(word)) {
      // A substitution could expand to this word and the rest of the prefix; a
      // glob or brace expansion to words of its shape, or to options, or to nothing.
      const shape = computedWordPattern(word)
      if (shape === undefined || shape.test(this.words[k]!)) return true
      return !optionsEnded && this.#strict(argv, i + 1, k, true, false)
    }
    if (word === this.words[k] && this.#strict(argv, i + 1, k + 1, false, optionsEnded || word === '--')) return true
    if (k === 1 && !optionsEnded && abbreviates(this.words[0]!, word, this.words[1]!) && this.#strict(argv, i + 1, 2, false, false)) return true
    if (optionsEnded) return false
    if (word === '--') return this.#strict(argv, i + 1, k, false, true)
    if (word.startsWith('-') && word !== '-') return this.#strict(argv, i + 1, k, !word.includes('='), false)
    if (afterOption) return this.#strict(argv, i + 1, k, false, false)
    return false
  }
}

/**
 * Whether the words from `start` up to `--` give every required option
 * (see {@link OptionRequirement}); a computed word that could start with
 * `-` could be any of them.
 */
function optionsPresent(argv: readonly string[], start: number, required: readonly OptionRequirement[]): boolean {
  let shorts = ''
  let longs: string[] | undefined
  let longWords: string[] | undefined
  let words: string[] | undefined
  for (let i = start; i < argv.length; i++) {
    const word = argv[i]!
    if (word === '--') break
    if (isComputedWord(word) && couldBeOption(word)) return true
    if (word.length < 2 || word[0] !== '-') continue
    ;(words ??= []).push(word)
    if (word[1] !== '-') shorts += word.slice(1)
    else {
      ;(longs ??= []).push(word.slice(2, word.includes('=') ? word.indexOf('=') : undefined))
      if (word.includes('=')) (longWords ??= []).push(word.slice(2))
    }
  }
  if (words === undefined) return false
  for (const option of required) {
    if (option.exact !== undefined) {
      if (!words.includes(option.exact)) return false
      continue
    }
    let found = false
    for (const letter of option.shorts) if (shorts.includes(letter)) found = true
    if (!found && longs !== undefined) {
      // GNU getopt_long and git take a long option's unambiguous abbreviation (`--rec`).
      for (const given of longs) if (given !== '' && option.longs.some((name) => !name.includes('=') && name.startsWith(given))) found = true
    }
    if (!found && longWords !== undefined) {
      // `--inter=n` for `--interactive=never`: the name and the value abbreviated (GNU argmatch takes ambiguous ones of one meaning).
      for (const given of longWords) {
        const [name, value] = [given.slice(0, given.indexOf('=')), given.slice(given.indexOf('=') + 1)]
        if (name !== '' && value !== '' && option.longs.some((spelling) => spelling.includes('=') && spelling.startsWith(name) && spelling.slice(spelling.indexOf('=') + 1).startsWith(value) && spelling.slice(0, spelling.indexOf('=')).startsWith(name))) found = true
      }
    }
    if (!found) return false
  }
  return true
}

/** Whether a computed word could expand to something that starts with `-` (`build/*.o` cannot). */
function couldBeOption(word: string): boolean {
  const first = word[0]
  return first === '-' || first === '*' || first === '?' || first === '[' || first === '{' || first === '@' || first === '!' || first === '+' || word.includes('$') || word.includes('`')
}
