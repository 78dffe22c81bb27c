/**
 * Quiet look-ups of host paths for the mount plan: a path that is missing,
 * unreadable or behind a non-directory is simply not there (most masked and
 * protected paths do not exist on a given machine).
 *
 * @module
 */
import { lstatSync, realpathSync, type Stats } from 'node:fs'

/**
 * `lstat` without throwing.
 *
 * @param target - An absolute path.
 * @returns Its stats, or `undefined` when it does not exist or cannot be looked at.
 * @internal
 */
export function lstatOrUndefined(target: string): Stats | undefined {
  try {
    return lstatSync(target, { throwIfNoEntry: false })
  } catch {
    return undefined // not a directory on the way, no permission…
  }
}

/**
 * The real path of `target` without throwing.
 *
 * @param target - An absolute path.
 * @returns Its real path, or `undefined` when it does not exist or cannot be resolved.
 * @internal
 */
export function realpathOrUndefined(target: string): string | undefined {
  // An lstat answers "missing" for a fraction of a realpath's cost.
  if (lstatOrUndefined(target) === undefined) return undefined
  try {
    return realpathSync.native(target)
  } catch {
    return undefined
  }
}
