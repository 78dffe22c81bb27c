/**
 * The errors of a command the sandbox refuses or cannot start, each naming
 * the way out for the model (or the user).
 *
 * @module
 */
import { E_TOOL_COMMAND_NOT_FOUND, E_TOOL_FILE_NOT_FOUND, E_TOOL_PATH_INVALID, E_TOOL_SANDBOX_UNAVAILABLE } from '../exceptions.js'

/**
 * The OS sandbox cannot run here, and the sandbox did not opt out of it.
 *
 * @param reason - Why (the engine's words).
 * @returns `TOOL_SANDBOX_UNAVAILABLE`.
 * @internal
 */
export function sandboxUnavailable(reason: string): E_TOOL_SANDBOX_UNAVAILABLE {
  return new E_TOOL_SANDBOX_UNAVAILABLE(
    `bash cannot run commands here: the OS sandbox is unavailable (${reason}). Nothing was run. ` +
      'Ask the user to install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; ' +
      'Arch: pacman -S bubblewrap), or to accept less isolation explicitly with the sandbox option ' +
      '`isolation: { filesystem: false }` (toolsmith CLI: --no-os-sandbox).',
    { details: { reason } },
  )
}

/**
 * The domain allowlist needs a network namespace the kit cannot make here.
 *
 * @param reason - Why.
 * @returns `TOOL_SANDBOX_UNAVAILABLE`.
 * @internal
 */
export function networkUnavailable(reason: string): E_TOOL_SANDBOX_UNAVAILABLE {
  return new E_TOOL_SANDBOX_UNAVAILABLE(
    `bash cannot run commands with a network allowlist here: ${reason}. Nothing was run. ` +
      'Ask the user to run on Linux with bubblewrap and user namespaces, or to choose allowNetwork: false (no network) or true (all of it).',
    { details: { reason } },
  )
}

/**
 * The command's cgroup could not be made.
 *
 * @param error - The file system's error.
 * @returns `TOOL_SANDBOX_UNAVAILABLE`.
 * @internal
 */
export function limitsUnavailable(error: unknown): E_TOOL_SANDBOX_UNAVAILABLE {
  return new E_TOOL_SANDBOX_UNAVAILABLE(
    `bash cannot set up the resource limits of this command: its cgroup could not be created (${(error as Error).message}). Nothing was run. ` +
      'Ask the user to check the cgroup hierarchy, or to switch the processes and memory limits off (limits: { processes: false, memoryBytes: false }).',
    { cause: error, details: { reason: (error as Error).message } },
  )
}

/**
 * The working directory does not exist.
 *
 * @param cwd - As given.
 * @returns `TOOL_FILE_NOT_FOUND`.
 * @internal
 */
export function workingDirectoryMissing(cwd: string): E_TOOL_FILE_NOT_FOUND {
  return new E_TOOL_FILE_NOT_FOUND(`The working directory ${JSON.stringify(cwd)} does not exist`, { details: { path: cwd } })
}

/**
 * The working directory is not a directory.
 *
 * @param cwd - As given.
 * @returns `TOOL_PATH_INVALID`.
 * @internal
 */
export function notADirectory(cwd: string): E_TOOL_PATH_INVALID {
  return new E_TOOL_PATH_INVALID(`The working directory ${JSON.stringify(cwd)} is not a directory`, { details: { path: cwd } })
}

/**
 * The program was found on the host but is not visible where the command runs.
 *
 * @param cmd - The program as given.
 * @returns `TOOL_COMMAND_NOT_FOUND`.
 * @internal
 */
export function cannotStartInside(cmd: string): E_TOOL_COMMAND_NOT_FOUND {
  return new E_TOOL_COMMAND_NOT_FOUND(
    `${JSON.stringify(cmd)} cannot be started inside the sandbox: programs in the host's /tmp or /run, in unreadable paths, ` +
      "or (with readableHost: 'system') outside the system folders and readablePaths, are not visible there; " +
      'use a program installed under /usr, or ask the user to add its folder to readablePaths',
    { details: { cmd, exitCode: null, signal: null, output: '' } },
  )
}
