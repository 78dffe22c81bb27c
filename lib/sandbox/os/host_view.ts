/**
 * The strict profile of the OS sandbox (`readableHost: 'system'`): instead
 * of the whole host read-only, a command sees only the system folders and
 * the paths the user named, each bound read-only at its own path, on an
 * empty read-only root. The home directory, other users' homes, `/root`,
 * `/var`, `/srv`, `/mnt` and `/media` are simply not there.
 *
 * @module
 */
import { readlinkSync } from 'node:fs'
import path from 'node:path'
import { lstatOrUndefined, realpathOrUndefined } from './host_paths.js'

/**
 * The host folders a command sees with `readableHost: 'system'`, besides
 * the root, the writable and readable paths, `/dev`, `/proc` and the
 * private `/tmp` and `/run`: programs, libraries and system configuration.
 * Each is bound read-only where it is a folder, or recreated as the same
 * symlink where it is one (`/bin` → `usr/bin` on a merged-`/usr` system).
 * The secrets of `/etc` (`/etc/shadow`, host SSH keys…) stay masked by
 * `unreadablePaths`. Not listed, so not visible: `/home`, `/root`, `/var`
 * (databases, mail, container images, logs), `/srv`, `/mnt`, `/media`,
 * `/boot`, `/snap`.
 */
export const SYSTEM_READABLE_PATHS: readonly string[] = Object.freeze([
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/etc',
  '/opt',
  // The package store of Nix and Guix systems, where /usr holds almost nothing.
  '/nix',
  '/gnu',
])

/**
 * A readable path, resolved once (when the sandbox's engine is chosen):
 * bound only while it still resolves there, so a command that can write
 * near it cannot swap it for a symlink to somewhere else.
 *
 * @internal
 */
export interface ReadablePath {
  /** As configured (absolute). */
  readonly path: string
  /** Its real path when first resolved. */
  readonly real: string
}

/**
 * What a command sees of the host in the strict profile.
 *
 * @internal
 */
export interface HostView {
  /** The `bwrap` arguments that replace `--ro-bind / /`. */
  readonly args: readonly string[]
  /** Real host paths visible inside (besides the root, the writable paths and the private folders). */
  readonly visible: readonly string[]
}



/**
 * Resolve the readable paths once; missing ones are skipped.
 *
 * @param paths - Absolute paths as configured.
 * @returns Those that exist, with their real paths.
 * @internal
 */
export function resolveReadablePaths(paths: readonly string[]): ReadablePath[] {
  const resolved: ReadablePath[] = []
  for (const configured of paths) {
    const real = realpathOrUndefined(configured)
    if (real !== undefined && real !== '/') resolved.push({ path: configured, real })
  }
  return resolved
}

/**
 * The strict profile's view of the host for one command: the system
 * folders (bound, or recreated as symlinks) and the readable paths that
 * still resolve where they did at first.
 *
 * @param readable - The readable paths, resolved once.
 * @returns The arguments and the visible real paths.
 * @internal
 */
export function systemHostView(readable: readonly ReadablePath[]): HostView {
  const args: string[] = []
  const visible: string[] = []
  for (const folder of SYSTEM_READABLE_PATHS) {
    const stats = lstatOrUndefined(folder)
    if (stats === undefined) continue
    if (stats.isSymbolicLink()) {
      // Recreated as the same link: its target is visible only if it is itself a system folder.
      let target: string
      try {
        target = readlinkSync(folder)
      } catch {
        continue
      }
      args.push('--symlink', target, folder)
    } else if (stats.isDirectory()) {
      args.push('--ro-bind', folder, folder)
      visible.push(folder)
    }
  }
  for (const { path: configured, real } of readable) {
    if (realpathOrUndefined(configured) !== real) continue
    args.push('--ro-bind', real, real)
    visible.push(real)
  }
  return { args, visible }
}

/**
 * `flags` with the whole-host read-only bind (`--ro-bind / /`) replaced by
 * `view`'s arguments: bubblewrap's own root is then an empty tmpfs, on
 * which it creates the mount points.
 *
 * @param flags - The base flags, holding `--ro-bind / /` once.
 * @param view - The strict view.
 * @returns A new argument list.
 * @internal
 */
export function replaceHostRoot(flags: readonly string[], view: HostView): string[] {
  const argv = [...flags]
  for (let i = 0; i + 2 < argv.length; i++) {
    if (argv[i] === '--ro-bind' && argv[i + 1] === '/' && argv[i + 2] === '/') {
      argv.splice(i, 3, ...view.args)
      return argv
    }
  }
  throw new Error('the base bwrap flags have no --ro-bind / /')
}

/**
 * `searchPath` without the absolute folders a command cannot see in the
 * strict profile (a toolchain under the home directory): the program is
 * then found where the shell inside would find it, in a later folder.
 * Relative folders stay (they resolve in the root).
 *
 * @param searchPath - The `PATH` of the command.
 * @param root - The sandbox root (as configured).
 * @param writable - The writable paths, resolved.
 * @param readable - The readable paths, resolved.
 * @returns The folders kept, joined again.
 * @internal
 */
export function visibleSearchPath(
  searchPath: string,
  root: string,
  writable: ReadonlyArray<{ readonly real: string }>,
  readable: readonly ReadablePath[],
): string {
  const view = systemHostView(readable)
  const places = [root, realpathOrUndefined(root) ?? root, ...writable.map(({ real }) => real)]
  return searchPath
    .split(path.delimiter)
    .filter((dir) => !path.isAbsolute(dir) || isInView(realpathOrUndefined(dir) ?? dir, view, places))
    .join(path.delimiter)
}

/**
 * Whether the host path `real` is visible in the strict view (or in one of
 * the writable `places`).
 *
 * @param real - An absolute real path.
 * @param view - The strict view.
 * @param places - The root and the writable paths.
 * @returns `true` when a command can see it.
 * @internal
 */
export function isInView(real: string, view: HostView, places: readonly string[]): boolean {
  return [...view.visible, ...places].some((place) => {
    const relative = path.relative(place, real)
    return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative))
  })
}
