/**
 * The spellings of an option in a `deny` / `ask` command prefix: `rm -rf`
 * must also catch `rm -fr`, `rm -r -f`, `rm -Rf` and
 * `rm --recursive --force`. A table of per-program synonyms, as data; and
 * the programs that take abbreviated subcommands (`npm publ`).
 *
 * @module
 */

/**
 * One option a prefix requires, and the spellings that give it: any of the
 * short letters (alone or in a cluster), or a long name or an abbreviation
 * of one (`--rec` for `--recursive`). `exact` instead: the word itself
 * (`--format=x`, or `-delete` for a program whose options are words).
 */
export interface OptionRequirement {
  /** Short option letters, any one of which gives the option. */
  readonly shorts: string
  /**
   * Long option names (without `--`), any one of which, or an abbreviation of it, gives the option;
   * `name=value` (`interactive=never`): that option with that value, each abbreviated as the program allows.
   */
  readonly longs: readonly string[]
  /** A word that must appear as it is. */
  readonly exact?: string
}

/**
 * Options with the same meaning, by program (and git subcommand): each
 * group lists the spellings of one option. Only what the programs document;
 * options that stand for several (`git branch -D` = `--delete --force`) are
 * not expanded, so a policy lists such spellings itself.
 */
const SYNONYMS: ReadonlyMap<string, readonly (readonly string[])[]> = new Map<string, readonly (readonly string[])[]>([
  // `rm --interactive=never` (values `no`, `none`, abbreviated too) never prompts: what `-f` does for a rule.
  ['rm', [['-r', '-R', '--recursive'], ['-f', '--force', '--interactive=never', '--interactive=no', '--interactive=none'], ['-d', '--dir'], ['-i', '--interactive'], ['-v', '--verbose']]],
  ['cp', [['-r', '-R', '--recursive'], ['-f', '--force']]],
  ['mv', [['-f', '--force']]],
  ['chmod', [['-R', '--recursive']]],
  ['chown', [['-R', '--recursive']]],
  ['chgrp', [['-R', '--recursive']]],
  ['git push', [['-f', '--force'], ['-d', '--delete']]],
  ['git clean', [['-f', '--force'], ['-n', '--dry-run'], ['-i', '--interactive']]],
  ['git branch', [['-d', '--delete'], ['-f', '--force']]],
  ['git tag', [['-d', '--delete'], ['-f', '--force']]],
  ['git checkout', [['-f', '--force']]],
  ['git switch', [['-f', '--force', '--discard-changes']]],
])

/**
 * Programs that run a subcommand given by any unambiguous abbreviation
 * (`npm publ` is `npm publish`): their first operand matches a prefix word
 * it abbreviates.
 */
const ABBREVIATED_SUBCOMMANDS = new Set(['npm'])

/**
 * Whether `given` (a command's word) may stand for `word` (a prefix's first
 * operand) because `program` takes abbreviated subcommands.
 *
 * @param program - The executable name.
 * @param given - The command's word.
 * @param word - The prefix's word.
 * @returns Whether it is an abbreviation of it that the program accepts.
 */
export function abbreviates(program: string, given: string, word: string): boolean {
  return given.length >= 2 && given.length < word.length && ABBREVIATED_SUBCOMMANDS.has(program) && word.startsWith(given)
}

/**
 * Whether a prefix of `program` must be checked against every command of
 * that name rather than those that contain its second word.
 *
 * @param program - The executable name.
 * @returns Whether its subcommands can be abbreviated.
 */
export function abbreviatesSubcommands(program: string): boolean {
  return ABBREVIATED_SUBCOMMANDS.has(program)
}

/** Programs whose options are whole words after one dash (`find -delete`): no letter clusters. */
const WORD_OPTIONS = new Set(['find', 'java', 'gcc', 'g++', 'clang', 'ffmpeg', 'go'])

/**
 * What an option word of a prefix requires, or `undefined` for an operand
 * word (which must match as it is, in order).
 *
 * @param word - A word of the prefix after the executable.
 * @param operands - The prefix's executable name and the operand words before this one (`['git', 'push']`).
 * @returns The options the word stands for.
 */
export function optionRequirement(word: string, operands: readonly string[]): OptionRequirement[] | undefined {
  if (word.length < 2 || word[0] !== '-' || word === '--') return undefined
  const groups = SYNONYMS.get(operands.join(' ')) ?? []
  if (word.startsWith('--')) {
    if (word.includes('=')) return [{ shorts: '', longs: [], exact: word }]
    return [spellings(word, groups)]
  }
  if (WORD_OPTIONS.has(operands[0]!)) return [{ shorts: '', longs: [], exact: word }]
  const required: OptionRequirement[] = []
  for (const letter of new Set(word.slice(1))) required.push(spellings(`-${letter}`, groups))
  return required
}

function spellings(option: string, groups: readonly (readonly string[])[]): OptionRequirement {
  const group = groups.find((g) => g.includes(option)) ?? [option]
  let shorts = ''
  const longs: string[] = []
  for (const spelling of group) {
    if (spelling.startsWith('--')) longs.push(spelling.slice(2))
    else shorts += spelling.slice(1)
  }
  return { shorts, longs }
}
