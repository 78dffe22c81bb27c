/**
 * `SpooledArtifact`: a tool's output kept in a spool and read in pieces.
 *
 * @module
 */
import { randomUUID } from 'node:crypto'
import type { ToolCall } from '../core/tool_call.js'
import { ToolRegistry } from '../core/tool_registry.js'
import { E_INVALID_OPTIONS, E_NOT_A_SPOOL_READER } from '../exceptions.js'
import { SPOOLED_ARTIFACT_BRAND, isSpooledArtifact, type GrepMatch, type GrepOptions, type SpooledArtifactLike } from '../contracts/artifact.js'
import { utf8Prefix } from '../utils/utf8.js'
import { validator } from '../validation.js'
import { lazyObject } from '../utils/lazy_object.js'
import {
  ArtifactTool,
  clipBytes,
  type ArtifactEntry,
  type ArtifactOutputLimits,
  type ArtifactToolMethod,
} from './artifact_tool.js'
import { isSpoolReader, type SpoolLine, type SpoolReader } from './spool_reader.js'
import { InMemorySpoolStore, type SpoolInput, type SpoolStore } from './stores.js'


/** Lines longer than this are matched by `grep` on their first 1 MiB only. */
export type { GrepMatch, GrepOptions } from '../contracts/artifact.js'

const GREP_LINE_BYTES = 1024 * 1024

/**
 * A constructor of a {@link SpooledArtifact} subclass.
 *
 * @typeParam A - The artifact type it builds.
 */
export type SpooledArtifactConstructor<A extends SpooledArtifact = SpooledArtifact> = new (reader: SpoolReader) => A

/** Options of {@link SpooledArtifact.fromResult}. */
export interface FromResultOptions {
  /**
   * Where to spool the bytes.
   *
   * @defaultValue memory (a private `InMemorySpoolStore`)
   */
  store?: SpoolStore
  /**
   * The id to store them under.
   *
   * @defaultValue a random UUID
   */
  id?: string
}

/** What {@link SpooledArtifact.forgeTools} accepts: calls, or a turn that holds them. */
export type ForgeToolsInput = Iterable<ToolCall> | TurnToolCalls

/** A turn (or anything) that carries the calls it made. */
export interface TurnToolCalls {
  /** The calls made during the turn. */
  turnToolCalls: Iterable<ToolCall>
}

/**
 * A tool's output, kept in a spool (memory or disk) and read in pieces, so a
 * 50 MB log can be paged, searched and summarised without ever being
 * handed to a model, or held in memory, whole.
 *
 * @remarks
 * Line numbers in this class are **1-based** (`grep` hits, `cat(start, end)`),
 * as in editors and `grep -n`; the underlying {@link SpoolReader} is 0-based.
 * Line splitting follows the reader: `\n` and `\r\n` end a line, a final line
 * without a newline counts, a trailing newline adds no empty line.
 *
 * Subclasses add capabilities (JSON, Markdown) and list them in
 * {@link SpooledArtifact.toolMethods}; {@link SpooledArtifact.forgeTools}
 * turns those into ephemeral tools keyed by `callId`.
 *
 * @example
 * ```ts
 * const store = new FileSpoolStore()
 * const log = new SpooledArtifact(await store.write('build', hugeStream))
 * await log.lineCount()            // 1_250_000
 * await log.tail(5)                // last five lines, joined by '\n'
 * await log.grep(/error/i)         // [{ line: 812, text: 'Error: …' }, …]
 * await log.cat(800, 820)          // lines 800..820 inclusive
 * ```
 */
export class SpooledArtifact implements SpooledArtifactLike {
  /**
   * The capabilities forged into tools for artifacts of this class:
   * `artifact_head`, `artifact_tail`, `artifact_cat`, `artifact_grep`.
   * Subclasses extend the list (`[...SpooledArtifact.toolMethods, …]`).
   */
  static readonly toolMethods: readonly ArtifactToolMethod<any>[] = Object.freeze([
    headMethod(),
    tailMethod(),
    catMethod(),
    grepMethod(),
  ])

  readonly #reader: SpoolReader

  /**
   * @param reader - Where the bytes are.
   * @throws {@link toolsmith/core!E_NOT_A_SPOOL_READER} when `reader` lacks the
   *   `line`/`lineCount`/`byteLength`/`readAll` methods.
   */
  constructor(reader: SpoolReader) {
    if (!isSpoolReader(reader)) {
      throw new E_NOT_A_SPOOL_READER('A SpooledArtifact needs a SpoolReader (line, lineCount, byteLength, readAll)')
    }
    this.#reader = reader
  }

