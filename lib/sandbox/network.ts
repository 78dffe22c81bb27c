/**
 * The network guard of `bash`: refuses, before anything is spawned, commands
 * that obviously reach the network. It is the first layer only: on Linux the
 * command also runs in an empty network namespace, which stops what a word
 * list cannot (`node -e`, `python3 -c`).
 *
 * @module
 */
import path from 'node:path'
import { E_TOOL_GIT_REMOTE_DISABLED, E_TOOL_NETWORK_DISABLED } from '../exceptions.js'

/** Executables refused outright while the network is disabled. */
export const NETWORK_EXECUTABLES: readonly string[] = Object.freeze([
  'curl',
  'wget',
  'ssh',
  'scp',
  'sftp',
  'ftp',
  'telnet',
  'nc',
  'netcat',
  'ncat',
  'socat',
  'ping',
  'traceroute',
  'dig',
  'nslookup',
  'nmap',
  'openssl',
  'rsync',
  'npm',
  'npx',
  'pnpm',
  'yarn',
  'bun',
  'pip',
  'pip3',
  'uv',
  'apt',
  'apt-get',
  'brew',
  'cargo',
  'go',
  'gem',
  'hg',
  'svn',
  'powershell',
  'pwsh',
])

/** git subcommands that talk to a remote. */
export const GIT_REMOTE_SUBCOMMANDS: readonly string[] = Object.freeze([
  'push',
  'pull',
  'fetch',
  'clone',
  'remote',
  'ls-remote',
  'submodule',
  'fetch-pack',
  'send-pack',
  'http-fetch',
  'http-push',
  'daemon',
  'svn',
  'p4',
  'request-pull',
  'imap-send',
  'send-email',
  'remote-http',
  'remote-https',
  'remote-ftp',
  'remote-ftps',
  'remote-ext',
  'remote-fd',
  'lfs',
])

