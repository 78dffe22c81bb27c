/**
 * The wrappers the network guard and the permission rules look through
 * (`env`, `timeout`, `xargs`, `sh -c` …): one data table from a program's
 * name to how the command it runs is found, or why that cannot be read as
 * commands. The entries read with their options are in
 * `command_runners.ts`, the programs that run code of their own in
 * `code_runners.ts`; this module joins them.
 *
 * @module
 */
import { splitScript, splitWords } from './shell_words.js'
import { CODE_RUNNERS } from './code_runners.js'
import { RUNNERS, SHELLS } from './command_runners.js'
import { isOpaque, type Dynamic, type Opaque } from './wrapper_options.js'

export type { Dynamic, Opaque } from './wrapper_options.js'
export { SHELLS } from './command_runners.js'
/** Shell options that take the next word (in clusters too: `-eo pipefail`). */
const SHELL_VALUE_LETTERS = new Set(['o', 'O'])
const SHELL_VALUE_OPTIONS = new Set(['--rcfile', '--init-file'])
/** Words that start a compound command whose body is the rest of the words. @internal */
export const SHELL_KEYWORDS: ReadonlySet<string> = new Set(['if', 'then', 'else', 'elif', 'do', 'while', 'until', '!', 'coproc'])

/**
 * How a wrapper's payload is found: the command(s) it runs, why that cannot
 * be known before it runs ({@link Dynamic}: a command word filled in at run
 * time), or that it runs code in a language of its own ({@link Opaque}).
 */
type Unwrapper = (rest: readonly string[]) => string[][] | Dynamic | Opaque

/** A wrapper whose payload follows its options (`valued` ones take the next word) and `positional` operands. */
function skipping(valued: readonly string[], positional = 0): Unwrapper {
  const valuedSet = new Set(valued)
  return (rest) => [skipOptions(rest, valuedSet, positional)]
}

/** A wrapper that runs `-c SCRIPT` (or its long forms) through a shell, if given. */
function scriptOption(names: readonly string[], otherwise: Unwrapper): Unwrapper {
  return (rest) => {
    const script = commandOption(rest, names)
    return script === undefined ? otherwise(rest) : splitScript(script)
  }
}

/** The package managers `corepack NAME …` runs. */
const PACKAGE_MANAGERS = new Set(['npm', 'npx', 'pnpm', 'pnpx', 'yarn', 'yarnpkg'])

/**
 * A program whose `subcommands` run another command (`npm exec CMD`,
 * `pnpm dlx CMD`, `bun x CMD`), or a script given with `scriptOptions`;
 * its other subcommands run nothing but itself.
 */
function subcommandRunner(subcommands: readonly string[], scriptOptions: readonly string[], valued: readonly string[]): Unwrapper {
  const valuedSet = new Set(valued)
  return (rest) => {
    // Any word before `--` may be the subcommand: global options with values
    // (`npm --prefix . exec`) are too many to list, and over-finding only
    // makes more commands checked.
    const stop = rest.indexOf('--')
    const at = rest.findIndex((word, index) => (stop === -1 || index < stop) && subcommands.includes(word))
    if (at === -1) return []
    const after = rest.slice(at + 1)
    const script = scriptOptions.length === 0 ? undefined : commandOption(after, scriptOptions)
    return script === undefined ? [skipOptions(after, valuedSet, 0)] : splitScript(script)
  }
}

/**
 * Every program that runs a command given in its arguments, as data: each
 * name maps to how its payload is found (the commands, a {@link Dynamic}
 * reason when a command word is only known at run time, or an
 * {@link Opaque} reason when it runs code of its own). Shells and shell
 * keywords are handled by {@link unwrap}.
 */
