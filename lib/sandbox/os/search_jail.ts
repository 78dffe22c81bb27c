/**
 * A minimal mount namespace for the kit's own ripgrep, so that its walk of
 * a directory cannot leave that directory.
 *
 * rg walks by path: it lists a folder, then opens `./sub`, `./sub/x`… by
 * name, and the kernel follows a symlink met on the way. A folder swapped
 * for a symlink (`ln -s /elsewhere sub`) between rg's listing and its open
 * would take the walk outside, and rg has no `O_NOFOLLOW` walk. Inside this
 * namespace nothing else exists: bubblewrap builds an empty root on a tmpfs
 * and mounts, read-only, only the searched directory (by the kit's open
 * descriptor, `--ro-bind-fd`, so a swap of the path cannot change what is
 * mounted), the rules file and the rg binary. A symlink, absolute or
 * relative, can then only lead into the searched directory itself, or to
 * nothing.
 *
 * @module
 */
import { spawn } from 'node:child_process'
import { closeSync, openSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { probeBubblewrap } from './bubblewrap_probe.js'

/** Where the searched directory is mounted inside: a name no host path the kit mounts beside it starts with. */
const MOUNT_POINT = '/toolsmith-search'

/**
 * The descriptor number on which bwrap gets the searched directory (the
 * `passFd` option of the kit's bounded spawn puts it there).
 *
 * @internal
 */
export const JAIL_FD = 3

/** The command line that runs a program in the jail. */
export interface JailedCommand {
  /** `bwrap`. */
  file: string
  /** bwrap's flags, then the program and its arguments. */
  args: string[]
}

/** What {@link jailedCommand} mounts and runs. */
export interface JailSpec {
  /** Absolute path of the program (a static binary: no library is mounted). */
  program: string
  /** Its arguments. */
  args: readonly string[]
  /**
   * Where the directory (passed as {@link JAIL_FD}) appears, relative to the
   * program's working directory: `.` (the working directory itself) or a
   * relative path below it, as the program is told to search it.
   */
  below: string
  /** Host files the program reads (the rules file), mounted read-only at the same paths. */
  files: readonly string[]
}

/**
 * The bwrap command line that runs `spec.program` in a mount namespace
 * holding only the directory on {@link JAIL_FD}, `spec.files` and the
 * program itself. A user namespace makes it work without privileges; the
 * program dies with the kit (`--die-with-parent`).
 *
 * @param bwrap - Absolute path of `bwrap`.
 * @param spec - See {@link JailSpec}.
 * @returns What to spawn, with the directory's descriptor as fd {@link JAIL_FD}.
 * @internal
 */
export function jailedCommand(bwrap: string, spec: JailSpec): JailedCommand {
  const target = spec.below === '.' ? MOUNT_POINT : `${MOUNT_POINT}/${spec.below}`
  const binds = [spec.program, ...spec.files].flatMap((file) => ['--ro-bind', file, file])
  return {
    file: bwrap,
    args: [
      '--unshare-user',
      '--die-with-parent',
      '--ro-bind-fd',
      String(JAIL_FD),
      target,
      ...binds,
      '--chdir',
      MOUNT_POINT,
      '--',
      spec.program,
      ...spec.args,
    ],
  }
}

const probes = new Map<string, Promise<string | undefined>>()

/**
 * Whether `program` runs in the jail on this machine (bubblewrap installed,
 * namespaces allowed, `--ro-bind-fd` known, the program static): probed
 * once per program by running it with `--version` there.
 *
 * @param program - Absolute path of the program.
 * @returns The path of `bwrap` when the jail works, `undefined` when not.
 * @internal
 */
export function jailFor(program: string): Promise<string | undefined> {
  let probe = probes.get(program)
  if (probe === undefined) {
    probe = runsInJail(program)
    probes.set(program, probe)
  }
  return probe
}

async function runsInJail(program: string): Promise<string | undefined> {
  const bwrap = probeBubblewrap().bwrap
  if (bwrap === undefined) return undefined
  let fd: number
  try {
    fd = openSync(tmpdir(), 'r')
  } catch {
    return undefined
  }
  try {
    const { file, args } = jailedCommand(bwrap, { program, args: ['--version'], below: '.', files: [] })
    const ok = await new Promise<boolean>((resolve) => {
      const child = spawn(file, args, { stdio: ['ignore', 'ignore', 'ignore', fd], env: { PATH: '/usr/bin:/bin' } })
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      child.once('error', () => resolve(false))
      child.once('exit', (code) => {
        clearTimeout(timer)
        resolve(code === 0)
      })
    })
    return ok ? bwrap : undefined
  } finally {
    closeSync(fd)
  }
}
