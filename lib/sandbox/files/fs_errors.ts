/**
 * Turning raw `node:fs` errors into `E_TOOL_*` exceptions a model can act on.
 *
 * @module
 */
import {
  BaseException,
  E_TOOL_FILE_NOT_FOUND,
  E_TOOL_IO_ERROR,
  E_TOOL_NOT_A_FILE,
  E_TOOL_PATH_ESCAPE,
  E_TOOL_PATH_INVALID,
} from '../../exceptions.js'

/**
 * The `errno` code of a Node system error (`ENOENT`, `ELOOP`…), if any.
 *
 * @param error - Anything thrown.
 * @returns The code, or `undefined`.
 * @internal
 */
export function errnoCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}

/**
 * Map a file-system error met while working on `displayPath` to a toolsmith
 * exception. Toolsmith exceptions pass through unchanged, so callers can wrap
 * whole blocks.
 *
 * @param error - What `node:fs` threw.
 * @param displayPath - The path as the caller gave it (never a host path
 *   outside the root: models must not learn the layout around the sandbox).
 * @param action - What was being done, for the message (`read`, `write`…).
 * @returns The exception to throw.
 * @internal
 */
export function toToolError(error: unknown, displayPath: string, action: string): BaseException {
  if (BaseException.isException(error)) return error as BaseException
  const errno = errnoCode(error)
  const details = { path: displayPath, errno: errno ?? null }
  const options = { cause: error, details }
  const quoted = JSON.stringify(displayPath)
  switch (errno) {
    case 'ENOENT':
      return new E_TOOL_FILE_NOT_FOUND(`${quoted} does not exist (while trying to ${action} it)`, options)
    case 'ENOTDIR':
      return new E_TOOL_FILE_NOT_FOUND(`A parent of ${quoted} is not a directory, so the path does not exist`, options)
    case 'EISDIR':
      return new E_TOOL_NOT_A_FILE(`${quoted} is a directory, not a regular file`, options)
    case 'ENXIO':
    case 'ENODEV':
      return new E_TOOL_NOT_A_FILE(`${quoted} is a FIFO, socket or device, not a regular file`, options)
    case 'ELOOP':
      return new E_TOOL_PATH_ESCAPE(
        `${quoted} is (or became) a symbolic link where a real file or directory was expected; toolsmith does not follow it`,
        options,
      )
    case 'ENAMETOOLONG':
      return new E_TOOL_PATH_INVALID(`${quoted} is too long`, options)
    case 'EACCES':
    case 'EPERM':
      return new E_TOOL_IO_ERROR(`Permission denied while trying to ${action} ${quoted}`, options)
    case 'EROFS':
      return new E_TOOL_IO_ERROR(`Cannot ${action} ${quoted}: the file system is read-only`, options)
    case 'ENOSPC':
    case 'EDQUOT':
      return new E_TOOL_IO_ERROR(`Cannot ${action} ${quoted}: no space left on the device`, options)
    default:
      return new E_TOOL_IO_ERROR(
        `Cannot ${action} ${quoted}: ${errno ?? (error instanceof Error ? error.message : String(error))}`,
        options,
      )
  }
}
