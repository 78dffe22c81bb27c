/**
 * Spool stores: where tool output is kept, in memory or on disk, and read
 * back through a {@link SpoolReader}.
 *
 * @module
 */
import { randomBytes } from 'node:crypto'
import { constants, lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { E_ARTIFACT_QUERY_FAILED, E_INVALID_OPTIONS } from '../exceptions.js'
import { sha256Hex } from '../utils/hash.js'
import {
  LineIndexBuilder,
  readLine,
  scanLines,
  MemorySpoolReader,
  SPOOL_CHUNK_BYTES,
  type LineIndex,
  type SpoolLine,
  type SpoolLinesOptions,
  type SpoolReader,
} from './spool_reader.js'

/**
 * What a store accepts: text (written as UTF-8), bytes, a web
 * `ReadableStream`, or any async iterable of chunks (a Node `Readable`
 * included). String chunks are encoded as UTF-8.
 */
export type SpoolInput =
  | string
  | Uint8Array
  | ReadableStream<Uint8Array | string>
  | AsyncIterable<Uint8Array | string>
  | Iterable<Uint8Array | string>

/**
 * A place to keep spools by id.
 *
 * @remarks
 * Writing an id again points the id at the new content: `read(id)` returns
 * the new reader from then on. A reader obtained earlier (from `write` or
 * `read`) is not affected: it keeps returning exactly the content it was
 * created over, until `delete(id)` (or the store's own `clear`) frees the
 * id's content. Implementations must never let a rewrite change what an
 * existing reader returns.
 */
export interface SpoolStore {
  /**
   * Store `input` under `id`, consuming a stream chunk by chunk.
   *
   * @remarks
   * When `id` already holds content, the new content becomes what
   * `read(id)` returns; readers handed out earlier keep reading the old
   * content (it is kept until `delete(id)` or the store is cleared).
   *
   * @param id - Any string (e.g. a unique per-call spool id).
   * @param input - The content.
   * @returns A reader over what was stored.
   */
  write(id: string, input: SpoolInput): Promise<SpoolReader>
  /**
   * The reader for `id`.
   *
   * @param id - The id given to `write`.
   * @returns The reader, or `undefined` when nothing is stored under `id`.
   */
  read(id: string): SpoolReader | undefined
  /**
   * Forget `id` (and free its memory or disk space, including any earlier
   * versions written under the same id). Readers over it may then fail.
   *
   * @param id - The id.
   * @returns True when something was removed.
   */
  delete(id: string): Promise<boolean>
}

/** Alias of {@link SpoolStore}: the design calls the same contract `ByteStore`. */
export type ByteStore = SpoolStore

/**
 * Turn any {@link SpoolInput} into a stream of byte chunks.
 *
 * @param input - The content.
 * @returns Chunks in order; a `ReadableStream` is released when iteration stops.
 */
export async function* spoolChunks(input: SpoolInput): AsyncGenerator<Uint8Array> {
  if (typeof input === 'string') {
    yield Buffer.from(input, 'utf8')
    return
  }
  if (input instanceof Uint8Array) {
    yield input
    return
  }
  if (isReadableStream(input)) {
    const reader = input.getReader()
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return
        yield toBytes(value)
      }
    } finally {
      reader.releaseLock()
    }
  }
  if (isAsyncIterable(input)) {
    for await (const chunk of input) yield toBytes(chunk)
    return
  }
  if (isIterable(input)) {
    for (const chunk of input) yield toBytes(chunk)
    return
  }
  throw new E_INVALID_OPTIONS('A spool accepts a string, a Uint8Array, a ReadableStream or an (async) iterable of chunks')
}

function toBytes(chunk: unknown): Uint8Array {
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8')
  if (chunk instanceof Uint8Array) return chunk
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk)
  throw new E_INVALID_OPTIONS(`A spool chunk must be a string or bytes (got ${typeof chunk})`)
}

