/**
 * {@link InMemorySpoolStore}: spools held in memory.
 *
 * @module
 */
import { LineIndexBuilder, MemorySpoolReader, type SpoolReader } from './spool_reader.js'
import { spoolChunks, type SpoolInput, type SpoolStore } from './spool_store.js'

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
