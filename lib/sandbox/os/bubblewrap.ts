/**
 * The bubblewrap engine: how `bash` commands run inside an OS sandbox on
 * Linux. `bwrap` builds, for every command, fresh user, mount, PID, IPC,
 * UTS (and, unless the network is allowed, network) namespaces in which the
 * host's file system is mounted read-only, the sandbox root and the extra
 * writable paths read-write, `/tmp` and `/run` are private and empty, `/proc`
 * shows only the command's own processes, the kernel's settings are
 * read-only or masked (`kernel_interfaces.ts`), `/dev` is minimal,
 * credentials are masked, every capability is dropped, and the kit's
 * seccomp filter (`seccomp.ts`) is installed. The command is exec'd by
 * bwrap directly, with no shell in between.
 *
 * @module
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, readlinkSync } from 'node:fs'
import { E_TOOL_PATH_ESCAPE } from '../../exceptions.js'
import path from 'node:path'
import { lstatOrUndefined, realpathOrUndefined } from './host_paths.js'
import { isInView, replaceHostRoot, type HostView } from './host_view.js'
import { kernelInterfaceFlags } from './kernel_interfaces.js'
import type { ExpectedMount } from './mount_check.js'

/**
 * An extra writable path, resolved once (when the sandbox's engine was
 * chosen): bound only while its real path is still the one recorded, so a
 * command cannot swap it (or a parent) for a symlink and have the next call
 * bind somewhere else.
 *
 * @internal
 */
export interface WritablePath {
  /** As configured. */
  readonly path: string
  /** Its real path when first resolved. */
  readonly real: string
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
  /** The command runs in an existing namespace (the allowlist proxy's): no resolver is needed inside. */
  joinedNetwork?: boolean
  /** Host files the kit mounts read-only inside, each at its own target (in the private `/run`). */
  files?: ReadonlyArray<{ readonly source: string; readonly target: string }>
  /** Extra read-write paths, resolved once ({@link resolveWritablePaths}). */
  writable: readonly WritablePath[]
  /** Paths inside the root that stay read-only (each, and what it contains). */
  readOnly: readonly string[]
  /** Paths that read as empty (directories) or empty files. */
  unreadable: readonly string[]
  /** The descriptor bwrap reads the seccomp program from (`--seccomp FD`), when there is one. */
  seccompFd?: number | undefined
  /** The strict profile (`readableHost: 'system'`): only these host paths instead of the whole host. */
  hostView?: HostView | undefined
  /** Size in bytes of the private `/tmp` and `/run` (tmpfs `size=`); `undefined`: the kernel's default (half the RAM). */
  tmpBytes?: number | undefined
  /**
   * Descriptors for bwrap's `--block-fd` and `--info-fd`, passed only when
   * some mount lands inside a writable place: the kit then checks the
   * mounts before it lets the command run (`mount_check.ts`).
   */
  gate?: { readonly blockFd: number; readonly infoFd: number } | undefined
}

/**
 * Host folders that may never be made writable: the sandbox's own `/proc`,
 * `/dev`, `/tmp` and `/run` would be replaced by the host's, and `/` or
 * `/sys` would undo the read-only host.
 */
export const NEVER_WRITABLE = ['/', '/proc', '/dev', '/sys', '/tmp', '/run', '/var/run'] as const

/**
 * Whether `target` is one of {@link NEVER_WRITABLE} or lies below one of them (`/` only by itself).
 *
 * @param target - An absolute path.
 * @returns `true` when it may not be a writable path.
 * @internal
 */
export function isNeverWritable(target: string): boolean {
  return NEVER_WRITABLE.some((dir) => (dir === '/' ? target === '/' : isWithin(target, dir)))
}

/**
 * Resolve the extra writable paths once: each must exist, may not be (or
 * be below) a {@link NEVER_WRITABLE} folder after resolution, and may not
 * lie inside another one (it would be writable already, and renamable).
 *
 * @param paths - Absolute paths as configured.
 * @returns Those that qualify, with their real paths.
 * @internal
 */
export function resolveWritablePaths(paths: readonly string[]): WritablePath[] {
  const resolved: WritablePath[] = []
  for (const configured of paths) {
    const real = realpathOrUndefined(configured)
    if (real === undefined || isNeverWritable(real) || !lstatOrUndefined(real)?.isDirectory()) continue
    resolved.push({ path: configured, real })
  }
  return resolved.filter(({ real }) => !resolved.some((other) => other.real !== real && isWithin(real, other.real)))
}