function isReadableStream(value: unknown): value is ReadableStream<Uint8Array | string> {
  return typeof (value as { getReader?: unknown })?.getReader === 'function'
}

function isAsyncIterable(value: unknown): value is AsyncIterable<Uint8Array | string> {
  return typeof (value as { [Symbol.asyncIterator]?: unknown })?.[Symbol.asyncIterator] === 'function'
}

function isIterable(value: unknown): value is Iterable<Uint8Array | string> {
  return typeof (value as { [Symbol.iterator]?: unknown })?.[Symbol.iterator] === 'function'
}

/**
 * Spools held in memory: fine for modest outputs and tests.
 *
 * @example
 * ```ts
 * const store = new InMemorySpoolStore()
 * const reader = await store.write('call-1', 'a\nb\n')
 * await reader.line(1) // 'b'
 * ```
 */
export class InMemorySpoolStore implements SpoolStore {
  readonly #readers = new Map<string, MemorySpoolReader>()

  /** How many spools are stored. */
  get size(): number {
    return this.#readers.size
  }

  /**
   * Store `input` under `id`.
   *
   * @param id - Any string.
   * @param input - The content.
   * @returns A reader over it.
   */
  async write(id: string, input: SpoolInput): Promise<SpoolReader> {
    const builder = new LineIndexBuilder()
    const parts: Uint8Array[] = []
    for await (const chunk of spoolChunks(input)) {
      builder.push(chunk)
      // Copy: a producer may reuse its buffer, and the caller's bytes must not alias the spool.
      parts.push(Uint8Array.prototype.slice.call(chunk))
    }
    const bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts)
    const reader = new MemorySpoolReader(bytes, builder.finish())
    this.#readers.set(id, reader)
    return reader
  }

  /**
   * The reader for `id`.
   *
   * @param id - The id.
   * @returns The reader, or `undefined`.
   */
  read(id: string): SpoolReader | undefined {
    return this.#readers.get(id)
  }

  /**
   * Forget `id`.
   *
   * @param id - The id.
   * @returns True when something was removed.
   */
  async delete(id: string): Promise<boolean> {
    return this.#readers.delete(id)
  }
}

/** Options of {@link FileSpoolStore}. */
export interface FileSpoolStoreOptions {
  /**
   * Directory for spool files; created when missing.
   *
   * @defaultValue a fresh `toolsmith-spool-*` folder in the OS temp directory
   */
  dir?: string
}

// Small chunks (a process printing line by line) are batched into writes of this size.
const WRITE_BATCH_BYTES = 256 * 1024

/**
 * Spools kept as files, so a large output never sits in memory.
 *
 * @remarks
 * `write` streams the input to a temporary file one chunk at a time (each
 * write awaited, so a fast producer is held back by the disk: backpressure),
 * builds a sparse line index on the way (see `LineIndexBuilder`), then
 * renames the file into place. Memory stays flat whatever the size: one
 * batch buffer plus an index of about `lines / 1024 + bytes / 65536` numbers.
 * Readers use positioned reads of 64 KiB, so reading line 90,000,000 of a
 * gigabyte touches one small region of the file.
 *
 * The id → file mapping lives in this object; file names are the SHA-256 of
 * the id plus a per-store token and a per-write sequence number
 * (`<sha256(id)>-<token>-<n>.spool`), so ids
 * never form paths and each write gets its own file. Writing an id again
 * points it at the new file; the superseded file is kept (so a reader
 * obtained earlier keeps reading its own, unchanged content) until
 * {@link FileSpoolStore.delete} of that id or {@link FileSpoolStore.clear},
 * which remove every version. Call {@link FileSpoolStore.clear} to remove
 * every file (and the folder, when the store created it).
 *
 * Stores (in one process or several) that share a `dir` read each other's
 * spools: {@link FileSpoolStore.read} of an id this store did not write finds
 * the newest complete file another store wrote under it (how a worker
 * replays a large result another worker recorded; docs/runner.md).
 *
 * @example
 * ```ts
 * const store = new FileSpoolStore()            // fresh temp folder
 * const reader = await store.write(callId, childProcess.stdout)
 * await reader.lineCount()
 * await reader.line(1_000_000)
 * ```
 */
