/**
 * Opening inside the root so that nothing can steer the open outside it
 * after the path was checked: files are opened with `O_NOFOLLOW` and what
 * was opened is checked again through its descriptor (`/proc/self/fd/N`
 * where the platform has it, else an inode comparison). The reads
 * (read_file.ts) and the atomic writes (atomic_write.ts) build on it.
 *
 * @module
 */
import { fstatSync, readlinkSync, type Stats } from 'node:fs'
import { open, readlink, realpath, stat, type FileHandle } from 'node:fs/promises'
import { E_TOOL_PATH_ESCAPE } from '../../exceptions.js'
import { fstatFd, O_NOFOLLOW } from './fd_calls.js'
import { toToolError } from './fs_errors.js'
import { isInside, type ResolvedPath } from './paths.js'

let procFdWorks: boolean | undefined

/**
 * Whether `/proc/self/fd/N` is known to work: the reads and writes take
 * their synchronous, raw-descriptor paths only then.
 *
 * @internal
 */
export function procFdKnownToWork(): boolean {
  return procFdWorks === true
}

/**
 * Where the kernel lets us name an open descriptor by path (Linux
 * `/proc/self/fd/N`). Paths built on it act like `openat()`: they refer to
 * the directory we verified, whatever is renamed or swapped afterwards.
 *
 * @internal
 */
export async function fdPath(fd: number): Promise<string | undefined> {
  if (procFdWorks === false) return undefined
  const candidate = `/proc/self/fd/${fd}`
  if (procFdWorks === true) return candidate
  try {
    await readlink(candidate)
    procFdWorks = true
    return candidate
  } catch {
    procFdWorks = false
    return undefined
  }
}

/**
 * The real path of what `fd` refers to, read through the descriptor itself
 * where the platform allows it.
 *
 * @internal
 */
export async function openedRealPath(fd: number, expected: string): Promise<string> {
  if (procFdWorks === true) {
    // Known to work: one readlink, not a probe and then the real one.
    return await readlink(`/proc/self/fd/${fd}`)
  }
  const link = await fdPath(fd)
  if (link !== undefined) return await readlink(link)
  // No /proc: fall back to resolving the expected path and checking it is the same inode.
  const [opened, real] = await Promise.all([fstatFd(fd), realpath(expected)])
  const named = await stat(real)
  if (named.dev !== opened.dev || named.ino !== opened.ino) return '\0swapped'
  return real
}

/**
 * Open `absolute` without following a final symlink, and make sure the
 * opened object really lies inside `root`.
 *
 * @param resolved - A resolution from `resolveInRoot`.
 * @param absolute - The path to open (inside the root).
 * @param flags - Extra `open(2)` flags.
 * @param mode - Creation mode when `O_CREAT` is set.
 * @returns The open handle.
 * @throws `TOOL_PATH_ESCAPE` when what was opened is not inside the root.
 * @internal
 */
export async function openInside(resolved: ResolvedPath, absolute: string, flags: number, mode?: number): Promise<FileHandle> {
  return (await openInsideWithStats(resolved, absolute, flags, mode, false)).handle
}

/**
 * {@link openInside}, optionally with the `fstat` of the opened descriptor,
 * taken before the real-path re-check (where `/proc` works; else both at
 * once, as two thread-pool jobs): a link count that goes with the path seen.
 *
 * @param resolved - A resolution from `resolveInRoot`.
 * @param absolute - The path to open (inside the root).
 * @param flags - Extra `open(2)` flags.
 * @param mode - Creation mode when `O_CREAT` is set.
 * @param withStats - Whether to `fstat` the descriptor.
 * @returns The open handle and, with `withStats`, its `fstat`.
 * @throws `TOOL_PATH_ESCAPE` when what was opened is not inside the root or not exactly `absolute`.
 * @internal
 */
export async function openInsideWithStats(
  resolved: ResolvedPath,
  absolute: string,
  flags: number,
  mode: number | undefined,
  withStats: boolean,
): Promise<{ handle: FileHandle; stats: Stats | undefined }> {
  let handle: FileHandle
  try {
    handle = await open(absolute, flags | O_NOFOLLOW, mode)
  } catch (error) {
    throw toToolError(error, resolved.input, 'open')
  }
  return await checkOpened(resolved, handle, absolute, withStats)
}

/**
 * The second half of {@link openInsideWithStats}: closes `handle` when what it refers to is not inside the root.
 *
 * @internal
 */
export async function checkOpened(
  resolved: ResolvedPath,
  handle: FileHandle,
  absolute: string,
  withStats: boolean,
): Promise<{ handle: FileHandle; stats: Stats | undefined }> {
  try {
    // Synchronous once /proc is known to work, as in readUncheckedTarget:
    // the descriptor's path and the inode the open just loaded are answered
    // from the kernel's memory in about a microsecond each, where two
    // thread-pool jobs cost a round trip (and under concurrency a share of
    // libuv's four threads).
    //
    // The fstat comes first and the real path last: a second name that is
    // made and removed again around these two looks would otherwise leave a
    // link count of one in the fstat and the judged path in the readlink. In
    // this order a name removed after the fstat shows in the readlink
    // (" (deleted)"), so an exact path and one link mean the judged name is
    // the file's only one.
    let real: string
    let stats: Stats | undefined
    if (procFdWorks === true) {
      stats = withStats ? fstatSync(handle.fd) : undefined
      real = readlinkSync(`/proc/self/fd/${handle.fd}`)
    } else {
      ;[real, stats] = await Promise.all([openedRealPath(handle.fd, absolute), withStats ? handle.stat() : undefined])
    }
    if (!isInside(resolved.root, real)) throw swappedOutside(resolved)
    // A path taken from the resolution (the target, its directory, the
    // deepest existing directory: all real paths) must open exactly that,
    // not any file inside the root that a swapped directory or symlink leads
    // to: a permission policy may have judged it. Paths through a verified
    // descriptor (/proc/self/fd/N/…) are pinned by that descriptor already.
    if (procFdWorks === true && real !== absolute && !absolute.startsWith('/proc/')) throw swappedSinceResolved(resolved)
    return { handle, stats }
  } catch (error) {
    await handle.close().catch(() => undefined)
    throw toToolError(error, resolved.input, 'open')
  }
}

/**
 * The refusal when what was opened is inside the root but is not the file
 * the path resolved to: a directory or the file itself was swapped for a
 * symlink (or renamed) between the resolution, which a permission policy
 * may have judged, and the open.
 *
 * @internal
 */
export function swappedSinceResolved(resolved: ResolvedPath): E_TOOL_PATH_ESCAPE {
  return new E_TOOL_PATH_ESCAPE(
    `${JSON.stringify(resolved.input)} changed while it was being opened (it now leads to another file), so toolsmith left it alone. Call again if the change was expected`,
    { details: { path: resolved.input } },
  )
}

/**
 * The refusal when what was opened lies outside the root.
 *
 * @internal
 */
export function swappedOutside(resolved: ResolvedPath): E_TOOL_PATH_ESCAPE {
  return new E_TOOL_PATH_ESCAPE(`${JSON.stringify(resolved.input)} was swapped for a path outside the sandbox root while it was being opened`, {
    details: { path: resolved.input },
  })
}
