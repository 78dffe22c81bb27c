/**
 * `grep` under a permission policy that can refuse paths: matches in files
 * that have other names (hard links) are left out of a directory search,
 * since a path rule judged only the searched directory's names.
 *
 * @module
 */
import { lstatSync } from 'node:fs'

/**
 * Remove the lines of files with more than one name from rg output printed
 * with `--null` (`path NUL line:text`), and give the remaining lines the
 * usual `path:line:text` form.
 *
 * @remarks
 * A file that no longer exists when it is looked at is left out too (it may
 * have been a second name removed again). Lines without a NUL (a truncation
 * marker) are kept as they are. A note at the end says how many files were
 * left out, and why, so the model does not take the silence for "no match".
 *
 * @param output - rg's output with root-relative paths, from `--null`.
 * @param where - The host path to `lstat` for a printed path.
 * @returns The output without those files' lines, plus the note.
 * @internal
 */
export function dropOtherNames(output: string, where: (printed: string) => string): string {
  const verdicts = new Map<string, boolean>()
  const kept: string[] = []
  for (const line of output.split('\n')) {
    const end = line.indexOf('\0')
    if (end < 0) {
      kept.push(line)
      continue
    }
    const printed = line.slice(0, end)
    let single = verdicts.get(printed)
    if (single === undefined) {
      const stats = lstatSync(where(printed), { throwIfNoEntry: false })
      single = stats !== undefined && stats.isFile() && stats.nlink === 1
      verdicts.set(printed, single)
    }
    if (single) kept.push(`${printed}:${line.slice(end + 1)}`)
  }
  let dropped = 0
  for (const single of verdicts.values()) if (!single) dropped++
  if (dropped === 0) return kept.join('\n')
  const text = kept.join('\n').replace(/\n$/, '')
  const note =
    `[… matches in ${dropped} file${dropped === 1 ? '' : 's'} with more than one name (hard links) left out: ` +
    'a permission rule cannot see a file’s other names; read such a file by a name the policy allows, if there is one …]'
  return `${text === '' ? '' : `${text}\n`}${note}\n`
}