export const WRAPPERS: ReadonlyMap<string, Unwrapper> = new Map<string, Unwrapper>([
  ...RUNNERS,
  ...CODE_RUNNERS,
  ['env', unwrapEnv],
  ['exec', skipping(['-a'])],
  ...['command', 'builtin', 'chronic', 'unbuffer', 'ifne'].map((name): [string, Unwrapper] => [name, skipping([])]),
  // watch joins its arguments and runs them with `sh -c`.
  ['watch', (rest) => splitScript(skipOptions(rest, new Set(['-n', '--interval', '-q', '--equexit']), 0).join(' '))],
  ['find', unwrapFind],
  ['xargs', unwrapXargsCommand],
  ['busybox', (rest) => [rest.slice(rest[0]?.startsWith('-') ? 1 : 0)]],
  // Package runners: what they fetch and run is a command like any other
  // (`npx npm publish`, `pnpm dlx …`, `corepack yarn npm publish`).
  ['npx', scriptOption(['-c', '--call'], skipping(['-p', '--package', '-w', '--workspace']))],
  ['pnpx', skipping(['-p', '--package'])],
  ['bunx', skipping(['-p', '--package'])],
  ['npm', subcommandRunner(['exec', 'exe', 'x'], ['-c', '--call'], ['-p', '--package', '-w', '--workspace'])],
  ['pnpm', subcommandRunner(['dlx', 'exec'], ['-c'], ['-p', '--package', '--filter', '-F', '-C', '--dir'])],
  ['yarn', subcommandRunner(['dlx', 'exec'], [], ['-p', '--package'])],
  ['bun', subcommandRunner(['x'], [], ['-p', '--package'])],
  ['corepack', (rest) => (rest[0] !== undefined && PACKAGE_MANAGERS.has(rest[0]) ? [[...rest]] : [])],
])

/**
 * The command(s) a wrapper runs, `undefined` when `name` is not a wrapper,
 * or why its payload cannot be known before it runs.
 *
 * @param name - The executable name (basename, lower case).
 * @param rest - Its arguments.
 * @returns The payload commands, a {@link Dynamic} refusal reason, or `undefined`.
 */
export function unwrap(name: string, rest: readonly string[]): string[][] | Dynamic | undefined {
  const payload = unwrapJudged(name, rest)
  // The guard checks what it can see of a program that runs code of its own (`gdb --args CMD`).
  return payload !== undefined && isOpaque(payload) ? (payload.commands ?? []) : payload
}

/**
 * {@link unwrap} as the permission rules need it: a program that runs code
 * of its own says so ({@link Opaque}), and then nothing it runs can be known.
 *
 * @param name - The executable name (basename, lower case).
 * @param rest - Its arguments.
 * @returns The payload commands, why they cannot be known, or `undefined` when `name` runs nothing else.
 */
export function unwrapJudged(name: string, rest: readonly string[]): string[][] | Dynamic | Opaque | undefined {
  // `python3.12`, `perl5.36`: the program without its version.
  const wrapper = WRAPPERS.get(name) ?? WRAPPERS.get(name.replace(/-?[\d.]+$/, ''))
  if (wrapper) return wrapper(rest)
  if (SHELL_KEYWORDS.has(name)) return [[...rest]]
  if (SHELLS.has(name)) return unwrapShell(rest)
  return undefined
}

function unwrapXargsCommand(rest: readonly string[]): string[][] | Dynamic {
  const command = unwrapXargs(rest)
  const replace = xargsReplacement(rest)
  if (replace !== undefined && command[0]?.includes(replace)) {
    return { dynamic: `the xargs command word ${JSON.stringify(clip(command[0]!))} is filled in from the input at run time, so the guard cannot tell what it runs` }
  }
  return [command]
}

/** The value of the first of `names` (`-c CMD`, `--command=CMD`, `-cCMD`), if any. */
function commandOption(rest: readonly string[], names: readonly string[]): string | undefined {
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!
    if (word === '--') break
    for (const option of names) {
      if (word === option) return rest[i + 1] ?? ''
      if (option.startsWith('--') && word.startsWith(`${option}=`)) return word.slice(option.length + 1)
      if (!option.startsWith('--') && word.startsWith(option) && word.length > option.length) return word.slice(option.length)
    }
  }
  return undefined
}

/** `find … -exec CMD ARGS… ;` (also `-execdir`, `-ok`, `-okdir`, ended by `;` or `+`) → each CMD. */
function unwrapFind(rest: readonly string[]): string[][] | Dynamic {
  const commands: string[][] = []
  for (let i = 0; i < rest.length; i++) {
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(rest[i]!.toLowerCase())) continue
    let end = i + 1
    while (end < rest.length && rest[end] !== ';' && rest[end] !== '+') end++
    const command = rest.slice(i + 1, end)
    if (command[0]?.includes('{}')) {
      return { dynamic: `the find ${rest[i]} command word ${JSON.stringify(clip(command[0]))} is a found file name, known only at run time` }
    }
    commands.push(command)
    i = end
  }
  return commands
}

