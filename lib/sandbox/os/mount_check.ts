/**
 * The check of a sandbox's mounts before its command may run. bwrap
 * resolves a bind's destination path inside the new mount namespace,
 * where the writable root is the live host folder: another command of the
 * same root that swaps a folder on that path for a symlink while bwrap sets
 * up can make a protected path's read-only bind (or a pin) land elsewhere,
 * and the real file stays writable for that one command. The kit therefore
 * starts bwrap with `--block-fd` (its child reads one byte after every mount
 * and the `pivot_root`, before the seccomp filter and the exec) and
 * `--info-fd` (bwrap writes the child's PID), reads the child's
 * `/proc/<pid>/mountinfo`, and releases the command only when every
 * destination inside a writable place is a mount point at its own path
 * (read-only where it must be).
 *
 * @remarks
 * When the child has reached the block: bwrap builds the new tree under
 * `/newroot` of a private tmpfs and makes it the root (`pivot_root`) only
 * after the last mount; `mountinfo` names mount points relative to the
 * process's root, so until then every mount bwrap made shows under
 * `/newroot/…` and the kit's own `/proc` still sits at `/proc`. The sandbox
 * `/proc` (a fresh proc of the new PID namespace, another device) shows at
 * `/proc` only from the pivot on, and between the pivot and the command
 * bwrap mounts nothing more (checked against bubblewrap.c: only the old
 * root is detached, then capabilities, the block, seccomp, the exec). So
 * "the top mount at `/proc` is not the kit's own proc" means the mount
 * table is final, whether or not the child is already sitting in `read()`:
 * the byte waits in the pipe. Reading `/proc/<pid>/syscall` for a blocked
 * `read` was rejected: it needs ptrace access (refused under Yama
 * `ptrace_scope` 2 or 3) and per-architecture syscall numbers; `mountinfo`
 * is readable by the process's owner on every architecture.
 *
 * @module
 */
import { readFileSync, statSync } from 'node:fs'
import { E_TOOL_PATH_ESCAPE } from '../../exceptions.js'

/**
 * A bind destination inside a writable place, as the plan meant it: the
 * check wants a mount point at exactly this path.
 *
 * @internal
 */
export interface ExpectedMount {
  /** The absolute path (the same inside and on the host). */
  readonly path: string
  /** The top mount there must be read-only. */
  readonly readOnly: boolean
}

/**
 * One line of `/proc/<pid>/mountinfo`.
 *
 * @internal
 */
export interface MountinfoEntry {
  readonly id: number
  readonly parent: number
  /** `major:minor` of the file system. */
  readonly device: string
  /** The mounted path within its file system. */
  readonly root: string
  /** The mount point, relative to the reading process's root. */
  readonly point: string
  /** The per-mount options (`ro`, `nosuid`, …). */
  readonly mountOptions: readonly string[]
  /** The file system type. */
  readonly type: string
  /** The super-block options. */
  readonly superOptions: readonly string[]
}

/**
 * mountinfo escapes space, tab, newline and backslash in paths as octal (`\040`).
 *
 * @param text - A path field.
 * @returns The path.
 * @internal
 */
export function unescapeMountinfo(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)))
}

/**
 * Parse a mountinfo file (see proc(5)): `id parent major:minor root point
 * options [optional fields…] - type source super-options`.
 *
 * @param text - The file's text.
 * @returns Its entries in order (the kernel lists them in mount order).
 * @internal
 */
export function parseMountinfo(text: string): MountinfoEntry[] {
  const entries: MountinfoEntry[] = []
  for (const line of text.split('\n')) {
    const fields = line.split(' ')
    const dash = fields.indexOf('-', 6)
    if (fields.length < 7 || dash < 0) continue
    entries.push({
      id: Number(fields[0]),
      parent: Number(fields[1]),
      device: fields[2] ?? '',
      root: unescapeMountinfo(fields[3] ?? ''),
      point: unescapeMountinfo(fields[4] ?? ''),
      mountOptions: (fields[5] ?? '').split(','),
      type: fields[dash + 1] ?? '',
      superOptions: (fields[dash + 3] ?? '').split(','),
    })
  }
  return entries
}

/**
 * The top mount at each mount point: the one no other mount at the same
 * point is stacked on.
 */
