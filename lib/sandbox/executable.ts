/**
 * Finding the program `bash` is asked to run, before anything is spawned, so
 * a missing program is `TOOL_COMMAND_NOT_FOUND` rather than an exit code 127
 * that looks like the program's own failure.
 *
 * @module
 */
import { constants } from 'node:fs'
import { access, stat } from 'node:fs/promises'
import path from 'node:path'
import { E_TOOL_COMMAND_NOT_FOUND } from '../exceptions.js'

async function isExecutableFile(candidate: string): Promise<boolean> {
  try {
    await access(candidate, constants.X_OK)
    return (await stat(candidate)).isFile()
  } catch {
    return false
  }
}

/**
 * Resolve `cmd` the way `execvp` would.
 *
 * @param cmd - A bare name (looked up in `PATH`) or a path (relative ones
 *   resolve against `cwd`).
 * @param cwd - The working directory of the command.
 * @param searchPath - The `PATH` the command will see.
 * @returns The absolute path to execute.
 * @throws {@link E_TOOL_COMMAND_NOT_FOUND} when nothing executable matches.
 * @internal
 */
export async function resolveExecutable(cmd: string, cwd: string, searchPath: string): Promise<string> {
  // Cache hit: one stat of the remembered file instead of one access + stat per PATH folder.
  const key = `${cmd}\0${cwd}\0${searchPath}`
  const cached = resolved.get(key)
  if (cached !== undefined) {
    if (await isStillExecutable(cached)) return cached
    resolved.delete(key)
  }
  const found = await searchExecutable(cmd, cwd, searchPath)
  if (resolved.size >= MAX_CACHED) resolved.clear()
  resolved.set(key, found)
  return found
}

/**
 * Resolutions already made, keyed by command, working directory and `PATH`
 * (a different `PATH` or cwd is a different key, so it re-resolves). A hit
 * is re-checked with one `stat`; a file that vanished or lost its execute
 * bits is resolved again. Not caught: a new program with the same name
 * appearing in an earlier `PATH` folder while the cached one still exists.
 */
const resolved = new Map<string, string>()
const MAX_CACHED = 256

async function isStillExecutable(file: string): Promise<boolean> {
  try {
    const stats = await stat(file)
    return stats.isFile() && (stats.mode & 0o111) !== 0
  } catch {
    return false
  }
}

async function searchExecutable(cmd: string, cwd: string, searchPath: string): Promise<string> {
  if (cmd.includes('/')) {
    const candidate = path.resolve(cwd, cmd)
    if (await isExecutableFile(candidate)) return candidate
    throw new E_TOOL_COMMAND_NOT_FOUND(
      `${JSON.stringify(cmd)} does not exist or is not an executable file`,
      { details: { cmd, exitCode: null, signal: null, output: '' } },
    )
  }
  for (const dir of searchPath.split(path.delimiter)) {
    const candidate = path.resolve(cwd, dir === '' ? '.' : dir, cmd)
    if (await isExecutableFile(candidate)) return candidate
  }
  throw new E_TOOL_COMMAND_NOT_FOUND(
    `Command ${JSON.stringify(cmd)} was not found on PATH. bash runs one program with arguments and no shell: ` +
      'for pipes, redirects or shell builtins call it as { cmd: "sh", args: ["-c", "…"] }',
    { details: { cmd, exitCode: null, signal: null, output: '' } },
  )
}
