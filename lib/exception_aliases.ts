/**
 * Aliases named after the codes: the built-in tools' exception classes are
 * named `E_TOOL_*` while their codes are `TOOL_*` (the codes are pinned by the
 * design; a model and the journal see them). Each alias is the very same
 * class, so `instanceof TOOL_PATH_ESCAPE` and `instanceof E_TOOL_PATH_ESCAPE`
 * agree.
 *
 * @remarks
 * Which to catch: compare `error.code` (`'TOOL_PATH_ESCAPE'`) when the error
 * may come from another copy of the package or over a wire (MCP, a
 * journal); use `instanceof` with either name in-process. Core errors
 * (`E_INVALID_TOOL_ARGS`, `E_TOOL_DOWNSTREAM_ERROR`, …) already carry their
 * class name as code and have no alias.
 *
 * @module
 */
import {
  E_TOOL_PATH_ESCAPE,
  E_TOOL_PATH_INVALID,
  E_TOOL_FILE_NOT_FOUND,
  E_TOOL_FILE_TOO_LARGE,
  E_TOOL_NOT_A_FILE,
  E_TOOL_BINARY_FILE,
  E_TOOL_CONTENT_TOO_LARGE,
  E_TOOL_PATCH_TOO_LARGE,
  E_TOOL_PATCH_FAILED,
  E_TOOL_GREP_FAILED,
  E_TOOL_COMMAND_FAILED,
  E_TOOL_COMMAND_NOT_FOUND,
  E_TOOL_TIMEOUT,
  E_TOOL_ABORTED,
  E_TOOL_NETWORK_DISABLED,
  E_TOOL_GIT_REMOTE_DISABLED,
  E_TOOL_DENIED,
  E_TOOL_SANDBOX_UNAVAILABLE,
  E_TOOL_PATH_PROTECTED,
  E_TOOL_LIMIT_EXCEEDED,
  E_TOOL_NOT_A_DIRECTORY,
  E_TOOL_IO_ERROR,
  E_TOOL_OUTCOME_UNKNOWN,
} from './exceptions.js'

/** `TOOL_PATH_ESCAPE`: the same class as {@link E_TOOL_PATH_ESCAPE}, named after its code. */
export const TOOL_PATH_ESCAPE: typeof E_TOOL_PATH_ESCAPE = E_TOOL_PATH_ESCAPE

/** `TOOL_PATH_INVALID`: the same class as {@link E_TOOL_PATH_INVALID}, named after its code. */
export const TOOL_PATH_INVALID: typeof E_TOOL_PATH_INVALID = E_TOOL_PATH_INVALID

/** `TOOL_FILE_NOT_FOUND`: the same class as {@link E_TOOL_FILE_NOT_FOUND}, named after its code. */
export const TOOL_FILE_NOT_FOUND: typeof E_TOOL_FILE_NOT_FOUND = E_TOOL_FILE_NOT_FOUND

/** `TOOL_FILE_TOO_LARGE`: the same class as {@link E_TOOL_FILE_TOO_LARGE}, named after its code. */
export const TOOL_FILE_TOO_LARGE: typeof E_TOOL_FILE_TOO_LARGE = E_TOOL_FILE_TOO_LARGE

/** `TOOL_NOT_A_FILE`: the same class as {@link E_TOOL_NOT_A_FILE}, named after its code. */
export const TOOL_NOT_A_FILE: typeof E_TOOL_NOT_A_FILE = E_TOOL_NOT_A_FILE

/** `TOOL_BINARY_FILE`: the same class as {@link E_TOOL_BINARY_FILE}, named after its code. */
export const TOOL_BINARY_FILE: typeof E_TOOL_BINARY_FILE = E_TOOL_BINARY_FILE

/** `TOOL_CONTENT_TOO_LARGE`: the same class as {@link E_TOOL_CONTENT_TOO_LARGE}, named after its code. */
export const TOOL_CONTENT_TOO_LARGE: typeof E_TOOL_CONTENT_TOO_LARGE = E_TOOL_CONTENT_TOO_LARGE

/** `TOOL_PATCH_TOO_LARGE`: the same class as {@link E_TOOL_PATCH_TOO_LARGE}, named after its code. */
export const TOOL_PATCH_TOO_LARGE: typeof E_TOOL_PATCH_TOO_LARGE = E_TOOL_PATCH_TOO_LARGE

