/**
 * File I/O that cannot be steered outside the root after the path was
 * checked: files are opened with `O_NOFOLLOW` and what was opened is checked
 * again through its descriptor; writes go through a verified directory
 * descriptor into a temp file that is renamed over the target.
 *
 * @module
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  readlinkSync,
  fchmod as fchmodCallback,
  fchown as fchownCallback,
  fdatasync as fdatasyncCallback,
  fstat as fstatCallback,
  open as openCallback,
  read as readCallback,
  write as writeCallback,
  type Stats,
} from 'node:fs'
import { mkdir, open, readlink, realpath, rename, stat, unlink, type FileHandle } from 'node:fs/promises'
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import {
  E_TOOL_FILE_NOT_FOUND,
  E_TOOL_FILE_TOO_LARGE,
  E_TOOL_NOT_A_FILE,
  E_TOOL_PATH_ESCAPE,
  E_TOOL_PATH_INVALID,
} from '../../exceptions.js'
import { errnoCode, toToolError } from './fs_errors.js'
import { isInside, type ResolvedPath } from './paths.js'

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0
const O_NONBLOCK = constants.O_NONBLOCK ?? 0
const O_DIRECTORY = constants.O_DIRECTORY ?? 0

let procFdWorks: boolean | undefined

/**
 * Where the kernel lets us name an open descriptor by path (Linux
 * `/proc/self/fd/N`). Paths built on it act like `openat()`: they refer to
 * the directory we verified, whatever is renamed or swapped afterwards.
 */