function topMounts(entries: readonly MountinfoEntry[]): Map<string, MountinfoEntry> {
  const byPoint = new Map<string, MountinfoEntry[]>()
  for (const entry of entries) {
    const list = byPoint.get(entry.point)
    if (list === undefined) byPoint.set(entry.point, [entry])
    else list.push(entry)
  }
  const top = new Map<string, MountinfoEntry>()
  for (const [point, list] of byPoint) {
    const under = new Set(list.map((entry) => entry.parent))
    // The last listed wins a tie (the kernel lists in mount order).
    const candidates = list.filter((entry) => !under.has(entry.id) || entry.parent === entry.id)
    top.set(point, candidates[candidates.length - 1] ?? list[list.length - 1]!)
  }
  return top
}

let ownProc: string | undefined

/** `major:minor` of the kit's own `/proc`: the sandbox's is another one. */
function ownProcDevice(): string {
  if (ownProc === undefined) {
    const dev = statSync('/proc').dev
    // Linux's encoding of dev_t (glibc's major()/minor()).
    const major = ((dev >>> 8) & 0xfff) | (Math.floor(dev / 2 ** 32) & ~0xfff)
    const minor = (dev & 0xff) | ((dev >>> 12) & ~0xff & 0xfffff)
    ownProc = `${major}:${minor}`
  }
  return ownProc
}

/**
 * What {@link checkSandboxMounts} found: the set-up is still going on, the
 * mounts are as planned, or they are not (the error to fail the call with).
 *
 * @internal
 */
export type MountVerdict = 'pending' | 'ready' | E_TOOL_PATH_ESCAPE

/**
 * Look once at the mounts of bwrap's child.
 *
 * @param childPid - The child's PID (bwrap's `--info-fd` `child-pid`).
 * @param expected - The bind destinations inside writable places.
 * @returns `'pending'` before the `pivot_root` (or when the file cannot be
 *   read: the child may be gone, which the caller sees as its exit);
 *   `'ready'` when every destination is a mount point at its own path,
 *   read-only where it must be; otherwise the error naming the first that is not.
 * @internal
 */
export function checkSandboxMounts(childPid: number, expected: readonly ExpectedMount[]): MountVerdict {
  let text: string
  try {
    text = readFileSync(`/proc/${childPid}/mountinfo`, 'utf8')
  } catch {
    return 'pending'
  }
  const top = topMounts(parseMountinfo(text))
  const proc = top.get('/proc')
  if (proc === undefined || proc.type !== 'proc' || proc.device === ownProcDevice()) return 'pending'
  for (const { path, readOnly } of expected) {
    const mount = top.get(path)
    if (mount === undefined) return misplaced(path, 'is not where the read-only or pinning mount was planned (a folder on its path was replaced while the sandbox was being set up)')
    if (readOnly && !mount.mountOptions.includes('ro')) return misplaced(path, 'is not mounted read-only')
  }
  return 'ready'
}

/**
 * bwrap's own check of a `--bind-fd` (the object at the destination after
 * the mount must be the descriptor's) catches a symlink left in place: it
 * then exits before the command, with this message.
 */
const BWRAP_RACE = /^bwrap: Race condition binding dirfd.*$/m

/**
 * The error for a sandbox that bwrap stopped during its set-up because a
 * destination was swapped, when its output says so (`undefined` otherwise:
 * the exit status speaks for itself).
 *
 * @param output - What the sandbox wrote (bwrap's message).
 * @returns `TOOL_PATH_ESCAPE`, or `undefined`.
 * @internal
 */
export function explainSetupFailure(output: string): E_TOOL_PATH_ESCAPE | undefined {
  const message = BWRAP_RACE.exec(output)?.[0]
  if (message === undefined) return undefined
  return new E_TOOL_PATH_ESCAPE(
    `A folder on the path of a protected or pinned mount was replaced while the sandbox was being set up (${message.trim()}), ` +
      'so bubblewrap stopped and nothing ran. Another command may be changing folders in the root at the same time: wait for it, then run the command again',
    { details: { output } },
  )
}

function misplaced(path: string, why: string): E_TOOL_PATH_ESCAPE {
  return new E_TOOL_PATH_ESCAPE(
    `${path} ${why}, so it could not be protected; the sandbox was stopped and nothing ran. ` +
      'Another command may be changing folders in the root at the same time: wait for it, then run the command again',
    { details: { path } },
  )
}

/**
 * A seam for the specs, not an API: runs after a command's bwrap argument
 * vector is built (bind sources opened and checked) and before bwrap is
 * spawned, so a spec can swap a folder on a destination path at the one
 * moment a concurrent command could.
 *
 * @internal
 */
export const mountCheckSeam: { afterPlan?: ((expected: readonly ExpectedMount[]) => void) | undefined } = {}