const EXECUTABLES = new Set(NETWORK_EXECUTABLES)
const GIT_REMOTE = new Set(GIT_REMOTE_SUBCOMMANDS)
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'ash', 'mksh', 'busybox-sh'])
/** Shell options that take the next word as their value (`-o pipefail`, `-O extglob`, `+o errexit`). */
const SHELL_VALUE_LETTERS = new Set(['o', 'O'])
const SHELL_VALUE_OPTIONS = new Set(['--rcfile', '--init-file'])
/** Shell reserved words that only introduce the command after them (`if curl …; then`). */
const SHELL_KEYWORDS = new Set(['if', 'then', 'else', 'elif', 'do', 'while', 'until', '!', 'coproc'])
/** Shell commands that build or define the command they run at run time: never statically known. */
const DYNAMIC_BUILTINS = new Set(['eval', 'alias', 'trap'])
/** git global options that take a separate value. */
const GIT_VALUE_OPTIONS = new Set(['-c', '-C', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--config-env', '--exec-path'])
/** How deep wrappers (`env sh -c "timeout 5 …"`) are unwrapped before giving up and refusing. */
const MAX_DEPTH = 8

/** Argument fragments that name a network location or a proxy. */
const NETWORK_ARGUMENT_PATTERNS: readonly { pattern: RegExp; what: string }[] = [
  { pattern: /:\/\//, what: 'a URL' },
  { pattern: /(^|[^a-z0-9])www\./i, what: 'a web address' },
  { pattern: /git@/i, what: 'a git remote address' },
  { pattern: /\b\d{1,3}(\.\d{1,3}){3}:\d{1,5}\b/, what: 'an IP address and port' },
  { pattern: /\[[0-9a-f:]*:[0-9a-f:]*\]:\d{1,5}/i, what: 'an IPv6 address and port' },
  { pattern: /--proxy/i, what: 'a proxy option' },
  { pattern: /https?_proxy/i, what: 'a proxy setting' },
]

/**
 * Why a command was refused.
 *
 * @internal
 */
interface Refusal {
  kind: 'network' | 'git'
  executable: string
  reason: string
  argument?: string
}

/**
 * The executable name a path or word stands for: basename, lower case,
 * without a Windows `.exe`.
 */
function executableName(word: string): string {
  return path.basename(word).toLowerCase().replace(/\.exe$/, '')
}

/** `pip3.12` → `pip3`, `ping6` → `ping`: version suffixes do not hide a listed tool. */
function listedExecutable(name: string): string | undefined {
  if (EXECUTABLES.has(name)) return name
  const unversioned = name.replace(/[\d.]+$/, '')
  if (unversioned !== name && EXECUTABLES.has(unversioned)) return unversioned
  const dashed = name.replace(/-[\d.]+$/, '')
  if (dashed !== name && EXECUTABLES.has(dashed)) return dashed
  return undefined
}

/**
 * Refuse `cmd args…` when it would reach the network.
 *
 * @remarks
 * Checks, case-insensitively: the executable (by basename, so
 * `/usr/bin/curl` counts) against {@link NETWORK_EXECUTABLES}; git
 * subcommands in {@link GIT_REMOTE_SUBCOMMANDS}, after global options such
 * as `-C dir` and `-c key=value`; every argument for URLs (`://`), `www.`,
 * `git@`, `IP:port`, `--proxy`, `http_proxy`, `https_proxy`. Wrappers are
 * unwrapped and their payload checked the same way: `env` (with its
 * options and `NAME=value` words), `timeout`, `nice`, `nohup`, `xargs`,
 * `busybox APPLET`, `command`, `exec`, `builtin`, `stdbuf`, `setsid`,
 * `time`, `sudo`, `doas`, `ionice`, `flock`, `watch`, `strace`, `ltrace`,
 * `script -c`, `su -c`, `runuser`, `taskset`, `chrt`, `chroot`, `unshare`,
 * `nsenter`, `find -exec/-execdir/-ok/-okdir`, and the `-c` script of `sh`,
 * `bash`, `dash`, `zsh`, `ksh` (after options such as `-o pipefail`; split
 * into simple commands on `;`, `&&`, `||`, `|`, newlines, `$(…)` and
 * backquotes). A command word that is only known at run time (`$var`,
 * `${x}rl`, `$(…)`, `eval`, `alias`, `xargs -I {} {}`, `find -exec {}`,
 * `sh -c` without a script) is refused. git `-c alias.*=…` is refused and
 * other `-c` values are checked as commands; `git archive --remote` is a
 * remote subcommand. Plain words pass: `echo bundle.js`,
 * `git commit -m "fetch later"`.
 *
 * @param cmd - The executable as given to `bash`.
 * @param args - Its arguments.
 * @throws {@link E_TOOL_NETWORK_DISABLED} or {@link E_TOOL_GIT_REMOTE_DISABLED}.
 *
 * @example
 * ```ts
 * assertOfflineCommand('git', ['status'])          // passes
 * assertOfflineCommand('sh', ['-c', 'curl x | sh']) // throws TOOL_NETWORK_DISABLED
 * ```
 */
export function assertOfflineCommand(cmd: string, args: readonly string[]): void {
  const refusal = inspect([cmd, ...args], 0)
  if (refusal === undefined) return
  const details = {
    executable: refusal.executable,
    reason: refusal.reason,
    ...(refusal.argument === undefined ? {} : { argument: refusal.argument }),
  }
  const advice = 'Network access is disabled in this sandbox; work with the files already present, or ask the user to enable allowNetwork.'
  if (refusal.kind === 'git') {
    throw new E_TOOL_GIT_REMOTE_DISABLED(`Refused: ${refusal.reason}. ${advice}`, { details })
  }
  throw new E_TOOL_NETWORK_DISABLED(`Refused: ${refusal.reason}. ${advice}`, { details })
}

/** Check one argv (executable first); `undefined` when it is allowed. */
function inspect(argv: readonly string[], depth: number): Refusal | undefined {
  if (argv.length === 0) return undefined
  const executable = argv[0]!
  const name = executableName(executable)
  if (depth > MAX_DEPTH) {
    return { kind: 'network', executable: name, reason: 'the command nests too many wrappers to be checked' }
  }
  // Most specific reason first: a listed program, a git remote, a wrapped
  // command; then addresses anywhere in the words.
  if (/[$`]/.test(executable) || executable === '') {
    return {
      kind: 'network',
      executable: executable === '' ? '(empty)' : clip(executable),
      reason: `the command word ${JSON.stringify(clip(executable))} is computed when the script runs (a variable or a substitution), so the guard cannot tell what it runs; write the command out literally`,
    }
  }
  if (DYNAMIC_BUILTINS.has(name)) {
    return {
      kind: 'network',
      executable: name,
      reason: `\`${name}\` makes the shell run a command built at run time, which the guard cannot check; write the command out directly`,
    }
  }
  const listed = listedExecutable(name)
  if (listed !== undefined) {
    return { kind: 'network', executable: name, reason: `\`${name}\` reaches the network` }
  }
  if (name === 'git') {
    const refusal = inspectGit(argv, depth)
    if (refusal !== undefined) return refusal
  }
  const wrapped = unwrap(name, argv.slice(1))
  if (wrapped !== undefined && !Array.isArray(wrapped)) return { kind: 'network', executable: name, reason: wrapped.dynamic }
  for (const command of wrapped ?? []) {
    const refusal = inspect(command, depth + 1)
    if (refusal !== undefined) return refusal
  }
  for (const word of argv) {
    for (const { pattern, what } of NETWORK_ARGUMENT_PATTERNS) {
      if (pattern.test(word)) {
        return { kind: 'network', executable: name, reason: `an argument contains ${what} (${JSON.stringify(clip(word))})`, argument: clip(word) }
      }
    }
  }
  return undefined
}

function inspectGit(argv: readonly string[], depth: number): Refusal | undefined {
  let i = 1
  while (i < argv.length) {
    const word = argv[i]!
    // `-c key=value` / `--config-env=key=VAR`: an alias can rename any remote
    // subcommand (`-c alias.f=fetch f`), and a value may be a command
    // (`core.pager`, `core.sshCommand`…): aliases are refused, values checked as scripts.
    const config = word === '-c' || word === '--config-env' ? argv[i + 1] : word.startsWith('--config-env=') ? word.slice('--config-env='.length) : undefined
    if (config !== undefined) {
      const key = config.split('=', 1)[0]!.toLowerCase()
      if (key.startsWith('alias.')) {
        return {
          kind: 'git',
          executable: 'git',
          reason: `\`git -c ${clip(config)}\` defines an alias, which could name a remote subcommand; run the subcommand itself`,
          argument: clip(config),
        }
      }
      if (word === '-c') {
        for (const command of splitScript(config.slice(config.indexOf('=') + 1))) {
          const refusal = inspect(command, depth + 1)
          if (refusal !== undefined) return refusal
        }
      }
    }
    if (GIT_VALUE_OPTIONS.has(word)) {
      i += 2
      continue
    }
    if (word.startsWith('-')) {
      i += 1
      continue
    }
    const sub = word.toLowerCase()
    if (GIT_REMOTE.has(sub)) {
      return { kind: 'git', executable: 'git', reason: `\`git ${sub}\` talks to a remote repository` }
    }
    if (sub === 'archive' && argv.slice(i + 1).some((arg) => arg === '--remote' || arg.startsWith('--remote='))) {
      return { kind: 'git', executable: 'git', reason: '`git archive --remote` talks to a remote repository' }
    }
    return undefined
  }
  return undefined
}

/** A wrapper whose payload cannot be determined statically: why. */
interface Dynamic {
  dynamic: string
}

/**
 * The command(s) a wrapper runs, `undefined` when `name` is not a wrapper,
 * or why its payload cannot be known before it runs.
 */
function unwrap(name: string, rest: readonly string[]): string[][] | Dynamic | undefined {
  switch (name) {
    case 'env':
      return unwrapEnv(rest)
    case 'timeout':
      return [skipOptions(rest, new Set(['-s', '--signal', '-k', '--kill-after']), 1)]
    case 'nice':
      return [skipOptions(rest, new Set(['-n', '--adjustment']), 0)]
    case 'ionice':
      return [skipOptions(rest, new Set(['-c', '--class', '-n', '--classdata', '-t', '-p', '-P', '-u']), 0)]
    case 'stdbuf':
      return [skipOptions(rest, new Set(['-i', '-o', '-e', '--input', '--output', '--error']), 0)]
    case 'sudo':
    case 'doas':
      return [skipOptions(rest, new Set(['-u', '--user', '-g', '--group', '-C', '-D', '--chdir', '-h', '--host', '-p', '--prompt', '-r', '--role', '-t', '--type', '-U', '--other-user', '-R', '--chroot', '-T', '--command-timeout']), 0)]
    case 'exec':
      return [skipOptions(rest, new Set(['-a']), 0)]
    case 'nohup':
    case 'setsid':
    case 'command':
    case 'builtin':
    case 'time':
    case 'chronic':
    case 'unbuffer':
      return [skipOptions(rest, new Set(), 0)]
    case 'flock': {
      // flock [opts] FILE -c CMD | flock [opts] FILE CMD ARGS… | flock [opts] FD
      const afterOptions = skipOptions(rest, new Set(['-w', '--timeout', '-E', '--conflict-exit-code']), 0)
      const script = commandOption(rest, ['-c', '--command'])
      if (script !== undefined) return splitScript(script)
      return [afterOptions.slice(1)]
    }
    case 'watch':
      // watch joins its arguments and runs them with `sh -c`.
      return splitScript(skipOptions(rest, new Set(['-n', '--interval', '-q', '--equexit']), 0).join(' '))
    case 'strace':
      return [skipOptions(rest, new Set(['-e', '-o', '-p', '-s', '-u', '-E', '-a', '-b', '-I', '-O', '-S', '-P', '-X', '--output', '--attach', '--user', '--env', '--string-limit']), 0)]
    case 'ltrace':
      return [skipOptions(rest, new Set(['-e', '-o', '-p', '-s', '-u', '-n', '-a', '-A', '-D', '-E', '-F', '-l', '-w', '-x', '--output', '--library', '--indent', '--align', '--config']), 0)]
    case 'script': {
      // script [opts] [file]: only a -c/--command runs anything other than an interactive shell.
      const script = commandOption(rest, ['-c', '--command'])
      return script === undefined ? [] : splitScript(script)
    }
    case 'su':
    case 'runuser': {
      const script = commandOption(rest, ['-c', '--command', '--session-command'])
      if (script !== undefined) return splitScript(script)
      // runuser -u USER CMD ARGS…
      const userIndex = rest.findIndex((word) => word === '-u' || word === '--user')
      return userIndex === -1 ? [] : [skipOptions(rest.slice(userIndex + 2), new Set(['-g', '--group', '-G', '--supp-group', '-w', '--whitelist-environment']), 0)]
    }
    case 'taskset': {
      // taskset [opts] MASK CMD… ; with -c the list is the operand too; -p works on a pid.
      if (rest.some((word) => /^-[a-z]*p/.test(word) || word === '--pid')) return []
      return [skipOptions(rest, new Set(), 1)]
    }
    case 'chrt': {
      if (rest.some((word) => /^-[a-z]*p/.test(word) || word === '--pid')) return []
      // chrt [opts] PRIORITY CMD…
      return [skipOptions(rest, new Set(['-T', '--sched-runtime', '-P', '--sched-period', '-D', '--sched-deadline']), 1)]
    }
    case 'chroot':
      return [skipOptions(rest, new Set(['--userspec', '--groups']), 1)]
    case 'unshare':
      return [skipOptions(rest, new Set(['-S', '--setuid', '-G', '--setgid', '-R', '--root', '-w', '--wd', '--propagation', '--map-user', '--map-group', '--map-users', '--map-groups', '--kill-child']), 0)]
    case 'nsenter':
      return [skipOptions(rest, new Set(['-t', '--target', '-S', '--setuid', '-G', '--setgid', '-r', '--root', '-w', '--wd', '-N', '--net-socket']), 0)]
    case 'find':
      return unwrapFind(rest)
    case 'xargs': {
      const command = unwrapXargs(rest)
      const replace = xargsReplacement(rest)
      if (replace !== undefined && command[0]?.includes(replace)) {
        return { dynamic: `the xargs command word ${JSON.stringify(clip(command[0]!))} is filled in from the input at run time, so the guard cannot tell what it runs` }
      }
      return [command]
    }
    case 'busybox':
      return [rest.slice(rest[0]?.startsWith('-') ? 1 : 0)]
    default:
      if (SHELL_KEYWORDS.has(name)) return [[...rest]]
      if (SHELLS.has(name)) return unwrapShell(rest)
      return undefined
  }
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
    i += valued.has(word) ? 2 : 1
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
    if (word === '-S' || word === '--split-string') {
      commands.push(splitWords(rest[i + 1] ?? '').concat(rest.slice(i + 2)))
      return commands
    }
    if (word.startsWith('-S') || word.startsWith('--split-string=')) {
      const text = word.startsWith('-S') ? word.slice(2) : word.slice('--split-string='.length)
      commands.push(splitWords(text).concat(rest.slice(i + 1)))
      return commands
    }
    if (['-u', '--unset', '-C', '--chdir'].includes(word)) {
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

/** The replacement string of `xargs -I R` / `-iR` / `--replace[=R]`, if any. */
function xargsReplacement(rest: readonly string[]): string | undefined {
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
  const valued = new Set(['-a', '-d', '-E', '-e', '-I', '-i', '-L', '-l', '-n', '-P', '-s', '--arg-file', '--delimiter', '--max-args', '--max-procs', '--max-chars', '--process-slot-var'])
  let i = 0
  while (i < rest.length) {
    const word = rest[i]!
    if (word === '--') {
      i += 1
      break
    }
    if (!word.startsWith('-')) break
    // Attached forms (-n1, -I{}) carry their value; a bare valued option takes the next word.
    i += valued.has(word) ? 2 : 1
  }
  return rest.slice(i)
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
      i += 1 + [...letters].filter((letter) => SHELL_VALUE_LETTERS.has(letter)).length
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
 * Split a shell script into simple commands, approximately: quotes are
 * honoured, operators and substitutions start a new command. Over-splitting
 * is harmless (each piece is checked), so the approximation errs that way.
 */
function splitScript(script: string): string[][] {
  const commands: string[][] = []
  const nested: string[][] = []
  let words: string[] = []
  let word = ''
  let inWord = false
  let quote: '"' | "'" | undefined
  const endWord = (): void => {
    if (inWord) words.push(word)
    word = ''
    inWord = false
  }
  const endCommand = (): void => {
    endWord()
    // Leading NAME=value assignments are not the command.
    while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!)) words.shift()
    if (words.length > 0) commands.push(words)
    words = []
  }
  for (let i = 0; i < script.length; i++) {
    const ch = script[i]!
    if (quote === "'") {
      if (ch === "'") quote = undefined
      else word += ch
      continue
    }
    if (quote === '"') {
      if (ch === '"') quote = undefined
      else if (ch === '\\' && i + 1 < script.length) word += script[++i]
      else if (ch === '`' || (ch === '$' && script[i + 1] === '(')) {
        // A substitution inside double quotes is a script of its own.
        const [body, end] = readSubstitution(script, i)
        nested.push(...splitScript(body))
        word += script.slice(i, end + 1)
        i = end
      } else word += ch
      continue
    }
    if (ch === "'" || ch === '"') {
      quote = ch
      inWord = true
      continue
    }
    if (ch === '\\' && i + 1 < script.length) {
      word += script[++i]
      inWord = true
      continue
    }
    if (ch === ' ' || ch === '\t') {
      endWord()
      continue
    }
    if (ch === '`' || (ch === '$' && script[i + 1] === '(')) {
      const [body, end] = readSubstitution(script, i)
      nested.push(...splitScript(body))
      // Kept in the word: a substitution in command position makes the command unknowable.
      word += script.slice(i, end + 1)
      i = end
      inWord = true
      continue
    }
    if (';&|\n(){}<>'.includes(ch)) {
      endCommand()
      continue
    }
    word += ch
    inWord = true
  }
  endCommand()
  return [...commands, ...nested]
}

/**
 * The body of the substitution starting at `start` (a backquote or `$(`) and
 * the index of its closing character (the end of the script when unclosed).
 */
function readSubstitution(script: string, start: number): [string, number] {
  if (script[start] === '`') {
    const end = script.indexOf('`', start + 1)
    return end === -1 ? [script.slice(start + 1), script.length - 1] : [script.slice(start + 1, end), end]
  }
  let depth = 0
  let quote: string | undefined
  for (let i = start + 1; i < script.length; i++) {
    const ch = script[i]!
    if (quote !== undefined) {
      if (ch === quote) quote = undefined
      continue
    }
    if (ch === "'" || ch === '"') quote = ch
    else if (ch === '(') depth++
    else if (ch === ')' && --depth === 0) return [script.slice(start + 2, i), i]
  }
  return [script.slice(start + 2), script.length - 1]
}

/** `env -S` splitting: whitespace-separated words with simple quotes. */
function splitWords(text: string): string[] {
  return splitScript(text).flat()
}

function clip(word: string): string {
  return word.length > 120 ? `${word.slice(0, 120)}…` : word
}
