/**
 * Programs that run a command given in their arguments, as data: for each,
 * how the command is found (its options read as the program reads them,
 * see `wrapper_options.ts`), or why what it runs cannot be read as commands
 * (it runs code in a language of its own: `gdb -ex`, `python3 -c`,
 * `sed …e`). Part of the wrapper table of `wrappers.ts`, which
 * both the network guard and the permission rules use.
 *
 * @module
 */
import { splitScript } from './shell_words.js'
import { hasOption, isDynamic, optionValue, readOptions, type Dynamic, type Opaque, type OptionSpec, type ReadOptions } from './wrapper_options.js'

/** The shells whose `-c` scripts are split (and whose stdin scripts cannot be). @internal */
export const SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'ash', 'mksh', 'busybox-sh'])

/** What a wrapper runs: commands, a {@link Dynamic} refusal, or {@link Opaque} code. */
export type Payload = string[][] | Dynamic | Opaque
type Unwrapper = (rest: readonly string[]) => Payload

const opaque = (reason: string, commands?: string[][]): Opaque => (commands === undefined ? { opaque: reason } : { opaque: reason, commands })

/** A shell started without a command reads its commands from standard input. */
const SHELL_FROM_STDIN = 'without a command it starts a shell that reads its commands from standard input'

function withOptions(program: string, spec: OptionSpec, then: (read: ReadOptions) => Payload): Unwrapper {
  return (rest) => {
    const read = readOptions(program, rest, spec)
    return isDynamic(read) ? read : then(read)
  }
}

/** A wrapper that runs its operands after `positional` of its own; `empty` says what it does without a command. */
function runs(program: string, spec: OptionSpec, positional = 0, empty?: string): Unwrapper {
  return withOptions(program, spec, (read) => {
    const command = read.operands.slice(positional)
    if (command.length === 0) return empty !== undefined && read.operands.length >= positional ? opaque(`\`${program}\` ${empty}`) : []
    return [command]
  })
}

const flags = (...names: string[]): Record<string, 0> => Object.fromEntries(names.map((name) => [name, 0]))
const valued = (...names: string[]): Record<string, 1> => Object.fromEntries(names.map((name) => [name, 1]))
const optional = (...names: string[]): Record<string, 2> => Object.fromEntries(names.map((name) => [name, 2]))
const INFO = flags('help', 'version')

const SUDO: OptionSpec = {
  shorts: 'Aa:BbC:c:D:Eeg:Hh::iKklNnPp:R:r:SsT:t:U:u:Vv',
  longs: {
    ...INFO,
    ...flags('askpass', 'bell', 'background', 'edit', 'set-home', 'login', 'remove-timestamp', 'reset-timestamp', 'list', 'non-interactive', 'preserve-groups', 'stdin', 'shell', 'validate'),
    ...valued('close-from', 'chdir', 'group', 'host', 'prompt', 'chroot', 'role', 'type', 'command-timeout', 'other-user', 'user'),
    ...optional('preserve-env'),
  },
}

function sudo(rest: readonly string[]): Payload {
  const read = readOptions('sudo', rest, SUDO)
  if (isDynamic(read)) return read
  if (hasOption(read, '-e', '--edit')) return opaque('`sudo -e` edits files with an editor the environment names')
  if (read.operands.length > 0) return [read.operands]
  return hasOption(read, '-s', '-i', '--shell', '--login') ? opaque(`\`sudo\` ${SHELL_FROM_STDIN}`) : []
}

const SU: OptionSpec = {
  shorts: 'c:fg:G:lmps:w:PhVu:',
  longs: { ...INFO, ...flags('fast', 'login', 'preserve-environment', 'pty'), ...valued('command', 'session-command', 'group', 'supp-group', 'shell', 'whitelist-environment', 'user') },
  permute: true,
}

/** `su`/`runuser`: `-c CMD` through the user's shell (or `-s SHELL`), `runuser -u USER CMD…`, else a shell. */
function su(program: string): Unwrapper {
  return withOptions(program, SU, (read) => {
    const shell = optionValue(read, '-s', '--shell')
    if (shell !== undefined && !SHELLS.has(shell.slice(shell.lastIndexOf('/') + 1))) return opaque(`\`${program} -s ${shell}\` runs a program of its choice as the shell`)
    const script = optionValue(read, '-c', '--command', '--session-command')
    if (script !== undefined) return splitScript(script)
    if (hasOption(read, '-u', '--user') && read.operands.length > 0) return [read.operands]
    const operands = read.operands.filter((word) => word !== '-')
    // su USER ARGS… hands ARGS to the user's shell, which may take them as options (`-c …`).
    return opaque(operands.length > 1 ? `\`${program}\` passes ${JSON.stringify(operands.slice(1).join(' '))} to the user's shell` : `\`${program}\` ${SHELL_FROM_STDIN}`)
  })
}

