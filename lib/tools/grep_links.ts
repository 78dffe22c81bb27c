/**
 * `grep` under a permission policy that can refuse paths: matches in files
 * that have other names (hard links) are left out of a directory search,
 * since a path rule judged only the searched directory's names.
 *
 * @module
 */
import { lstatSync } from 'node:fs'

/** What {@link dropOtherNames} keeps, and the note to end the output with. */
export interface FilteredMatches {
  /** The kept lines, as `path:line:text`, plus rg's truncation marker if it had one. */
  readonly text: string
  /** A line saying how many files were left out and why; `undefined` when none was. */
  readonly note: string | undefined
}

/** The marker `runBounded` ends a cut capture with. */
const MARKER = /^\[… \d+ bytes truncated …\]\n?$/

/**
 * Remove the lines of files that do not have exactly one name from rg
 * output printed with `--null` (`path NUL line:text LF`), and give the
 * remaining lines the usual `path:line:text` form.
 *
 * @remarks
 * Records are read as rg writes them: the path runs to the NUL (a path may
 * itself hold a line feed), the rest to the next line feed. A file is kept
 * only when `lstat` shows a regular file with one link; one that cannot be
 * looked at (gone, renamed, a name too long, not valid UTF-8 once decoded)
 * is left out too, failing closed. Whatever follows the last record without
 * a NUL is kept only when it is the capture's truncation marker.
 *
 * @param output - rg's output (paths as rg printed them), from `--null`.
 * @param where - The host path to `lstat` for a printed path.
 * @returns The kept lines and the note.
 * @internal
 */
export function dropOtherNames(output: string, where: (printed: string) => string): FilteredMatches {
  const verdicts = new Map<string, boolean>()
  let text = ''
  let at = 0
  while (at < output.length) {
    const nul = output.indexOf('\0', at)
    if (nul < 0) {
      // No record left: rg's truncation marker, or the start of a record the cap cut before its NUL.
      const tail = output.slice(at).replace(/^\n/, '')
      if (MARKER.test(tail)) text += tail
      break
    }
    const printed = output.slice(at, nul)
    const newline = output.indexOf('\n', nul)
    const end = newline < 0 ? output.length : newline + 1
    let single = verdicts.get(printed)
    if (single === undefined) {
      single = hasOneName(where(printed))
      verdicts.set(printed, single)
    }
    if (single) text += `${printed}:${output.slice(nul + 1, end)}`
    at = end
  }
  let dropped = 0
  for (const single of verdicts.values()) if (!single) dropped++
  if (dropped === 0) return { text, note: undefined }
  const files = `${dropped} file${dropped === 1 ? '' : 's'}`
  return {
    text,
    note:
      `[… matches in ${files} left out: more than one name (hard links), or a name that could not be checked; ` +
      'a permission rule cannot see a file’s other names. Read such a file by a name the policy allows, if it has one …]',
  }
}

/** Whether `file` is a regular file with a single name; anything that cannot be looked at is not. */
function hasOneName(file: string): boolean {
  try {
    const stats = lstatSync(file, { throwIfNoEntry: false })
    return stats?.isFile() === true && stats.nlink === 1
  } catch {
    // ENOTDIR (a directory swapped for a file), ENAMETOOLONG, ELOOP…: not a file known to have one name.
    return false
  }
}
