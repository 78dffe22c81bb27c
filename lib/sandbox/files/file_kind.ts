/**
 * The refusals of what is not a regular file (or is too large), worded for
 * a model: which kind of file it is, and what to use instead.
 *
 * @module
 */
import type { Stats } from 'node:fs'
import { E_TOOL_FILE_NOT_FOUND, E_TOOL_FILE_TOO_LARGE, E_TOOL_NOT_A_FILE } from '../../exceptions.js'
import type { ResolvedPath } from './paths.js'

/**
 * Refuse what is missing, not a regular file, or over `limit` bytes.
 *
 * @param resolved - The resolution `stats` belongs to (for the message).
 * @param stats - The file's status; `undefined` when it does not exist.
 * @param limit - Largest accepted size, in bytes.
 * @throws `TOOL_FILE_NOT_FOUND`, `TOOL_NOT_A_FILE`, `TOOL_FILE_TOO_LARGE`.
 * @internal
 */
export function assertRegularFile(resolved: ResolvedPath, stats: Stats | undefined, limit: number): asserts stats is Stats {
  const quoted = JSON.stringify(resolved.input)
  const details = { path: resolved.input }
  if (stats === undefined) {
    const why = resolved.danglingLink === undefined ? 'does not exist' : 'is a symbolic link whose target does not exist'
    throw new E_TOOL_FILE_NOT_FOUND(`${quoted} ${why}`, { details })
  }
  if (stats.isDirectory()) throw new E_TOOL_NOT_A_FILE(`${quoted} is a directory, not a regular file`, { details })
  if (!stats.isFile()) {
    throw new E_TOOL_NOT_A_FILE(`${quoted} is a ${describeKind(stats)}, not a regular file`, { details })
  }
  if (stats.size > limit) {
    throw new E_TOOL_FILE_TOO_LARGE(
      `${quoted} is ${stats.size} bytes, over the ${limit}-byte limit; use grep, or bash with head/tail/sed, to look at parts of it`,
      { details: { ...details, size: stats.size, limit } },
    )
  }
}

/**
 * The kind of a file that is neither regular nor a directory, for messages.
 *
 * @internal
 */
export function describeKind(stats: Stats): string {
  if (stats.isFIFO()) return 'FIFO (named pipe)'
  if (stats.isSocket()) return 'socket'
  if (stats.isCharacterDevice()) return 'character device'
  if (stats.isBlockDevice()) return 'block device'
  if (stats.isSymbolicLink()) return 'symbolic link'
  return 'special file'
}
