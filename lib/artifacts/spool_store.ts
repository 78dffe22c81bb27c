/**
 * The spool store contract: what a store accepts ({@link SpoolInput}) and
 * the interface every store implements, with the chunking every store uses.
 *
 * @module
 */
import { E_INVALID_OPTIONS } from '../exceptions.js'
import type { SpoolReader } from './spool_reader.js'

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