export class FileSpoolStore implements SpoolStore {
  readonly #dir: string
  readonly #ownsDir: boolean
  readonly #readers = new Map<string, FileSpoolReader>()
  // Every file written per id (current last), kept until delete/clear so old readers stay valid.
  readonly #files = new Map<string, string[]>()
  #sequence = 0
  // Distinguishes this store's files from another store's (or process's) sharing `dir`.
  readonly #token = randomBytes(4).toString('hex')

  /**
   * @param options - Where to keep the files.
   * @throws {@link toolsmith/core!E_INVALID_OPTIONS} when `dir` is given but is not a non-empty string.
   */
  constructor(options: FileSpoolStoreOptions = {}) {
    if (options.dir !== undefined && (typeof options.dir !== 'string' || options.dir.length === 0)) {
      throw new E_INVALID_OPTIONS('FileSpoolStore: "dir" must be a non-empty string')
    }
    this.#ownsDir = options.dir === undefined
    this.#dir = options.dir ?? mkdtempSync(join(tmpdir(), 'toolsmith-spool-'))
  }

  /** The directory holding the spool files. */
  get dir(): string {
    return this.#dir
  }

  /** How many spools are stored. */
  get size(): number {
    return this.#readers.size
  }

  /**
   * Stream `input` to a new file under `id`.
   *
   * @remarks
   * A rewrite of an existing `id` goes to a new file; readers obtained
   * earlier keep reading the previous file, which is removed only by
   * {@link FileSpoolStore.delete} or {@link FileSpoolStore.clear}.
   *
   * @param id - Any string.
   * @param input - The content; streams are consumed with backpressure.
   * @returns A reader over the file.
   */
  async write(id: string, input: SpoolInput): Promise<SpoolReader> {
    await mkdir(this.#dir, { recursive: true })
    const sequence = ++this.#sequence
    const path = join(this.#dir, `${sha256Hex(id)}-${this.#token}-${sequence}.spool`)
    const temp = `${path}.${process.pid}.tmp`
    const builder = new LineIndexBuilder()
    const handle = await open(temp, 'w')
    // Two preallocated batches: chunks are copied once into the one filling
    // while the other is being written (at most one write in flight, so
    // memory stays at two batches and the file stays in order).
    const batches = [Buffer.allocUnsafe(WRITE_BATCH_BYTES), Buffer.allocUnsafe(WRITE_BATCH_BYTES)]
    let current = 0
    let filled = 0
    let inFlight: Promise<void> | undefined
    const settle = async (): Promise<void> => {
      const pending = inFlight
      inFlight = undefined
      if (pending !== undefined) await pending
    }
    const dispatch = async (): Promise<void> => {
      if (filled === 0) return
      await settle()
      inFlight = writeFully(handle, batches[current]!.subarray(0, filled))
      inFlight.catch(() => undefined) // awaited by the next settle()
      current ^= 1
      filled = 0
    }
    try {
      for await (const chunk of spoolChunks(input)) {
        builder.push(chunk)
        if (chunk.length >= WRITE_BATCH_BYTES) {
          // Written as is, awaited: the producer is paused until then, so it cannot reuse the buffer meanwhile.
          await dispatch()
          await settle()
          await writeFully(handle, chunk)
          continue
        }
        let offset = 0
        while (offset < chunk.length) {
          const batch = batches[current]!
          const n = Math.min(WRITE_BATCH_BYTES - filled, chunk.length - offset)
          batch.set(chunk.subarray(offset, offset + n), filled)
          filled += n
          offset += n
          if (filled === WRITE_BATCH_BYTES) await dispatch()
        }
      }
      await dispatch()
      await settle()
    } catch (error) {
      await inFlight?.catch(() => undefined)
      await handle.close().catch(() => undefined)
      await rm(temp, { force: true })
      throw error
    }
    await handle.close()
    await rename(temp, path)
    const reader = new FileSpoolReader(path, builder.finish())
    this.#readers.set(id, reader)
    const files = this.#files.get(id)
    if (files === undefined) this.#files.set(id, [path])
    else files.push(path)
    return reader
  }

  /**
   * The reader for `id`: this store's own, else the newest complete file
   * another store sharing the folder wrote under `id`.
   *
   * @param id - The id.
   * @returns The reader, or `undefined`.
   */
  read(id: string): SpoolReader | undefined {
    return this.#readers.get(id) ?? this.#fromFolder(id)
  }

  /**
   * A spool another store (another worker process) wrote under `id` in the
   * same folder: its newest complete file, whose line index is built on
   * first use. Remembered, but not owned: `delete` and `clear` remove only
   * this store's own files.
   */
  #fromFolder(id: string): SpoolReader | undefined {
    // Exactly the names write() makes, for this id: `<sha256(id)>-<token>-<n>.spool`.
    const own = new RegExp(`^${sha256Hex(id)}-[0-9a-f]{8}-[0-9]+\\.spool$`)
    const uid = process.getuid?.()
    let newest: { path: string; mtimeMs: number } | undefined
    let names: string[]
    try {
      names = readdirSync(this.#dir)
    } catch {
      return undefined
    }
    for (const name of names) {
      // Complete files only: a write in progress is still `….spool.<pid>.tmp`.
      if (!own.test(name)) continue
      const path = join(this.#dir, name)
      try {
        // lstat: a symlink planted under a spool file's name is not a spool
        // (it could name /proc/self/environ); nor is a file of another user.
        const stats = lstatSync(path)
        if (!stats.isFile() || (uid !== undefined && stats.uid !== uid)) continue
        if (newest === undefined || stats.mtimeMs > newest.mtimeMs) newest = { path, mtimeMs: stats.mtimeMs }
      } catch {
        // Deleted meanwhile by its owner: not a candidate.
      }
    }
    if (newest === undefined) return undefined
    const reader = new FileSpoolReader(newest.path)
    this.#readers.set(id, reader)
    return reader
  }

  /**
   * Delete every file written under `id` (the current one and any superseded
   * by later writes); readers over them fail from then on.
   *
   * @param id - The id.
   * @returns True when something was removed.
   */
  async delete(id: string): Promise<boolean> {
    if (!this.#readers.has(id)) return false
    // Another store's file read through this one is forgotten, never removed.
    const paths = this.#files.get(id) ?? []
    this.#readers.delete(id)
    this.#files.delete(id)
    await Promise.all(paths.map((p) => rm(p, { force: true })))
    return true
  }

  /**
   * Delete every spool file; remove the folder too when this store created it.
   */
  async clear(): Promise<void> {
    const paths = [...this.#files.values()].flat()
    this.#readers.clear()
    this.#files.clear()
    await Promise.all(paths.map((p) => rm(p, { force: true })))
    if (this.#ownsDir) rmSync(this.#dir, { recursive: true, force: true })
  }
}

async function writeFully(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  let offset = 0
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset)
    offset += bytesWritten
  }
}

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
   *   file once, on first use.
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
    if ((error as NodeJS.ErrnoException).code !== 'ELOOP') throw error
    throw new E_ARTIFACT_QUERY_FAILED(`The spool file ${path} was replaced by a symbolic link; it was not read`, { cause: error })
  }
  const stats = await handle.stat()
  if (!stats.isFile()) {
    await handle.close()
    throw new E_ARTIFACT_QUERY_FAILED(`The spool file ${path} is not a regular file any more; it was not read`)
  }
  return handle
}
