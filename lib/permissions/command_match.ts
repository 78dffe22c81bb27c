/**
 * What a call's command line (its `command` and `commandArgs` roles) would
 * run, for command rules: every command, wrappers and `sh -c` scripts unwrapped with the same tables the
 * network guard uses, so `env X=1 git push`, `sh -c "git  push"` and
 * `xargs git push` cannot dodge a rule about `git push`.
 *
 * @module
 */
import { SHELLS, SHELL_KEYWORDS, findStartingPoints, isStdinPath, shellReadsStdin, unwrapJudged, xargsReplacement } from '../shell/wrappers.js'
import { isComputedWord, splitScript } from '../shell/shell_words.js'
import { changesDirectory, isPathLookup } from './command_paths.js'
import { arithmeticOnValues } from './shell_arithmetic.js'
import { executableName } from './command_prefix.js'

export { isPathLookup } from './command_paths.js'
export { CommandPrefix, executableName } from './command_prefix.js'

/** How deep wrappers are unwrapped before the call is treated as unknowable. */
const MAX_DEPTH = 8

/** The commands a `bash` call would run, as far as they can be known before it runs. */
export interface CommandSubject {
  /** Every simple command reached: the call itself, then what its wrappers and scripts run. */
  readonly commands: readonly (readonly string[])[]
  /** `executableName` of each command's first word, in the same order. */
  readonly names: readonly string[]
  /**
   * For each command, whether it only runs the commands that follow it
   * (`bash -c`, `env`, `timeout`, `xargs`…): an allow rule need not name
   * it, only what it runs. `sudo`, `find`, `chroot` and the like act
   * themselves and are not.
   */
  readonly passThrough: readonly boolean[]
  /**
   * Set when the call does something an `allow` prefix cannot vouch for,
   * however its commands match: why. A script handed to a shell that uses
   * more than plain words, quotes, `&&`/`||`/`;`/`|` and redirections (a
   * substitution, a comment, a here-document, a backslash, a brace or a
   * parenthesis, an assignment to a variable that changes what programs do,
   * such as `NODE_OPTIONS`, `BASH_ENV` or `GIT_*`), a shell that runs its
   * start-up files (`-l`, `-i`, `--rcfile`), `env -S`. Deny and ask rules
   * still judge the commands as split; allow rules then do not cover it.
   */
  readonly opaque: string | undefined
  /**
   * Set when some command word is only known at run time (`$cmd`, `{git,}`,
   * `eval "$x"`, `xargs -I{} {}`): why. A computed *argument* does not set
   * it: prefixes judge those where they compare them (see {@link CommandPrefix}).
   */
  readonly dynamic: string | undefined
  /**
   * Set when a command of the call changes the working directory of the
   * ones after it (`cd`, `pushd`, `env -C`, `sudo -D`, `chroot`, `nsenter
   * -w`, `find -execdir` …): a relative command path (`bin/x`) then names
   * another file than the one an allow rule wrote, and `git` may work on
   * another repository than the root's.
   */
  readonly movesDirectory: boolean
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
  const passThrough: boolean[] = []
  const opaque: { reason?: string } = {}
  const dynamic = collect([cmd, ...args], 0, commands, names, passThrough, opaque)
  let movesDirectory = false
  for (let i = 0; i < commands.length && !movesDirectory; i++) movesDirectory = changesDirectory(names[i]!, commands[i]!)
  return { commands, names, passThrough, dynamic, opaque: opaque.reason, movesDirectory }
}

/**
 * Programs whose arguments may be scripts for a shell: their arguments must
 * be plain for an allow rule to cover the call (see {@link CommandSubject.opaque}).
 */
const SCRIPT_TAKERS = new Set([...SHELLS, 'eval', 'watch', 'su', 'runuser', 'script', 'flock', 'trap'])

/** Package runners whose `-c`/`--call` takes a script. */
const SCRIPT_OPTION_TAKERS = new Set(['npx', 'npm', 'pnpm'])

/**
 * Variables a command may be given (`CI=1 npm test`, `env NODE_ENV=test …`)
 * without an allow rule losing its meaning; any other assignment (for
 * instance `NODE_OPTIONS`, `BASH_ENV`, `LD_PRELOAD`, `GIT_CONFIG_*`, `PATH`)
 * can make the allowed program run something else.
 */
const SAFE_ASSIGNMENTS = new Set(['CI', 'NODE_ENV', 'FORCE_COLOR', 'NO_COLOR', 'TERM', 'COLUMNS', 'LINES', 'TZ', 'LANG', 'LANGUAGE', 'LC_ALL', 'DEBUG', 'VERBOSE', 'RUST_BACKTRACE', 'RUST_LOG', 'PYTHONUNBUFFERED', 'PYTHONDONTWRITEBYTECODE'])

