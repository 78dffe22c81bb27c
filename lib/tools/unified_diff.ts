/**
 * Applying a unified diff to the text of one file, for `edit`.
 *
 * `parsePatch` and `applyPatch` from `diff` do the work. This module checks
 * what goes into them and what comes out, because on their own they: answer
 * "applied" for a hunk they read without lines; search synchronously as far
 * as a hunk's line number says (line 1e20: forever); pad the file with blank
 * lines for an insertion past its end; apply out-of-order hunks over text
 * already copied; and leave the patch's line endings in the file.
 *
 * @module
 */
import { createRequire } from 'node:module'
import type { StructuredPatch } from 'diff'
import type { E_TOOL_PATCH_FAILED } from '../exceptions.js'
import {
  HUNK_START_MARGIN_LINES,
  emptyHunk,
  hunkDetails,
  hunkHeaders,
  malformedHunk,
  patchFailed,
  refuseFileOperations,
  refuseHunksPastTheEnd,
} from './patch_refusals.js'

export { HUNK_START_MARGIN_LINES, patchFailed }

type Diff = typeof import('diff')
let diff: Diff | undefined

// `diff` is required on the first edit, not when the package is imported:
// importing 'toolsmith' stays close to importing joi alone (bench: import).
// Synchronous on purpose: applying a patch is synchronous work.
function diffLibrary(): Diff {
  diff ??= createRequire(import.meta.url)('diff') as Diff
  return diff
}

function parsePatch(patch: string): StructuredPatch[] {
  return diffLibrary().parsePatch(patch)
}

function applyPatch(...args: Parameters<Diff['applyPatch']>): ReturnType<Diff['applyPatch']> {
  return diffLibrary().applyPatch(...args)
}

/**
 * Line comparisons the search for hunks may make on top of one per line the
 * patch expects to find (what a patch costs when every hunk is where its
 * header says). Enough to scan a 50,000-line file for a misplaced hunk (a
 * 200,000-byte file has ~5,000 lines of code); ~10–20 ms of work, so one call
 * never holds the event loop for long.
 */
export const SEARCH_COMPARISONS = 100_000

/**
 * What the search for hunks cost: line comparisons, each one call of the
 * comparer `applyPatch` is given. A successful or mismatching apply makes at
 * most {@link SEARCH_COMPARISONS} plus one per line the patch expects to
 * find; naming the failing hunk of a mismatch at most
 * {@link SEARCH_COMPARISONS} more; the comparison that finds the budget
 * spent counts too.
 */
export interface SearchUsage {
  /** Line comparisons made so far. */
  comparisons: number
}

/** A patch for one file, parsed and checked to be something `edit` can apply. */
export interface FilePatch {
  /** What `parsePatch` made of it. */
  readonly file: StructuredPatch
  /**
   * Each hunk's `@@ … @@` header as written in the patch, for messages (the
   * parsed numbers lose digits past 2^53). Computed on first use: only a
   * refusal needs them, and finding them splits the whole patch into lines.
   */
  readonly headers: readonly string[]
  /** The patch creates its file (`--- /dev/null` or `new file mode`). */
  readonly createsFile: boolean
  /** The patch as given. */
  readonly text: string
}

class ParsedFilePatch implements FilePatch {
  #headers: readonly string[] | undefined
  constructor(
    readonly file: StructuredPatch,
    readonly createsFile: boolean,
    readonly text: string,
  ) {}
  get headers(): readonly string[] {
    this.#headers ??= hunkHeaders(this.text, this.file.hunks)
    return this.#headers
  }
}

/**
 * Parse a patch and insist on exactly one file, content changes only, and
 * hunks that have lines and come in file order.
 *
 * @param path - The file path as the caller gave it (for messages).
 * @param patch - The unified diff.
 * @returns The parsed patch.
 * @throws {@link toolsmith/core!E_TOOL_PATCH_FAILED} naming what is wrong.
 */
