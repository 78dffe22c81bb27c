/**
 * File descriptors a spawned program would inherit by accident.
 *
 * Node opens everything it creates close-on-exec, but a descriptor the host
 * process itself inherited (from a supervisor, a test harness, a parent that
 * leaked a socket) stays open across `exec`, and neither libuv nor
 * bubblewrap closes it: the sandboxed program would get a live socket or
 * file at, say, fd 40. {@link childDescriptors} closes every such
 * descriptor in the child, through a shell exec'd before the program, so a
 * program only sees fds 0–2 and what the kit passes on purpose. Closing
 * them there rather than laying `/dev/null` over each in the `stdio` array
 * keeps that array short: execa, the kit's process layer, normalises it
 * entry by entry, against every other entry.
 *
 * @module
 */
import { accessSync, constants, fstatSync, openSync, readdirSync, readFileSync } from 'node:fs'

/** `O_CLOEXEC` as `/proc/self/fdinfo` prints it (octal flags). */
const O_CLOEXEC = 0o2000000

/**
 * What each descriptor was found to be, keyed by number: the open file's
 * identity (device, inode, mode) and whether it is close-on-exec. A number
 * whose identity is unchanged since the last scan is not read again (an
 * `fstat` instead of a `/proc` read); a reused number is re-read.
 */
const known = new Map<number, { identity: string; inheritable: boolean }>()

/**
 * The host's descriptors above 2 that are not close-on-exec: what a child
 * would inherit. Read from `/proc/self/fdinfo` (Linux); elsewhere, none are
 * known.
 *
 * @returns Ascending descriptor numbers.
 * @internal
 */
export function inheritableDescriptors(): number[] {
  let entries: string[]
  try {
    entries = readdirSync('/proc/self/fd')
  } catch {
    return []
  }
  const leaked: number[] = []
  const seen = new Set<number>()
  for (const entry of entries) {
    const fd = Number(entry)
    if (!(fd > 2)) continue
    try {
      const stats = fstatSync(fd)
      const identity = `${stats.dev}:${stats.ino}:${stats.mode}`
      seen.add(fd)
      let record = known.get(fd)
      if (record === undefined || record.identity !== identity) {
        const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'latin1'))
        record = { identity, inheritable: flags !== null && (Number.parseInt(flags[1]!, 8) & O_CLOEXEC) === 0 }
        known.set(fd, record)
      }
      if (record.inheritable) leaked.push(fd)
    } catch {
      // Closed meanwhile (or the fd of the directory listing itself).
    }
  }
  for (const fd of known.keys()) if (!seen.has(fd)) known.delete(fd)
  return leaked.sort((a, b) => a - b)
}

/** `/dev/null`, opened once (close-on-exec itself, Node's default) when bash is missing, kept for the process's life. */
let devNull: number | undefined

/** One entry of a child's `stdio` array, as the kit uses them. */
export type StdioEntry = 'ignore' | 'pipe' | number

/**
 * The descriptors of one child: its `stdio` array, and the program to exec
 * first when the host holds inheritable descriptors the child must not get.
 *
 * @internal
 */
export interface ChildDescriptors {
  /** stdin from `/dev/null`, stdout and stderr piped, each passed descriptor at its number. */
  readonly stdio: StdioEntry[]
  /**
   * Put in front of the command (`closer.file closer.args… file args…`):
   * closes the inherited descriptors, then execs the command in the same
   * process (same PID, group and session).
   */
  readonly closer?: { readonly file: string; readonly args: readonly string[] }
}

/** The closing shell: bash, since `/bin/sh` is often dash, which names only descriptors 0–9. */
const CLOSER_CANDIDATES = ['/usr/bin/bash', '/bin/bash']
let closerShell: string | null | undefined

function findCloserShell(): string | undefined {
  if (closerShell === undefined) {
    closerShell = null
    for (const candidate of CLOSER_CANDIDATES) {
      try {
        accessSync(candidate, constants.X_OK)
        closerShell = candidate
        break
      } catch {
        // the next one
      }
    }
  }
  return closerShell ?? undefined
}

/**
 * Lay out a child's descriptors: stdin from `/dev/null`, stdout and stderr
 * piped, each of `passed` at its number (the gaps `'ignore'`), and nothing
 * else the host would leak.
 *
 * @remarks
 * Without leaked descriptors (the usual case) that is all. With some, a
 * system bash (found at `/usr/bin/bash` or `/bin/bash`) is exec'd first to
 * close them (`exec N>&-`), then execs the command: one more exec, and
 * the array stays as short as the passed descriptors make it. Without
 * bash, `/dev/null` is laid over each leaked descriptor in the array
 * instead (`'ignore'` would leave it open: libuv only touches what it replaces).
 *
 * @param passed - Descriptors the child gets on purpose, by number (3 or more).
 * @returns The array and, when needed, the closer.
 * @internal
 */
export function childDescriptors(passed: ReadonlyMap<number, 'pipe' | number> = new Map()): ChildDescriptors {
  const stdio: StdioEntry[] = ['ignore', 'pipe', 'pipe']
  const place = (fd: number, entry: StdioEntry): void => {
    while (stdio.length < fd) stdio.push('ignore')
    stdio[fd] = entry
  }
  for (const [fd, entry] of passed) place(fd, entry)
  const leaked = inheritableDescriptors().filter((fd) => !passed.has(fd))
  if (leaked.length === 0) return { stdio }
  const shell = findCloserShell()
  if (shell !== undefined) {
    // The numbers come from the kit's own scan: digits only, safe in the script.
    const script = `exec ${leaked.map((fd) => `${fd}>&-`).join(' ')}; exec "$@"`
    return { stdio, closer: { file: shell, args: ['-c', script, 'toolsmith-fds'] } }
  }
  devNull ??= openSync('/dev/null', 'r+')
  for (const fd of leaked) if (fd !== devNull) place(fd, devNull)
  return { stdio }
}
