/**
 * File I/O that cannot be steered outside the root after the path was
 * checked: files are opened with `O_NOFOLLOW` and what was opened is checked
 * again through its descriptor; writes go through a verified directory
 * descriptor into a temp file that is renamed over the target.
 *
 * @module
 */
import { constants, type Stats } from 'node:fs'
import { lstat, mkdir, open, readlink, realpath, rename, stat, unlink, type FileHandle } from 'node:fs/promises'
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import {
  E_TOOL_FILE_NOT_FOUND,
  E_TOOL_FILE_TOO_LARGE,
  E_TOOL_NOT_A_FILE,
  E_TOOL_PATH_ESCAPE,
  E_TOOL_PATH_INVALID,
} from '../exceptions.js'
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
async function fdPath(handle: FileHandle): Promise<string | undefined> {
  if (procFdWorks === false) return undefined
  const candidate = `/proc/self/fd/${handle.fd}`
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
 * The real path of what `handle` refers to, read through the descriptor
 * itself where the platform allows it.
 */
async function openedRealPath(handle: FileHandle, expected: string): Promise<string> {
  if (procFdWorks === true) {
    // Known to work: one readlink, not a probe and then the real one.
    return await readlink(`/proc/self/fd/${handle.fd}`)
  }
  const link = await fdPath(handle)
  if (link !== undefined) return await readlink(link)
  // No /proc: fall back to resolving the expected path and checking it is the same inode.
  const [opened, real] = await Promise.all([handle.stat(), realpath(expected)])
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
 * {@link openInside}, optionally with the `fstat` of the opened descriptor
 * taken concurrently with the real-path re-check (two independent
 * thread-pool jobs instead of two round trips one after the other).
 */
async function openInsideWithStats(
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
  try {
    const [real, stats] = await Promise.all([openedRealPath(handle, absolute), withStats ? handle.stat() : undefined])
    if (!isInside(resolved.root, real)) {
      throw new E_TOOL_PATH_ESCAPE(
        `${JSON.stringify(resolved.input)} was swapped for a path outside the sandbox root while it was being opened`,
        { details: { path: resolved.input } },
      )
    }
    return { handle, stats }
  } catch (error) {
    await handle.close().catch(() => undefined)
    throw toToolError(error, resolved.input, 'open')
  }
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
  const opened = await openInsideWithStats(resolved, resolved.absolute, constants.O_RDONLY | O_NONBLOCK, undefined, true)
  const handle = opened.handle
  try {
    const stats = opened.stats!
    assertRegularFile(resolved, stats, limit)
    // Read until EOF or one byte past the limit: the stat size is only a hint
    // (the file may grow, and some files report size 0).
    const chunks: Buffer[] = []
    let filled = 0
    let position = 0
    while (filled <= limit) {
      const wanted = Math.min(limit + 1 - filled, Math.max(stats.size - filled + 1, 65_536))
      // allocUnsafe: only the bytesRead bytes that read() overwrote are ever used.
      const chunk = Buffer.allocUnsafe(wanted)
      const { bytesRead } = await handle.read(chunk, 0, wanted, position)
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
      remainder = Math.max(1, (await handle.stat()).size - limit)
      buffer = buffer.subarray(0, limit)
    }
    return { bytes: buffer, remainder, stats }
  } catch (error) {
    throw toToolError(error, resolved.input, 'read')
  } finally {
    // Not awaited: the bytes are in hand, and a read-only descriptor's close
    // cannot fail in a way the caller could act on; waiting would only add
    // one thread-pool round trip to every read.
    void handle.close().catch(() => undefined)
  }
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
 * either the old or the new file, never half of one. A target with more than
 * one hard link is refused: its other names may lie outside the root.
 *
 * @param resolved - A resolution of the target path.
 * @param data - The new content.
 * @param parent - The target's directory, already being opened by
 *   {@link openParentDirectory} (for an existing target only); it is closed
 *   here in every case.
 * @throws `TOOL_PATH_ESCAPE` (hard link, dangling symlink outside, swap),
 *   `TOOL_PATH_INVALID` (dangling symlink inside), `TOOL_NOT_A_FILE`, `TOOL_IO_ERROR`.
 * @internal
 */
export async function writeFileAtomic(resolved: ResolvedPath, data: Uint8Array, parent?: Promise<FileHandle>): Promise<void> {
  try {
    assertWritableTarget(resolved)
  } catch (error) {
    releaseDirectory(parent)
    throw error
  }
  const previous = resolved.stats
  const directories = resolved.missing.slice(0, -1)
  const name = resolved.missing.length > 0 ? resolved.missing[resolved.missing.length - 1]! : path.basename(resolved.absolute)
  const dir = await (parent ?? openParentDirectory(resolved))
  await writeInto(resolved, dir, directories, name, data, previous)
}

/**
 * Open (and check) the directory a write to `resolved` goes into: the
 * deepest existing directory when parents are missing.
 *
 * @remarks
 * `edit` starts this while it reads and patches the file, so the two
 * thread-pool round trips overlap with work it does anyway; the handle is
 * then passed to {@link writeFileAtomic}, or given to
 * {@link releaseDirectory} when the edit fails.
 *
 * @param resolved - A resolution of the target path.
 * @returns The open directory.
 * @throws `TOOL_PATH_ESCAPE` when the directory was swapped for one outside the root.
 * @internal
 */
export function openParentDirectory(resolved: ResolvedPath): Promise<FileHandle> {
  const directory = resolved.missing.length > 0 ? resolved.existing : path.dirname(resolved.absolute)
  return openInside(resolved, directory, constants.O_RDONLY | O_DIRECTORY)
}

/**
 * Close a directory from {@link openParentDirectory} that will not be written to.
 *
 * @param parent - The pending or open directory, if any.
 * @internal
 */
export function releaseDirectory(parent: Promise<FileHandle> | undefined): void {
  void parent?.then((handle) => handle.close()).catch(() => undefined)
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

async function writeInto(
  resolved: ResolvedPath,
  dir: FileHandle,
  directories: readonly string[],
  name: string,
  data: Uint8Array,
  previous: Stats | undefined,
): Promise<void> {
  try {
    let dirName = (await fdPath(dir)) ?? (await openedRealPath(dir, resolved.existing))
    for (const part of directories) {
      const child = path.join(dirName, part)
      await mkdir(child).catch((error: unknown) => {
        if (errnoCode(error) !== 'EEXIST') throw toToolError(error, resolved.input, 'create a parent directory of')
      })
      const next = await openInside(resolved, child, constants.O_RDONLY | O_DIRECTORY)
      await dir.close().catch(() => undefined)
      dir = next
      dirName = (await fdPath(dir)) ?? (await openedRealPath(dir, child))
    }
    await replaceIn(resolved, dirName, name, data, previous)
    await dir.sync().catch(() => undefined)
  } catch (error) {
    throw toToolError(error, resolved.input, 'write')
  } finally {
    // Not awaited: the rename is done and synced; the close cannot change the outcome.
    void dir.close().catch(() => undefined)
  }
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

async function replaceIn(
  resolved: ResolvedPath,
  dirName: string,
  name: string,
  data: Uint8Array,
  previous: Stats | undefined,
): Promise<void> {
  const target = path.join(dirName, name)
  const temp = path.join(dirName, `.${name.slice(0, 200)}.${randomBytes(6).toString('hex')}.toolsmith-tmp`)
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL
  const handle = await openInside(resolved, temp, flags, previous ? 0o600 : 0o666)
  let renamed = false
  try {
    // The data and the metadata go to the same descriptor independently: two
    // thread-pool jobs at once instead of three round trips in a row.
    await Promise.all([handle.writeFile(data), previous === undefined ? undefined : copyOwnership(handle, previous)])
    // Kept on purpose (measured ≈ 0.45 ms per 150 KB file on this project's
    // disk, see docs/performance.md): without it a power loss after the
    // rename can leave an empty or partial file under the target's name.
    await handle.datasync()
    // Re-check right before the rename: a hard link made since the resolution must not win either.
    // (The close runs alongside: nothing depends on its order against the lstat.)
    const [current] = await Promise.all([lstat(target).catch(() => undefined), handle.close()])
    if (current !== undefined) assertReplaceable(JSON.stringify(resolved.input), { path: resolved.input }, current)
    await rename(temp, target)
    renamed = true
  } finally {
    await handle.close().catch(() => undefined)
    if (!renamed) await unlink(temp).catch(() => undefined)
  }
}

/** Give the temp file the replaced file's mode (and owner, where permitted). */
async function copyOwnership(handle: FileHandle, previous: Stats): Promise<void> {
  await handle.chmod(previous.mode & 0o7777)
  await handle.chown(previous.uid, previous.gid).catch(() => undefined)
}