export function parseFilePatch(path: string, patch: string): FilePatch {
  let parsed: StructuredPatch[]
  try {
    parsed = parsePatch(patch)
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    throw patchFailed(path, malformedHunk(patch, message) ?? `it is not a valid unified diff (${message})`, {}, error)
  }
  // First: a rename or mode change with no hunks is not "no hunks" but something edit does not do.
  if (parsed.length === 1) refuseFileOperations(path, parsed[0]!)
  const withContent = parsed.filter((file) => file.hunks.length > 0 || file.isBinary || file.isRename || file.isCopy)
  if (withContent.length === 0) {
    throw patchFailed(path, 'it contains no hunks (a unified diff needs at least one "@@ -a,b +c,d @@" section)')
  }
  if (parsed.length > 1) {
    const names = parsed.map((file) => file.newFileName ?? file.oldFileName ?? '?')
    throw patchFailed(path, `it patches ${parsed.length} files (${names.join(', ')}); edit applies one file's diff per call`, {
      files: names,
    })
  }
  const file = parsed[0]!
  if (file.isBinary) throw patchFailed(path, 'it is a binary patch')
  const parsedPatch = new ParsedFilePatch(file, file.isCreate === true || file.oldFileName === '/dev/null', patch)
  file.hunks.forEach((hunk, index) => {
    if (!hunk.lines.some((line) => !line.startsWith('\\'))) throw emptyHunk(path, patch, parsedPatch.headers, index)
  })
  for (let index = 1; index < file.hunks.length; index++) {
    const previous = file.hunks[index - 1]!
    // An earlier-placed hunk would be applied over text the library has already copied out.
    if (file.hunks[index]!.oldStart < previous.oldStart + previous.oldLines) {
      const headers = parsedPatch.headers
      throw patchFailed(
        path,
        `hunk ${index + 1} of ${file.hunks.length} (${headers[index]}) starts before the end of hunk ${index} (${headers[index - 1]}): ` +
          'hunks must follow each other in file order without overlapping; merge overlapping hunks into one',
        hunkDetails(file, headers, index),
      )
    }
  }
  return parsedPatch
}

/**
 * Apply a parsed patch to a file's text.
 *
 * @remarks
 * Line endings: the file's own ending wins. Context and removed lines match
 * whatever their ending (`a` matches `a\r\n`). Lines the patch leaves in place
 * keep theirs; every added line (and a last line that gains a line break)
 * gets the file's ending: the one it uses, or for a file that mixes CRLF and
 * LF the more frequent (LF on a tie); a file with no line break yet takes the
 * patch's own, counted the same way.
 *
 * @param path - The file path as the caller gave it (for messages).
 * @param source - The file's current text.
 * @param patch - What {@link parseFilePatch} returned.
 * @param usage - When given, the line comparisons this call made are added
 *   to it (specs check the bound with it, without timing anything).
 * @returns The patched text.
 * @throws {@link toolsmith/core!E_TOOL_PATCH_FAILED} for a hunk outside the file, one that
 *   does not match (named), a search over {@link SEARCH_COMPARISONS}, or a
 *   creation patch for a file that has content.
 */
export function applyFilePatch(path: string, source: string, patch: FilePatch, usage?: SearchUsage): string {
  const { file } = patch
  if (patch.createsFile && source !== '') {
    throw patchFailed(
      path,
      `it creates the file (its old side is /dev/null), but ${JSON.stringify(path)} already has content; ` +
        'use write to replace the whole file, or make the diff against its current content',
    )
  }
  const breaks = lineBreaks(source)
  const fileLines = breaks.lf + breaks.crlf + (source === '' || source.endsWith('\n') ? 0 : 1)
  refuseHunksPastTheEnd(path, file, () => patch.headers, fileLines)
  const eol = lineEndingOf(breaks, file)
  const allowed = SEARCH_COMPARISONS + file.hunks.reduce((sum, hunk) => sum + hunk.oldLines, 0)
  const budget = { left: allowed }
  const application = eol === '\n' && !patch.text.includes('\r') ? plainApplication(source, file) : markedApplication(source, patch, eol)
  let patched: string | false
  try {
    patched = applyPatch(application.text, application.patch, { autoConvertLineEndings: false, compareLine: application.comparer(budget) })
  } catch (error) {
    if (error instanceof SearchLimitReached) throw searchLimit(path, file)
    throw error
  } finally {
    if (usage !== undefined) usage.comparisons += allowed - budget.left
  }
  if (patched === false) throw mismatch(path, application, patch, usage)
  if (countLines(patched) !== fileLines + lineCountChange(file)) {
    // Possible only for an insertion-only hunk (nothing to match) that an
    // earlier hunk's offset pushed past the end: the library pads with blank lines.
    throw patchFailed(
      path,
      `its hunks do not fit the file: an earlier hunk matched away from the line its header names, which moved an insertion-only hunk past the end of the file (${fileLines} lines); ` +
        'give every hunk the line numbers of the current file',
      { fileLines },
    )
  }
  return application.restore(patched)
}

/**
 * What goes into `applyPatch` for one file and patch, and how its output
 * becomes the file's new text.
 */
