/**
 * The artifact contract: what a spooled tool result looks like to code that
 * does not build one, its brand, and the realm-safe guard.
 *
 * @remarks
 * Core types tool results with it and artifacts implement it; neither imports
 * the other. The brand symbol is declared here once, for every layer.
 *
 * @module
 */
import { hasBrand } from '../utils/guards.js'
import type { SpoolLine, SpoolReader } from './spool_reader.js'

/**
 * The brand every `SpooledArtifact` carries (a `Symbol.for` key, so copies of
 * the package and other realms agree on it).
 */
export const SPOOLED_ARTIFACT_BRAND: unique symbol = Symbol.for('toolsmith.spooled_artifact') as never

/** One `grep` hit. */
export interface GrepMatch {
  /** 1-based line number. */
  line: number
  /** The line's text (its first `maxLineBytes` when the line is longer). */
  text: string
}

/** Options of {@link SpooledArtifactLike.grep}. */
export interface GrepOptions {
  /**
   * Stop after this many matches.
   *
   * @defaultValue Infinity
   */
  maxMatches?: number
  /**
   * Bytes of each line to match against and return.
   *
   * @defaultValue 1 MiB
   */
  maxLineBytes?: number
}

/**
 * A tool's output held in a spool and read in pieces: the methods every
 * `SpooledArtifact` (and subclass) offers. Line numbers are 1-based.
 */
export interface SpooledArtifactLike {
  /** The brand; see {@link isSpooledArtifact}. */
  readonly [SPOOLED_ARTIFACT_BRAND]: true
  /** The spool reader behind the artifact. */
  readonly reader: SpoolReader
  /** The size in bytes. */
  byteLength(): Promise<number>
  /** The number of lines. */
  lineCount(): Promise<number>
  /** Everything as one string (loads the whole spool). */
  asString(): Promise<string>
  /** The first `n` lines joined by `\n`. */
  head(n?: number): Promise<string>
  /** The last `n` lines joined by `\n`. */
  tail(n?: number): Promise<string>
  /** Lines `start..end` (1-based, inclusive) joined by `\n`. */
  cat(start?: number, end?: number): Promise<string>
  /** Lines matching `re`. */
  grep(re: RegExp | string, options?: GrepOptions): Promise<GrepMatch[]>
  /** Lines `from..to` (1-based), one at a time. */
  scan(from?: number, to?: number, options?: { maxLineBytes?: number }): AsyncGenerator<SpoolLine>
}

/**
 * A constructor of an artifact class: what a tool's `artifactConstructor`
 * thunk returns.
 *
 * @typeParam A - The artifact type it builds.
 */
export type ArtifactClass<A extends SpooledArtifactLike = SpooledArtifactLike> = new (reader: SpoolReader) => A

/**
 * Whether `value` is a spooled artifact, of any subclass, from any copy of
 * this package or realm.
 *
 * @param value - Anything.
 * @returns Whether `value` carries the artifact brand.
 */
export function isSpooledArtifact(value: unknown): value is SpooledArtifactLike {
  return hasBrand(value, SPOOLED_ARTIFACT_BRAND)
}
