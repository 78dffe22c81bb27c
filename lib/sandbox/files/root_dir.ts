/**
 * The sandbox root must be a directory: checked when a root is given, and
 * again (through `realRoot`) whenever a tool needs it, since it can be
 * removed or replaced afterwards.
 *
 * @module
 */
import { statSync, type Stats } from 'node:fs'
import { E_TOOL_NOT_A_DIRECTORY } from '../../exceptions.js'
import { errnoCode } from './fs_errors.js'

/**
 * Throw unless `rootDir` is a directory (symbolic links followed).
 *
 * @param rootDir - The root, absolute.
 * @throws {@link toolsmith/core!E_TOOL_NOT_A_DIRECTORY} when it is missing,
 *   cannot be reached, or is not a directory.
 * @internal
 */
export function assertRootDirectory(rootDir: string): void {
  let stats: Stats
  try {
    stats = statSync(rootDir)
  } catch (error) {
    throw rootNotADirectory(rootDir, error)
  }
  if (!stats.isDirectory()) throw rootNotADirectory(rootDir, undefined)
}

/**
 * The error for a root that is not a usable directory.
 *
 * @param rootDir - The root as configured.
 * @param error - The `fs` error met looking it up, or `undefined` when it
 *   exists but is not a directory.
 * @returns `E_TOOL_NOT_A_DIRECTORY` naming the root, with `details.path`
 *   and `details.errno`.
 * @internal
 */
export function rootNotADirectory(rootDir: string, error: unknown): E_TOOL_NOT_A_DIRECTORY {
  const errno = error === undefined ? 'ENOTDIR' : (errnoCode(error) ?? null)
  const why =
    error === undefined
      ? 'is not a directory'
      : errno === 'ENOENT' || errno === 'ENOTDIR'
        ? 'does not exist'
        : `cannot be reached (${errno ?? (error as Error).message})`
  return new E_TOOL_NOT_A_DIRECTORY(
    `The sandbox root ${JSON.stringify(rootDir)} ${why}: the tools work only inside an existing directory`,
    { ...(error === undefined ? {} : { cause: error }), details: { path: rootDir, errno } },
  )
}