/**
 * The starting points of `find` (its operands before the first expression
 * word); `.` when there are none, as find does.
 *
 * @param rest - The arguments of `find`.
 * @returns The starting points.
 */
export function findStartingPoints(rest: readonly string[]): string[] {
  let i = 0
  // -H, -L, -P, -D debugopts, -Olevel come first.
  while (i < rest.length && /^-[HLP]$|^-O\d*$|^-D$/.test(rest[i]!)) i += rest[i] === '-D' ? 2 : 1
  const points: string[] = []
  for (; i < rest.length; i++) {
    const word = rest[i]!
    if (word.startsWith('-') || word === '(' || word === '!' || word === ',') break
    points.push(word)
  }
  return points.length === 0 ? ['.'] : points
}

/** Drop leading options (and the values of `valued` ones), then `positional` operands. */
function skipOptions(rest: readonly string[], valued: ReadonlySet<string>, positional: number): string[] {
  let i = 0
  while (i < rest.length) {
    const word = rest[i]!
    if (word === '--') {
      i += 1
      break
    }
    if (!word.startsWith('-') || word === '-') break
    i += takesValue(word, valued) ? 2 : 1
  }
  return rest.slice(i + positional)
}

function unwrapEnv(rest: readonly string[]): string[][] {
  const commands: string[][] = []
  let i = 0
  while (i < rest.length) {
    const word = rest[i]!
    if (word === '--') {
      i += 1
      break
    }
    // Long options as getopt_long reads them: any unambiguous abbreviation.
    const [long, attached] = word.startsWith('--') ? [word.split('=', 1)[0]!, word.includes('=')] : ['', false]
    const split = long.length > 3 && '--split-string'.startsWith(long)
    // -S in a cluster (`-vS'…'`, `-iS …`): the rest of the cluster, or the next word, is the string.
    const cluster = /^-[A-Za-z0-9]*S/.exec(word)
    if (split || (cluster !== null && !word.startsWith('--'))) {
      const text = split ? (attached ? word.slice(word.indexOf('=') + 1) : undefined) : word.slice(cluster![0].length)
      if (text === undefined || text === '') commands.push(splitWords(rest[i + 1] ?? '').concat(rest.slice(i + 2)))
      else commands.push(splitWords(text).concat(rest.slice(i + 1)))
      return commands
    }
    if (['-u', '-C'].includes(word) || (!attached && long.length > 3 && ['--unset', '--chdir'].some((option) => option.startsWith(long)))) {
      i += 2
      continue
    }
    if (word.startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) {
      i += 1
      continue
    }
    break
  }
  commands.push(rest.slice(i))
  return commands
}

/**
 * The replacement string of `xargs -I R` / `-iR` / `--replace[=R]`, if any.
 *
 * @param rest - The arguments of `xargs`.
 * @returns The string xargs replaces with each input line, or `undefined` (the input is appended instead).
 */
export function xargsReplacement(rest: readonly string[]): string | undefined {
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!
    if (!word.startsWith('-') || word === '--') return undefined
    if (word === '-I') return rest[i + 1]
    if (word.startsWith('-I')) return word.slice(2)
    if (word === '-i' || word === '--replace') return '{}'
    if (word.startsWith('-i')) return word.slice(2)
    if (word.startsWith('--replace=')) return word.slice('--replace='.length)
  }
  return undefined
}

function unwrapXargs(rest: readonly string[]): string[] {
  // -e, -i and -l take their (optional) value attached only: a bare one takes no word.
  const valued = new Set(['-a', '-d', '-E', '-I', '-L', '-n', '-P', '-s', '--arg-file', '--delimiter', '--max-args', '--max-procs', '--max-chars', '--process-slot-var'])
  let i = 0
  while (i < rest.length) {
    const word = rest[i]!
    if (word === '--') {
      i += 1
      break
    }
    if (!word.startsWith('-')) break
    // Attached forms (-n1, -I{}) carry their value; a bare valued option takes the next word.
    i += takesValue(word, valued) ? 2 : 1
  }
  return rest.slice(i)
}