/**
 * The flags of every bwrap command line, the probe's included.
 *
 * @internal
 */
export const BASE_FLAGS: readonly string[] = [
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
 * private `/tmp` and `/run`, the writable paths and the root; then every
 * folder between a writable place and a protected path inside it is bound
 * onto itself, so it becomes a mount point that cannot be renamed (a
 * command moving `.config` away would otherwise take a mask with it and
 * find the credentials under the new name next time); then `/dev/null` over
 * every host Unix socket still visible, the read-only paths, and the masks
 * over unreadable paths. Paths are resolved to their real locations first
 * (a mount follows symlinks); paths that do not exist are skipped. A
 * read-only `.git` that is a file (`gitdir: …`) protects the folder it
 * names too, and a `commondir` in either protects that folder as well.
 *
 * @param policy - What is writable, read-only and unreadable.
 * @param file - Absolute path of the program.
 * @param args - Its arguments.
 * @param descriptors - Filled with the descriptors of `--bind-fd` sources (bound by path when omitted).
 * @param expected - Filled with the mounts inside writable places, to check before the command runs.
 * @returns The argument vector for `bwrap`.
 * @internal
 */
export function bubblewrapArgs(
  policy: BubblewrapPolicy,
  file: string,
  args: readonly string[],
  descriptors?: BoundDescriptor[],
  expected?: ExpectedMount[],
): string[] {
  const view = policy.hostView
  const argv = withTmpSize([...(view === undefined ? BASE_FLAGS : replaceHostRoot(BASE_FLAGS, view)), ...kernelInterfaceFlags()], policy.tmpBytes)
  if (policy.unshareNetwork) argv.push('--unshare-net')
  else if (policy.joinedNetwork !== true) keepResolverReachable(argv)
  // A writable path is bound only while it still resolves where it did at first:
  // otherwise a swapped symlink could make any host folder writable.
  const writable = policy.writable
    .filter(({ path: configured, real }) => realpathOrUndefined(configured) === real && !isWithin(real, policy.root) && !isWithin(policy.root, real))
    .map(({ real }) => real)
  for (const real of writable) argv.push('--bind', real, real)
  argv.push('--bind', policy.root, policy.root)
  for (const { source, target } of policy.files ?? []) argv.push('--ro-bind', source, target)
  const places = [policy.root, ...writable]

  const readOnly = policy.readOnly.flatMap((inside) => withGitDirs(realpathOrUndefined(inside))).filter((real) => places.some((place) => isWithin(real, place)))
  const unreadable = policy.unreadable
    .map(realpathOrUndefined)
    // Hiding the root (or a folder around it) would hide the work itself: the root wins.
    .filter((real): real is string => real !== undefined && !isWithin(policy.root, real))
    // In the strict profile a path outside the view is absent already: a mask there would only create mount points.
    .filter((real) => view === undefined || isInView(real, view, places))
  // A read-only mount does not stop connect(): a host daemon's socket visible
  // anywhere (docker.sock, a database, an agent in $HOME) must be covered.
  const sockets = hostSocketPaths(places).filter((real) => view === undefined || isInView(real, view, places))

  // A folder or file inside a writable place can be swapped for a symlink by
  // another command of the same root while bwrap sets this one up, and bwrap
  // resolves a bind's source path in the host's namespace: bound by path, a
  // swap could mount any host folder read-write. So these are bound from a
  // descriptor the kit opened and checked here (`--bind-fd`), never by path.
  const bindFrom = (flag: '--bind-fd' | '--ro-bind-fd', real: string): void => {
    if (descriptors === undefined) argv.push(flag === '--bind-fd' ? '--bind' : '--ro-bind', real, real)
    else argv.push(flag, String(openBindSource(real, descriptors)), real)
  }
  // But bwrap resolves a bind's destination inside the new namespace, where
  // the same swap can move the mount itself: every destination inside a
  // writable place is recorded (the last mount at a path is the top one).
  const inPlaces = new Map<string, boolean>()
  const expect = (real: string, readOnlyMount: boolean): void => {
    if (places.some((place) => isWithin(real, place) && real !== place)) inPlaces.set(real, readOnlyMount)
  }
  const pinned = new Set<string>()
  for (const target of [...readOnly, ...unreadable, ...sockets]) {
    for (const folder of foldersBetween(places, target)) {
      if (pinned.has(folder)) continue
      pinned.add(folder)
      bindFrom('--bind-fd', folder)
      expect(folder, false)
    }
  }
  for (const socket of sockets) {
    argv.push('--ro-bind', '/dev/null', socket)
    expect(socket, true)
  }
  for (const real of readOnly) {
    bindFrom('--ro-bind-fd', real)
    expect(real, true)
  }
  for (const real of unreadable) {
    if (lstatOrUndefined(real)?.isDirectory()) {
      argv.push('--perms', '0500', '--tmpfs', real, '--remount-ro', real)
      expect(real, true)
    } else {
      // A plain --ro-bind mounts nodev (opening the device would be EACCES): bind
      // /dev/null as a device, so the file reads as empty and writes vanish.
      argv.push('--dev-bind', '/dev/null', real)
      expect(real, false)
    }
  }
  if (policy.seccompFd !== undefined) argv.push('--seccomp', String(policy.seccompFd))
  if (policy.gate !== undefined && expected !== undefined && inPlaces.size > 0) {
    argv.push('--block-fd', String(policy.gate.blockFd), '--info-fd', String(policy.gate.infoFd))
    for (const [real, readOnlyMount] of inPlaces) expected.push({ path: real, readOnly: readOnlyMount })
  }
  // The strict profile's own root is a tmpfs bubblewrap made writable: nothing may be created beside the views.
  if (view !== undefined) argv.push('--remount-ro', '/')
  argv.push('--chdir', policy.cwd, '--', file, ...args)
  return argv
}

/**
 * Bound the private `/tmp` and `/run`: bwrap's `--size` applies to the
 * next `--tmpfs`. Without it each would hold up to half the RAM, in memory.
 */
function withTmpSize(argv: string[], bytes: number | undefined): string[] {
  if (bytes === undefined) return argv
  for (let i = argv.length - 2; i >= 0; i--) {
    if (argv[i] === '--tmpfs' && (argv[i + 1] === '/tmp' || argv[i + 1] === '/run')) argv.splice(i, 0, '--size', String(bytes))
  }
  return argv
}

/**
 * Whether a program found on the host can be exec'd inside: not under the
 * private `/tmp` or `/run` (unless the root or a writable path brings it
 * back), not under an unreadable path, and in the strict profile inside
 * the view.
 *
 * @param file - The program's absolute path on the host.
 * @param policy - The command's policy.
 * @returns `false` when bwrap would not find it.
 * @internal
 */
export function isVisibleInside(file: string, policy: Pick<BubblewrapPolicy, 'root' | 'writable' | 'unreadable' | 'hostView'>): boolean {
  const real = realpathOrUndefined(file) ?? file
  const places = [policy.root, ...policy.writable.map(({ real: place }) => place)]
  if (PRIVATE_PREFIXES.some((prefix) => real.startsWith(prefix)) && !places.some((place) => isWithin(real, place))) return false
  if (policy.hostView !== undefined && !isInView(real, policy.hostView, places)) return false
  return !policy.unreadable.some((hidden) => {
    const hiddenReal = realpathOrUndefined(hidden)
    return hiddenReal !== undefined && !isWithin(policy.root, hiddenReal) && isWithin(real, hiddenReal)
  })
}

/**
 * The folders strictly between the writable place that holds `target` and
 * `target` itself, outermost first (none when no writable place holds it).
 */
function foldersBetween(places: readonly string[], target: string): string[] {
  const place = places.filter((candidate) => isWithin(target, candidate) && candidate !== target).sort((a, b) => b.length - a.length)[0]
  if (place === undefined) return []
  const folders: string[] = []
  for (let folder = path.dirname(target); folder !== place && isWithin(folder, place); folder = path.dirname(folder)) folders.unshift(folder)
  return folders
}

/**
 * A read-only `.git` protects the repository it stands for: a `.git` file's
 * `gitdir:` folder, and the `commondir` of either (where git takes `config`
 * and `hooks` from). Other paths stand for themselves.
 */
function withGitDirs(real: string | undefined): string[] {
  if (real === undefined) return []
  const found = [real]
  if (path.basename(real) !== '.git') return found
  let gitDir = real
  if (lstatOrUndefined(real)?.isFile()) {
    const pointer = /^gitdir:\s*(.+?)\s*$/m.exec(readSmallFile(real) ?? '')?.[1]
    const target = pointer === undefined ? undefined : realpathOrUndefined(path.resolve(path.dirname(real), pointer))
    if (target === undefined) return found
    found.push(target)
    gitDir = target
  }
  const common = readSmallFile(path.join(gitDir, 'commondir'))?.trim()
  const commonDir = common ? realpathOrUndefined(path.resolve(gitDir, common)) : undefined
  if (commonDir !== undefined && !found.includes(commonDir)) found.push(commonDir)
  return found
}

function readSmallFile(file: string): string | undefined {
  const stats = lstatOrUndefined(file)
  if (stats === undefined || !stats.isFile() || stats.size > 4096) return undefined
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
}

/** Folders that are private inside the sandbox: sockets there are out of reach already. */
const PRIVATE_PREFIXES = ['/tmp/', '/run/', '/var/run/', '/dev/', '/proc/']

/**
 * The path-bound Unix sockets of the host (every one the kernel lists in
 * `/proc/net/unix` for this network namespace, listening or datagram) that
 * would be visible inside: `/dev/null` is bound over each, so a connect
 * fails with `ECONNREFUSED`. A socket under the private `/tmp` or `/run` is
 * skipped unless the root or a writable path brings it back. Not covered
 * (the table names the path a socket was bound at): sockets renamed or
 * hard-linked since, sockets bound with a relative path or a name holding a
 * newline, sockets of other network namespaces, and sockets created on the
 * host after the command started.
 */
function hostSocketPaths(places: readonly string[]): string[] {
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
    if (socket === undefined) continue
    const real = realpathOrUndefined(socket)
    if (real === undefined || !lstatOrUndefined(real)?.isSocket()) continue
    const hidden = PRIVATE_PREFIXES.some((prefix) => real.startsWith(prefix)) && !places.some((place) => isWithin(real, place))
    if (!hidden) paths.add(real)
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

/**
 * A host descriptor handed to bwrap for a `--bind-fd`: the child gets
 * `hostFd` as descriptor `childFd`. The caller closes `hostFd` once the
 * command is spawned.
 *
 * @internal
 */
export interface BoundDescriptor {
  /** The descriptor number in bwrap. */
  readonly childFd: number
  /** The kit's own descriptor (an `O_PATH` open of the bound path). */
  readonly hostFd: number
}

/** The first descriptor number bind sources get in bwrap (3 is the seccomp program's). */
export const FIRST_BIND_FD = 10

// O_PATH: a handle on the object itself, whatever its mode (a masked or
// unreadable file can still be bound). Node does not export the constant.
const O_PATH = 0o10000000

/**
 * Open `real` for a `--bind-fd` and check that what was opened is `real`
 * itself (no symlink at any component, no swap since it was resolved).
 *
 * @throws `TOOL_PATH_ESCAPE` when the path changed while the command was being set up.
 */
function openBindSource(real: string, descriptors: BoundDescriptor[]): number {
  let fd: number
  try {
    fd = openSync(real, O_PATH | constants.O_NOFOLLOW)
  } catch (error) {
    throw changedDuringSetup(real, error)
  }
  let opened: string | undefined
  try {
    opened = readlinkSync(`/proc/self/fd/${fd}`)
  } catch {
    opened = undefined
  }
  // O_PATH | O_NOFOLLOW opens a symlink itself (and /proc names it by its own
  // path), so a folder swapped for a symlink at this instant passed the name
  // check, and bwrap, mounting /proc/self/fd/N, followed it: the symlink's
  // target (a host folder) was bound read-write. The object must not be one.
  if (opened !== real || isSymlinkFd(fd)) {
    closeSync(fd)
    throw changedDuringSetup(real)
  }
  const childFd = FIRST_BIND_FD + descriptors.length
  descriptors.push({ childFd, hostFd: fd })
  return childFd
}

function isSymlinkFd(fd: number): boolean {
  try {
    return fstatSync(fd).isSymbolicLink()
  } catch {
    return true
  }
}

function changedDuringSetup(real: string, cause?: unknown): E_TOOL_PATH_ESCAPE {
  return new E_TOOL_PATH_ESCAPE(
    `${real} changed (moved, removed or replaced by a symlink) while the command was being set up, so it could not be protected; nothing ran. Run the command again`,
    { cause, details: { path: real } },
  )
}
