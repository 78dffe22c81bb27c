/**
 * `SpoolReader`: random and streaming access, by line, to bytes held in a
 * spool (memory or disk), plus the sparse line index that makes it cheap.
 *
 * @module
 */
import { hasBrand } from '../utils/guards.js'
import { SCAN_WINDOW_BYTES, newlineScanner, type NewlineScanner } from './newline_scan.js'

const SPOOL_READER_BRAND = Symbol.for('toolsmith.spool_reader')
const NEWLINE = 0x0a
const CR = 0x0d

/** Bytes read per step when scanning a spool. */
export const SPOOL_CHUNK_BYTES = 64 * 1024

export type { SpoolLine, SpoolLinesOptions, SpoolReader } from '../contracts/spool_reader.js'
import type { SpoolLine, SpoolLinesOptions, SpoolReader } from '../contracts/spool_reader.js'


/**
 * Whether `value` has the four {@link SpoolReader} methods (duck-typed, so a
 * reader from any source works).
 *
 * @param value - Anything.
 * @returns Whether `value` can be used as a spool reader.
 */
export function isSpoolReader(value: unknown): value is SpoolReader {
  if (hasBrand(value, SPOOL_READER_BRAND)) return true
  if (typeof value !== 'object' || value === null) return false
  const reader = value as Record<string, unknown>
  return ['line', 'lineCount', 'byteLength', 'readAll'].every((m) => typeof reader[m] === 'function')
}

/** Where a spool's lines start, sampled sparsely: see `LineIndexBuilder`. */
export interface LineIndex {
  /** Total bytes. */
  readonly byteLength: number
  /** Total lines, by the {@link SpoolReader} rules. */
  readonly lineCount: number
  /** 0-based line numbers of the checkpoints, ascending; always starts with 0. */
  readonly checkpointLines: readonly number[]
  /** Byte offsets where those lines start. */
  readonly checkpointOffsets: readonly number[]
}

/**
 * Builds a {@link LineIndex} from bytes fed in any chunking.
 *
 * @remarks
 * A checkpoint is kept at the start of a line once 1,024 lines or 64 KiB
 * have passed since the previous one, so the index holds at most
 * `lines / 1024 + bytes / 65536` entries: about 120,000 numbers for 100
 * million short lines in a gigabyte, while finding any line costs a binary
 * search plus one scan of at most 1,024 lines or 64 KiB (longer only within a
 * single very long line).
 */
export class LineIndexBuilder {
  /** Lines between checkpoints, at most. */
  static readonly LINES_PER_CHECKPOINT = 1024
  /** Bytes between checkpoints, at most (unless one line is longer). */
  static readonly BYTES_PER_CHECKPOINT = 64 * 1024

  #bytes = 0
  #newlines = 0
  #lastByte = -1
  readonly #lines: number[] = [0]
  readonly #offsets: number[] = [0]
  #forceLineByLine = false