interface Application {
  /** The file's text as the library sees it. */
  readonly text: string
  /** The patch as the library sees it. */
  readonly patch: StructuredPatch
  /** The line comparer, charging every comparison to `budget`. */
  comparer(budget: { left: number }): LineComparer
  /** The library's output → the file's new text. */
  restore(patched: string): string
}

type LineComparer = (lineNumber: number, line: string | undefined, operation: string, content: string) => boolean

/**
 * The common case, handed to the library as it is: the file's ending is LF
 * and the patch has no CR anywhere. The library joins every line it outputs
 * with "\n", which is then exactly the ending added lines (and a last line
 * that gains a break) must get, and lines the patch leaves in place keep
 * theirs; so nothing needs marking, the parsed patch is not copied, and the
 * text stays one byte per character (a marker outside Latin-1 would turn the
 * whole 150 KB into a two-byte string, slower for every step after it).
 */
function plainApplication(source: string, file: StructuredPatch): Application {
  return { text: source, patch: file, comparer: plainComparer, restore: (patched) => patched }
}

/**
 * Every other case: the file's ending is CRLF, or the patch carries CRs that
 * must not reach the file. Added lines are marked so that their "\n" from the
 * library can be told apart from the file's own LF lines and replaced by
 * `eol`; every patch line loses its CR.
 */
function markedApplication(source: string, patch: FilePatch, eol: '\n' | '\r\n'): Application {
  const marker = unusedMarker(source, patch.text)
  return {
    // The file's unterminated last line is marked too: if the patch adds lines
    // after it, the library joins it to them with a bare "\n".
    text: source === '' || source.endsWith('\n') ? source : source + marker,
    patch: withMarkedLines(patch.file, marker),
    comparer: (budget) => markedComparer(marker, budget),
    restore: (patched) => {
      const restored = patched.split(`${marker}\n`).join(eol)
      return restored.endsWith(marker) ? restored.slice(0, -marker.length) : restored
    },
  }
}

/** Added minus removed lines: how many lines the patch adds to the file. */
function lineCountChange(file: StructuredPatch): number {
  let change = 0
  for (const hunk of file.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) change++
      else if (line.startsWith('-')) change--
    }
  }
  return change
}

/** Renames, copies, deletions and mode changes are not content: applying only the hunks would answer "ok" for less. */

/** Each hunk's header as written; parsePatch starts a hunk at every line that begins with "@@" and a blank. */

/** Lines in `text`: line breaks, plus one for a last line without one. */
function countLines(text: string): number {
  if (text === '') return 0
  let breaks = 0
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) breaks++
  return text.endsWith('\n') ? breaks : breaks + 1
}

/** The line breaks of `source`, by kind: one pass gives both the line count and the ending. */
function lineBreaks(source: string): { lf: number; crlf: number } {
  let lf = 0
  // Most files have no CR at all: then every break is LF, counted without looking behind it.
  if (!source.includes('\r')) {
    for (let at = source.indexOf('\n'); at !== -1; at = source.indexOf('\n', at + 1)) lf++
    return { lf, crlf: 0 }
  }
  let crlf = 0
  for (let at = source.indexOf('\n'); at !== -1; at = source.indexOf('\n', at + 1)) {
    if (at > 0 && source.charCodeAt(at - 1) === 13) crlf++
    else lf++
  }
  return { lf, crlf }
}

/** The ending added lines get: the file's (its majority), or for a file without line breaks the patch's. */
function lineEndingOf(breaks: { lf: number; crlf: number }, file: StructuredPatch): '\n' | '\r\n' {
  let { crlf, lf } = breaks
  if (crlf + lf === 0) {
    for (const hunk of file.hunks) {
      hunk.lines.forEach((line, index) => {
        if (line.startsWith('\\') || hunk.lines[index + 1]?.startsWith('\\')) return
        if (line.endsWith('\r')) crlf++
        else lf++
      })
    }
  }
  return crlf > lf ? '\r\n' : '\n'
}

/**
 * A suffix that occurs in neither text: a run of U+E000 (private use) one
 * longer than any run already there. It marks lines whose line break must
 * become the file's ending, which after `applyPatch` joined everything with
 * "\n" could not be told apart from the file's own LF lines.
 */
function unusedMarker(...texts: string[]): string {
  let longest = 0
  for (const text of texts) {
    if (!text.includes(MARK)) continue
    for (const run of text.matchAll(/\uE000+/g)) longest = Math.max(longest, run[0].length)
  }
  return MARK.repeat(longest + 1)
}

