/**
 * Which bare command names run a program of the root: when a folder on
 * `PATH` lies inside the root (`<root>/node_modules/.bin`, which `npm run`
 * puts there), a file written into it is what `echo` runs. An allow rule
 * for `echo` vouches for the program the name stands for, not for a file
 * the agent can write, so such a name is judged like a command given with
 * its path (`node_modules/.bin/echo`): bare allow rules do not cover it,
 * deny and ask rules still match its name.
 *
 * @module
 */
import { accessSync, constants, realpathSync, statSync } from 'node:fs'
import path from 'node:path'

/**
 * Looks bare names up on `searchPath` as `execvp` does; answers the
 * root-relative path of the program when the first hit lies inside
 * `realRoot`. A relative or empty `PATH` folder is the command's working
 * directory, which starts in the root: a hit there counts as the root's.
 * Results are kept for the life of the returned function (one call).
 *
 * @param realRoot - The root, symlinks resolved.
 * @param searchPath - The `PATH` the command gets.
 * @returns `name` → its root-relative path, or `undefined` when PATH finds it outside the root (or not at all).
 */
export function rootProgramLookup(realRoot: string, searchPath: string): (name: string) => string | undefined {
  const folders = searchPath.split(':').map((folder) => {
    if (!folder.startsWith('/')) return { folder, relative: path.posix.normalize(folder === '' ? '.' : folder) }
    let real: string
    try {
      real = realpathSync(folder)
    } catch {
      return { folder, relative: undefined }
    }
    const relative = path.relative(realRoot, real)
    const inside = relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative))
    return { folder, relative: inside ? relative.split(path.sep).join('/') || '.' : undefined }
  })
  // The usual case: no folder of PATH in the root, nothing to look up.
  if (folders.every(({ relative }) => relative === undefined)) return () => undefined
  const known = new Map<string, string | undefined>()
  return (name) => {
    if (known.has(name)) return known.get(name)
    let found: string | undefined
    for (const { folder, relative } of folders) {
      const file = path.join(folder.startsWith('/') ? folder : path.join(realRoot, folder), name)
      try {
        accessSync(file, constants.X_OK)
        if (!statSync(file).isFile()) continue
      } catch {
        continue
      }
      found = relative === undefined ? undefined : path.posix.join(relative, name)
      break
    }
    known.set(name, found)
    return found
  }
}
