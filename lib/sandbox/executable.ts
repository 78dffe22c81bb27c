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