/** `TOOL_PATCH_FAILED`: the same class as {@link E_TOOL_PATCH_FAILED}, named after its code. */
export const TOOL_PATCH_FAILED: typeof E_TOOL_PATCH_FAILED = E_TOOL_PATCH_FAILED

/** `TOOL_GREP_FAILED`: the same class as {@link E_TOOL_GREP_FAILED}, named after its code. */
export const TOOL_GREP_FAILED: typeof E_TOOL_GREP_FAILED = E_TOOL_GREP_FAILED

/** `TOOL_COMMAND_FAILED`: the same class as {@link E_TOOL_COMMAND_FAILED}, named after its code. */
export const TOOL_COMMAND_FAILED: typeof E_TOOL_COMMAND_FAILED = E_TOOL_COMMAND_FAILED

/** `TOOL_COMMAND_NOT_FOUND`: the same class as {@link E_TOOL_COMMAND_NOT_FOUND}, named after its code. */
export const TOOL_COMMAND_NOT_FOUND: typeof E_TOOL_COMMAND_NOT_FOUND = E_TOOL_COMMAND_NOT_FOUND

/** `TOOL_TIMEOUT`: the same class as {@link E_TOOL_TIMEOUT}, named after its code. */
export const TOOL_TIMEOUT: typeof E_TOOL_TIMEOUT = E_TOOL_TIMEOUT

/** `TOOL_ABORTED`: the same class as {@link E_TOOL_ABORTED}, named after its code. */
export const TOOL_ABORTED: typeof E_TOOL_ABORTED = E_TOOL_ABORTED

/** `TOOL_NETWORK_DISABLED`: the same class as {@link E_TOOL_NETWORK_DISABLED}, named after its code. */
export const TOOL_NETWORK_DISABLED: typeof E_TOOL_NETWORK_DISABLED = E_TOOL_NETWORK_DISABLED

/** `TOOL_GIT_REMOTE_DISABLED`: the same class as {@link E_TOOL_GIT_REMOTE_DISABLED}, named after its code. */
export const TOOL_GIT_REMOTE_DISABLED: typeof E_TOOL_GIT_REMOTE_DISABLED = E_TOOL_GIT_REMOTE_DISABLED

/** `TOOL_DENIED`: the same class as {@link E_TOOL_DENIED}, named after its code. */
export const TOOL_DENIED: typeof E_TOOL_DENIED = E_TOOL_DENIED

/** `TOOL_SANDBOX_UNAVAILABLE`: the same class as {@link E_TOOL_SANDBOX_UNAVAILABLE}, named after its code. */
export const TOOL_SANDBOX_UNAVAILABLE: typeof E_TOOL_SANDBOX_UNAVAILABLE = E_TOOL_SANDBOX_UNAVAILABLE

/** `TOOL_IO_ERROR`: the same class as {@link E_TOOL_IO_ERROR}, named after its code. */
export const TOOL_IO_ERROR: typeof E_TOOL_IO_ERROR = E_TOOL_IO_ERROR

/** `TOOL_OUTCOME_UNKNOWN`: the same class as {@link E_TOOL_OUTCOME_UNKNOWN}, named after its code. */
export const TOOL_OUTCOME_UNKNOWN: typeof E_TOOL_OUTCOME_UNKNOWN = E_TOOL_OUTCOME_UNKNOWN

/** `TOOL_PATH_PROTECTED`: the same class as {@link E_TOOL_PATH_PROTECTED}, named after its code. */
export const TOOL_PATH_PROTECTED: typeof E_TOOL_PATH_PROTECTED = E_TOOL_PATH_PROTECTED

/** `TOOL_LIMIT_EXCEEDED`: the same class as {@link E_TOOL_LIMIT_EXCEEDED}, named after its code. */
export const TOOL_LIMIT_EXCEEDED: typeof E_TOOL_LIMIT_EXCEEDED = E_TOOL_LIMIT_EXCEEDED

/** `TOOL_NOT_A_DIRECTORY`: the same class as {@link E_TOOL_NOT_A_DIRECTORY}, named after its code. */
export const TOOL_NOT_A_DIRECTORY: typeof E_TOOL_NOT_A_DIRECTORY = E_TOOL_NOT_A_DIRECTORY
