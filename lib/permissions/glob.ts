/**
 * Path globs for permission rules, matched on root-relative paths.
 *
 * @remarks
 * Written here rather than taken from `node:path`'s `matchesGlob` (Node
 * 20.17+): that one is experimental (it prints a warning on first use) and
 * its `**` skips dot-files, so a deny rule `secrets/**` would miss
 * `secrets/.key`. A policy cannot afford either.
 *
 * @module
 */
import { E_INVALID_POLICY } from '../exceptions.js'

/** Longest pattern accepted, in characters (a pattern is configuration, not data). */
const MAX_PATTERN_LENGTH = 1_024
/** Most alternatives `{a,b}` may expand a pattern into. */
const MAX_ALTERNATIVES = 256

/**
 * A compiled path glob.
 *
 * @remarks
 * Syntax: `*` any characters but `/` (dot-files included), `**` any number of
 * whole path components, `?` one character, `[abc]` / `[a-z]` / `[!abc]`
 * classes, `{a,b}` alternatives, `\\` escapes. Semantics follow
 * `.gitignore`: a pattern without a `/` (other than a trailing one) matches
 * a name at any depth (`.env*` matches `config/.env.local`); a pattern with
 * one is anchored at the root (`src/**`, `/build`); and a pattern that
 * matches a directory matches everything below it (`secrets` covers
 * `secrets/a/b`).
 */
export class PathGlob {
  /** The pattern as written. */
  readonly pattern: string
  readonly #regex: RegExp
  /** Each alternative as component matchers (`null` for `**`), for {@link PathGlob.couldMatchBelow}. */
  readonly #alternatives: readonly (readonly (RegExp | null)[])[]
  /** Each alternative's components as written (for the literal-prefix shortcut). */
  readonly #sources: readonly (readonly string[])[]
  /**
   * Text every match must contain, one per alternative (its longest literal
   * run, `/` separators included), or `undefined` when some alternative has
   * none. A path that contains none of them is refused with `includes`,
   * without running the regular expression: an unanchored pattern such as
   * `*.pem` is `(?:[^/]+/)*[^/]*\.pem/`, which V8 retries from every
   * component, and most rules do not match most calls.
   */
  readonly #required: readonly string[] | undefined

  /**
   * @param pattern - The glob.
   * @throws {@link toolsmith/core!E_INVALID_POLICY} for an empty, over-long or malformed pattern.
   */
  constructor(pattern: string) {
    if (typeof pattern !== 'string' || pattern.trim() === '') throw new E_INVALID_POLICY('a path glob must be a non-empty string')
    if (pattern.length > MAX_PATTERN_LENGTH) throw new E_INVALID_POLICY(`a path glob is longer than ${MAX_PATTERN_LENGTH} characters`)
    if (pattern.includes('\0')) throw new E_INVALID_POLICY('a path glob contains a NUL byte')
    this.pattern = pattern
    const alternatives = expandBraces(pattern).map(componentsOf)
    this.#sources = alternatives
    this.#alternatives = alternatives.map((parts) => parts.map((part) => (part === '**' ? null : new RegExp(`^${componentSource(part, pattern)}$`, 's'))))
    // Matched against `relative + "/"`, each component ending in "/": a match
    // of any prefix ends on a component boundary, and everything below a
    // match matches too.
    const sources = alternatives.map((parts) => parts.map((part) => (part === '**' ? '(?:[^/]+/)*' : `${componentSource(part, pattern)}/`)).join(''))
    this.#regex = new RegExp(`^(?:${sources.join('|')})`, 's')
    const required = alternatives.map(longestLiteral)
    this.#required = required.every((text) => text !== '') ? required : undefined
  }

  /**
   * Whether a root-relative path (`src/a.ts`, `.` for the root) matches, or
   * lies below a match.
   *
   * @param relative - A normalised root-relative path with `/` separators.
   * @returns Whether it matches.
   */
  matches(relative: string): boolean {
    return this.matchesSubject(PathGlob.subjectOf(relative))
  }

  /**
   * The text `matchesSubject` takes for a root-relative path: worked out
   * once per call when many globs test the same path.
   *
   * @param relative - A normalised root-relative path with `/` separators (`.` for the root).
   * @returns `relative` followed by `/` (`''` for the root).
   * @internal
   */
  static subjectOf(relative: string): string {
    return relative === '.' || relative === '' ? '' : `${relative}/`
  }