  /** Brand for {@link SpooledArtifact.isSpooledArtifact}; realm-safe. */
  get [SPOOLED_ARTIFACT_BRAND](): true {
    return true
  }

  /**
   * Returns true when `value` is a SpooledArtifact (of any subclass, from
   * any copy of this package).
   *
   * @param value - Anything.
   * @returns Whether `value` is a SpooledArtifact.
   */
  static isSpooledArtifact(value: unknown): value is SpooledArtifact {
    return value instanceof SpooledArtifact || isSpooledArtifact(value)
  }

  /**
   * Wrap a handler's result in an artifact of the class this is called on
   * (`SpooledJsonArtifact.fromResult(text)` gives a JSON artifact).
   *
   * @param result - Text, bytes, a stream, or an artifact (returned as is).
   * @param options - Store and id; by default the bytes stay in memory.
   * @returns The artifact.
   *
   * @example
   * ```ts
   * const Artifact = tool.artifactConstructor?.() ?? SpooledArtifact
   * const artifact = await SpooledArtifact.fromResult.call(Artifact, output, { store, id: callId })
   * ```
   */
  static async fromResult<T extends SpooledArtifact>(
    this: SpooledArtifactConstructor<T>,
    result: SpoolInput | SpooledArtifactLike,
    options: FromResultOptions = {},
  ): Promise<T> {
    if (SpooledArtifact.isSpooledArtifact(result)) return result as T
    const store = options.store ?? new InMemorySpoolStore()
    const reader = await store.write(options.id ?? randomUUID(), result as SpoolInput)
    return new this(reader)
  }

  /**
   * Forge the ephemeral tools a model uses to page through the results of
   * earlier calls.
   *
   * @remarks
   * Every call whose `results` is an artifact becomes reachable by its
   * provider id (what the runner names in a spooled preview) or its checksum
   * (the executor's `callId`). Two calls with the same tool and args share a
   * checksum; by checksum the later one is found, by id each. One tool is forged
   * per tool method of the artifact classes present (`artifact_head`,
   * `artifact_tail`, `artifact_cat`, `artifact_grep`, plus `json_*` / `md_*`
   * when such artifacts are present); each takes `callId` plus its own args
   * and returns text bounded by `limits`, with a note saying how to continue
   * whenever it had to stop. No artifact, no tools: the registry is empty.
   *
   * @param calls - `ToolCall`s, or an object with `turnToolCalls`.
   * @param limits - Output bounds per call; see {@link ArtifactOutputLimits}.
   * @returns A new registry of {@link ArtifactTool}s.
   */
  static forgeTools(calls: ForgeToolsInput, limits: Partial<ArtifactOutputLimits> = {}): ToolRegistry {
    const source = isTurn(calls) ? calls.turnToolCalls : calls
    if (source === null || typeof (source as Iterable<ToolCall>)?.[Symbol.iterator] !== 'function') {
      throw new E_INVALID_OPTIONS('forgeTools expects an iterable of ToolCalls or an object with turnToolCalls')
    }
    const entries: ArtifactEntry[] = []
    for (const call of source) {
      if (call && SpooledArtifact.isSpooledArtifact(call.results)) {
        entries.push({ checksum: call.checksum, id: call.id, tool: call.tool, artifact: call.results })
      }
    }
    const methods = new Map<string, ArtifactToolMethod<any>>()
    for (const { artifact } of entries) {
      const ctor = artifact.constructor as { toolMethods?: readonly ArtifactToolMethod<any>[] }
      for (const method of ctor.toolMethods ?? []) if (!methods.has(method.toolName)) methods.set(method.toolName, method)
    }
    const registry = new ToolRegistry()
    for (const method of methods.values()) registry.register(new ArtifactTool({ method, entries, limits }))
    return registry
  }

  /** The spool reader behind this artifact. */
  get reader(): SpoolReader {
    return this.#reader
  }

  /**
   * The size in bytes.
   *
   * @returns The byte length.
   */
  async byteLength(): Promise<number> {
    return this.#reader.byteLength()
  }

  /**
   * The number of lines.
   *
   * @returns The line count.
   */
  async lineCount(): Promise<number> {
    return this.#reader.lineCount()
  }

  /**
   * Everything as one string: loads the whole spool, so prefer the paging
   * methods on large results.
   *
   * @returns The full text.
   */
  async asString(): Promise<string> {
    return this.#reader.readAll()
  }

  /**
   * The first lines.
   *
   * @param n - How many (default 10).
   * @returns Lines joined by `\n`.
   */
  async head(n = 10): Promise<string> {
    return this.cat(1, Math.max(0, Math.floor(n)))
  }