async function fdPath(fd: number): Promise<string | undefined> {
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
 */
async function openedRealPath(fd: number, expected: string): Promise<string> {
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

/** The second half of {@link openInsideWithStats}: closes `handle` when what it refers to is not inside the root. */
async function checkOpened(
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

function swappedOutside(resolved: ResolvedPath): E_TOOL_PATH_ESCAPE {
  return new E_TOOL_PATH_ESCAPE(`${JSON.stringify(resolved.input)} was swapped for a path outside the sandbox root while it was being opened`, {
    details: { path: resolved.input },
  })
}

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
  if (procFdWorks !== true) {
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
  if (procFdWorks !== true) {
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

/** Raw-descriptor calls for {@link readUncheckedTarget} and the temp file of a write: no FileHandle object per call. */
// Wrapped by hand rather than with util.promisify: `node:util` pulls
// parseArgs, MIME and File into every `import 'toolsmith'` (bench: import).
function openFd(file: string, flags: number, mode?: number): Promise<number> {
  return new Promise((resolve, reject) => openCallback(file, flags, mode, (error, fd) => (error ? reject(error) : resolve(fd))))
}
function fstatFd(fd: number): Promise<Stats> {
  return new Promise((resolve, reject) => fstatCallback(fd, (error, stats) => (error ? reject(error) : resolve(stats))))
}
function fdatasyncFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fdatasyncCallback(fd, (error) => (error ? reject(error) : resolve())))
}
function fchmodFd(fd: number, mode: number): Promise<void> {
  return new Promise((resolve, reject) => fchmodCallback(fd, mode, (error) => (error ? reject(error) : resolve())))
}
function fchownFd(fd: number, uid: number, gid: number): Promise<void> {
  return new Promise((resolve, reject) => fchownCallback(fd, uid, gid, (error) => (error ? reject(error) : resolve())))
}
function writeFd(fd: number, data: Uint8Array, offset: number, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => {
    writeCallback(fd, data, offset, length, position, (error, bytesWritten) => (error ? reject(error) : resolve(bytesWritten)))
  })
}
function readFd(fd: number, buffer: Buffer, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => {
    readCallback(fd, buffer, 0, length, position, (error, bytesRead) => (error ? reject(error) : resolve(bytesRead)))
  })
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

function assertRegularFile(resolved: ResolvedPath, stats: Stats | undefined, limit: number): asserts stats is Stats {
  const quoted = JSON.stringify(resolved.input)
  const details = { path: resolved.input }
  if (stats === undefined) {
    const why = resolved.danglingLink === undefined ? 'does not exist' : 'is a symbolic link whose target does not exist'
    throw new E_TOOL_FILE_NOT_FOUND(`${quoted} ${why}`, { details })
  }
  if (stats.isDirectory()) throw new E_TOOL_NOT_A_FILE(`${quoted} is a directory, not a regular file`, { details })
  if (!stats.isFile()) {
    throw new E_TOOL_NOT_A_FILE(`${quoted} is a ${describeKind(stats)}, not a regular file`, { details })
  }
  if (stats.size > limit) {
    throw new E_TOOL_FILE_TOO_LARGE(
      `${quoted} is ${stats.size} bytes, over the ${limit}-byte limit; use grep, or bash with head/tail/sed, to look at parts of it`,
      { details: { ...details, size: stats.size, limit } },
    )
  }
}

function describeKind(stats: Stats): string {
  if (stats.isFIFO()) return 'FIFO (named pipe)'
  if (stats.isSocket()) return 'socket'
  if (stats.isCharacterDevice()) return 'character device'
  if (stats.isBlockDevice()) return 'block device'
  if (stats.isSymbolicLink()) return 'symbolic link'
  return 'special file'
}

/**
 * Replace (or create) a regular file inside the root atomically.
 *
 * @remarks
 * Missing parents are created one at a time, each opened with `O_NOFOLLOW`
 * and checked before the next is made inside it. The content goes to a temp
 * file in the target's directory, is flushed, gets the old file's mode (and
 * owner, where permitted), and is renamed over the target, so readers see
 * either the old or the new file, never half of one; the directory is then
 * flushed too, so the rename itself survives a power loss. A target with
 * more than one hard link is refused: its other names may lie outside the root.
 *
 * @param resolved - A resolution of the target path.
 * @param data - The new content.
 * @throws `TOOL_PATH_ESCAPE` (hard link, dangling symlink outside, swap),
 *   `TOOL_PATH_INVALID` (dangling symlink inside), `TOOL_NOT_A_FILE`, `TOOL_IO_ERROR`.
 * @internal
 */
export async function writeFileAtomic(resolved: ResolvedPath, data: Uint8Array): Promise<void> {
  assertWritableTarget(resolved)
  const previous = resolved.stats
  const directories = resolved.missing.slice(0, -1)
  const name = resolved.missing.length > 0 ? resolved.missing[resolved.missing.length - 1]! : path.basename(resolved.absolute)
  let dir = await openParentDirectory(resolved)
  try {
    let dirName = (await fdPath(dir.fd)) ?? (await openedRealPath(dir.fd, resolved.existing))
    for (const part of directories) {
      const child = path.join(dirName, part)
      await mkdir(child).catch((error: unknown) => {
        if (errnoCode(error) !== 'EEXIST') throw toToolError(error, resolved.input, 'create a parent directory of')
      })
      const next = await openInside(resolved, child, constants.O_RDONLY | O_DIRECTORY)
      await dir.close().catch(() => undefined)
      dir = next
      dirName = (await fdPath(dir.fd)) ?? (await openedRealPath(dir.fd, child))
    }
    const temp = await createTemp(resolved, dirName, name, previous)
    await fillAndRename(resolved, temp, data)
    await dir.sync().catch(() => undefined)
  } catch (error) {
    throw toToolError(error, resolved.input, 'write')
  } finally {
    // Not awaited: the rename is done and synced; the close cannot change the outcome.
    void dir.close().catch(() => undefined)
  }
}

/**
 * The replacement of an existing file, made ready before its new content is
 * known: the directory opened and checked, and the temp file created beside
 * the target with the target's owner and mode.
 *
 * @internal
 */
export interface PreparedReplacement {
  /** The checked directory of the target. */
  readonly dir: FileHandle
  /** The temp file in it. */
  readonly temp: TempFile
}

/**
 * Start the replacement of the existing file `resolved`: open (and check)
 * its directory and create the temp file there, with the file's mode and
 * owner. `edit` starts this while it reads and patches the file, so these
 * thread-pool round trips overlap with work it does anyway.
 *
 * @remarks
 * The result goes to {@link commitReplacement} with the content, or to
 * {@link abandonReplacement} when the edit fails. A rejection (a hard link,
 * a swapped directory…) is meant to be raised by {@link commitReplacement},
 * after whatever else the caller checks first.
 *
 * @param resolved - A resolution of an existing regular file.
 * @returns The prepared replacement.
 * @internal
 */
export async function prepareReplacement(resolved: ResolvedPath): Promise<PreparedReplacement> {
  assertWritableTarget(resolved)
  const dir = await openParentDirectory(resolved)
  try {
    const dirName = (await fdPath(dir.fd)) ?? (await openedRealPath(dir.fd, path.dirname(resolved.absolute)))
    return { dir, temp: await createTemp(resolved, dirName, path.basename(resolved.absolute), resolved.stats) }
  } catch (error) {
    void dir.close().catch(() => undefined)
    throw error
  }
}

/**
 * Finish a replacement from {@link prepareReplacement}: write `data` to the
 * temp file, flush it, rename it over the target (after the same hard-link
 * re-check as {@link writeFileAtomic}), and flush the directory.
 *
 * @param resolved - The resolution the replacement was prepared for.
 * @param data - The new content.
 * @param prepared - What {@link prepareReplacement} returned.
 * @throws As {@link writeFileAtomic}.
 * @internal
 */
export async function commitReplacement(resolved: ResolvedPath, data: Uint8Array, prepared: Promise<PreparedReplacement>): Promise<void> {
  let dir: FileHandle | undefined
  try {
    const ready = await prepared
    dir = ready.dir
    await fillAndRename(resolved, ready.temp, data)
    await dir.sync().catch(() => undefined)
  } catch (error) {
    throw toToolError(error, resolved.input, 'write')
  } finally {
    // Not awaited: the rename is done and synced; the close cannot change the outcome.
    void dir?.close().catch(() => undefined)
  }
}

/**
 * Undo a replacement from {@link prepareReplacement} that will not be
 * committed: the temp file is closed and removed before this resolves, so
 * a failed edit leaves nothing behind.
 *
 * @param prepared - What {@link prepareReplacement} returned.
 * @internal
 */
export async function abandonReplacement(prepared: Promise<PreparedReplacement>): Promise<void> {
  const ready = await prepared.catch(() => undefined)
  if (ready === undefined) return
  await discardTemp(ready.temp)
  void ready.dir.close().catch(() => undefined)
}

/**
 * Open (and check) the directory a write to `resolved` goes into: the
 * deepest existing directory when parents are missing.
 */
function openParentDirectory(resolved: ResolvedPath): Promise<FileHandle> {
  const directory = resolved.missing.length > 0 ? resolved.existing : path.dirname(resolved.absolute)
  return openInside(resolved, directory, constants.O_RDONLY | O_DIRECTORY)
}

function assertWritableTarget(resolved: ResolvedPath): void {
  const quoted = JSON.stringify(resolved.input)
  const details = { path: resolved.input }
  if (resolved.danglingLink !== undefined) {
    throw new E_TOOL_PATH_INVALID(
      `${quoted} goes through the dangling symbolic link ${JSON.stringify(resolved.danglingLink)}; ` +
        'toolsmith never writes through a link whose target is missing: remove the link or write to its target path',
      { details: { ...details, link: resolved.danglingLink } },
    )
  }
  if (resolved.relative === '.') throw new E_TOOL_NOT_A_FILE('The sandbox root is a directory, not a file', { details })
  if (resolved.stats !== undefined) assertReplaceable(quoted, details, resolved.stats)
}

function assertReplaceable(quoted: string, details: Record<string, unknown>, stats: Stats): void {
  if (stats.isDirectory()) throw new E_TOOL_NOT_A_FILE(`${quoted} is a directory; write replaces regular files only`, { details })
  if (!stats.isFile()) {
    throw new E_TOOL_NOT_A_FILE(`${quoted} is a ${describeKind(stats)}; write replaces regular files only`, { details })
  }
  if (stats.nlink > 1) {
    throw new E_TOOL_PATH_ESCAPE(
      `${quoted} has ${stats.nlink} hard links; another name for it may lie outside the sandbox, so toolsmith refuses to write it`,
      { details: { ...details, nlink: stats.nlink } },
    )
  }
}

/** A temp file beside a write's target, open for writing, not yet renamed. */
interface TempFile {
  /** Its descriptor (raw: it is closed synchronously once flushed). */
  readonly fd: number
  /** Its path (through `/proc/self/fd/N` of the checked directory where available). */
  readonly path: string
  /** The target's path, the same way. */
  readonly target: string
  /** The replaced file's owner and mode being given to it; settles before the temp file is renamed or removed. */
  readonly ownership: Promise<void>
  /** Whether `fd` was closed. */
  closed: boolean
}

/**
 * Create the temp file in the checked directory `dirName` and start giving
 * it `previous`'s owner and mode. Through `/proc/self/fd/N` of that
 * directory, `O_CREAT | O_EXCL | O_NOFOLLOW` already pins it: the name is
 * resolved in that very directory, and `O_EXCL` refuses any existing entry,
 * a symlink included. So the real-path re-check of {@link openInside} is
 * only needed where `/proc` is missing and `dirName` is a path.
 */
async function createTemp(resolved: ResolvedPath, dirName: string, name: string, previous: Stats | undefined): Promise<TempFile> {
  const target = path.join(dirName, name)
  const temp = path.join(dirName, `.${name.slice(0, 200)}.${randomBytes(6).toString('hex')}.toolsmith-tmp`)
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW
  let fd: number
  try {
    // Created with the replaced file's permission bits (the umask can only
    // take some away): never more open than the file it replaces, and
    // usually already right, which saves the fchmod.
    fd = await openFd(temp, flags, previous ? previous.mode & 0o777 : 0o666)
  } catch (error) {
    throw toToolError(error, resolved.input, 'open')
  }
  if (!dirName.startsWith('/proc/self/fd/')) {
    try {
      const real = await openedRealPath(fd, temp)
      if (!isInside(resolved.root, real)) throw swappedOutside(resolved)
    } catch (error) {
      // Not removed: a path that failed its check may lead anywhere by now.
      closeSync(fd)
      throw toToolError(error, resolved.input, 'open')
    }
  }
  const ownership = previous === undefined ? Promise.resolve() : copyOwnership(fd, previous)
  // Awaited by fillAndRename or discardTemp; never an unhandled rejection meanwhile.
  ownership.catch(() => undefined)
  return { fd, path: temp, target, ownership, closed: false }
}

/**
 * Write `data` to the temp file, flush it, and rename it over the target;
 * the temp file is removed if anything fails.
 */
async function fillAndRename(resolved: ResolvedPath, temp: TempFile, data: Uint8Array): Promise<void> {
  let renamed = false
  try {
    // The data and the metadata go to the same descriptor independently: at
    // once instead of one after the other (for edit, the metadata is long done).
    // Both settle before anything else happens to the descriptor: a raw fd
    // closed under a write still in flight could be reused by another open.
    const [written, owned] = await Promise.allSettled([writeAll(temp.fd, data), temp.ownership])
    if (written.status === 'rejected') throw written.reason
    if (owned.status === 'rejected') throw owned.reason
    // Kept on purpose (measured ≈ 0.45 ms per 150 KB file on this project's
    // disk, see docs/performance.md): without it a power loss after the
    // rename can leave an empty or partial file under the target's name.
    await fdatasyncFd(temp.fd)
    // Synchronous on purpose: the data is on disk, so close(2) has nothing to
    // wait for, and the lstat answers from the directory cache (the target
    // was just resolved): each was a thread-pool round trip.
    // Marked first: Linux releases the descriptor even when close reports an error.
    temp.closed = true
    closeSync(temp.fd)
    // Re-check right before the rename: a hard link made since the resolution must not win either.
    const current = lstatSync(temp.target, { throwIfNoEntry: false })
    if (current !== undefined) assertReplaceable(JSON.stringify(resolved.input), { path: resolved.input }, current)
    await rename(temp.path, temp.target)
    renamed = true
  } finally {
    if (!renamed) await discardTemp(temp)
  }
}

/** Close and remove a temp file that will not be renamed. */
async function discardTemp(temp: TempFile): Promise<void> {
  await temp.ownership.catch(() => undefined)
  if (!temp.closed) {
    temp.closed = true
    try {
      closeSync(temp.fd)
    } catch {
      // Already failing: the removal below matters more than this error.
    }
  }
  await unlink(temp.path).catch(() => undefined)
}

/**
 * Write all of `data` at the start of a fresh file: one `write(2)` for a
 * regular file (`FileHandle.writeFile` would cut it into 512 KiB writes,
 * one thread-pool round trip each); a short write continues where it stopped.
 */
async function writeAll(fd: number, data: Uint8Array): Promise<void> {
  let offset = 0
  while (offset < data.byteLength) offset += await writeFd(fd, data, offset, data.byteLength - offset, offset)
}

/**
 * Give the temp file the replaced file's owner (where permitted), then its
 * mode. In that order: on Linux a `chown` clears the set-user-ID and
 * set-group-ID bits, root's and a same-owner one's too, so a mode set first
 * would lose them. Each is skipped when the temp file already has it (the
 * usual case: the process edits its own files, and the mode it was created
 * with survived the umask); its `fstat` is answered from memory, the inode
 * was just created. Nothing is guessed: a set-group-ID directory gives new
 * files its group, a default ACL its own bits.
 */
async function copyOwnership(fd: number, previous: Stats): Promise<void> {
  const created = fstatSync(fd)
  let mode = created.mode
  if (created.uid !== previous.uid || created.gid !== previous.gid) {
    await fchownFd(fd, previous.uid, previous.gid).catch(() => undefined)
    // A chown can clear bits: ask again rather than assume.
    mode = fstatSync(fd).mode
  }
  if ((mode & 0o7777) !== (previous.mode & 0o7777)) await fchmodFd(fd, previous.mode & 0o7777)
}