const MARK = '\uE000'
const MARK_CODE = 0xe000

/** The patch with every line's CR dropped and every added line marked. */
function withMarkedLines(file: StructuredPatch, marker: string): StructuredPatch {
  return {
    ...file,
    hunks: file.hunks.map((hunk) => ({
      ...hunk,
      lines: hunk.lines.map((line) => {
        if (line.startsWith('\\')) return line
        const bare = line.endsWith('\r') ? line.slice(0, -1) : line
        return line.startsWith('+') ? bare + marker : bare
      }),
    })),
  }
}

class SearchLimitReached extends Error {}

/**
 * Line equality ignoring the file line's CR and marker, charged to `budget`:
 * `applyPatch` calls it for every line it tries at every position it tries,
 * so counting the calls bounds the whole search.
 */
function markedComparer(marker: string, budget: { left: number }): LineComparer {
  return (_lineNumber, line, _operation, content) => {
    if (--budget.left < 0) throw new SearchLimitReached()
    if (line === undefined) return false
    let end = line.length
    // The char code test first: endsWith on every line of every try is measurable.
    if (end > 0 && line.charCodeAt(end - 1) === MARK_CODE && line.endsWith(marker)) end -= marker.length
    if (end > 0 && line.charCodeAt(end - 1) === 13) end--
    return end === content.length && line.startsWith(content)
  }
}

/**
 * {@link markedComparer} for a {@link plainApplication}: nothing is marked,
 * and the patch has no CR, so a line matches as it is or with one CR more.
 */
function plainComparer(budget: { left: number }): LineComparer {
  return (_lineNumber, line, _operation, content) => {
    if (--budget.left < 0) throw new SearchLimitReached()
    if (line === content) return true
    return line !== undefined && line.length === content.length + 1 && line.charCodeAt(content.length) === 13 && line.startsWith(content)
  }
}

function searchLimit(path: string, file: StructuredPatch): E_TOOL_PATCH_FAILED {
  return patchFailed(
    path,
    `locating its ${file.hunks.length === 1 ? 'hunk' : `${file.hunks.length} hunks`} took more than ${SEARCH_COMPARISONS} line comparisons (the search limit): ` +
      'the context lines repeat all through the file; give each hunk the line numbers of the current file and fewer, more distinctive context lines',
    { searchLimit: SEARCH_COMPARISONS },
  )
}

/** The refusal for a patch that does not apply, naming the first hunk that does not match. */
function mismatch(path: string, application: Application, patch: FilePatch, usage: SearchUsage | undefined): E_TOOL_PATCH_FAILED {
  const { file } = patch
  const index = firstFailingHunk(application, usage)
  if (index === undefined) {
    return patchFailed(
      path,
      `it does not match the current content (the search limit was reached before the failing one of its ${file.hunks.length} hunks was found); ` +
        'read the file again and rebuild the patch from its current content',
    )
  }
  const hunk = file.hunks[index]!
  const expected = hunk.lines
    .filter((line) => !line.startsWith('+') && !line.startsWith('\\'))
    .map((line) => line.slice(1).replace(/\r$/, ''))
  const headers = patch.headers
  return patchFailed(
    path,
    `hunk ${index + 1} of ${file.hunks.length} (${headers[index]}) does not match the current content: ` +
      `the lines it expects (${JSON.stringify(expected.slice(0, 6).join('\n'))}${expected.length > 6 ? '…' : ''}) ` +
      'were not found; read the file again and rebuild the patch from its current content',
    hunkDetails(file, headers, index),
  )
}

/**
 * The first hunk that does not apply: whether the first k hunks apply only
 * changes once as k grows, so a binary search over prefixes finds it. One
 * search budget for all the attempts; `undefined` when it runs out.
 */
function firstFailingHunk({ text, patch, comparer }: Application, usage: SearchUsage | undefined): number | undefined {
  const budget = { left: SEARCH_COMPARISONS }
  const options = { autoConvertLineEndings: false, compareLine: comparer(budget) }
  let low = 0
  let high = patch.hunks.length - 1
  try {
    while (low < high) {
      const middle = (low + high) >> 1
      const prefix = { ...patch, hunks: patch.hunks.slice(0, middle + 1) }
      if (applyPatch(text, prefix, options) === false) high = middle
      else low = middle + 1
    }
  } catch (error) {
    if (error instanceof SearchLimitReached) return undefined
    throw error
  } finally {
    if (usage !== undefined) usage.comparisons += SEARCH_COMPARISONS - budget.left
  }
  return low
}
