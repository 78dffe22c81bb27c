/**
 * Reading a wrapper's options the way its `getopt_long` reads them, so the
 * command it runs is found where the program finds it: `timeout -s9 5 cmd`,
 * `script -qc 'cmd'`, `setpriv --reuid 0 cmd`, `prlimit --nofile=100 cmd`.
 *
 * An option the table does not know cannot be read: whether the word after
 * it is its value or the command is unknown, so the reader says so instead
 * of guessing (a guess would let `wrapper --unlisted X rm -rf v` hide
 * `rm -rf v` behind `X`).
 *
 * @module
 */

/** Why a wrapper's payload cannot be known before it runs. */
export interface Dynamic {
  dynamic: string
}

/**
 * The options of one program: short letters as in a getopt optstring
 * (`k:s:v`: `:` takes a value, attached or the next word; `::` an optional
 * value, attached only) and long names (`0` a flag, `1` a value given as
 * `--name=V` or `--name V`, `2` an optional value given only as
 * `--name=V`).
 */
export interface OptionSpec {
  /** The getopt optstring of the short options, without the leading `+`. */
  readonly shorts: string
  /** Long option names (without `--`) and whether they take a value. */
  readonly longs: Readonly<Record<string, 0 | 1 | 2>>
  /**
   * Whether options may follow operands (GNU getopt's default, without `+`:
   * `su root -c CMD`). Most wrappers stop at the first operand, as the
   * command's own options must stay its own.
   */
  readonly permute?: boolean
}

/** Options as read: the index of the first operand, and the values given, by option (`-c` and `--command` kept apart). */
export interface ReadOptions {
  /** The operands, in order (with permutation, the words that are not options or their values). */
  readonly operands: string[]
  /** Every option seen (`-c`, `--command`), with its value (`''` for a flag or an absent optional value). */
  readonly given: [string, string][]
}

/**
 * Read `rest` as `spec` says.
 *
 * @param program - The program's name, for messages.
 * @param rest - Its arguments.
 * @param spec - Its options.
 * @returns The operands and options, or why they cannot be read (an unknown option, an ambiguous abbreviation).
 */
export function readOptions(program: string, rest: readonly string[], spec: OptionSpec): ReadOptions | Dynamic {
  const operands: string[] = []
  const given: [string, string][] = []
  let i = 0
  for (; i < rest.length; i++) {
    const word = rest[i]!
    if (word === '--') {
      i++
      break
    }
    if (!word.startsWith('-') || word === '-') {
      if (!spec.permute) break
      operands.push(word)
      continue
    }
    if (word.startsWith('--')) {
      const eq = word.indexOf('=')
      const typed = word.slice(2, eq === -1 ? undefined : eq)
      const name = longName(typed, spec.longs)
      if (name === undefined) return unknown(program, word)
      const kind = spec.longs[name]!
      if (eq !== -1) given.push([`--${name}`, word.slice(eq + 1)])
      else if (kind === 1) given.push([`--${name}`, rest[++i] ?? ''])
      else given.push([`--${name}`, ''])
      continue
    }
    // A cluster of short options: a letter that takes a value takes the rest of the word, or the next word.
    for (let k = 1; k < word.length; k++) {
      const letter = word[k]!
      const at = spec.shorts.indexOf(letter)
      if (at === -1 || letter === ':') return unknown(program, word)
      const takes = spec.shorts[at + 1] === ':' ? (spec.shorts[at + 2] === ':' ? 2 : 1) : 0
      if (takes === 0) {
        given.push([`-${letter}`, ''])
        continue
      }
      const attached = word.slice(k + 1)
      if (attached !== '' || takes === 2) given.push([`-${letter}`, attached])
      else given.push([`-${letter}`, rest[++i] ?? ''])
      break
    }
  }
  for (; i < rest.length; i++) operands.push(rest[i]!)
  return { operands, given }
}

/** The long option `typed` names: itself, or the one long name it abbreviates (as getopt_long accepts). */
function longName(typed: string, longs: Readonly<Record<string, 0 | 1 | 2>>): string | undefined {
  if (typed === '') return undefined
  if (Object.hasOwn(longs, typed)) return typed
  const candidates = Object.keys(longs).filter((name) => name.startsWith(typed))
  if (candidates.length === 0) return undefined
  // Several candidates that read alike (all flags, or all taking a value) are as good as one.
  const kinds = new Set(candidates.map((name) => longs[name]))
  return kinds.size === 1 ? candidates[0] : undefined
}

function unknown(program: string, word: string): Dynamic {
  const shown = word.length > 60 ? `${word.slice(0, 60)}…` : word
  return {
    dynamic: `\`${program} ${shown}\` is an option the kit does not know, so it cannot tell whether the next word is its value or the command ${program} runs`,
  }
}

/**
 * The value of the last of `names` given, if any.
 *
 * @param read - What {@link readOptions} returned.
 * @param names - Spellings of one option (`-c`, `--command`).
 * @returns Its value, or `undefined` when it was not given.
 */
export function optionValue(read: ReadOptions, ...names: string[]): string | undefined {
  let value: string | undefined
  for (const [name, given] of read.given) if (names.includes(name)) value = given
  return value
}

/**
 * Whether any of `names` was given.
 *
 * @param read - What {@link readOptions} returned.
 * @param names - Option spellings.
 * @returns Whether one was given.
 */
export function hasOption(read: ReadOptions, ...names: string[]): boolean {
  return read.given.some(([name]) => names.includes(name))
}

/**
 * Whether `value` is a {@link Dynamic} refusal.
 *
 * @param value - A reader's answer.
 * @returns Whether it says the payload cannot be known.
 */
export function isDynamic(value: object): value is Dynamic {
  return typeof (value as Partial<Dynamic>).dynamic === 'string'
}

/**
 * A program that runs code in a language of its own, given in its
 * arguments or on standard input (`gdb -ex`, `python3 -c`, `sed 's/x/y/e'`,
 * `make --eval`): what it runs cannot be read as commands. `commands` are
 * the commands it is also seen to run (`gdb --args CMD`), which the network
 * guard still checks.
 */
export interface Opaque {
  opaque: string
  commands?: string[][]
}

/**
 * Whether `value` is an {@link Opaque} answer.
 *
 * @param value - A wrapper's answer.
 * @returns Whether it says the program runs code of its own.
 */
export function isOpaque(value: object): value is Opaque {
  return typeof (value as Partial<Opaque>).opaque === 'string'
}
