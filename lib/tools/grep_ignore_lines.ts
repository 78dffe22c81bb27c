/**
 * Gitignore lines as ripgrep reads them: one line parsed the way rg's
 * `GitignoreBuilder::add_line` does, relocated below the directory of its
 * file, the lines of a file decoded as rg decodes them, and the weak
 * `Pruning` that lets the scan skip directories rg will certainly skip.
 *
 * @module
 */

/** Rust's `char::is_whitespace` (Unicode White_Space), which rg's `trim_end` uses. */
const TRAILING_WHITESPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/u
/** Characters with a meaning in a glob (or at the start of a gitignore line). */
const GLOB_SPECIAL = /[\\*?[\]{}!#]/g
/** A glob body that matches exactly one literal name or path. */
const LITERAL_BODY = /^[^\\*?[\]{}]+$/

/** One gitignore line as rg's `GitignoreBuilder::add_line` reads it. */
export interface ParsedLine {
  /** The trimmed line, as rg would see it alone. */
  trimmed: string
  /** `!pattern`: re-includes. */
  whitelist: boolean
  /** Matched against the path relative to the ignore file's directory (a leading or inner `/`). */
  anchored: boolean
  /** A trailing `/`: directories only. */
  onlyDir: boolean
  /** The glob without `!`, leading `/`, trailing `/`. */
  body: string
}

/**
 * Parse one line exactly as ripgrep 15 does (`ignore::gitignore::add_line`).
 *
 * @returns `undefined` for comments, blank lines and empty globs (which match nothing).
 */
export function parseLine(raw: string): ParsedLine | undefined {
  if (raw.startsWith('#')) return undefined
  const trimmed = raw.endsWith('\\ ') ? raw : raw.replace(TRAILING_WHITESPACE, '')
  if (trimmed === '') return undefined
  let line = trimmed
  let whitelist = false
  let anchored = false
  if (line.startsWith('\\!') || line.startsWith('\\#')) {
    line = line.slice(1)
  } else {
    if (line.startsWith('!')) {
      whitelist = true
      line = line.slice(1)
    }
    if (line.startsWith('/')) {
      anchored = true
      line = line.slice(1)
    }
  }
  let onlyDir = false
  if (line.endsWith('/')) {
    onlyDir = true
    line = line.slice(0, -1)
    if (line.endsWith('\\')) line = line.slice(0, -1)
  }
  if (line === '') return undefined
  return { trimmed, whitelist, anchored: anchored || line.includes('/'), onlyDir, body: line }
}

/** A directory path as a glob matching only itself: every special character escaped. */
function escapeGlob(text: string): string {
  return text.replace(GLOB_SPECIAL, (c) => `\\${c}`)
}

/**
 * The line for the single rules file: the same glob, applying below `dir`
 * (root-relative, `''` for the root) only.
 */
export function relocate(line: ParsedLine, dir: string): string {
  if (dir === '') return line.trimmed
  // rg prefixes an unanchored glob with `**/` (unless it has one) and matches it relative to the file's directory.
  const body = line.anchored || line.body === '**' || line.body.startsWith('**/') ? line.body : `**/${line.body}`
  return `${line.whitelist ? '!' : ''}${escapeGlob(dir)}/${body}${line.onlyDir ? '/' : ''}`
}

/** The lines of an ignore file as rg's `BufRead::lines` yields them, stopping at the first that is not UTF-8. */
export function fileLines(content: Buffer): string[] {
  // ignoreBOM: decode() would otherwise drop a BOM at the start of every line; rg drops only the file's.
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
  const lines: string[] = []
  let start = 0
  while (start < content.length) {
    let end = content.indexOf(0x0a, start)
    if (end === -1) end = content.length
    let stop = end
    if (stop > start && content[stop - 1] === 0x0d) stop--
    let line: string
    try {
      line = decoder.decode(content.subarray(start, stop))
    } catch {
      break
    }
    lines.push(lines.length === 0 ? line.replace(/^\uFEFF/, '') : line)
    start = end + 1
  }
  return lines
}

/**
 * What the ignore files seen so far on the way down say about a directory,
 * used only to skip walking a directory rg will certainly skip. It is
 * deliberately weak (literal names and paths, and nothing at all once a `!`
 * rule is in scope): walking a directory rg skips costs time, never accuracy.
 */
export class Pruning {
  readonly #names = new Set<string>()
  readonly #paths = new Set<string>()
  #whitelist = false

  constructor(readonly parent?: Pruning) {
    this.#whitelist = parent === undefined ? false : parent.#whitelist
  }

  add(line: ParsedLine, dir: string): void {
    if (line.whitelist) this.#whitelist = true
    else if (LITERAL_BODY.test(line.body)) {
      if (line.anchored) this.#paths.add(dir === '' ? line.body : `${dir}/${line.body}`)
      else this.#names.add(line.body)
    }
  }

  /** Whether rg is sure to skip directory `name` at root-relative `rel`. */
  skips(name: string, rel: string): boolean {
    if (this.#whitelist) return false
    for (let scope: Pruning | undefined = this; scope !== undefined; scope = scope.parent) {
      if (scope.#names.has(name) || scope.#paths.has(rel)) return true
    }
    return false
  }
}
