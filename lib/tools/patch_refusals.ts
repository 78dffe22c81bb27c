/**
 * The refusals of `edit`'s patch checks: every way a unified diff can be
 * something `edit` will not apply (no lines in a hunk, a file operation, a
 * hunk far past the end, a malformed header), each a `TOOL_PATCH_FAILED`
 * that says what to fix. `unified_diff.ts` runs the checks.
 *
 * @module
 */
import type { StructuredPatch, StructuredPatchHunk } from 'diff'
import { E_TOOL_PATCH_FAILED } from '../exceptions.js'

/**
 * How far past the file's last line a hunk that has lines to match (context
 * or removed lines) may say it starts. Its header line number is only where
 * the search begins, so a slightly wrong one is harmless; one far past the
 * end means the patch was made for another file.
 */
export const HUNK_START_MARGIN_LINES = 1000

/**
 * The refusal every patch check throws (here and in `unified_diff.ts`).
 *
 * @param path - The file path as the caller gave it.
 * @param message - Why, written for a model to act on.
 * @param extra - More `details`.
 * @param cause - The underlying error, if any.
 * @returns The exception, to throw.
 */
export function patchFailed(path: string, message: string, extra: Record<string, unknown> = {}, cause?: unknown): E_TOOL_PATCH_FAILED {
  return new E_TOOL_PATCH_FAILED(`Patch not applied to ${JSON.stringify(path)}: ${message}; the file is unchanged`, {
    ...(cause === undefined ? {} : { cause }),
    details: { path, ...extra },
  })
}

export function refuseFileOperations(path: string, file: StructuredPatch): void {
  const action = file.isRename
    ? `renames ${file.oldFileName ?? '?'} to ${file.newFileName ?? '?'}`
    : file.isCopy
      ? `copies ${file.oldFileName ?? '?'} to ${file.newFileName ?? '?'}`
      : file.isDelete || file.newFileName === '/dev/null'
        ? 'deletes the file'
        : !file.isCreate && file.oldMode !== undefined && file.newMode !== undefined && file.oldMode !== file.newMode
          ? `changes the file mode from ${file.oldMode} to ${file.newMode}`
          : undefined
  if (action !== undefined) {
    throw patchFailed(
      path,
      `it ${action}, which edit does not do: edit changes the content of the one file named by "path", in place; ` +
        'send only the content hunks (and use bash for mv, cp, rm or chmod)',
    )
  }
}

export function hunkHeaders(patch: string, hunks: readonly StructuredPatchHunk[]): string[] {
  const written = patch.split('\n').filter((line) => /^@@\s/.test(line))
  return hunks.map((hunk, index) => {
    const line = written.length === hunks.length ? written[index]! : ''
    const header = /^@@ [^\r\n\u2028\u2029]*? @@/.exec(line)?.[0]
    if (header !== undefined && header.length <= 120) return header
    return `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`
  })
}

export function hunkDetails(file: StructuredPatch, headers: readonly string[], index: number): Record<string, unknown> {
  return { hunk: index + 1, hunks: file.hunks.length, header: headers[index] }
}

export function emptyHunk(path: string, patch: string, headers: readonly string[], index: number): E_TOOL_PATCH_FAILED {
  const hunks = headers.length
  const headerLine = patch.split('\n').filter((line) => /^@@\s/.test(line))[index] ?? ''
  const heading = headerLine.slice(headers[index]!.length).trim()
  const why = /\r(?!\n)/.test(patch)
    ? ' (the patch breaks its lines with a bare carriage return "\\r"; a unified diff ends each line with "\\n")'
    : /[\u2028\u2029]/.test(patch)
      ? ' (the patch breaks its lines with U+2028/U+2029, which are not line breaks in a unified diff; end each line with "\\n")'
      : heading !== ''
        ? ` (the text after the second "@@" on the header line, ${JSON.stringify(heading.slice(0, 60))}, is a section heading, not hunk content)`
        : !patch.includes('\n')
          ? ' (the patch is a single line)'
          : ''
  return patchFailed(
    path,
    `hunk ${index + 1} of ${hunks} (${headers[index]}) has no lines${why}: put each line of a hunk on a line of its own after the @@ header, ` +
      'starting with " " (unchanged), "-" (removed) or "+" (added)',
    { hunk: index + 1, hunks, header: headers[index] },
  )
}

/**
 * The library starts its search at the hunk's line and walks back one line at
 * a time, synchronously, and applies an insertion-only hunk wherever it says:
 * refuse positions far past the end before it is called.
 */
export function refuseHunksPastTheEnd(path: string, file: StructuredPatch, headers: () => readonly string[], fileLines: number): void {
  file.hunks.forEach((hunk, index) => {
    // oldStart of an insertion-only hunk is the line it goes before (parsePatch adds 1 to "-N,0").
    const last = hunk.oldLines > 0 ? fileLines + 1 + HUNK_START_MARGIN_LINES : fileLines + 1
    if (hunk.oldStart <= last) return
    const written = headers()
    throw patchFailed(
      path,
      `hunk ${index + 1} of ${file.hunks.length} (${written[index]}) starts past the end of the file: ` +
        `${JSON.stringify(path)} has ${fileLines} line${fileLines === 1 ? '' : 's'}; read the file again and rebuild the patch with its current line numbers`,
      { ...hunkDetails(file, written, index), fileLines },
    )
  })
}

/**
 * The library's complaint about a hunk ("Hunk at line 3 contained invalid
 * line …", "Added line count did not match for hunk at line 3") restated
 * with what is wrong: the counts its `@@` header gives against the lines it
 * has, or the line whose prefix is not one of " ", "-", "+", "\\".
 */
export function malformedHunk(patch: string, message: string): string | undefined {
  const at = /(?:Hunk at line|for hunk at line) (\d+)/.exec(message)
  if (at === null) return undefined
  const lines = patch.split('\n')
  const headerIndex = Number(at[1]) - 1
  const header = lines[headerIndex]
  const counts = header === undefined ? null : /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(header)
  if (header === undefined || counts === null) return undefined
  const declared = { old: counts[1] === undefined ? 1 : Number(counts[1]), new: counts[2] === undefined ? 1 : Number(counts[2]) }
  const found = { old: 0, new: 0 }
  let invalid: string | undefined
  // The hunk's lines: up to the next hunk or file header, or the end (a
  // patch's final line break leaves one empty string, which is not a line).
  for (let i = headerIndex + 1; i < lines.length; i++) {
    const line = lines[i]!
    if (line.startsWith('@@') || line.startsWith('--- ') || line.startsWith('diff ') || (line === '' && i === lines.length - 1)) break
    const kind = line === '' ? ' ' : line[0]
    if (kind === ' ') {
      found.old++
      found.new++
    } else if (kind === '-') found.old++
    else if (kind === '+') found.new++
    else if (kind !== '\\') {
      invalid = line
      break
    }
  }
  const name = `the hunk at patch line ${headerIndex + 1} (${header.trim()})`
  if (invalid !== undefined) return `${name} has the line ${JSON.stringify(invalid)}, whose prefix is not " ", "-", "+" or "\\"`
  if (found.old !== declared.old || found.new !== declared.new) {
    return (
      `${name} says ${declared.old} old and ${declared.new} new lines, but has ${found.old} old and ${found.new} new ` +
      '(a context line counts on both sides); fix the counts in its @@ header'
    )
  }
  return undefined
}
