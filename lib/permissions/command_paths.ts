/**
 * Where a command runs and which program it names: whether a command word
 * is a `PATH` lookup (`echo`) or a file named by a path (`./bin/echo`), and
 * whether a command moves the ones after it to another directory (`cd`,
 * `env -C`). An allow rule covers a program named by a path only when it
 * wrote that path, and `git` only in the root.
 *
 * @module
 */
import path from 'node:path'

/** Options with which a wrapper runs its command in another directory (or under another root). */
const DIRECTORY_OPTIONS: ReadonlyMap<string, RegExp> = new Map([
  ['env', /^-[A-Za-z0-9]*C|^--ch/],
  ['sudo', /^-[A-Za-z]*[DR]|^--(?:chd|chr)/],
  ['nsenter', /^-[A-Za-z]*[wWr]|^--(?:wd|root)/],
  ['unshare', /^-[A-Za-z]*[wR]|^--(?:wd|root)/],
  ['find', /^-(?:execdir|okdir)$/],
])

/**
 * Whether a command changes the working directory (or root) of what runs after it or under it.
 *
 * @param name - Its executable name.
 * @param argv - The command, executable first.
 * @returns Whether it does.
 */
export function changesDirectory(name: string, argv: readonly string[]): boolean {
  if (name === 'cd' || name === 'pushd' || name === 'popd' || name === 'chroot') return true
  const pattern = DIRECTORY_OPTIONS.get(name)
  if (pattern === undefined) return false
  for (let w = 1; w < argv.length; w++) if (pattern.test(argv[w]!)) return true
  return false
}

/** System directories whose programs a bare allow rule (`echo`) also covers when named by path (`/usr/bin/echo`). */
const SYSTEM_DIRECTORIES = new Set(['/bin', '/sbin', '/usr/bin', '/usr/sbin', '/usr/local/bin', '/usr/local/sbin'])

/**
 * Whether a command word is looked up on `PATH` (a bare name, `echo`) or
 * names a program of the system's own directories (`/usr/bin/echo`), as
 * opposed to a file that may be anywhere, the root included (`./echo`,
 * `bin/echo`, `/root/x/echo`).
 *
 * @param word - A command word.
 * @returns Whether a bare rule or builtin name stands for it.
 */
export function isPathLookup(word: string): boolean {
  if (!word.includes('/') && (path.sep === '/' || !word.includes(path.sep))) return true
  if (!word.startsWith('/')) return false
  const normal = path.posix.normalize(word)
  return SYSTEM_DIRECTORIES.has(path.posix.dirname(normal))
}
