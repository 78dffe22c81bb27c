/**
 * The bubblewrap engine: how `bash` commands run inside an OS sandbox on
 * Linux. `bwrap` builds, for every command, fresh user, mount, PID, IPC,
 * UTS (and, unless the network is allowed, network) namespaces in which the
 * host's file system is mounted read-only, the sandbox root and the extra
 * writable paths read-write, `/tmp` and `/run` are private and empty, `/proc`
 * shows only the command's own processes, `/dev` is minimal, credentials are
 * masked, and every capability is dropped. The command is exec'd by bwrap
 * directly, with no shell in between.
 *
 * @module
 */
import { spawnSync } from 'node:child_process'
import { accessSync, constants, lstatSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs'
import path from 'node:path'
import { findSystemExecutable } from './isolation.js'

/** What bubblewrap can do on this machine, probed once per process. */
export interface BubblewrapSupport {
  /** Absolute path of `bwrap`, when installed. */
  readonly bwrap: string | undefined
  /** A sandbox with user, mount and PID namespaces could be created. */
  readonly available: boolean
  /** A network namespace could be created too. */
  readonly network: boolean
  /** Why it is unavailable (bwrap's own words where it said any). */
  readonly reason: string | undefined
}

/**
 * The file-system policy of one command: absolute host paths, each mounted
 * at the same path inside.
 *
 * @internal
 */
export interface BubblewrapPolicy {
  /** The real path of the sandbox root (read-write). */
  root: string
  /** Where the command starts (inside the root). */
  cwd: string
  /** Cut the network (a fresh network namespace with only loopback). */
  unshareNetwork: boolean
  /** Extra read-write paths. */
  writable: readonly string[]
  /**
   * Paths inside the root that stay read-only; `directory` marks one that,
   * when missing, is mounted as an empty read-only directory (so nothing can
   * be created there either).
   */
  readOnly: ReadonlyArray<{ path: string; directory: boolean }>
  /** Paths that read as empty (directories) or empty files. */
  unreadable: readonly string[]
}

const BASE_FLAGS = [
  '--unshare-user',
  '--unshare-pid',
  '--unshare-ipc',
  '--unshare-uts',
  '--unshare-cgroup-try',
  // Kill the whole sandbox when the kit's process (bwrap's parent) dies.
  '--die-with-parent',
  // A new session: no controlling terminal to inject keystrokes into (TIOCSTI).
  '--new-session',
  '--cap-drop',
  'ALL',
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--proc',
  '/proc',
  // Private, empty /tmp and /run: host Unix sockets (tmux, ssh-agent, X11,
  // docker, databases, systemd) live there and would otherwise be reachable.
  '--tmpfs',
  '/tmp',
  '--tmpfs',
  '/run',
]

let support: BubblewrapSupport | undefined

function tryBwrap(bwrap: string, extra: string[]): { ok: boolean; stderr: string } {
  const result = spawnSync(bwrap, [...BASE_FLAGS, ...extra, '--', '/bin/sh', '-c', 'exit 0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    timeout: 10_000,
    env: { PATH: '/usr/bin:/bin' },
  })
  return { ok: result.status === 0, stderr: (result.stderr ?? '').trim() || (result.error?.message ?? '') }
}

/**
 * Probe (once per process, synchronously, ≈ 10–20 ms) whether bubblewrap is
 * installed and can create its namespaces here. `bwrap` is looked up on
 * `PATH` and in the system folders, or taken from the `TOOLSMITH_BWRAP`
 * environment variable (an absolute path) when that is set.
 *
 * @returns The cached support record.
 * @internal
 */
export function probeBubblewrap(): BubblewrapSupport {
  if (support !== undefined) return support
  if (process.platform !== 'linux') {
    support = { bwrap: undefined, available: false, network: false, reason: `bubblewrap needs Linux (this is ${process.platform})` }
    return support
  }
  // TOOLSMITH_BWRAP names a bwrap outside PATH (or, set to a missing file, simulates a machine without one).
  const configured = process.env.TOOLSMITH_BWRAP
  const bwrap = configured ? (isExecutable(configured) ? configured : undefined) : findSystemExecutable('bwrap')
  if (bwrap === undefined) {
    const reason = configured ? `TOOLSMITH_BWRAP=${configured} is not an executable` : 'bubblewrap (`bwrap`) is not installed'
    support = { bwrap, available: false, network: false, reason }
    return support
  }
  const full = tryBwrap(bwrap, ['--unshare-net'])
  if (full.ok) {
    support = { bwrap, available: true, network: true, reason: undefined }
    return support
  }
  const withoutNetwork = tryBwrap(bwrap, [])
  support = withoutNetwork.ok
    ? { bwrap, available: true, network: false, reason: `bwrap cannot create a network namespace here: ${firstLine(full.stderr)}` }
    : {
        bwrap,
        available: false,
        network: false,
        reason:
          `bwrap is installed but cannot create its namespaces here (${firstLine(withoutNetwork.stderr)}); ` +
          'unprivileged user namespaces may be disabled (see /proc/sys/kernel/unprivileged_userns_clone, ' +
          '/proc/sys/user/max_user_namespaces, or an AppArmor restriction on user namespaces)',
      }
  return support
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK)
    return path.isAbsolute(file) && statSync(file).isFile()
  } catch {
    return false
  }
}

function firstLine(text: string): string {
  return text.split('\n')[0] || 'no message'
}

function lstatOrUndefined(target: string): Stats | undefined {
  try {
    return lstatSync(target, { throwIfNoEntry: false })
  } catch {
    return undefined // not a directory on the way, no permission…
  }
}