/** Shell options that make it run start-up files besides its `-c` script. */
const STARTUP_OPTIONS = /^(?:--login$|--rcfile(?:=|$)|--init-file(?:=|$)|--interactive$|-[A-Za-z]*[il])/

/** Why `text`, as a script for a shell, is more than an allow rule can vouch for; `undefined` when plain. */
function notPlain(text: string): string | undefined {
  // Only `$?`, `$#`, `$$` and `$!` expand to text nobody chose. A variable
  // or a positional parameter can carry options into an allowed command
  // (`for x in --node-options=…; do npm test $x; done`), and `$(…)`, `${…}`,
  // `$'…'`, backquotes, backslashes and grouping can hide commands.
  if (/[`\\(){}]|\$(?![?#$!])/.test(withoutSubshells(text))) return 'it uses variables, substitutions, backslashes or grouping'
  if (text.includes('<<')) return 'it has a here-document'
  // A redirection that writes a file (`echo … >> .git/config`, `: > .npmrc`)
  // can make an allowed program run anything: only `/dev/null` and
  // descriptors are fine. (A `>` inside quotes counts too: conservative.)
  const writes = text.replace(/(?:\d+|&)?>>?\|?\s*\/dev\/null(?![^\s;&|])|\d*>&(?:\d+|-)/g, '')
  if (writes.includes('>')) return 'it writes a file with a redirection'
  for (const match of text.matchAll(/(?:^|[\s;&|])([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]]*\])?\+?=/g)) {
    if (!SAFE_ASSIGNMENTS.has(match[1]!)) return `it sets ${match[1]}`
  }
  return undefined
}

/**
 * `text` without the parentheses of plain subshells (`(cd src && npm test)`):
 * a `(` that starts a command (after the start, a blank, `;`, `&` or `|`, and
 * not `((`), and as many `)` that end one. Whatever else has a parenthesis
 * (`$(`, `<(`, `@(`, `((`, `f()`, a `)` in a `case`) keeps it.
 */
function withoutSubshells(text: string): string {
  let opened = 0
  const stripped = text.replace(/(^|[\s;&|])\((?!\()/g, (_, before: string) => {
    opened++
    return `${before} `
  })
  if (opened === 0) return text
  return stripped.replace(/\)(?=$|[\s;&|)])/g, (paren: string) => (opened-- > 0 ? ' ' : paren))
}

/** Record why an allow rule cannot cover the call, if `argv` makes it so. */
function checkPlain(name: string, rest: readonly string[], opaque: { reason?: string }): void {
  if (opaque.reason !== undefined) return
  let reason: string | undefined
  if (SCRIPT_TAKERS.has(name) || (SCRIPT_OPTION_TAKERS.has(name) && rest.some((word) => word === '-c' || word === '--call' || word.startsWith('--call=')))) {
    if (SHELLS.has(name) && rest.some((word) => STARTUP_OPTIONS.test(word))) reason = `\`${name}\` runs its start-up files too`
    for (const word of rest) reason ??= notPlain(word)
  } else if (name === 'env') {
    for (const word of rest) {
      // Its options are read as GNU env reads them (clusters, abbreviations, `-S` splitting a string into a
      // command): rather than follow them all, an env with options is not vouched for.
      if (word.startsWith('-')) reason ??= `\`env ${word}\` is an option an allow rule does not follow`
      const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(word)
      if (assignment !== null && !SAFE_ASSIGNMENTS.has(assignment[1]!)) reason ??= `it sets ${assignment[1]}`
      // The command's own words (`env CI=1 timeout --foreground …`) are not env's.
      if (!word.startsWith('-') && assignment === null) break
    }
  }
  if (reason !== undefined) opaque.reason = reason
}


/**
 * Wrappers that run what they are given and do nothing else of note: the
 * shells (with `-c`), `eval`, the shell's keywords, and the plain runners.
 * Not `sudo`/`su`/`doas`/`runuser` (another user), `chroot`/`unshare`/
 * `nsenter`, `find` (`-delete`), `script` (writes a file), `strace`.
 */
const PASS_THROUGH = new Set([
  ...SHELLS,
  ...SHELL_KEYWORDS,
  'eval',
  ...['env', 'timeout', 'nice', 'ionice', 'stdbuf', 'nohup', 'setsid', 'command', 'builtin', 'time', 'chronic', 'unbuffer', 'exec', 'xargs', 'flock', 'watch', 'busybox', 'prlimit', 'trap', 'ifne'],
])

/** Wrappers whose words are code of another language or plain arguments, never a shell script. */
const NOT_SHELL_TEXT = new Set(['python', 'pypy', 'node', 'nodejs', 'perl', 'ruby', 'php', 'lua', 'luajit', 'rscript', 'deno', 'sed', 'awk', 'gawk', 'mawk', 'nawk', 'find', 'xargs'])

function collect(argv: readonly string[], depth: number, out: string[][], names: string[], passThrough: boolean[], opaque: { reason?: string }): string | undefined {
  if (argv.length === 0) return undefined
  if (depth > MAX_DEPTH) return 'the command nests too many wrappers to be checked'
  const executable = argv[0]!
  const name = executableName(executable)
  out.push(argv as string[])
  names.push(name)
  const at = passThrough.push(false) - 1
  if (executable === '' || isComputedWord(executable)) {
    return `the command word ${JSON.stringify(executable)} is computed when the script runs`
  }
  const rest = argv.slice(1)
  checkPlain(name, rest, opaque)
  const hidden = hiddenCode(name, rest)
  if (hidden !== undefined) return hidden
  let wrapped: ReturnType<typeof unwrapJudged>
  if (name === 'eval') wrapped = splitScript(rest.join(' '))
  else if (name === 'alias' || (name === 'hash' && rest.some((word) => /^-[A-Za-z]*p/.test(word)))) {
    return `\`${name}\` makes the shell run a command built at run time (or another program under a known name)`
  }
  else if (name === 'git' && gitAlias(rest)) return '`git -c alias.*` or `-c help.autocorrect` lets git run a subcommand other than the one written'
  else if ((name === 'source' || name === '.') && sourcesRuntimeInput(rest)) {
    return `\`${name}\` reads its commands from standard input, a pipe or a process substitution, which cannot be checked before they run`
  }
  else wrapped = unwrapJudged(name, rest)
  if (wrapped === undefined) {
    return shellReadsStdin(name, rest) ? `\`${name}\` reads its commands from standard input, which cannot be checked before they run; pass them with -c` : undefined
  }
  if (!Array.isArray(wrapped)) return 'dynamic' in wrapped ? wrapped.dynamic : wrapped.opaque
  // A wrapper's words may be shell scripts (`bash -c`, `su -c`, `eval`): arithmetic on their values hides commands.
  if (!NOT_SHELL_TEXT.has(name.replace(/-?[\d.]+$/, ''))) for (const word of rest) {
    const arithmetic = arithmeticOnValues(word)
    if (arithmetic !== undefined) return arithmetic
  }
  // Only once it is known what it runs: a shell reading stdin stays a command of its own.
  // A wrapper named by a path (`./env`, `bin/timeout`) may be any program: it covers nothing.
  passThrough[at] = PASS_THROUGH.has(name) && wrapped.length > 0 && isPathLookup(executable)
  if (name === 'xargs') wrapped = wrapped.map((command) => withXargsInput(command, xargsReplacement(rest)))
  else if (name === 'find') wrapped = wrapped.map((command) => withFoundPath(command, findStartingPoints(rest)))
  let dynamic: string | undefined
  for (const command of wrapped) dynamic ??= collect(command, depth + 1, out, names, passThrough, opaque)
  return dynamic
}

/**
 * What xargs runs, with its input shown as the computed word it is: each
 * line in place of the replacement string (`-I {}`), or appended as
 * arguments, so `echo push | xargs git` is `git $XARGS_INPUT`, which a
 * `git push` rule catches.
 */
function withXargsInput(command: string[], replace: string | undefined): string[] {
  if (command.length === 0) return command
  if (replace === undefined || replace === '') return [...command, XARGS_INPUT]
  return command.map((word) => (word.includes(replace) ? word.split(replace).join(XARGS_INPUT) : word))
}

/** The word xargs's input stands for: computed, and it may start with `-`. */
const XARGS_INPUT = '$XARGS_INPUT'

/**
 * What `find -exec` runs, with `{}` shown as a glob of the paths find can
 * give: each starts with a starting point (`find push -exec git {} ;` runs
 * `git push`), so `{}` of `find . -exec rm {} ;` is `.*`, never an option.
 */
function withFoundPath(command: string[], points: readonly string[]): string[] {
  if (!command.some((word) => word.includes('{}'))) return command
  const shape = points.length === 1 ? `${points[0]}*` : `{${points.join(',')}}*`
  return command.map((word) => (word.includes('{}') ? word.split('{}').join(shape) : word))
}

/**
 * Variables whose value the shell runs or looks commands up in: setting one
 * (`BASH_ENV=<(…) bash -c …`, `printf -v BASH_CMDS[ls] /bin/rm`) makes the
 * commands that follow run something their words do not show.
 */
const SHELL_CODE_VARIABLES = /\b(?:BASH_ENV|BASH_CMDS|BASH_ALIASES|PROMPT_COMMAND|BASH_LOADABLES_PATH|SHELLOPTS|BASHOPTS|PS4)\b|\bBASH_FUNC_/

/**
 * Variables whose value programs run as a command line (`PAGER`, `EDITOR`,
 * `GIT_SSH_COMMAND`, `LESSOPEN`, `TAR_OPTIONS=--to-command=…`, git's
 * configuration by `GIT_CONFIG_*`): naming one (set, exported, read into;
 * not expanded as `$PAGER`) makes what the commands after it run unknowable.
 */
const COMMAND_VARIABLES = /(?<![$\w{])(?:PAGER|GIT_PAGER|MANPAGER|SYSTEMD_PAGER|LESSOPEN|LESSCLOSE|EDITOR|VISUAL|GIT_EDITOR|GIT_SEQUENCE_EDITOR|SUDO_EDITOR|FCEDIT|GIT_SSH|GIT_SSH_COMMAND|GIT_ASKPASS|SSH_ASKPASS|SUDO_ASKPASS|GIT_EXTERNAL_DIFF|GIT_EXEC_PATH|GIT_PROXY_COMMAND|GIT_CONFIG\w*|BROWSER|TAR_OPTIONS|RSYNC_RSH|RSYNC_CONNECT_PROG|CVS_RSH|MAKEFLAGS|GNUMAKEFLAGS|MFLAGS|SHELL)\b/

/** Builtins that evaluate a name with a subscript given as text (`test -v 'a[$(…)]'`, `printf -v`, `unset`). */
const NAME_EVALUATORS = new Set(['test', '[', '[[', 'printf', 'declare', 'typeset', 'local', 'export', 'readonly', 'read', 'unset', 'let', 'mapfile', 'readarray'])

/**
 * Why a command runs code its words do not show, as far as the words tell:
 * a shell variable that holds code set or assigned through it, an array
 * subscript that the shell evaluates with a variable or substitution in it
 * (`${v[$x]}`, `test -v 'a[$(…)]'`), a shell given a start-up file.
 */
function hiddenCode(name: string, rest: readonly string[]): string | undefined {
  for (const word of rest) {
    if (SHELL_CODE_VARIABLES.test(word)) return `${JSON.stringify(clipWord(word))} sets a variable the shell runs code from`
    if (COMMAND_VARIABLES.test(word)) return `${JSON.stringify(clipWord(word))} sets a variable whose value programs run as a command`
    // Subscripts of arrays are evaluated: a substitution or a name in one runs or expands when the script runs
    // (`${v[$x]}`; not a number, `@` or `*`), and so does a subscript given as text to a builtin that evaluates names.
    if (/\$\{[A-Za-z_][A-Za-z0-9_]*\[(?![0-9]+\]|[@*]\])/.test(word) || (NAME_EVALUATORS.has(name) && /\[[^\]]*(?:\$|`)/.test(word))) {
      return `${JSON.stringify(clipWord(word))} has an array subscript the shell evaluates when the script runs`
    }
  }
  if (SHELLS.has(name) && rest.some((word) => /^--(?:rcfile|init-file)(?:=|$)/.test(word))) {
    return `\`${name}\` is given a start-up file, whose commands cannot be checked before they run`
  }
  return undefined
}


function clipWord(word: string): string {
  return word.length > 80 ? `${word.slice(0, 80)}…` : word
}

/**
 * Whether `source`/`.` reads a script that exists only at run time: standard
 * input, a descriptor, or a process substitution (which the splitter has
 * taken out, leaving no operand).
 */
function sourcesRuntimeInput(rest: readonly string[]): boolean {
  const file = rest[0] === '--' ? rest[1] : rest[0]
  return file === undefined || isStdinPath(file)
}

/** git's global options that take the next word as their value. */
const GIT_VALUED = new Set(['-C', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--exec-path', '--list-cmds', '--attr-source'])

function gitAlias(rest: readonly string[]): boolean {
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!
    const config = word === '-c' || word === '--config-env' ? rest[i + 1] : word.startsWith('--config-env=') ? word.slice(13) : undefined
    // An alias names any subcommand; help.autocorrect runs the subcommand a misspelling is closest to (`pus` → push).
    if (config !== undefined && /^(?:alias\.|help\.autocorrect)/i.test(config)) return true
    // Global options with a value (`-C DIR`) come before the subcommand too.
    if (GIT_VALUED.has(word)) {
      i++
      continue
    }
    if (!word.startsWith('-')) return false
  }
  return false
}