  /**
   * Account for the next chunk of bytes.
   *
   * @param chunk - Bytes, in stream order.
   */
  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return
    const scanner = this.#forceLineByLine ? undefined : sharedScanner()
    if (scanner === undefined) {
      this.#pushLineByLine(chunk)
    } else {
      for (let offset = 0; offset < chunk.length; offset += SCAN_WINDOW_BYTES) {
        const window = chunk.subarray(offset, Math.min(chunk.length, offset + SCAN_WINDOW_BYTES))
        scanner.load(window)
        this.#scanWindow(scanner, window.length, this.#bytes + offset)
      }
    }
    this.#bytes += chunk.length
    this.#lastByte = chunk[chunk.length - 1]!
  }

  /**
   * Count the window's newlines in bulk and jump straight to the next
   * checkpoint: the first newline after which 1,024 lines or 64 KiB have
   * passed, exactly where {@link LineIndexBuilder.#pushLineByLine} puts it.
   */
  #scanWindow(scanner: NewlineScanner, length: number, base: number): void {
    let position = 0
    let left = scanner.count(0, length)
    for (;;) {
      const lastLine = this.#lines[this.#lines.length - 1]!
      const lastOffset = this.#offsets[this.#offsets.length - 1]!
      // The k-th newline from here meets the line condition (k ≥ 1: it is checked at every newline).
      const k = lastLine + LineIndexBuilder.LINES_PER_CHECKPOINT - this.#newlines
      const byLines = left >= k ? scanner.nth(position, length, k) : -1
      // The first newline at or after `from` meets the byte condition (the next line starts 64 KiB on).
      const from = Math.max(position, lastOffset + LineIndexBuilder.BYTES_PER_CHECKPOINT - 1 - base)
      const byBytes = from < length ? scanner.nth(from, length, 1) : -1
      let at: number
      let before: number
      if (byLines !== -1 && (byBytes === -1 || byLines <= byBytes)) {
        at = byLines
        before = k - 1
      } else if (byBytes !== -1) {
        at = byBytes
        before = scanner.count(position, at)
      } else {
        this.#newlines += left
        return
      }
      this.#newlines += before + 1
      left -= before + 1
      this.#lines.push(this.#newlines)
      this.#offsets.push(base + at + 1)
      position = at + 1
    }
  }

  /** One `indexOf` per line: where WebAssembly SIMD is unavailable. */
  #pushLineByLine(chunk: Uint8Array): void {
    const base = this.#bytes
    let from = 0
    for (;;) {
      const at = chunk.indexOf(NEWLINE, from)
      if (at === -1) break
      this.#newlines++
      const lineStart = base + at + 1
      const lastLine = this.#lines[this.#lines.length - 1]!
      const lastOffset = this.#offsets[this.#offsets.length - 1]!
      if (
        this.#newlines - lastLine >= LineIndexBuilder.LINES_PER_CHECKPOINT ||
        lineStart - lastOffset >= LineIndexBuilder.BYTES_PER_CHECKPOINT
      ) {
        this.#lines.push(this.#newlines)
        this.#offsets.push(lineStart)
      }
      from = at + 1
    }
  }

  /**
   * Use the line-by-line scan even where the bulk scanner works: for
   * comparing the two (specs, the benchmark).
   *
   * @internal
   */
  static lineByLine(): LineIndexBuilder {
    const builder = new LineIndexBuilder()
    builder.#forceLineByLine = true
    return builder
  }

  /**
   * The index of everything pushed so far.
   *
   * @returns A frozen snapshot.
   */
  finish(): LineIndex {
    const unterminated = this.#bytes > 0 && this.#lastByte !== NEWLINE ? 1 : 0
    return Object.freeze({
      byteLength: this.#bytes,
      lineCount: this.#newlines + unterminated,
      checkpointLines: Object.freeze([...this.#lines]),
      checkpointOffsets: Object.freeze([...this.#offsets]),
    })
  }
}

let scanner: NewlineScanner | null | undefined

/**
 * One scanner for the process: `push` loads and scans a window without
 * yielding, so builders never interleave inside it.
 */
function sharedScanner(): NewlineScanner | undefined {
  if (scanner === undefined) scanner = newlineScanner() ?? null
  return scanner ?? undefined
}

/** Reads `length` bytes at `position`; returns fewer only at the end. */
export type PositionedRead = (position: number, length: number) => Promise<Uint8Array>

const decoder = new TextDecoder('utf-8')

/**
 * Stream lines `[start, end)` of a spool through positioned reads, keeping at
 * most `maxLineBytes` of any line in memory.
 *
 * @param index - The spool's line index.
 * @param read - Positioned reads of the spool's bytes.
 * @param start - First 0-based line.
 * @param end - One past the last line.
 * @param maxLineBytes - Longest prefix of a line to decode.
 * @returns The lines, in order.
 * @internal
 */
export async function* scanLines(
  index: LineIndex,
  read: PositionedRead,
  start: number,
  end: number,
  maxLineBytes: number = Infinity,
): AsyncGenerator<SpoolLine> {
  start = Math.max(0, Math.floor(start))
  end = Math.min(index.lineCount, Math.floor(end))
  if (start >= end) return
  const cp = checkpointFor(index, start)
  let line = index.checkpointLines[cp]!
  let position = index.checkpointOffsets[cp]!
  let parts: Uint8Array[] = []
  let kept = 0
  let total = 0
  let lastByte = -1
  const emit = (): SpoolLine => {
    let bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts)
    const truncated = total > kept
    // A CR belongs to the CRLF terminator only when it is the line's real last byte.
    if (!truncated && lastByte === CR) bytes = bytes.subarray(0, bytes.length - 1)
    const result: SpoolLine = {
      index: line,
      text: decoder.decode(bytes),
      byteLength: lastByte === CR ? total - 1 : total,
      truncated,
    }
    parts = []
    kept = 0
    total = 0
    lastByte = -1
    return result
  }
  while (position < index.byteLength && line < end) {
    const chunk = await read(position, SPOOL_CHUNK_BYTES)
    if (chunk.length === 0) break
    position += chunk.length
    let from = 0
    while (from < chunk.length && line < end) {
      const at = chunk.indexOf(NEWLINE, from)
      const stop = at === -1 ? chunk.length : at
      if (line >= start && stop > from) {
        const room = maxLineBytes - kept
        if (room > 0) {
          const piece = chunk.subarray(from, Math.min(stop, from + room))
          // Copy: the chunk buffer may be reused by the next read.
          parts.push(Uint8Array.prototype.slice.call(piece))
          kept += piece.length
        }
        total += stop - from
        lastByte = chunk[stop - 1]!
      }
      if (at === -1) break
      if (line >= start) {
        if (total > kept) cutToCharBoundary(parts, (kept = boundaryLength(parts, kept)))
        yield emit()
      }
      line++
      from = at + 1
    }
  }
  if (line >= start && line < end && line < index.lineCount) {
    // The final line has no terminator.
    if (total > kept) cutToCharBoundary(parts, (kept = boundaryLength(parts, kept)))
    yield emit()
  }
}

function checkpointFor(index: LineIndex, line: number): number {
  const lines = index.checkpointLines
  let lo = 0
  let hi = lines.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (lines[mid]! <= line) lo = mid
    else hi = mid - 1
  }
  return lo
}

/** The longest prefix of `kept` bytes that does not end inside a UTF-8 character. */
function boundaryLength(parts: Uint8Array[], kept: number): number {
  const bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts)
  let cut = Math.min(kept, bytes.length)
  // Step back over continuation bytes to the lead byte, then check its sequence fits.
  let i = cut - 1
  while (i >= 0 && (bytes[i]! & 0xc0) === 0x80) i--
  if (i < 0) return cut
  const lead = bytes[i]!
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1
  if (i + need > cut) cut = i
  return cut
}