function realpathOrUndefined(target: string): string | undefined {
  // Most masked paths do not exist on a given machine: an lstat answers that
  // for a fraction of a realpath's cost.
  if (lstatOrUndefined(target) === undefined) return undefined
  try {
    return realpathSync.native(target)
  } catch {
    return undefined
  }
}

/** `dir` exists, is a directory and really lies inside `root`. */
function isRealDirectory(dir: string, root: string): boolean {
  const real = realpathOrUndefined(dir)
  return real !== undefined && real === dir && isWithin(real, root) && lstatOrUndefined(real)?.isDirectory() === true
}

/** `inner` is `outer` or below it (by components). */
function isWithin(inner: string, outer: string): boolean {
  const relative = path.relative(outer, inner)
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative))
}

/**
 * The `bwrap` arguments that run `file args…` under `policy`.
 *
 * @remarks
 * Mounts are applied in order, later ones on top: the read-only host, the
 * private `/tmp` and `/run`, the writable paths and the root, `/dev/null`
 * over every host Unix socket that is still visible, the read-only paths
 * inside the root, then the masks over unreadable paths. Paths are
 * resolved to their real locations first (a mount follows symlinks), and
 * paths that do not exist are skipped, except a read-only directory inside
 * the root whose parent exists (`.git/hooks` in a repository without hooks):
 * it is mounted as an empty read-only directory so nothing can be planted
 * there (the empty folder stays on the host as the mount point).
 *
 * @param policy - What is writable, read-only and unreadable.
 * @param file - Absolute path of the program.
 * @param args - Its arguments.
 * @returns The argument vector for `bwrap`.
 * @internal
 */
export function bubblewrapArgs(policy: BubblewrapPolicy, file: string, args: readonly string[]): string[] {
  const argv = [...BASE_FLAGS]
  if (policy.unshareNetwork) argv.push('--unshare-net')
  else keepResolverReachable(argv)
  for (const writable of policy.writable) {
    const real = realpathOrUndefined(writable)
    if (real !== undefined) argv.push('--bind', real, real)
  }
  argv.push('--bind', policy.root, policy.root)
  // A read-only mount does not stop connect(): a host daemon's socket visible
  // anywhere (docker.sock, a database, an agent in $HOME) must be covered.
  for (const socket of hostSocketPaths()) argv.push('--ro-bind', '/dev/null', socket)
  for (const { path: inside, directory } of policy.readOnly) {
    const real = realpathOrUndefined(inside)
    if (real !== undefined) {
      // A symlink inside the root may point anywhere: only protect what stays inside.
      if (isWithin(real, policy.root)) argv.push('--ro-bind', real, real)
    } else if (directory && lstatOrUndefined(inside) === undefined && isRealDirectory(path.dirname(inside), policy.root)) {
      argv.push('--perms', '0555', '--tmpfs', inside, '--remount-ro', inside)
    }
  }
  for (const hidden of policy.unreadable) {
    const real = realpathOrUndefined(hidden)
    if (real === undefined) continue
    // Hiding the root (or a folder around it) would hide the work itself: the root wins.
    if (isWithin(policy.root, real)) continue
    if (lstatOrUndefined(real)?.isDirectory()) argv.push('--perms', '0500', '--tmpfs', real, '--remount-ro', real)
    // A plain --ro-bind mounts nodev (opening the device would be EACCES): bind
    // /dev/null as a device, so the file reads as empty and writes vanish.
    else argv.push('--dev-bind', '/dev/null', real)
  }
  argv.push('--chdir', policy.cwd, '--', file, ...args)
  return argv
}

/** Folders that are private inside the sandbox: sockets there are out of reach already. */
const PRIVATE_PREFIXES = ['/tmp/', '/run/', '/var/run/', '/dev/', '/proc/']

/**
 * The path-bound Unix sockets of the host (every one the kernel lists in
 * `/proc/net/unix` for this network namespace, listening or datagram) that
 * would be visible inside: `/dev/null` is bound over each, so a connect
 * fails with `ECONNREFUSED`. Not covered: sockets bound with a relative
 * path, sockets of other network namespaces, and sockets created on the
 * host after the command started.
 */
function hostSocketPaths(): string[] {
  let table: string
  try {
    table = readFileSync('/proc/net/unix', 'latin1')
  } catch {
    return []
  }
  const paths = new Set<string>()
  for (const line of table.split('\n').slice(1)) {
    // Num RefCount Protocol Flags Type St Inode Path — the path may hold spaces.
    const match = /^\s*\S+:\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s(\/.*)$/.exec(line)
    const socket = match?.[1]
    if (socket === undefined || PRIVATE_PREFIXES.some((prefix) => socket.startsWith(prefix))) continue
    const real = realpathOrUndefined(socket)
    if (real !== undefined && !PRIVATE_PREFIXES.some((prefix) => real.startsWith(prefix)) && lstatOrUndefined(real)?.isSocket()) paths.add(real)
  }
  return [...paths]
}

/**
 * With the network allowed, `/etc/resolv.conf` may be a symlink into `/run`
 * (systemd-resolved, NetworkManager), which the private `/run` would leave
 * dangling: bind its target back, read-only.
 */
function keepResolverReachable(argv: string[]): void {
  const target = realpathOrUndefined('/etc/resolv.conf')
  if (target !== undefined && (target.startsWith('/run/') || target.startsWith('/tmp/'))) argv.push('--ro-bind', target, target)
}
