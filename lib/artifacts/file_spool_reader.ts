/**
 * {@link FileSpoolReader}: reads a spool file through its sparse line index
 * with positioned reads, refusing anything but a regular file.
 *
 * @module
 */
import { constants } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import { E_ARTIFACT_QUERY_FAILED } from '../exceptions.js'
import {
  LineIndexBuilder,
  readLine,
  scanLines,
  SPOOL_CHUNK_BYTES,
  type LineIndex,
  type SpoolLine,
  type SpoolLinesOptions,
  type SpoolReader,
} from './spool_reader.js'

/**
 * A {@link SpoolReader} over a spool file, using its sparse line index.
 *
 * @remarks
 * Each call opens the file, reads what it needs with positioned reads and
 * closes it again, so many readers cost no open descriptors while idle. A
 * reader whose file was deleted fails with the file system's error.
 */
export class FileSpoolReader implements SpoolReader {
  readonly #path: string
  #index: LineIndex | Promise<LineIndex>

  /**
   * @param path - The spool file.
   * @param index - Its line index, built while the file was written; when
   *   omitted (a file written by another process), built by reading the
   *   file once, starting now.
   */
  constructor(path: string, index?: LineIndex) {
    this.#path = path
    this.#index = index ?? indexFile(path)
    // Until someone asks, a failure to read the file is nobody's business.
    if (this.#index instanceof Promise) this.#index.catch(() => undefined)
  }

  /** The spool file's path. */
  get path(): string {
    return this.#path
  }

  /**
   * One line.
   *
   * @param index - 0-based line index.
   * @returns The text, or `undefined` when out of range.
   */
  async line(index: number): Promise<string | undefined> {
    return readLine(this, index)
  }

  /**
   * The number of lines.
   *
   * @returns The line count.
   */
  async lineCount(): Promise<number> {
    return (await this.#index).lineCount
  }

  /**
   * The size in bytes.
   *
   * @returns The byte length.
   */
  async byteLength(): Promise<number> {
    return (await this.#index).byteLength
  }

  /**
   * The whole file, decoded as UTF-8: loads everything, so prefer
   * {@link FileSpoolReader.lines} on large spools.
   *
   * @returns The whole text.
   */
  async readAll(): Promise<string> {
    const handle = await openSpoolFile(this.#path)
    try {
      return (await handle.readFile()).toString('utf8')
    } finally {
      await handle.close()
    }
  }

  /**
   * Stream lines `[start, end)` with positioned reads.
   *
   * @param start - First 0-based index.
   * @param end - One past the last index.
   * @param options - Per-line byte cap.
   * @returns The lines.
   */
  async *lines(start = 0, end = Infinity, options: SpoolLinesOptions = {}): AsyncGenerator<SpoolLine> {
    const index = await this.#index
    const handle = await openSpoolFile(this.#path)
    try {
      const read = async (position: number, length: number): Promise<Uint8Array> => {
        const buffer = Buffer.allocUnsafe(Math.min(length, SPOOL_CHUNK_BYTES))
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, position)
        return buffer.subarray(0, bytesRead)
      }
      yield* scanLines(index, read, start, end, options.maxLineBytes)
    } finally {
      await handle.close()
    }
  }
}

/** The line index of a finished spool file, read once in big chunks. */
async function indexFile(path: string): Promise<LineIndex> {
  const builder = new LineIndexBuilder()
  const handle = await openSpoolFile(path)
  // The stream closes the handle when it ends or fails.
  for await (const chunk of handle.createReadStream({ highWaterMark: 1024 * 1024 })) builder.push(chunk as Buffer)
  return builder.finish()
}

/**
 * Open a spool file for reading, refusing anything but a regular file: a
 * symlink, FIFO or device put in its place (another process sharing the
 * folder could) is never followed, waited on or read.
 */
async function openSpoolFile(path: string): Promise<FileHandle> {
  let handle: FileHandle
  try {
    handle = await open(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ELOOP') throw new E_ARTIFACT_QUERY_FAILED(`The spool file ${path} was replaced by a symbolic link; it was not read`, { cause: error })
    // Deleted (the store's delete() or clear(), or a process sharing the
    // folder), or caught between the removal and the arrival of what
    // replaces it: the result is gone either way.
    // ENOTDIR: its folder was replaced by a file.
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new E_ARTIFACT_QUERY_FAILED(`The spool file ${path} no longer exists (${code}): the result was deleted, or replaced while it was read`, { cause: error })
    }
    throw error
  }
  let regular: boolean
  try {
    regular = (await handle.stat()).isFile()
  } catch (error) {
    await handle.close()
    throw error
  }
  if (!regular) {
    await handle.close()
    throw new E_ARTIFACT_QUERY_FAILED(`The spool file ${path} is not a regular file any more; it was not read`)
  }
  return handle
}
