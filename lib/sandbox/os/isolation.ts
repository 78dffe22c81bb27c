/**
 * Linux namespaces for sandboxed processes, via util-linux `unshare`:
 * a network namespace (only loopback, brought up inside) and a PID namespace
 * (when its first process dies the kernel kills every other one, `setsid`
 * escapees included). Probed once per process; never assumed.
 *
 * @module
 */
import { spawnSync } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import path from 'node:path'

/** Which namespaces this machine lets an unprivileged `unshare` create. */
export interface IsolationSupport {
  /** `unshare --net --map-root-user` works. */
  readonly network: boolean
  /** `unshare --pid --fork --kill-child --map-root-user` works. */
  readonly pid: boolean
  /** Absolute path of `unshare`, when found. */
  readonly unshare: string | undefined
  /** Absolute path of `ip`, used to bring loopback up; optional. */
  readonly ip: string | undefined
  /** Why a namespace is unavailable, for the warning. */
  readonly reason: string | undefined
}

const SYSTEM_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin']

let support: IsolationSupport | undefined

/**
 * Find an executable by name in the host `PATH` and the usual system folders.
 *
 * @param name - A bare executable name.
 * @returns Its absolute path, or `undefined`.
 * @internal
 */
export function findSystemExecutable(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter).filter((d) => path.isAbsolute(d)), ...SYSTEM_DIRS]
  for (const dir of dirs) {
    const candidate = path.join(dir, name)
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {
      // try the next folder
    }
  }
  return undefined
}

function works(unshare: string, flags: string[]): boolean {
  const result = spawnSync(unshare, [...flags, '--', '/bin/sh', '-c', 'exit 0'], {
    stdio: 'ignore',
    timeout: 10_000,
    env: { PATH: '/usr/bin:/bin' },
  })
  return result.status === 0
}

/**
 * Probe (once per process, synchronously, a few milliseconds) which
 * namespaces can be created here.
 *
 * @returns The cached support record.
 * @internal
 */
export function probeIsolation(): IsolationSupport {
  if (support !== undefined) return support
  if (process.platform !== 'linux') {
    support = { network: false, pid: false, unshare: undefined, ip: undefined, reason: `namespaces need Linux (this is ${process.platform})` }
    return support
  }
  const unshare = findSystemExecutable('unshare')
  if (unshare === undefined) {
    support = { network: false, pid: false, unshare, ip: undefined, reason: 'util-linux `unshare` is not installed' }
    return support
  }
  const network = works(unshare, ['--map-root-user', '--net'])
  const pid = works(unshare, ['--map-root-user', '--pid', '--fork', '--kill-child'])
  const reason =
    network && pid
      ? undefined
      : 'this kernel or container does not allow unprivileged user namespaces (see /proc/sys/kernel/unprivileged_userns_clone and /proc/sys/user/max_user_namespaces)'
  support = { network, pid, unshare, ip: findSystemExecutable('ip'), reason }
  return support
}

const warned = new Set<string>()

/**
 * Emit, once per process and kind, the warning that an isolation layer is
 * not enforced.
 *
 * @param kind - `network` or `pid`.
 * @param reason - Why.
 * @internal
 */
export function warnNotIsolated(kind: 'network' | 'pid', reason: string | undefined): void {
  if (warned.has(kind)) return
  warned.add(kind)
  const what =
    kind === 'network'
      ? 'bash commands are NOT network-isolated (only the command guard applies): an interpreter such as `node -e` or `python3 -c` can still reach the network'
      : 'bash commands do not run in a PID namespace: a process that calls setsid() can outlive a timeout or cancellation'
  process.emitWarning(`toolsmith sandbox: ${what}; ${reason ?? 'namespaces are unavailable'}.`, {
    code: kind === 'network' ? 'TOOLSMITH_NETWORK_NOT_ISOLATED' : 'TOOLSMITH_PID_NOT_ISOLATED',
  })
}

/**
 * Wrap `file args…` so it runs inside the requested namespaces.
 *
 * @param file - Absolute path of the executable.
 * @param args - Its arguments.
 * @param wanted - Which namespaces to create (each only if supported).
 * @returns The command line to spawn instead.
 * @internal
 */
export function wrapInNamespaces(
  file: string,
  args: readonly string[],
  wanted: { network: boolean; pid: boolean },
): { file: string; args: string[] } {
  const probe = probeIsolation()
  const network = wanted.network && probe.network
  const pid = wanted.pid && probe.pid
  if ((!network && !pid) || probe.unshare === undefined) return { file, args: [...args] }
  const flags = ['--map-root-user']
  if (network) flags.push('--net')
  if (pid) flags.push('--pid', '--fork', '--kill-child')
  const bringUpLoopback = network && probe.ip !== undefined
  if (!bringUpLoopback && !pid) return { file: probe.unshare, args: [...flags, '--', file, ...args] }
  // "$@" keeps every argument intact: nothing from the model is parsed by this shell.
  // A fresh network namespace has loopback down; bring it up so servers the
  // command starts on localhost still work.
  const prelude = bringUpLoopback ? '"$1" link set lo up >/dev/null 2>&1; shift; ' : 'shift; '
  // In a PID namespace the shell stays as PID 1 and runs the command as its
  // child: the kernel shields PID 1 from signals sent inside the namespace, so
  // a command that signals itself (kill $$) must not be PID 1. The shell's own
  // diagnostics ("Killed", …) go to /dev/null; the command gets the original
  // stderr back from fd 3, which it does not inherit (in a subshell: dash
  // applies a simple command's redirections in the parent while it waits, and
  // would print "Killed" to the restored stderr). The shell reports a death by
  // signal N as 128 + N, like `exit 128+N`: runBounded claims no signal then.
  const script = prelude + (pid ? 'exec 3>&2 2>/dev/null; (exec "$@" 2>&3 3>&-)' : 'exec "$@"')
  return {
    file: probe.unshare,
    args: [...flags, '--', '/bin/sh', '-c', script, 'toolsmith-sandbox', probe.ip ?? '', file, ...args],
  }
}
