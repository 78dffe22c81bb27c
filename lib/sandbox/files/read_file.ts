/**
 * Whole-file and streamed reads of regular files inside the root: opened
 * with `O_NOFOLLOW | O_NONBLOCK` and checked again through the descriptor,
 * so nothing swapped in after the path was resolved is read or waited on.
 *
 * @module
 */
import { closeSync, constants, fstatSync, readlinkSync, type Stats } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import { fstatFd, O_NOFOLLOW, O_NONBLOCK, openFd, readFd } from './fd_calls.js'
import { assertRegularFile } from './file_kind.js'
import { toToolError } from './fs_errors.js'
import { checkOpened, openInsideWithStats, procFdKnownToWork, swappedOutside, swappedSinceResolved } from './open_inside.js'
import { isInside, type ResolvedPath } from './paths.js'

/** What {@link readRegularFile} returns. */
export interface FileBytes {
  /** Up to `limit` bytes from the start of the file. */
  readonly bytes: Buffer
  /** Bytes that exist past `limit` (the file grew after its size was checked). */
  readonly remainder: number
  /** The file's status at open time. */
  readonly stats: Stats
}

/**
 * Read a regular file inside the root, refusing anything else without ever
 * blocking on it.
 *
 * @param resolved - A resolution of the path.
 * @param limit - Largest accepted size (stat size), in bytes.
 * @returns At most `limit` bytes, and how many more the file had.
 * @throws `TOOL_FILE_NOT_FOUND`, `TOOL_NOT_A_FILE`, `TOOL_FILE_TOO_LARGE`, `TOOL_PATH_ESCAPE`.
 * @internal
 */
export async function readRegularFile(resolved: ResolvedPath, limit: number): Promise<FileBytes> {
  assertRegularFile(resolved, resolved.stats, limit)
  // O_NONBLOCK: if a FIFO is swapped in after the lstat, open() must not wait for a writer.
  const flags = constants.O_RDONLY | O_NONBLOCK
  if (!procFdKnownToWork()) {
    const opened = await openInsideWithStats(resolved, resolved.absolute, flags, undefined, true)
    return await readOpened(resolved, opened.handle, opened.stats!, limit)
  }
  // /proc known to work: the same checks on a raw descriptor, as in
  // readUncheckedTarget (two thread-pool jobs, open and read, where a
  // FileHandle costs a third for its close).
  let fd: number
  try {
    fd = await openFd(resolved.absolute, flags | O_NOFOLLOW)
  } catch (error) {
    throw toToolError(error, resolved.input, 'open')
  }
  try {
    let stats: Stats
    try {
      // fstat first, the real path last: see checkOpened.
      stats = fstatSync(fd)
      const real = readlinkSync(`/proc/self/fd/${fd}`)
      if (!isInside(resolved.root, real)) throw swappedOutside(resolved)
      if (real !== resolved.absolute) throw swappedSinceResolved(resolved)
    } catch (error) {
      throw toToolError(error, resolved.input, 'open')
    }
    return await readBytes(resolved, fdSource(fd), stats, limit)
  } catch (error) {
    throw toToolError(error, resolved.input, 'read')
  } finally {
    // Synchronous: see readUncheckedTarget.
    closeSync(fd)
  }
}

/**
 * {@link readRegularFile} for a resolution made with `{ target: 'open' }`:
 * the target was never `lstat`ed, so the open (`O_NOFOLLOW | O_NONBLOCK`,
 * then the real-path re-check and the `fstat` at once) is the only look at
 * it. Four thread-pool jobs for a small file (open, readlink ∥ fstat, read)
 * plus the close, where the checked path takes an `lstat` more.
 *
 * @param resolved - A resolution with `targetUnchecked`.
 * @param limit - Largest accepted size, in bytes.
 * @param exact - The resolution was judged by a permission policy: a file
 *   other than the one it names is refused, not handed over.
 * @returns The bytes, or `undefined` when this path cannot answer exactly
 *   (the open failed, the target is not a regular file or is over `limit`):
 *   the caller then resolves again without the option and takes the
 *   checked path, whose errors and paging say precisely what is wrong.
 * @throws `TOOL_PATH_ESCAPE` when what was opened lies outside the root,
 *   or (with `exact`) is not the file the resolution names.
 * @internal
 */
