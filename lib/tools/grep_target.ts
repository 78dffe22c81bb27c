/**
 * What `grep` points ripgrep at: the checked target, opened once and
 * searched through its descriptor, and how rg's printed paths map back to
 * root-relative ones (and to host paths, for the hard-link filter).
 *
 * @module
 */
import { constants, type Stats } from 'node:fs'
import { readlink, type FileHandle } from 'node:fs/promises'
import { E_TOOL_NOT_A_FILE } from '../exceptions.js'
import { openInsideWithStats } from '../sandbox/files/open_inside.js'
import { assertSingleName, type JudgedPath } from '../sandbox/files/judged_path.js'
import type { ResolvedPath } from '../sandbox/files/paths.js'

let procFdWorks: boolean | undefined

/** Whether descriptors can be named as `/proc/<pid>/fd/N` (Linux with /proc mounted). */
export async function usableProcFd(handle: FileHandle): Promise<boolean> {
  procFdWorks ??= await readlink(`/proc/${process.pid}/fd/${handle.fd}`).then(
    () => true,
    () => false,
  )
  return procFdWorks
}

/** Refuse anything but a directory or a regular file (FIFOs would block rg). */
export function assertSearchable(resolved: ResolvedPath, stats: Stats): void {
  if (stats.isDirectory() || stats.isFile()) return
  const kind = stats.isFIFO()
    ? 'FIFO (named pipe)'
    : stats.isSocket()
      ? 'socket'
      : stats.isCharacterDevice()
        ? 'character device'
        : stats.isBlockDevice()
          ? 'block device'
          : 'special file'
  throw new E_TOOL_NOT_A_FILE(`${JSON.stringify(resolved.input)} is a ${kind}; grep searches directories and regular files only`, {
    details: { path: resolved.input },
  })
}

/** What rg is pointed at, and how to turn the paths it prints back into root-relative ones. */
export interface SearchTarget {
  /** rg's working directory. */
  cwd: string
  /** The path argument given to rg. */
  path: string
  /** The held descriptor of the checked target, if any. */
  handle: FileHandle | undefined
  /** Rewrite rg's printed paths (at the start of each line) to root-relative ones. */
  unprefix(text: string): string
  /** Bytes each output line gains (or loses, when negative) in {@link SearchTarget.unprefix}. */
  lineDelta: number
  /** Host paths rg may print that must not reach a message, each with what to print instead. */
  hostPaths: [string, string][]
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/**
 * Open the checked target (no final symlink followed, re-checked through its
 * descriptor) and point rg at the descriptor, never at the path again: a
 * swap of any component after the check cannot redirect the search.
 * A directory becomes rg's working directory (`/proc/self/fd/N`, searched as
 * `.`); a regular file is searched as `/proc/<pid>/fd/N`. Without /proc the
 * path is used as before.
 */
export async function openTarget(resolved: ResolvedPath, judged: JudgedPath | undefined): Promise<SearchTarget> {
  const isDirectory = resolved.stats!.isDirectory()
  // O_NONBLOCK: a FIFO swapped in after the check must not block the open; O_DIRECTORY: a
  // directory must still be one.
  const flags = constants.O_RDONLY | (isDirectory ? (constants.O_DIRECTORY ?? 0) : (constants.O_NONBLOCK ?? 0))
  // The fstat is taken before the real-path re-check, so the link count
  // belongs to the name that check saw (a second name made and removed
  // again in between cannot hide).
  const opened = await openInsideWithStats(resolved, resolved.absolute, flags, undefined, true)
  const handle = opened.handle
  try {
    const stats = opened.stats!
    assertSearchable(resolved, stats)
    assertSingleName(judged, resolved.input, stats)
    if (stats.isDirectory() !== isDirectory) {
      throw new E_TOOL_NOT_A_FILE(`${JSON.stringify(resolved.input)} changed type while it was being opened; try again`, {
        details: { path: resolved.input },
      })
    }
    if (!(await usableProcFd(handle))) {
      await handle.close().catch(() => undefined)
      return {
        cwd: resolved.root,
        path: resolved.relative,
        handle: undefined,
        // Searching "." makes rg print "./src/a.ts"; drop the "./" so paths read as root-relative.
        unprefix: (text) => (resolved.relative === '.' ? text.replace(/^\.\//gm, '') : text),
        lineDelta: resolved.relative === '.' ? -2 : 0,
        hostPaths: [],
      }
    }
    if (isDirectory) {
      const prefix = resolved.relative === '.' ? '' : `${resolved.relative}/`
      return {
        cwd: `/proc/self/fd/${handle.fd}`,
        path: '.',
        handle,
        unprefix: (text) => text.replace(/^\.\//gm, () => prefix),
        lineDelta: Buffer.byteLength(prefix) - 2,
        hostPaths: [],
      }
    }
    const fdPath = `/proc/${process.pid}/fd/${handle.fd}`
    const pattern = new RegExp(`^${escapeRegExp(fdPath)}(?=:)`, 'gm')
    return {
      cwd: resolved.root,
      path: fdPath,
      handle,
      unprefix: (text) => text.replace(pattern, () => resolved.relative),
      lineDelta: Buffer.byteLength(resolved.relative) - Buffer.byteLength(fdPath),
      hostPaths: [[fdPath, resolved.relative]],
    }
  } catch (error) {
    await handle.close().catch(() => undefined)
    throw error
  }
}

/**
 * The host path of a file rg printed (as it printed it: `./x`, or
 * `<relative>/x` through the scratch tree), through the searched
 * directory's descriptor where there is one: what the hard-link filter
 * looks at. A printed path of another form gives a path that does not
 * exist, so the filter leaves it out.
 */
export function hostPathOf(printed: string, resolved: ResolvedPath, target: SearchTarget): string {
  if (target.handle === undefined) return `${resolved.root}/${printed}`
  const directory = `/proc/self/fd/${target.handle.fd}/`
  if (printed.startsWith('./')) return directory + printed.slice(2)
  const below = `${resolved.relative}/`
  return printed.startsWith(below) ? directory + printed.slice(below.length) : '\0'
}
