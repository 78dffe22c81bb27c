/**
 * Finding the program `bash` is asked to run, before anything is spawned, so
 * a missing program is `TOOL_COMMAND_NOT_FOUND` rather than an exit code 127
 * that looks like the program's own failure.
 *
 * @module
 */
import { constants } from 'node:fs'
import { access, open, stat } from 'node:fs/promises'
import path from 'node:path'
import { E_TOOL_COMMAND_NOT_FOUND } from '../../exceptions.js'

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
 * @throws {@link toolsmith/core!E_TOOL_COMMAND_NOT_FOUND} when nothing executable matches.
 * @internal
 */
export async function resolveExecutable(cmd: string, cwd: string, searchPath: string): Promise<string> {
  // Cache hit: one stat of the remembered file instead of one access + stat per PATH folder.
  const key = `${cmd}\0${cwd}\0${searchPath}`
  const cached = resolved.get(key)
  if (cached !== undefined) {
    if (await isUnchanged(cached)) return cached.file
    resolved.delete(key)
  }
  const file = await searchExecutable(cmd, cwd, searchPath)
  const stats = await stat(file)
  await assertProgram(cmd, file)
  if (resolved.size >= MAX_CACHED) resolved.clear()
  resolved.set(key, { file, ino: stats.ino, mtimeMs: stats.mtimeMs })
  return file
}

/**
 * Refuse a file the kernel cannot execute (neither an ELF binary nor a
 * `#!` script): `execvp` — which bubblewrap and the PID-namespace wrapper
 * use — would quietly run it with `/bin/sh` instead, unlike a direct spawn.
 */
async function assertProgram(cmd: string, file: string): Promise<void> {
  const head = Buffer.alloc(4)
  let read = 0
  try {
    const handle = await open(file, 'r')
    try {
      read = (await handle.read(head, 0, 4, 0)).bytesRead
    } finally {
      await handle.close()
    }
  } catch {
    return // execute-only (not readable): leave the verdict to the kernel
  }
  const magic = head.subarray(0, read)
  if (magic.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46])) || magic.subarray(0, 2).toString('latin1') === '#!') return
  throw new E_TOOL_COMMAND_NOT_FOUND(
    `${JSON.stringify(cmd)} is not a program: it is neither a binary nor a script starting with #!. ` +
      `Run it with its interpreter instead, e.g. { cmd: "sh", args: [${JSON.stringify(cmd)}] }`,
    { details: { cmd, exitCode: null, signal: null, output: '' } },
  )
}

/**
 * Resolutions already made, keyed by command, working directory and `PATH`
 * (a different `PATH` or cwd is a different key, so it re-resolves). A hit
 * is re-checked with one `stat`; a file that vanished or lost its execute
 * bits, or was replaced or rewritten (inode or mtime changed), is resolved
 * again. Not caught: a new program with the same name
 * appearing in an earlier `PATH` folder while the cached one still exists.
 */
const resolved = new Map<string, { file: string; ino: number; mtimeMs: number }>()
const MAX_CACHED = 256

/** The remembered file is still there, executable, and not replaced or rewritten since it was checked. */
async function isUnchanged(entry: { file: string; ino: number; mtimeMs: number }): Promise<boolean> {
  try {
    const stats = await stat(entry.file)
    return stats.isFile() && (stats.mode & 0o111) !== 0 && stats.ino === entry.ino && stats.mtimeMs === entry.mtimeMs
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