export async function readUncheckedTarget(resolved: ResolvedPath, limit: number, exact = false): Promise<FileBytes | undefined> {
  const flags = constants.O_RDONLY | O_NONBLOCK | O_NOFOLLOW
  if (!procFdKnownToWork()) {
    // Until /proc/self/fd is known to work (or where it does not), through a FileHandle and the checked re-check.
    let handle: FileHandle
    try {
      handle = await open(resolved.absolute, flags)
    } catch {
      // Missing, a symlink (ELOOP), a file used as a directory…: the checked path words it.
      return undefined
    }
    const opened = await checkOpened(resolved, handle, resolved.absolute, true)
    const stats = opened.stats!
    if (!stats.isFile() || stats.size > limit) {
      void opened.handle.close().catch(() => undefined)
      return undefined
    }
    return await readOpened(resolved, opened.handle, stats, limit)
  }
  let fd: number
  try {
    fd = await openFd(resolved.absolute, flags)
  } catch {
    return undefined
  }
  try {
    // Synchronous on purpose: both answer from the kernel's memory (the
    // descriptor's path and the inode the open just loaded), in about a
    // microsecond each; through the thread pool they were two of a small
    // read's jobs, and under concurrency libuv's four threads are the limit.
    // fstat first, the real path last: see checkOpened.
    const stats = fstatSync(fd)
    const real = readlinkSync(`/proc/self/fd/${fd}`)
    if (!isInside(resolved.root, real)) throw swappedOutside(resolved)
    if (real !== resolved.absolute) {
      // A directory on the way was swapped since the resolution: a judged
      // path is refused; an unjudged one takes the fully checked path.
      if (exact) throw swappedSinceResolved(resolved)
      return undefined
    }
    if (!stats.isFile() || stats.size > limit) return undefined
    return await readBytes(resolved, fdSource(fd), stats, limit)
  } catch (error) {
    throw toToolError(error, resolved.input, 'read')
  } finally {
    // Synchronous on purpose: close(2) of a descriptor opened read-only on a
    // regular file does not wait for the disk, and a thread-pool round trip
    // for it is one job in five of a small read, which under concurrency
    // (libuv's four threads shared by every read in flight) is throughput.
    closeSync(fd)
  }
}

/** A raw descriptor as a {@link ReadSource}. */
function fdSource(fd: number): ReadSource {
  return { read: (buffer, length, position) => readFd(fd, buffer, length, position), stat: () => fstatFd(fd) }
}

/** What {@link readBytes} reads from: a FileHandle or a raw descriptor. */
interface ReadSource {
  read(buffer: Buffer, length: number, position: number): Promise<number>
  stat(): Promise<Stats>
}

/** Read an opened file (closing it), whose `fstat` is `stats`. */
async function readOpened(resolved: ResolvedPath, handle: FileHandle, stats: Stats, limit: number): Promise<FileBytes> {
  try {
    const source: ReadSource = {
      read: async (buffer, length, position) => (await handle.read(buffer, 0, length, position)).bytesRead,
      stat: () => handle.stat(),
    }
    return await readBytes(resolved, source, stats, limit)
  } catch (error) {
    throw toToolError(error, resolved.input, 'read')
  } finally {
    // Not awaited: the bytes are in hand, and a read-only descriptor's close
    // cannot fail in a way the caller could act on; waiting would only add
    // one thread-pool round trip to every read.
    void handle.close().catch(() => undefined)
  }
}

/** The read loop of every whole-file read: up to `limit` bytes, and how many more there were. */
async function readBytes(resolved: ResolvedPath, source: ReadSource, stats: Stats, limit: number): Promise<FileBytes> {
  assertRegularFile(resolved, stats, limit)
  // Read until EOF or one byte past the limit: the stat size is only a hint
  // (the file may grow, and some files report size 0).
  const chunks: Buffer[] = []
  let filled = 0
  let position = 0
  while (filled <= limit) {
    // The first read asks for the stat size plus one byte (so EOF shows at
    // once, and a small file's buffer comes from Node's pool instead of a
    // fresh 64 KiB allocation per read); a file that grew, or reports size
    // 0, is read on 64 KiB at a time.
    const wanted = Math.min(limit + 1 - filled, filled === 0 && stats.size > 0 ? stats.size + 1 : Math.max(stats.size - filled + 1, 65_536))
    // allocUnsafe: only the bytesRead bytes that read() overwrote are ever used.
    const chunk = Buffer.allocUnsafe(wanted)
    const bytesRead = await source.read(chunk, wanted, position)
    if (bytesRead === 0) break
    chunks.push(chunk.subarray(0, bytesRead))
    filled += bytesRead
    position += bytesRead
    // A short read of a regular file that already delivered its whole stat
    // size is EOF (what fs.readFile assumes too): skip the extra read(2) that
    // would only return 0. Size-0 files (procfs and the like) keep reading.
    if (bytesRead < wanted && stats.size > 0 && filled >= stats.size) break
  }
  let buffer = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, filled)
  let remainder = 0
  if (filled > limit) {
    remainder = Math.max(1, (await source.stat()).size - limit)
    buffer = buffer.subarray(0, limit)
  }
  return { bytes: buffer, remainder, stats }
}

/**
 * Open a regular file inside the root for reading, whatever its size, with
 * the same refusals as {@link readRegularFile} except the size limit: for
 * callers that stream a part of the file (`read` with a line range).
 *
 * @param resolved - A resolution of the path.
 * @returns The open handle (the caller closes it) and its `fstat`.
 * @throws `TOOL_FILE_NOT_FOUND`, `TOOL_NOT_A_FILE`, `TOOL_PATH_ESCAPE`.
 * @internal
 */
export async function openRegularFile(resolved: ResolvedPath): Promise<{ handle: FileHandle; stats: Stats }> {
  assertRegularFile(resolved, resolved.stats, Infinity)
  // O_NONBLOCK: if a FIFO is swapped in after the lstat, open() must not wait for a writer.
  const { handle, stats } = await openInsideWithStats(resolved, resolved.absolute, constants.O_RDONLY | O_NONBLOCK, undefined, true)
  try {
    assertRegularFile(resolved, stats, Infinity)
  } catch (error) {
    void handle.close().catch(() => undefined)
    throw error
  }
  return { handle, stats }
}
