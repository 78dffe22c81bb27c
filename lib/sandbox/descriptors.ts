/**
 * File descriptors a spawned program would inherit by accident.
 *
 * Node opens everything it creates close-on-exec, but a descriptor the host
 * process itself inherited (from a supervisor, a test harness, a parent that
 * leaked a socket) stays open across `exec`, and neither libuv nor
 * bubblewrap closes it: the sandboxed program would get a live socket or
 * file at, say, fd 40. {@link stdioWithoutLeaks} lays `/dev/null` over every
 * such descriptor in the child, so a program only ever sees fds 0–2.
 *
 * @module
 */
import { fstatSync, openSync, readdirSync, readFileSync } from 'node:fs'

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

let devNull: number | undefined

/**
 * The `stdio` array for `child_process.spawn`: stdin from `/dev/null`,
 * stdout and stderr piped, and `/dev/null` over every inherited descriptor
 * (`'ignore'` would leave it open: libuv only closes what it replaces).
 *
 * @returns The array to pass as `stdio`.
 * @internal
 */
export function stdioWithoutLeaks(): Array<'ignore' | 'pipe' | number> {
  const stdio: Array<'ignore' | 'pipe' | number> = ['ignore', 'pipe', 'pipe']
  const leaked = inheritableDescriptors()
  if (leaked.length === 0) return stdio
  // Opened once, close-on-exec itself (Node's default), kept for the process's life.
  devNull ??= openSync('/dev/null', 'r+')
  for (const fd of leaked) {
    if (fd === devNull) continue
    while (stdio.length < fd) stdio.push('ignore')
    stdio[fd] = devNull
  }
  return stdio
}