function cutToCharBoundary(parts: Uint8Array[], length: number): void {
  const bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts)
  parts.length = 0
  parts.push(bytes.subarray(0, length))
}

/**
 * A {@link SpoolReader} over bytes in memory.
 *
 * @example
 * ```ts
 * const reader = MemorySpoolReader.from('alpha\nbeta\n')
 * await reader.lineCount() // 2
 * await reader.line(1)     // 'beta'
 * ```
 */
export class MemorySpoolReader implements SpoolReader {
  readonly #bytes: Uint8Array
  readonly #index: LineIndex

  /**
   * @param bytes - The spool's content (not copied: do not change it afterwards).
   * @param index - Its line index, when already built while receiving the bytes.
   */
  constructor(bytes: Uint8Array, index?: LineIndex) {
    this.#bytes = bytes
    if (index === undefined) {
      const builder = new LineIndexBuilder()
      builder.push(bytes)
      index = builder.finish()
    }
    this.#index = index
  }

  /**
   * A reader over a string (encoded as UTF-8) or a copy of some bytes.
   *
   * @param data - The content.
   * @returns A new reader.
   */
  static from(data: string | Uint8Array): MemorySpoolReader {
    return new MemorySpoolReader(typeof data === 'string' ? Buffer.from(data, 'utf8') : Uint8Array.from(data))
  }

  /** Brand for {@link isSpoolReader}. */
  get [SPOOL_READER_BRAND](): true {
    return true
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
    return this.#index.lineCount
  }

  /**
   * The size in bytes.
   *
   * @returns The byte length.
   */
  async byteLength(): Promise<number> {
    return this.#index.byteLength
  }

  /**
   * Everything, decoded as UTF-8.
   *
   * @returns The whole text.
   */
  async readAll(): Promise<string> {
    return decoder.decode(this.#bytes)
  }

  /**
   * Stream lines `[start, end)`.
   *
   * @param start - First 0-based index.
   * @param end - One past the last index.
   * @param options - Per-line byte cap.
   * @returns The lines.
   */
  lines(start = 0, end = Infinity, options: SpoolLinesOptions = {}): AsyncIterable<SpoolLine> {
    const bytes = this.#bytes
    return scanLines(
      this.#index,
      async (position, length) => bytes.subarray(position, position + length),
      start,
      end,
      options.maxLineBytes,
    )
  }
}

/**
 * Read one line through `reader.lines`.
 *
 * @internal
 */
export async function readLine(reader: Required<Pick<SpoolReader, 'lines'>>, index: number): Promise<string | undefined> {
  if (!Number.isInteger(index) || index < 0) return undefined
  for await (const line of reader.lines(index, index + 1)) return line.text
  return undefined
}