const SCRIPT: OptionSpec = {
  shorts: 'I:O:B:T:t::m:aec:fE:o:qhV',
  longs: { ...INFO, ...flags('append', 'return', 'flush', 'force', 'quiet'), ...valued('log-in', 'log-out', 'log-io', 'log-timing', 'logging-format', 'command', 'echo', 'output-limit'), ...optional('timing') },
  permute: true,
}

const UNSHARE: OptionSpec = {
  shorts: 'm::u::i::n::p::U::C::T::frcR:w:S:G:hV',
  longs: {
    ...INFO,
    ...optional('mount', 'uts', 'ipc', 'net', 'pid', 'user', 'cgroup', 'time', 'kill-child', 'mount-proc', 'mount-binfmt'),
    ...flags('fork', 'map-root-user', 'map-current-user', 'map-auto', 'keep-caps'),
    ...valued('map-user', 'map-group', 'map-users', 'map-groups', 'propagation', 'setgroups', 'root', 'wd', 'setuid', 'setgid', 'monotonic', 'boottime', 'load-interp'),
  },
}

const NSENTER: OptionSpec = {
  shorts: 'at:m::u::i::n::p::C::U::T::S:G:r::w::W:N:FZehV',
  longs: {
    ...INFO,
    ...flags('all', 'preserve-credentials', 'no-fork', 'follow-context', 'env', 'keep-caps', 'user-parent', 'join-cgroup'),
    ...valued('target', 'setuid', 'setgid', 'wdns', 'net-socket'),
    ...optional('mount', 'uts', 'ipc', 'net', 'pid', 'cgroup', 'user', 'time', 'root', 'wd'),
  },
}

const SETPRIV: OptionSpec = {
  shorts: 'dhV',
  longs: {
    ...INFO,
    ...flags('dump', 'nnp', 'no-new-privs', 'clear-groups', 'keep-groups', 'init-groups', 'reset-env'),
    ...valued('ambient-caps', 'inh-caps', 'bounding-set', 'ruid', 'euid', 'rgid', 'egid', 'reuid', 'regid', 'groups', 'securebits', 'pdeathsig', 'selinux-label', 'apparmor-profile', 'landlock-access', 'landlock-rule', 'seccomp-filter'),
  },
}

const PRLIMIT_RESOURCES = ['core', 'data', 'nice', 'fsize', 'sigpending', 'memlock', 'rss', 'nofile', 'msgqueue', 'rtprio', 'stack', 'cpu', 'nproc', 'as', 'locks', 'rttime']
const PRLIMIT: OptionSpec = {
  shorts: 'c::d::e::f::i::l::m::n::q::r::s::t::u::v::x::y::p:o:hV',
  longs: { ...INFO, ...optional(...PRLIMIT_RESOURCES), ...valued('pid', 'output'), ...flags('noheadings', 'raw', 'verbose') },
}

/** `compgen`/`complete`: `-C CMD` runs a command; words given to `-W`, `-G`, `-X`, `-P`, `-S` are expanded when it runs. */
const COMPLETION: OptionSpec = { shorts: 'abcdefgjksuvo:A:G:W:F:C:X:P:S:prDEI', longs: {} }