  /**
   * The last lines.
   *
   * @param n - How many (default 10).
   * @returns Lines joined by `\n`.
   */
  async tail(n = 10): Promise<string> {
    const count = await this.lineCount()
    const take = Math.min(count, Math.max(0, Math.floor(n)))
    return take === 0 ? '' : this.cat(count - take + 1, count)
  }

  /**
   * Lines `start` to `end`, both 1-based and inclusive (like `sed -n 'start,endp'`).
   *
   * @param start - First line (default 1).
   * @param end - Last line (default: the last line); clamped to the line count.
   * @returns Lines joined by `\n`; `''` for an empty range.
   */
  async cat(start = 1, end?: number): Promise<string> {
    const texts: string[] = []
    for await (const line of this.scan(start, end)) texts.push(line.text)
    return texts.join('\n')
  }

  /**
   * Lines matching a regular expression, read as a stream (the artifact is
   * never loaded whole).
   *
   * @param re - A RegExp (its `g`/`y` flags are ignored) or a pattern string.
   * @param options - Match cap and per-line byte cap.
   * @returns Hits with 1-based line numbers.
   * @throws {@link toolsmith/core!E_INVALID_OPTIONS} for an invalid pattern string.
   */
  async grep(re: RegExp | string, options: GrepOptions = {}): Promise<GrepMatch[]> {
    const regex = toRegExp(re)
    const max = options.maxMatches ?? Infinity
    const matches: GrepMatch[] = []
    if (max <= 0) return matches
    for await (const line of this.scan(1, undefined, { maxLineBytes: options.maxLineBytes ?? GREP_LINE_BYTES })) {
      if (regex.test(line.text)) {
        matches.push({ line: line.index + 1, text: line.text })
        if (matches.length >= max) break
      }
    }
    return matches
  }

  /**
   * Stream lines `from` to `to` (1-based, inclusive), each cut at
   * `maxLineBytes` when given: the primitive the paging methods and forged
   * tools share.
   *
   * @param from - First line (default 1).
   * @param to - Last line (default: the last line).
   * @param options - `maxLineBytes`: longest prefix of a line to keep.
   * @returns Lines with their 0-based `index`.
   */
  async *scan(from = 1, to?: number, options: { maxLineBytes?: number } = {}): AsyncGenerator<SpoolLine> {
    const count = await this.lineCount()
    const start = Math.max(1, Math.floor(from)) - 1
    const end = Math.min(count, to === undefined ? count : Math.floor(to))
    if (start >= end) return
    const reader = this.#reader
    if (typeof reader.lines === 'function') {
      yield* reader.lines(start, end, options)
      return
    }
    for (let i = start; i < end; i++) {
      const text = (await reader.line(i)) ?? ''
      const byteLength = Buffer.byteLength(text, 'utf8')
      const cap = options.maxLineBytes ?? Infinity
      yield byteLength > cap
        ? { index: i, text: utf8Prefix(text, cap), byteLength, truncated: true }
        : { index: i, text, byteLength, truncated: false }
    }
  }
}

function isTurn(value: unknown): value is TurnToolCalls {
  return typeof value === 'object' && value !== null && 'turnToolCalls' in value
}

function toRegExp(re: RegExp | string): RegExp {
  if (re instanceof RegExp || Object.prototype.toString.call(re) === '[object RegExp]') {
    const source = re as RegExp
    return new RegExp(source.source, source.flags.replace(/[gy]/g, ''))
  }
  try {
    return new RegExp(String(re))
  } catch (cause) {
    throw new E_INVALID_OPTIONS(`Invalid regular expression ${JSON.stringify(re)}: ${(cause as Error).message}`, {
      cause,
    })
  }
}

/**
 * Render lines `from`..`to` (1-based, inclusive) within the limits, with a
 * note giving the range shown and how to continue.
 *
 * @internal
 */
