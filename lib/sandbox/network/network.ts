/**
 * The network guard of `bash`: refuses, before anything is spawned, commands
 * that obviously reach the network. It is the first layer only: on Linux the
 * command also runs in an empty network namespace, which stops what a word
 * list cannot (`node -e`, `python3 -c`).
 *
 * @module
 */
import path from 'node:path'
import { E_TOOL_GIT_REMOTE_DISABLED, E_TOOL_NETWORK_DISABLED } from '../../exceptions.js'
import { clip, unwrap } from '../../shell/wrappers.js'
import { isComputedWord, splitScript } from '../../shell/shell_words.js'

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
 * @throws {@link toolsmith/core!E_TOOL_NETWORK_DISABLED} or {@link toolsmith/core!E_TOOL_GIT_REMOTE_DISABLED}.
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
      if (key.startsWith('alias.') || key === 'help.autocorrect') {
        return {
          kind: 'git',
          executable: 'git',
          reason: `\`git -c ${clip(config)}\` defines an alias or autocorrects a subcommand, which could name a remote one; run the subcommand itself`,
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
    if (isComputedWord(word)) {
      return { kind: 'git', executable: 'git', reason: `the git subcommand ${JSON.stringify(clip(word))} is computed when the script runs, so it could talk to a remote repository`, argument: clip(word) }
    }
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