  /**
   * The texts of which every match contains at least one (one per
   * alternative), or `undefined` when the glob has an alternative without
   * literal text (`**`, `*`): a policy screens a path against all its
   * globs' texts at once.
   *
   * @internal
   */
  get requiredText(): readonly string[] | undefined {
    return this.#required
  }

  /**
   * `matches(relative)` on `PathGlob.subjectOf(relative)`.
   *
   * @param subject - `PathGlob.subjectOf(relative)`.
   * @returns Whether the path matches, or lies below a match.
   * @internal
   */
  matchesSubject(subject: string): boolean {
    const required = this.#required
    if (required !== undefined) {
      let present = false
      for (let i = 0; i < required.length; i++) {
        if (subject.includes(required[i]!)) {
          present = true
          break
        }
      }
      if (!present) return false
    }
    return this.#regex.test(subject)
  }

  /**
   * Whether something below the directory `relative` could match: a rule
   * about `secrets/**` concerns a search of `.` too.
   *
   * @param relative - A root-relative directory (`.` for the root).
   * @param skipsHidden - The search skips hidden names (ripgrep's default), so a
   *   pattern that can only match below a dot-component cannot be reached.
   * @returns `true` when a path below could match, `false` when none can,
   *   or the root-relative paths one of which must exist for a match
   *   (a pattern's literal components: `secrets/**` below `.` needs `secrets`).
   */
  couldMatchBelow(relative: string, skipsHidden: boolean): boolean | string[] {
    const dir = relative === '.' || relative === '' ? [] : relative.split('/')
    const needs: string[] = []
    for (let a = 0; a < this.#alternatives.length; a++) {
      const result = below(this.#alternatives[a]!, this.#sources[a]!, dir, 0, 0, skipsHidden)
      if (result === true) return true
      if (typeof result === 'string') needs.push(result)
    }
    return needs.length > 0 ? needs : false
  }
}

/**
 * Match `dir` against the pattern's components from `i`/`j`: `true` when a
 * path below `dir` could match, `false` when none can, or a path that must
 * exist (`dir` plus the pattern's next literal component) for one to.
 */
function below(
  parts: readonly (RegExp | null)[],
  sources: readonly string[],
  dir: readonly string[],
  i: number,
  j: number,
  skipsHidden: boolean,
): boolean | string {
  if (i === parts.length) return true // `dir` is at or below a match: all of it matches
  if (j === dir.length) {
    const rest = sources.slice(i)
    if (skipsHidden && rest.some((part) => part.startsWith('.') && part !== '**')) return false
    const next = sources[i]!
    if (next !== '**' && isLiteral(next)) return [...dir, unescapeGlob(next)].join('/')
    return true
  }
  const part = parts[i]
  if (part === null) {
    const skip = below(parts, sources, dir, i + 1, j, skipsHidden)
    if (skip === true) return true
    const consume = below(parts, sources, dir, i, j + 1, skipsHidden)
    if (consume === true) return true
    return typeof skip === 'string' ? skip : consume
  }
  if (!part!.test(dir[j]!)) return false
  return below(parts, sources, dir, i + 1, j + 1, skipsHidden)
}

/**
 * The longest run of literal text in an alternative's components as the
 * regular expression matches them (each component followed by `/`); `''`
 * when it has none. `*`, `?`, a class and `**` end a run; an escaped
 * character is literal.
 */
function longestLiteral(parts: readonly string[]): string {
  let best = ''
  let run = ''
  const end = (): void => {
    if (run.length > best.length) best = run
    run = ''
  }
  for (const part of parts) {
    if (part === '**') {
      end()
      continue
    }
    for (let i = 0; i < part.length; i++) {
      const ch = part[i]!
      if (ch === '\\' && i + 1 < part.length) run += part[++i]
      else if (ch === '*' || ch === '?') end()
      else if (ch === '[') {
        end()
        i = classEnd(part, i)
      } else run += ch
    }
    run += '/'
  }
  end()
  return best
}

function isLiteral(part: string): boolean {
  return !/[*?[{]/.test(part.replace(/\\./g, ''))
}

function unescapeGlob(part: string): string {
  return part.replace(/\\(.)/g, '$1')
}

/** Split an alternative into components: `./` and a leading `/` dropped, an unanchored name prefixed with `**`. */
function componentsOf(pattern: string): string[] {
  let text = pattern.replace(/^(\.\/)+/, '')
  const anchored = text.startsWith('/') || /[^\\]\/./.test(text.replace(/\/+$/, ''))
  text = text.replace(/^\/+/, '').replace(/\/+$/, '')
  const parts = text.split('/').filter((part) => part !== '' && part !== '.')
  if (parts.length === 0) return ['**']
  if (parts.includes('..')) throw new E_INVALID_POLICY(`path glob ${JSON.stringify(pattern)} contains "..": rules match resolved paths, which never do`)
  // Consecutive `**` mean the same as one.
  const collapsed = parts.filter((part, i) => !(part === '**' && parts[i - 1] === '**'))
  return anchored ? collapsed : ['**', ...collapsed]
}

/** A regular-expression source for one component (`*.ts`, `[a-z]?`, `**` inside a name acts as `*`). */
function componentSource(part: string, pattern: string): string {
  let out = ''
  for (let i = 0; i < part.length; i++) {
    const ch = part[i]!
    if (ch === '\\' && i + 1 < part.length) {
      out += escapeRegex(part[++i]!)
    } else if (ch === '*') {
      while (part[i + 1] === '*') i++
      out += '[^/]*'
    } else if (ch === '?') {
      out += '[^/]'
    } else if (ch === '[') {
      const end = classEnd(part, i)
      if (end === -1) throw new E_INVALID_POLICY(`path glob ${JSON.stringify(pattern)} has an unclosed "["`)
      let body = part.slice(i + 1, end)
      const negated = body.startsWith('!') || body.startsWith('^')
      if (negated) body = body.slice(1)
      out += `[${negated ? '^/' : ''}${body.replace(/\\/g, '\\\\').replace(/\]/g, '\\]').replace(/\\\\(.)/g, '\\$1')}]`
      i = end
    } else {
      out += escapeRegex(ch)
    }
  }
  return out
}

function classEnd(part: string, start: number): number {
  let i = start + 1
  if (part[i] === '!' || part[i] === '^') i++
  if (part[i] === ']') i++
  for (; i < part.length; i++) {
    if (part[i] === '\\') i++
    else if (part[i] === ']') return i
  }
  return -1
}

function escapeRegex(ch: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(ch) ? `\\${ch}` : ch
}

/** `{a,b}c` → `ac`, `bc` (nested braces too); a brace without a comma is literal. */
function expandBraces(pattern: string): string[] {
  const open = findUnescaped(pattern, '{', 0)
  if (open === -1) return [pattern]
  let depth = 0
  const commas: number[] = []
  let close = -1
  for (let i = open; i < pattern.length; i++) {
    const ch = pattern[i]
    if (ch === '\\') {
      i++
      continue
    }
    if (ch === '{') depth++
    else if (ch === '}' && --depth === 0) {
      close = i
      break
    } else if (ch === ',' && depth === 1) commas.push(i)
  }
  if (close === -1) throw new E_INVALID_POLICY(`path glob ${JSON.stringify(pattern)} has an unclosed "{"`)
  const head = pattern.slice(0, open)
  const tail = pattern.slice(close + 1)
  if (commas.length === 0) {
    return expandBraces(tail).map((rest) => `${head}\\{${pattern.slice(open + 1, close)}\\}${rest}`)
  }
  const bounds = [open, ...commas, close]
  const options = bounds.slice(0, -1).map((start, k) => pattern.slice(start + 1, bounds[k + 1]))
  const expanded = options.flatMap((option) => expandBraces(`${head}${option}${tail}`))
  if (expanded.length > MAX_ALTERNATIVES) throw new E_INVALID_POLICY(`path glob ${JSON.stringify(pattern)} expands to more than ${MAX_ALTERNATIVES} alternatives`)
  return expanded
}

function findUnescaped(text: string, ch: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    if (text[i] === '\\') i++
    else if (text[i] === ch) return i
  }
  return -1
}
