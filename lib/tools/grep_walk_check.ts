/**
 * Whether an unconfined rg walk can be trusted afterwards: no directory on
 * a printed path changed while rg ran, so every name rg opened led where it
 * leads now, inside the searched directory.
 *
 * @remarks
 * rg walks by path, and an entry swapped for a symlink between its listing
 * and its open is followed. Such a swap changes the directory holding the
 * entry, and a directory's ctime records every change of its entries; no
 * program can set it back. Starting from the searched directory (held open,
 * so itself never swapped): if it did not change since before rg started,
 * each entry rg opened in it is the one there now; the same holds one level
 * down, and so on to the file. A change at any level shows in the first
 * directory that changed, which is reached unchanged. A directory changed
 * within {@link QUIET_MS} before rg started counts as changed (timestamp
 * granularity), as does one on another device; when the check fails, the
 * kit searches again in the search jail. The timestamps must come from this
 * machine's clock, so only local file systems take this path, and a clock
 * set back by more than {@link QUIET_MS} during a search defeats it.
 *
 * @module
 */
import { fstatSync, statSync, statfsSync } from 'node:fs'
import { E_TOOL_ABORTED, E_TOOL_TIMEOUT } from '../exceptions.js'
import type { BoundedRunResult } from '../sandbox/process/process.js'

/** A directory changed less than this long before rg started counts as changed during the walk. */
const QUIET_MS = 2_000

/** `statfs` magic numbers of local file systems, whose timestamps come from this kernel's clock. */
const LOCAL_FILE_SYSTEMS = new Set([
  0xef53, // ext2/3/4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x01021994, // tmpfs
  0x794c7630, // overlayfs
  0x2fc12fc1, // zfs
  0xf2f52010, // f2fs
])

/**
 * Whether the directory open on `fd` is on a local file system (see the module notes).
 *
 * @param fd - The searched directory's descriptor.
 * @returns `false` where it cannot be told (no `/proc`, no `statfs`).
 * @internal
 */
export function onLocalFileSystem(fd: number): boolean {
  try {
    return LOCAL_FILE_SYSTEMS.has(statfsSync(`/proc/self/fd/${fd}`).type)
  } catch {
    return false
  }
}

/**
 * The paths a line of rg output may start with: up to its first NUL
 * (`--null`), or else up to each `:` that a line number and `:` follow (a
 * file name may itself hold `:12:`, so every such prefix is a candidate).
 */
function candidatePaths(line: string): string[] {
  const nul = line.indexOf('\0')
  if (nul !== -1) return [line.slice(0, nul)]
  const found: string[] = []
  for (const match of line.matchAll(/:(?=\d+:)/g)) found.push(line.slice(0, match.index))
  return found
}

/**
 * Whether no directory on a path rg printed changed since {@link QUIET_MS}
 * before `startedAt` (see the module notes).
 *
 * @param output - rg's output as captured (paths as rg printed them).
 * @param fd - The searched directory's descriptor.
 * @param hostPath - Maps a printed path to `/proc/self/fd/<fd>/<path inside>`, or to `'\0'` for a form rg does not print.
 * @param startedAt - `Date.now()` before rg was started.
 * @returns `true` when the output can be trusted.
 * @internal
 */
export function walkUnchanged(output: string, fd: number, hostPath: (printed: string) => string, startedAt: number): boolean {
  const limit = startedAt - QUIET_MS
  const base = `/proc/self/fd/${fd}/`
  let root: { dev: number; ctimeMs: number }
  try {
    root = fstatSync(fd)
  } catch {
    return false
  }
  if (!(root.ctimeMs < limit)) return false
  const checked = new Set<string>()
  for (const line of output.split('\n')) {
    for (const printed of candidatePaths(line)) {
      const host = hostPath(printed)
      if (!host.startsWith(base)) continue
      // Every directory between the searched one and the file, shallowest first.
      for (let slash = host.indexOf('/', base.length); slash !== -1; slash = host.indexOf('/', slash + 1)) {
        const directory = host.slice(0, slash)
        if (checked.has(directory)) continue
        checked.add(directory)
        let stats: { dev: number; ctimeMs: number }
        try {
          stats = statSync(directory)
        } catch {
          // Not there now: if it was on rg's path, the directory above it
          // changed, and that one is checked (a candidate that was never a
          // path costs nothing).
          continue
        }
        if (stats.dev !== root.dev || !(stats.ctimeMs < limit)) return false
      }
    }
  }
  return true
}

/**
 * Run rg; when the run is unconfined (not `jailed`) and ends in a timeout
 * or an abort, its partial output is withheld unless the walk so far is
 * shown unchanged (it is not searched again in the jail: the deadline or
 * the cancel stands).
 *
 * @param jailed - The run is in the search jail (or no check is possible): errors pass as they are.
 * @param fd - The searched directory's descriptor.
 * @param hostPath - See {@link walkUnchanged}.
 * @param startedAt - `Date.now()` before rg was started.
 * @param start - Starts the run.
 * @returns The run's result.
 * @internal
 */
export async function runJailedOrChecked(
  jailed: boolean,
  fd: number | undefined,
  hostPath: (printed: string) => string,
  startedAt: number,
  start: () => Promise<BoundedRunResult>,
): Promise<BoundedRunResult> {
  try {
    return await start()
  } catch (error) {
    const details = (error as { details?: { output?: unknown; timeoutMs?: unknown } }).details
    const output = details?.output
    if (jailed || fd === undefined || typeof output !== 'string' || output === '' || walkUnchanged(output, fd, hostPath, startedAt)) throw error
    const withheld = { ...details, output: '' }
    const note = 'its partial output is not shown: a directory in the search changed while rg ran'
    if (error instanceof E_TOOL_TIMEOUT) {
      throw new E_TOOL_TIMEOUT(`grep did not finish within ${String(details?.timeoutMs)} ms and was killed; ${note}`, { details: withheld })
    }
    if (error instanceof E_TOOL_ABORTED) {
      throw new E_TOOL_ABORTED(`grep was cancelled; ${note}`, { cause: error.cause, details: withheld })
    }
    throw error
  }
}

/**
 * Whether an unconfined run's result can be returned: rg met no error (an
 * entry that vanished mid-walk, whose name is in the message) and no
 * directory on a printed path changed while it ran.
 *
 * @param result - The run's result.
 * @param fd - The searched directory's descriptor.
 * @param hostPath - See {@link walkUnchanged}.
 * @param startedAt - `Date.now()` before rg was started.
 * @returns `true` when it can be returned as it is.
 * @internal
 */
export function trustworthy(result: BoundedRunResult, fd: number, hostPath: (printed: string) => string, startedAt: number): boolean {
  if (result.exitCode === 1 && result.outputBytes === 0) return true
  return result.exitCode === 0 && walkUnchanged(result.output, fd, hostPath, startedAt)
}
