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
import { accessSync, constants, lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs'
import path from 'node:path'
import { isInside } from '../sandbox/files/paths.js'

/**
 * Looks bare names up on `searchPath` as `execvp` does; answers the
 * root-relative path of the program when the first hit lies inside
 * `realRoot`. A relative or empty `PATH` folder is the command's working
 * directory, which starts in the root: a hit there counts as the root's.
 * Results are kept for the life of the returned function (one call); a
 * folder that only the host can move is worked out once (see {@link hostOnly}).
 *
 * @param realRoot - The root, symlinks resolved.
 * @param searchPath - The `PATH` the command gets.
 * @returns `name` → its root-relative path, or `undefined` when PATH finds it outside the root (or not at all).
 */
export function rootProgramLookup(realRoot: string, searchPath: string): (name: string) => string | undefined {
  // A folder named twice (`npm run` adds its own) finds nothing new the second time.
  const folders = [...new Set(searchPath.split(':'))].map((folder) => {
    if (!folder.startsWith('/')) return { folder, relative: path.posix.normalize(folder === '' ? '.' : folder) }
    if (hostOnly(realRoot, folder)) return { folder, relative: undefined }
    let real: string
    try {
      // realpath(3): one call, where Node's own walk is a few per folder.
      real = realpathSync.native(folder)
    } catch {
      return { folder, relative: undefined }
    }
    // Component by component: `<root>/..cache/bin` is the root's.
    if (!isInside(realRoot, real)) return { folder, relative: undefined }
    return { folder, relative: path.relative(realRoot, real).split(path.sep).join('/') || '.' }
  })
  // Past the last folder of the root, a first hit can only be outside it: those folders are not looked in.
  const searched = folders.slice(0, folders.findLastIndex(({ relative }) => relative !== undefined) + 1)
  // The usual case: no folder of PATH in the root, nothing to look up.
  if (searched.length === 0) return () => undefined
  const known = new Map<string, string | undefined>()
  return (name) => {
    if (known.has(name)) return known.get(name)
    let found: string | undefined
    for (const { folder, relative } of searched) {
      const file = path.join(folder.startsWith('/') ? folder : path.join(realRoot, folder), name)
      try {
        // Most folders do not have the name: asked without an exception, which costs more than the stat.
        if (statSync(file, { throwIfNoEntry: false })?.isFile() !== true) continue
        accessSync(file, constants.X_OK)
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

/** For each root, what {@link hostOnly} found of each folder. */
const hostFolders = new Map<string, Map<string, boolean>>()

/**
 * Whether resolving `folder` reads only folders outside `realRoot`, through
 * every symbolic link on the way. Then it is not the root's now, and only a
 * write in a folder outside the root could make it so (re-point a link,
 * create a missing folder). Commands in the OS sandbox write there only
 * through `writablePaths` or as the agent of another root in the same
 * process; and whoever can write there can as well put a program in that
 * `PATH` folder itself, which this rule (about programs in the root)
 * judges as the host's, cached or not. So the answer is kept for the life
 * of the process, which spares a `realpath` of every `PATH` folder on
 * every call; a folder that reaches into the root at some step, or cannot
 * be read, is resolved again on each call (keeping that answer is safe: it
 * only means more work).
 *
 * @param realRoot - The root, symlinks resolved.
 * @param folder - An absolute `PATH` folder.
 * @returns `true` when only the host can change where it leads.
 */
function hostOnly(realRoot: string, folder: string): boolean {
  let known = hostFolders.get(realRoot)
  const answer = known?.get(folder)
  if (answer !== undefined) return answer
  if (known === undefined) {
    // Bounded: a long-lived process may see many roots.
    if (hostFolders.size >= 64) hostFolders.clear()
    hostFolders.set(realRoot, (known = new Map()))
  }
  const found = readsOnlyOutside(realRoot, folder)
  if (known.size < 1024) known.set(folder, found)
  return found
}

/** Follow `folder` one name at a time as the kernel does; `false` on the first step inside `realRoot`. */
function readsOnlyOutside(realRoot: string, folder: string): boolean {
  // Names still to follow, the next one last; `current` has no link in it.
  const pending = folder.split('/').reverse()
  let current = '/'
  let links = 0
  while (pending.length > 0) {
    const name = pending.pop()!
    if (name === '' || name === '.') continue
    if (name === '..') {
      current = path.dirname(current)
      continue
    }
    const next = current === '/' ? `/${name}` : `${current}/${name}`
    if (isInside(realRoot, next)) return false
    let isLink: boolean
    try {
      isLink = lstatSync(next).isSymbolicLink()
    } catch (error) {
      // Missing: only a write in `current`, outside the root, could make it. Anything else: unknown.
      const code = (error as { code?: string }).code
      return code === 'ENOENT' || code === 'ENOTDIR'
    }
    if (!isLink) {
      current = next
      continue
    }
    if (++links > 40) return false
    let target: string
    try {
      target = readlinkSync(next)
    } catch {
      return false
    }
    if (target.startsWith('/')) current = '/'
    pending.push(...target.split('/').reverse())
  }
  return !isInside(realRoot, current)
}