export async function renderRange(
  artifact: SpooledArtifactLike,
  from: number,
  to: number,
  limits: ArtifactOutputLimits,
  keepEnd = false,
): Promise<string> {
  const count = await artifact.lineCount()
  if (count === 0) return '[empty result: 0 lines]'
  from = Math.max(1, from)
  to = Math.min(count, to)
  if (from > to) return `[no lines in range ${from}-${to}; the result has ${count} lines]`
  if (keepEnd && to - from + 1 > limits.maxLines) from = to - limits.maxLines + 1
  const texts: string[] = []
  let bytes = 0
  let cutLines = 0
  let last = from - 1
  let stoppedForBytes = false
  for await (const line of artifact.scan(from, Math.min(to, from + limits.maxLines - 1), {
    maxLineBytes: limits.maxLineBytes,
  })) {
    const text = line.truncated ? `${line.text} […line cut: ${line.byteLength} bytes]` : line.text
    const size = Buffer.byteLength(text, 'utf8') + 1
    // Keep room for the note: the whole answer must fit in maxBytes.
    if (texts.length > 0 && bytes + size > limits.maxBytes - 300) {
      stoppedForBytes = true
      break
    }
    texts.push(text)
    bytes += size
    if (line.truncated) cutLines++
    last = line.index + 1
  }
  const notes = [`lines ${from}-${last} of ${count}`]
  if (last < to) {
    notes.push(
      `stopped at the ${stoppedForBytes ? `${limits.maxBytes}-byte` : `${limits.maxLines}-line`} limit; ` +
        `continue with artifact_cat start=${last + 1}${to < count ? ` end=${to}` : ''}`,
    )
  }
  if (keepEnd && from > 1) notes.push(`earlier lines: artifact_cat start=1 end=${from - 1}`)
  if (cutLines > 0) notes.push(`${cutLines} long line(s) cut at ${limits.maxLineBytes} bytes`)
  return clipBytes(`${texts.join('\n')}\n[${notes.join('; ')}]`, limits.maxBytes)
}

function headMethod(): ArtifactToolMethod {
  return {
    toolName: 'artifact_head',
    description: 'Read the first lines of an earlier tool result.',
    inputSchema: lazyObject(() => validator.object({
      n: validator.number().integer().min(1).default(20).description('How many lines (default 20)'),
    })),
    run: (artifact, args: { n: number }, limits) => renderRange(artifact, 1, args.n, limits),
  }
}

function tailMethod(): ArtifactToolMethod {
  return {
    toolName: 'artifact_tail',
    description: 'Read the last lines of an earlier tool result.',
    inputSchema: lazyObject(() => validator.object({
      n: validator.number().integer().min(1).default(20).description('How many lines (default 20)'),
    })),
    run: async (artifact, args: { n: number }, limits) => {
      const count = await artifact.lineCount()
      return renderRange(artifact, Math.max(1, count - args.n + 1), count, limits, true)
    },
  }
}

function catMethod(): ArtifactToolMethod {
  return {
    toolName: 'artifact_cat',
    description: 'Read lines start..end (1-based, inclusive) of an earlier tool result.',
    inputSchema: lazyObject(() => validator.object({
      start: validator.number().integer().min(1).required().description('First line, 1-based'),
      end: validator.number().integer().min(1).description('Last line, inclusive (default: as far as the limit allows)'),
    })),
    run: (artifact, args: { start: number; end?: number }, limits) =>
      renderRange(artifact, args.start, args.end ?? Number.MAX_SAFE_INTEGER, limits),
  }
}

function grepMethod(): ArtifactToolMethod {
  return {
    toolName: 'artifact_grep',
    description:
      'Find the lines of an earlier tool result that match a JavaScript regular expression; prints "line:text" (1-based).',
    inputSchema: lazyObject(() => validator.object({
      pattern: validator.string().min(1).required().description('A JavaScript regular expression'),
      ignoreCase: validator.boolean().default(false).description('Match case-insensitively'),
    })),
    run: async (artifact, args: { pattern: string; ignoreCase: boolean }, limits) => {
      let regex: RegExp
      try {
        regex = new RegExp(args.pattern, args.ignoreCase ? 'i' : '')
      } catch (cause) {
        throw new E_INVALID_OPTIONS(`Invalid regular expression ${JSON.stringify(args.pattern)}: ${(cause as Error).message}`)
      }
      const shown: string[] = []
      let bytes = 0
      let more = false
      let count = 0
      // Match against (nearly) whole lines, but keep only the displayed prefix of each hit.
      for await (const line of artifact.scan(1, undefined, { maxLineBytes: GREP_LINE_BYTES })) {
        count = line.index + 1
        if (!regex.test(line.text)) continue
        const text = `${line.index + 1}:${utf8Prefix(line.text, limits.maxLineBytes)}`
        const size = Buffer.byteLength(text, 'utf8') + 1
        if (shown.length >= limits.maxLines || (shown.length > 0 && bytes + size > limits.maxBytes - 300)) {
          more = true
          break
        }
        shown.push(text)
        bytes += size
      }
      if (!more) count = await artifact.lineCount()
      if (shown.length === 0) return `[no matches in ${count} lines]`
      const note = more
        ? `[showing the first ${shown.length} matches (up to line ${shown[shown.length - 1]!.split(':')[0]}); ` +
          'more exist — narrow the pattern or read around a line with artifact_cat]'
        : `[${shown.length} match${shown.length === 1 ? '' : 'es'} in ${count} lines]`
      return clipBytes(`${shown.join('\n')}\n${note}`, limits.maxBytes)
    },
  }
}