function completion(program: string): Unwrapper {
  return withOptions(program, COMPLETION, (read) => {
    for (const [name, value] of read.given) {
      if (name !== '-C' && /[$`]/.test(value)) return opaque(`\`${program} ${name}\` expands ${JSON.stringify(value)} when it runs`)
    }
    const command = optionValue(read, '-C')
    // Run with the command name and words being completed after it: computed words.
    return command === undefined ? [] : splitScript(`${command} "$COMP_ARGS"`)
  })
}

/** `mapfile`/`readarray -C CALLBACK`: the callback is evaluated with the index and the line after it. */
function mapfile(program: string): Unwrapper {
  return withOptions(program, { shorts: 'd:n:O:s:tu:C:c:', longs: {} }, (read) => {
    const callback = optionValue(read, '-C')
    return callback === undefined ? [] : splitScript(`${callback} 0 "$MAPFILE_LINE"`)
  })
}

/** `trap ACTION SIGNAL…`: ACTION is a script run later; `trap SIGNAL` and `trap - SIGNAL` reset. */
function trap(rest: readonly string[]): Payload {
  const read = readOptions('trap', rest, { shorts: 'lpP', longs: {} })
  if (isDynamic(read)) return read
  const [action] = read.operands
  return read.operands.length < 2 || action === '-' ? [] : splitScript(action!)
}

/** `flock [opts] FILE CMD…`, `flock [opts] FILE -c CMD`, `flock [opts] FD`. */
const FLOCK: OptionSpec = {
  shorts: 'sexunow:E:c:FhV',
  longs: { ...INFO, ...flags('shared', 'exclusive', 'unlock', 'nonblock', 'nb', 'close', 'no-fork', 'verbose'), ...valued('timeout', 'wait', 'conflict-exit-code', 'command') },
}
function flock(rest: readonly string[]): Payload {
  const read = readOptions('flock', rest, FLOCK)
  if (isDynamic(read)) return read
  const script = optionValue(read, '-c', '--command')
  if (script !== undefined) return splitScript(script)
  const [, next, after] = read.operands
  if (next === '-c' || next === '--command') return splitScript(after ?? '')
  const command = read.operands.slice(1)
  return command.length === 0 ? [] : [command]
}

/** `nice -N CMD` (the old spelling of an adjustment) and `nice [-n N] CMD`. */
function nice(rest: readonly string[]): Payload {
  const start = rest[0] !== undefined && /^--?[-+]?\d+$/.test(rest[0]) ? 1 : 0
  return runs('nice', { shorts: 'n:', longs: { ...INFO, adjustment: 1 } })(rest.slice(start))
}

/** Runs its operands unless one of `pidOptions` makes it act on a running process. */
function unlessActingOnProcess(program: string, spec: OptionSpec, positional: number, pidOptions: readonly string[]): Unwrapper {
  return withOptions(program, spec, (read) => {
    if (hasOption(read, ...pidOptions)) return []
    const command = read.operands.slice(positional)
    return command.length === 0 ? [] : [command]
  })
}

/** Debuggers: they run their own command language (`-ex`, `-x`, standard input), which can start any program. */
function debugger_(program: string): Unwrapper {
  return (rest) => {
    const at = rest.indexOf('--args')
    const reason = `\`${program}\` runs its own commands (given with -ex/-o/-x or on standard input), and any of them can start a program`
    return opaque(reason, at === -1 || at + 1 >= rest.length ? undefined : [rest.slice(at + 1)])
  }
}

/** `valgrind [--opt=value…] CMD…`: its options carry their values in the same word. */
function valgrind(rest: readonly string[]): Payload {
  let i = 0
  while (i < rest.length && rest[i]!.startsWith('-') && rest[i] !== '--') i++
  if (rest[i] === '--') i++
  return i < rest.length ? [rest.slice(i)] : []
}

/** `capsh … -- ARGS…` hands ARGS to `/bin/bash` (or to `--shell=PROG`); `==` runs capsh again with the rest. */
function capsh(rest: readonly string[]): Payload {
  if (rest.some((word) => word.startsWith('--shell') || word === '==')) return opaque('`capsh --shell`/`==` runs a program of its choice with the arguments that follow')
  const at = rest.indexOf('--')
  return at === -1 ? [] : [['bash', ...rest.slice(at + 1)]]
}

/** `sg GROUP [-c] COMMAND`: the command, one word, runs through `/bin/sh -c`; without one, a shell. */
function sg(rest: readonly string[]): Payload {
  const operands = rest[0] === '-' ? rest.slice(1) : rest
  if (operands.length < 2) return opaque(`\`sg\` ${SHELL_FROM_STDIN}`)
  const script = operands[1] === '-c' ? operands.slice(2).join(' ') : operands.slice(1).join(' ')
  return splitScript(script)
}

/** `runcon CONTEXT CMD…`, or `runcon [-c] [-u USER] [-r ROLE] [-t TYPE] [-l RANGE] CMD…` (no CONTEXT then). */
const RUNCON: OptionSpec = { shorts: 'cu:r:t:l:hV', longs: { ...INFO, compute: 0, ...valued('user', 'role', 'type', 'range') } }
const runcon = withOptions('runcon', RUNCON, (read) => {
  const command = read.operands.slice(hasOption(read, '-u', '-r', '-t', '-l', '--user', '--role', '--type', '--range') ? 0 : 1)
  return command.length === 0 ? [] : [command]
})

/**
 * The wrappers read with their options, by name (see the module comment).
 * `wrappers.ts` adds the shells, `env`, `find`, `xargs`, the
 * package runners and the rest.
 */
export const RUNNERS: ReadonlyMap<string, Unwrapper> = new Map<string, Unwrapper>([
  ['timeout', runs('timeout', { shorts: 'k:s:v', longs: { ...INFO, 'kill-after': 1, signal: 1, ...flags('verbose', 'foreground', 'preserve-status') } }, 1)],
  ['nice', nice],
  ['ionice', unlessActingOnProcess('ionice', { shorts: 'c:n:p:P:u:thV', longs: { ...INFO, ...valued('class', 'classdata', 'pid', 'pgid', 'uid'), ignore: 0 } }, 0, ['-p', '-P', '-u', '--pid', '--pgid', '--uid'])],
  ['stdbuf', runs('stdbuf', { shorts: 'i:o:e:', longs: { ...INFO, ...valued('input', 'output', 'error') } })],
  ['nohup', runs('nohup', { shorts: '', longs: INFO })],
  ['setsid', runs('setsid', { shorts: 'cfwhV', longs: { ...INFO, ...flags('ctty', 'fork', 'wait') } })],
  ['time', runs('time', { shorts: 'af:o:pqvV', longs: { ...INFO, ...flags('append', 'portability', 'quiet', 'verbose'), ...valued('format', 'output') } })],
  // taskset [opts] MASK CMD… ; chrt [opts] PRIORITY CMD… ; with -p they act on a running process.
  ['taskset', unlessActingOnProcess('taskset', { shorts: 'apchV', longs: { ...INFO, ...flags('all-tasks', 'pid', 'cpu-list') } }, 1, ['-p', '--pid'])],
  [
    'chrt',
    unlessActingOnProcess(
      'chrt',
      { shorts: 'bdfiorRT:P:D:ampvhV', longs: { ...INFO, ...flags('batch', 'deadline', 'fifo', 'idle', 'other', 'rr', 'reset-on-fork', 'all-tasks', 'max', 'pid', 'verbose'), ...valued('sched-runtime', 'sched-period', 'sched-deadline') } },
      1,
      ['-p', '--pid', '-m', '--max'],
    ),
  ],
  ['chroot', runs('chroot', { shorts: '', longs: { ...INFO, ...valued('groups', 'userspec'), 'skip-chdir': 0 } }, 1, SHELL_FROM_STDIN)],
  ['unshare', runs('unshare', UNSHARE, 0, SHELL_FROM_STDIN)],
  ['nsenter', runs('nsenter', NSENTER, 0, SHELL_FROM_STDIN)],
  ['setpriv', runs('setpriv', SETPRIV)],
  ['prlimit', unlessActingOnProcess('prlimit', PRLIMIT, 0, ['-p', '--pid'])],
  ['flock', flock],
  ['capsh', capsh],
  ['sg', sg],
  ['newgrp', () => opaque(`\`newgrp\` ${SHELL_FROM_STDIN}`)],
  ['runcon', runcon],
  // Builtins that run history lines or key bindings, or load code: `fc -l` only lists.
  ['fc', (rest) => (rest[0]?.startsWith('-l') ? [] : opaque('`fc` runs commands from the history, which the kit cannot see'))],
  ['bind', (rest) => (rest.some((word) => /^-[A-Za-z]*x/.test(word)) ? opaque('`bind -x` binds a key to a command') : [])],
  ['enable', (rest) => (rest.some((word) => /^-[A-Za-z]*f/.test(word)) ? opaque('`enable -f` loads a builtin from a shared library, which can do anything') : [])],
  ['sudo', sudo],
  ['sudoedit', () => opaque('`sudoedit` edits files with an editor the environment names')],
  ['doas', withOptions('doas', { shorts: 'C:Lnsu:', longs: {} }, (read) => (read.operands.length > 0 ? [read.operands] : hasOption(read, '-s') ? opaque(`\`doas\` ${SHELL_FROM_STDIN}`) : []))],
  ['pkexec', runs('pkexec', { shorts: '', longs: { ...INFO, user: 1, ...flags('disable-internal-agent', 'keep-cwd') } }, 0, SHELL_FROM_STDIN)],
  ['su', su('su')],
  ['runuser', su('runuser')],
  // script [opts] [file]: -c runs a command through the shell; without it, a shell reads standard input.
  ['script', withOptions('script', SCRIPT, (read) => {
    const command = optionValue(read, '-c', '--command')
    return command === undefined ? opaque(`\`script\` ${SHELL_FROM_STDIN}`) : splitScript(command)
  })],
  ['compgen', completion('compgen')],
  ['complete', completion('complete')],
  ['mapfile', mapfile('mapfile')],
  ['readarray', mapfile('readarray')],
  ['trap', trap],
  ['fakeroot', withOptions('fakeroot', { shorts: 'l:s:i:ub:hv', longs: { ...INFO, ...valued('lib', 'faked', 'fd-base'), 'unknown-is-real': 0 } }, (read) =>
    hasOption(read, '--faked') ? opaque('`fakeroot --faked` runs a program of its choice') : read.operands.length > 0 ? [read.operands] : opaque(`\`fakeroot\` ${SHELL_FROM_STDIN}`),
  )],
  // firejail's options carry their values in the same word (`--private=dir`).
  ['firejail', (rest) => {
    const at = rest.findIndex((word) => !word.startsWith('-'))
    return at === -1 ? opaque(`\`firejail\` ${SHELL_FROM_STDIN}`) : [rest.slice(at)]
  }],
  // runit/daemontools and util-linux helpers (also busybox applets): USER or DIR, then the command.
  ...['setuidgid', 'envuidgid', 'envdir'].map((name): [string, Unwrapper] => [name, (rest) => (rest.length > 1 ? [rest.slice(1)] : [])]),
  ['softlimit', runs('softlimit', { shorts: 'a:c:d:f:l:m:o:p:r:s:t:', longs: {} })],
  ['chpst', runs('chpst', { shorts: 'u:U:b:e:/:C:n:l:L:m:d:o:p:f:c:r:t:vP012', longs: {} })],
  ['cttyhack', (rest) => (rest.length > 0 ? [[...rest]] : [])],
  ['setarch', (rest) => setarch(rest.slice(1))],
  ...['linux32', 'linux64', 'i386', 'x86_64'].map((name): [string, Unwrapper] => [name, setarch]),
  ['valgrind', valgrind],
  ...['gdb', 'gdb-multiarch', 'cgdb', 'lldb'].map((name): [string, Unwrapper] => [name, debugger_(name)]),
  ...['strace', 'ltrace'].map((name): [string, Unwrapper] => [name, (rest) => tracer(name, rest)]),
  ...['perf', 'parallel', 'sem', 'systemd-run', 'systemd-nspawn', 'bwrap', 'proot', 'at', 'batch', 'tmux', 'screen', 'expect', 'xterm'].map((name): [string, Unwrapper] => [
    name,
    () => opaque(`\`${name}\` builds or reads the commands it runs in a way the kit does not follow`),
  ]),
])

/** `setarch ARCH [opts] [CMD…]` (after ARCH): its options are flags. */
function setarch(rest: readonly string[]): Payload {
  let i = 0
  while (i < rest.length && rest[i]!.startsWith('-') && rest[i] !== '--') i++
  if (rest[i] === '--') i++
  return i < rest.length ? [rest.slice(i)] : opaque(`\`setarch\` ${SHELL_FROM_STDIN}`)
}

/** strace/ltrace: options with values are many; an unknown one makes the command unknowable. */
const TRACERS: Readonly<Record<string, OptionSpec>> = {
  strace: {
    shorts: 'a:b:cCdDe:E:fFhiI:kno:O:p:P:qrs:S:tTu:U:vVwxX:yYzZ',
    longs: { ...INFO, ...valued('output', 'attach', 'user', 'env', 'string-limit', 'trace', 'trace-path', 'signal', 'status', 'inject', 'fault', 'summary-sort-by', 'columns', 'const-print-style'), ...flags('follow-forks', 'output-separately', 'summary-only', 'summary', 'quiet', 'seccomp-bpf', 'no-abbrev', 'decode-fds', 'timestamps', 'absolute-timestamps', 'relative-timestamps', 'syscall-times', 'instruction-pointer', 'stack-trace', 'daemonize', 'kill-on-exit') },
  },
  ltrace: {
    shorts: 'a:A:bcCD:e:E:fF:hiLl:n:o:p:r:s:St:T:u:Vwx:',
    longs: { ...INFO, ...valued('align', 'config', 'library', 'indent', 'output'), ...flags('demangle', 'no-signals') },
  },
}
function tracer(name: string, rest: readonly string[]): Payload {
  const read = readOptions(name, rest, TRACERS[name]!)
  if (isDynamic(read)) return read
  return read.operands.length === 0 ? [] : [read.operands]
}