/**
 * Whether option `word` takes the next word as its value: one of `valued`,
 * or an abbreviation of a long one (`--sig` for `--signal`, as getopt_long
 * accepts it).
 */
function takesValue(word: string, valued: ReadonlySet<string>): boolean {
  if (valued.has(word)) return true
  if (!word.startsWith('--') || word.length < 3 || word.includes('=')) return false
  for (const option of valued) if (option.startsWith(word)) return true
  return false
}

/**
 * `sh -c SCRIPT`, `bash -lc SCRIPT`, `bash -o pipefail -c SCRIPT`,
 * `sh -c -- SCRIPT`… → the simple commands of SCRIPT. As in the shells, the
 * script is the first operand after the options once `c` appears among them;
 * `-o`/`-O`/`+o`/`+O` (also inside a cluster such as `-eo`) and `--rcfile`
 * take the next word.
 */
function unwrapShell(rest: readonly string[]): string[][] | Dynamic | undefined {
  let hasCommand = false
  let i = 0
  while (i < rest.length) {
    const word = rest[i]!
    if (word === '--' || word === '-') {
      i += 1
      break
    }
    if (word === '--command') {
      hasCommand = true
      i += 1
      continue
    }
    if (SHELL_VALUE_OPTIONS.has(word)) {
      i += 2
      continue
    }
    if (word.startsWith('--')) {
      i += 1
      continue
    }
    if (/^[-+][a-zA-Z]+$/.test(word)) {
      const letters = word.slice(1)
      if (word.startsWith('-') && letters.includes('c')) hasCommand = true
      i += 1
      for (const letter of letters) if (SHELL_VALUE_LETTERS.has(letter)) i++
      continue
    }
    break
  }
  if (!hasCommand) return undefined
  const script = rest[i]
  if (script === undefined) {
    return { dynamic: 'the shell is given -c without a script, so the script would come from elsewhere at run time; pass the script after -c' }
  }
  return splitScript(script)
}

/**
 * Whether `file` names standard input or a descriptor (`/dev/stdin`,
 * `//dev/fd/0`, `/proc/self/fd/0`, `-`): a script read from there exists
 * only when the command runs.
 *
 * @param file - A path operand.
 * @returns Whether it is standard input or a descriptor.
 */
export function isStdinPath(file: string): boolean {
  if (file === '-') return true
  const normal = file.startsWith('/') ? `/${file.split('/').filter((part) => part !== '' && part !== '.').join('/')}` : file
  return /^\/dev\/(?:stdin$|fd\/)/.test(normal) || /^\/proc\/[^/]+\/fd\//.test(normal)
}

/**
 * Whether `name rest…` is a shell that reads its script from standard input
 * (`echo "git push" | sh`, `bash -s`, `bash <<< "…"`): no `-c`, and `-s`
 * or no script file operand. Such a script cannot be seen before it runs.
 *
 * @param name - The executable name (basename, lower case).
 * @param rest - Its arguments.
 * @returns Whether the shell's commands come from standard input.
 */
export function shellReadsStdin(name: string, rest: readonly string[]): boolean {
  if (!SHELLS.has(name)) return false
  let i = 0
  while (i < rest.length) {
    const word = rest[i]!
    if (word === '-') return true
    if (word === '--') return i + 1 >= rest.length || isStdinPath(rest[i + 1]!)
    if (word === '--command') return false
    if (SHELL_VALUE_OPTIONS.has(word)) {
      i += 2
      continue
    }
    if (word.startsWith('--')) {
      i += 1
      continue
    }
    if (/^[-+][a-zA-Z]+$/.test(word)) {
      const letters = word.slice(1)
      if (word.startsWith('-') && letters.includes('c')) return false
      if (word.startsWith('-') && letters.includes('s')) return true
      i += 1
      for (const letter of letters) if (SHELL_VALUE_LETTERS.has(letter)) i++
      continue
    }
    // A script operand: standard input when it names it (`bash /dev/stdin`).
    return isStdinPath(word)
  }
  return true
}

/** A word cut to 120 characters for messages. */
export function clip(word: string): string {
  return word.length > 120 ? `${word.slice(0, 120)}…` : word
}
