/**
 * Durable, atomic replacement of regular files inside the root: missing
 * parents made one checked directory at a time, the content written to a
 * temp file beside the target through a verified directory descriptor,
 * flushed, given the old file's owner and mode, and renamed over the target.
 *
 * @module
 */
import { closeSync, constants, fstatSync, lstatSync, type Stats } from 'node:fs'
import { mkdir, rename, unlink, type FileHandle } from 'node:fs/promises'
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import { E_TOOL_NOT_A_FILE, E_TOOL_PATH_ESCAPE, E_TOOL_PATH_INVALID } from '../../exceptions.js'
import { fchmodFd, fchownFd, fdatasyncFd, O_DIRECTORY, O_NOFOLLOW, openFd, writeFd } from './fd_calls.js'
import { describeKind } from './file_kind.js'
import { errnoCode, toToolError } from './fs_errors.js'
import { fdPath, openedRealPath, openInside, swappedOutside } from './open_inside.js'
import { isInside, type ResolvedPath } from './paths.js'

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
