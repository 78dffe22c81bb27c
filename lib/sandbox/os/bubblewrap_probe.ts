/**
 * Whether bubblewrap can run here: probed once per process, with the kit's
 * seccomp filter when the kernel takes it.
 *
 * @module
 */
import { spawnSync } from 'node:child_process'
import { accessSync, constants, statSync } from 'node:fs'
import path from 'node:path'
import { BASE_FLAGS } from './bubblewrap.js'
import { findSystemExecutable } from './isolation.js'
import { kernelInterfaceFlags } from './kernel_interfaces.js'
import { deniedOn, seccompSupport, type SyscallFilterStatus } from './seccomp.js'

/** What bubblewrap can do on this machine, probed once per process. */
export interface BubblewrapSupport {
  /** Absolute path of `bwrap`, when installed. */
  readonly bwrap: string | undefined
  /** A sandbox with user, mount and PID namespaces could be created. */
  readonly available: boolean
  /** A network namespace could be created too. */
  readonly network: boolean
  /** Why it is unavailable (bwrap's own words where it said any). */
  readonly reason: string | undefined
  /** Whether commands run under the kit's seccomp filter ({@link seccompSupport}). */
  readonly seccomp: SyscallFilterStatus
  /** The compiled filter, when {@link BubblewrapSupport.seccomp} is enabled. */
  readonly seccompProgram: Uint8Array | undefined
}


let support: BubblewrapSupport | undefined

function tryBwrap(bwrap: string, extra: string[], program: Uint8Array | undefined): { ok: boolean; stderr: string } {
  // The probe hands the seccomp program over on stdin (bwrap reads it to EOF, then closes it).
  const seccomp = program === undefined ? [] : ['--seccomp', '0']
  const result = spawnSync(bwrap, [...BASE_FLAGS, ...kernelInterfaceFlags(), ...extra, ...seccomp, '--', '/bin/sh', '-c', 'exit 0'], {
    stdio: [program === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'],
    ...(program === undefined ? {} : { input: program }),
    encoding: 'utf8',
    timeout: 10_000,
    env: { PATH: '/usr/bin:/bin' },
  })
  return { ok: result.status === 0, stderr: (result.stderr ?? '').trim() || (result.error?.message ?? '') }
}

/**
 * Probe (once per process, synchronously, ≈ 10–20 ms) whether bubblewrap is
 * installed and can create its namespaces here. `bwrap` is looked up on
 * `PATH` and in the system folders, or taken from the `TOOLSMITH_BWRAP`
 * environment variable (an absolute path) when that is set.
 *
 * @returns The cached support record.
 * @internal
 */
export function probeBubblewrap(): BubblewrapSupport {
  if (support !== undefined) return support
  if (process.platform !== 'linux') {
    const reason = `bubblewrap needs Linux (this is ${process.platform})`
    support = { bwrap: undefined, available: false, network: false, reason, seccomp: noFilter(reason), seccompProgram: undefined }
    return support
  }
  // TOOLSMITH_BWRAP names a bwrap outside PATH (or, set to a missing file, simulates a machine without one).
  const configured = process.env.TOOLSMITH_BWRAP
  const bwrap = configured ? (isExecutable(configured) ? configured : undefined) : findSystemExecutable('bwrap')
  if (bwrap === undefined) {
    const reason = configured ? `TOOLSMITH_BWRAP=${configured} is not an executable` : 'bubblewrap (`bwrap`) is not installed'
    support = { bwrap, available: false, network: false, reason, seccomp: noFilter(reason), seccompProgram: undefined }
    return support
  }
  const filter = seccompSupport()
  let program = 'program' in filter ? filter.program : undefined
  let seccomp: SyscallFilterStatus = 'program' in filter ? { enabled: true, arch: filter.arch, denied: deniedOn(filter.arch), reason: undefined } : noFilter(filter.reason)
  // A kernel without seccomp filters (or a container that forbids them) still gets the sandbox, and says so.
  const attempt = (extra: string[]): { ok: boolean; stderr: string } => {
    const first = tryBwrap(bwrap, extra, program)
    if (first.ok || program === undefined) return first
    const without = tryBwrap(bwrap, extra, undefined)
    if (!without.ok) return first
    seccomp = noFilter(`bwrap cannot install a seccomp filter here: ${firstLine(first.stderr)}`)
    program = undefined
    return without
  }
  const full = attempt(['--unshare-net'])
  if (full.ok) {
    support = { bwrap, available: true, network: true, reason: undefined, seccomp, seccompProgram: program }
    return support
  }
  const withoutNetwork = attempt([])
  support = withoutNetwork.ok
    ? {
        bwrap,
        available: true,
        network: false,
        reason: `bwrap cannot create a network namespace here: ${firstLine(full.stderr)}`,
        seccomp,
        seccompProgram: program,
      }
    : {
        bwrap,
        available: false,
        network: false,
        seccomp: noFilter('the OS sandbox is unavailable'),
        seccompProgram: undefined,
        reason:
          `bwrap is installed but cannot create its namespaces here (${firstLine(withoutNetwork.stderr)}); ` +
          'unprivileged user namespaces may be disabled (see /proc/sys/kernel/unprivileged_userns_clone, ' +
          '/proc/sys/user/max_user_namespaces, or an AppArmor restriction on user namespaces)',
      }
  return support
}

function noFilter(reason: string): SyscallFilterStatus {
  return { enabled: false, arch: undefined, denied: [], reason }
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK)
    return path.isAbsolute(file) && statSync(file).isFile()
  } catch {
    return false
  }
}

function firstLine(text: string): string {
  return text.split('\n')[0] || 'no message'
}


