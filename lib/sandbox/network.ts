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
])

const EXECUTABLES = new Set(NETWORK_EXECUTABLES)
const GIT_REMOTE = new Set(GIT_REMOTE_SUBCOMMANDS)
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'ash', 'mksh', 'busybox-sh'])
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
 * `busybox APPLET`, `command`, `exec`, `stdbuf`, `setsid`, `time`, `sudo`,
 * and the `-c` script of `sh`, `bash`, `dash`, `zsh`, `ksh` (split into
 * simple commands on `;`, `&&`, `||`, `|`, newlines, `$(…)` and backquotes).
 * Plain words pass: `echo bundle.js`, `git commit -m "fetch later"`.
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
  const listed = listedExecutable(name)
  if (listed !== undefined) {
    return { kind: 'network', executable: name, reason: `\`${name}\` reaches the network` }
  }
  if (name === 'git') {
    const refusal = inspectGit(argv)
    if (refusal !== undefined) return refusal
  }
  for (const command of unwrap(name, argv.slice(1)) ?? []) {
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

function inspectGit(argv: readonly string[]): Refusal | undefined {
  let i = 1
  while (i < argv.length) {
    const word = argv[i]!
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
    return undefined
  }
  return undefined
}

/**
 * The command(s) a wrapper runs, or `undefined` when `name` is not a wrapper.
 */
function unwrap(name: string, rest: readonly string[]): string[][] | undefined {
  switch (name) {
    case 'env':
      return unwrapEnv(rest)
    case 'timeout':
      return [skipOptions(rest, new Set(['-s', '--signal', '-k', '--kill-after']), 1)]
    case 'nice':
      return [skipOptions(rest, new Set(['-n', '--adjustment']), 0)]
    case 'ionice':
      return [skipOptions(rest, new Set(['-c', '--class', '-n', '--classdata', '-t']), 0)]
    case 'stdbuf':
      return [skipOptions(rest, new Set(['-i', '-o', '-e', '--input', '--output', '--error']), 0)]
    case 'sudo':
    case 'doas':
      return [skipOptions(rest, new Set(['-u', '--user', '-g', '--group', '-C', '-D', '-h', '-p', '-r', '-t', '-U']), 0)]
    case 'nohup':
    case 'setsid':
    case 'command':
    case 'exec':
    case 'builtin':
    case 'time':
    case 'chronic':
    case 'unbuffer':
      return [skipOptions(rest, new Set(), 0)]
    case 'xargs':
      return [unwrapXargs(rest)]
    case 'busybox':
      return [rest.slice(rest[0]?.startsWith('-') ? 1 : 0)]
    default:
      if (SHELLS.has(name)) return unwrapShell(rest)
      return undefined
  }
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

/** `sh -c SCRIPT`, `bash -lc SCRIPT`, `sh -e -c SCRIPT`… → the simple commands of SCRIPT. */
function unwrapShell(rest: readonly string[]): string[][] | undefined {
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!
    if (word === '--') break
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(word) || word === '--command') {
      const script = rest[i + 1]
      return script === undefined ? [] : splitScript(script)
    }
    if (!word.startsWith('-') && !word.startsWith('+')) break
  }
  return undefined
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
