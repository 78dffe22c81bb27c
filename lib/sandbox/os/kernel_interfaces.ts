/**
 * The kernel's own control files inside the OS sandbox: read-only or
 * hidden, at least as much as runc and Docker do by default.
 *
 * bubblewrap's fresh `/proc` leaves `/proc/sys` writable, and the kernel
 * lets a writer whose effective uid is the host's root change a sysctl
 * from any user namespace: a kit running as root (as in CI and most
 * containers) would let a command rewrite `kernel/core_pattern` (code run
 * as host root at the next crash), `vm/drop_caches` or, with the host's
 * network, `net/ipv4/ip_forward`. The flags here bind those trees
 * read-only, mask the files that show the host's keys, timers and
 * hardware, and give `/sys/firmware` an empty read-only folder. `/sys`
 * itself is read-only already (it comes with `--ro-bind / /`).
 *
 * @module
 */
import { lstatSync, type Stats } from 'node:fs'

/**
 * Bound read-only onto themselves: readable as before, every open for
 * writing fails with `EROFS`. The source is the host's `/proc` (bubblewrap
 * resolves bind sources outside the new root); what a sysctl shows does
 * not depend on the mount but on the reader's namespaces (a network
 * sysctl shows the command's own network namespace), so reading is
 * unchanged.
 */
export const READ_ONLY_KERNEL_PATHS = ['/proc/sys', '/proc/sysrq-trigger', '/proc/irq', '/proc/bus', '/proc/fs'] as const

/**
 * Masked: a file becomes a read-only, `nodev` `/dev/null` (every open
 * fails with `EACCES`), a folder an empty read-only `tmpfs`. Docker's
 * default list: the kernel's memory image, the keys the kit's user can
 * see (the key names of the kit's session keyring), timer and scheduler
 * internals (addresses, other processes' timers), ACPI, SCSI and sound
 * hardware, firmware tables, power-capping energy counters.
 */
export const MASKED_KERNEL_PATHS = [
  '/proc/kcore',
  '/proc/keys',
  '/proc/timer_list',
  '/proc/sched_debug',
  '/proc/timer_stats',
  '/proc/latency_stats',
  '/proc/acpi',
  '/proc/scsi',
  '/proc/asound',
  '/sys/firmware',
  '/sys/devices/virtual/powercap',
] as const

let flags: readonly string[] | undefined

/**
 * The `bwrap` arguments that protect the kernel's interfaces, to follow
 * `--ro-bind / /` and `--proc /proc`. Only paths that exist on this kernel
 * are named (bwrap fails on a missing source or target); the host's
 * `/proc` stands for the fresh one, since both come from the same kernel.
 * Computed once per process.
 *
 * @returns The arguments (never changed after the first call).
 * @internal
 */
export function kernelInterfaceFlags(): readonly string[] {
  if (flags !== undefined) return flags
  const argv: string[] = []
  for (const target of READ_ONLY_KERNEL_PATHS) if (statOrUndefined(target) !== undefined) argv.push('--ro-bind', target, target)
  for (const target of MASKED_KERNEL_PATHS) {
    const stats = statOrUndefined(target)
    if (stats === undefined) continue
    if (stats.isDirectory()) argv.push('--tmpfs', target, '--remount-ro', target)
    else argv.push('--ro-bind', '/dev/null', target)
  }
  flags = Object.freeze(argv) as readonly string[]
  return flags
}

function statOrUndefined(target: string): Stats | undefined {
  try {
    return lstatSync(target, { throwIfNoEntry: false })
  } catch {
    return undefined // a folder on the way is unreadable: leave the path alone
  }
}
