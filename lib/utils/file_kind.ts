/**
 * Telling a regular file from the things a path can also name (a FIFO, a
 * socket, a device, a directory), so a reader can refuse them before it
 * blocks: opening a FIFO for reading waits for a writer forever.
 *
 * @module
 */
import { constants, type Stats } from 'node:fs'
import { open, stat } from 'node:fs/promises'

/**
 * What a path names when it is not a regular file, in words.
 *
 * @param stats - The path's `stat` (symbolic links followed).
 * @returns `'a FIFO (named pipe)'`, `'a socket'`, `'a character device'`,
 *   `'a block device'` or `'a directory'`; `undefined` for a regular file.
 */
export function nonRegularKind(stats: Stats): string | undefined {
  if (stats.isFile()) return undefined
  if (stats.isDirectory()) return 'a directory'
  if (stats.isFIFO()) return 'a FIFO (named pipe)'
  if (stats.isSocket()) return 'a socket'
  if (stats.isCharacterDevice()) return 'a character device'
  if (stats.isBlockDevice()) return 'a block device'
  return 'not a regular file'
}

/** Thrown by {@link readRegularFile} for a path that is not a regular file. */
export class NotRegularFileError extends Error {
  /** What the path names instead (`'a FIFO (named pipe)'`…). */
  readonly kind: string

  /**
   * @param path - The path.
   * @param kind - What it names, from {@link nonRegularKind}.
   */
  constructor(path: string, kind: string) {
    super(`${path} is ${kind}, not a regular file`)
    this.name = 'NotRegularFileError'
    this.kind = kind
  }
}

/**
 * Read a regular file as UTF-8 without ever blocking on a FIFO or a device.
 * The path is looked at before it is opened (nothing is opened for a FIFO
 * or a device at all), and opened non-blocking and checked again on the
 * descriptor, so a FIFO swapped in between the two cannot make it hang.
 *
 * @param path - The file.
 * @returns Its text.
 * @throws {@link NotRegularFileError} for anything but a regular file; the
 *   `fs` error (`ENOENT`, `EACCES`…) when it cannot be read.
 */
export async function readRegularFile(path: string): Promise<string> {
  const kind = nonRegularKind(await stat(path))
  if (kind !== undefined) throw new NotRegularFileError(path, kind)
  // O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for a writer.
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY)
  try {
    const again = nonRegularKind(await handle.stat())
    if (again !== undefined) throw new NotRegularFileError(path, again)
    return await handle.readFile('utf8')
  } finally {
    await handle.close()
  }
}
