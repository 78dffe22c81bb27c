/**
 * The `SpoolReader` contract: line access to spooled bytes. It sits at the
 * bottom so that core (which types tool results) and artifacts (which
 * implement readers) both depend on it and never on each other.
 *
 * @module
 */

/** One line yielded by {@link SpoolReader.lines}. */
export interface SpoolLine {
  /** 0-based line index. */
  index: number
  /** The line's text without its `\n` (or `\r\n`); cut when `truncated`. */
  text: string
  /** The full line's length in bytes, terminator excluded. */
  byteLength: number
  /** Whether `text` was cut at `maxLineBytes` (on a UTF-8 character boundary). */
  truncated: boolean
}

/** Options of {@link SpoolReader.lines}. */
export interface SpoolLinesOptions {
  /**
   * Longest prefix of each line to decode, in bytes; the rest is skipped
   * without being kept in memory.
   *
   * @defaultValue Infinity
   */
  maxLineBytes?: number
}

/**
 * Read access to a spool.
 *
 * @remarks
 * **Lines.** The bytes are split on `\n`; a `\r` just before it is dropped
 * (CRLF), a final line without `\n` still counts, and a trailing `\n` does
 * not start an extra empty line: `'a\nb'` and `'a\nb\n'` both have 2 lines,
 * `''` has 0, `'\n'` has 1 (empty). Text is decoded as UTF-8 per line, so a
 * character split across written chunks reads back whole.
 *
 * **Indexing.** {@link SpoolReader.line} and {@link SpoolReader.lines} are
 * **0-based** like arrays (`line(0)` is the first line); the artifact methods
 * a model sees (`grep`, `cat`) are 1-based like editors.
 *
 * Methods are async because file-backed spools read from disk. Only
 * {@link SpoolReader.readAll} loads everything; the rest read what they need.
 */
export interface SpoolReader {
  /**
   * One line.
   *
   * @param index - 0-based line index.
   * @returns The line's text, or `undefined` when out of range.
   */
  line(index: number): Promise<string | undefined>
  /**
   * The number of lines (see the rules above).
   *
   * @returns The line count.
   */
  lineCount(): Promise<number>
  /**
   * The size in bytes.
   *
   * @returns The byte length.
   */
  byteLength(): Promise<number>
  /**
   * Everything, decoded as UTF-8, line endings kept as written.
   *
   * @returns The whole text.
   */
  readAll(): Promise<string>
  /**
   * Stream lines `[start, end)` without loading the rest (optional: readers
   * without it are read through {@link SpoolReader.line}).
   *
   * @param start - First 0-based index (default 0).
   * @param end - One past the last index (default: the line count).
   * @param options - Per-line byte cap.
   * @returns The lines, in order.
   */
  lines?(start?: number, end?: number, options?: SpoolLinesOptions): AsyncIterable<SpoolLine>
}
