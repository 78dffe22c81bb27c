/**
 * {@link FileSpoolStore}: spools kept as files, streamed to disk with a
 * sparse line index built on the way.
 *
 * @module
 */
import { randomBytes } from 'node:crypto'
import { lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { E_INVALID_OPTIONS } from '../exceptions.js'
import { sha256Hex } from '../utils/hash.js'
import { FileSpoolReader } from './file_spool_reader.js'
import { LineIndexBuilder, type SpoolReader } from './spool_reader.js'
import { spoolChunks, type SpoolInput, type SpoolStore } from './spool_store.js'

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
