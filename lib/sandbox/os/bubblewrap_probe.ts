/**
 * Whether bubblewrap can run here: probed once per process, with the kit's
 * seccomp filter when the kernel takes it.
 *
 * @module
 */
import { spawn, spawnSync } from 'node:child_process'
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
let probing: Promise<BubblewrapSupport> | undefined

/** One bwrap run the probe asks for. */
interface Attempt {
  readonly bwrap: string
  readonly extra: readonly string[]
  readonly program: Uint8Array | undefined
}

/** How a bwrap run ended. */
interface Outcome {
  readonly ok: boolean
  readonly stderr: string
}

/** The probe's command line for one attempt; the seccomp program goes on stdin (bwrap reads it to EOF, then closes it). */
function probeArgs({ extra, program }: Attempt): string[] {
  const seccomp = program === undefined ? [] : ['--seccomp', '0']
  return [...BASE_FLAGS, ...kernelInterfaceFlags(), ...extra, ...seccomp, '--', '/bin/sh', '-c', 'exit 0']
}

const PROBE_TIMEOUT_MS = 10_000
const PROBE_ENV = { PATH: '/usr/bin:/bin' }

function tryBwrapSync(attempt: Attempt): Outcome {
  const { program } = attempt
  const result = spawnSync(attempt.bwrap, probeArgs(attempt), {
    stdio: [program === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'],
    ...(program === undefined ? {} : { input: program }),
    encoding: 'utf8',
    timeout: PROBE_TIMEOUT_MS,
    env: PROBE_ENV,
  })
  return { ok: result.status === 0, stderr: (result.stderr ?? '').trim() || (result.error?.message ?? '') }
}

function tryBwrapAsync(attempt: Attempt): Promise<Outcome> {
  const { program } = attempt
  return new Promise((resolve) => {
    let stderr = ''
    let failure = ''
    const child = spawn(attempt.bwrap, probeArgs(attempt), {
      stdio: [program === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'],
      timeout: PROBE_TIMEOUT_MS,
      env: PROBE_ENV,
    })
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
    })
    // bwrap may exit before reading all of stdin (a bad flag): that EPIPE is its answer, not the probe's.
    child.stdin?.on('error', () => undefined).end(program)
    child.once('error', (error) => {
      failure = error.message
    })
    child.once('close', (status, signal) => {
      // Killed at the deadline: say so, as spawnSync's ETIMEDOUT does for the synchronous probe.
      if (status === null && failure === '') failure = `bwrap did not finish within ${PROBE_TIMEOUT_MS} ms (${signal ?? 'killed'})`
      resolve({ ok: status === 0, stderr: stderr.trim() || failure })
    })
  })
}

/**
 * The probe's decisions, as a generator: it yields each bwrap run it needs
 * and is resumed with how that run ended, so one body serves the synchronous
 * probe and the asynchronous one.
 */
function* probeSteps(): Generator<Attempt, BubblewrapSupport, Outcome> {
  if (process.platform !== 'linux') {
    const reason = `bubblewrap needs Linux (this is ${process.platform})`
    return { bwrap: undefined, available: false, network: false, reason, seccomp: noFilter(reason), seccompProgram: undefined }
  }
  // TOOLSMITH_BWRAP names a bwrap outside PATH (or, set to a missing file, simulates a machine without one).
  const configured = process.env.TOOLSMITH_BWRAP
  const bwrap = configured ? (isExecutable(configured) ? configured : undefined) : findSystemExecutable('bwrap')
  if (bwrap === undefined) {
    const reason = configured ? `TOOLSMITH_BWRAP=${configured} is not an executable` : 'bubblewrap (`bwrap`) is not installed'
    return { bwrap, available: false, network: false, reason, seccomp: noFilter(reason), seccompProgram: undefined }
  }
  const filter = seccompSupport()
  let program = 'program' in filter ? filter.program : undefined
  let seccomp: SyscallFilterStatus = 'program' in filter ? { enabled: true, arch: filter.arch, denied: deniedOn(filter.arch), reason: undefined } : noFilter(filter.reason)
  // A kernel without seccomp filters (or a container that forbids them) still gets the sandbox, and says so.
  function* attempt(extra: string[]): Generator<Attempt, Outcome, Outcome> {
    const first = yield { bwrap: bwrap as string, extra, program }
    if (first.ok || program === undefined) return first
    const without = yield { bwrap: bwrap as string, extra, program: undefined }
    if (!without.ok) return first
    seccomp = noFilter(`bwrap cannot install a seccomp filter here: ${firstLine(first.stderr)}`)
    program = undefined
    return without
  }
  const full = yield* attempt(['--unshare-net'])
  if (full.ok) return { bwrap, available: true, network: true, reason: undefined, seccomp, seccompProgram: program }
  const withoutNetwork = yield* attempt([])
  return withoutNetwork.ok
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
}

/**
 * Probe (once per process, synchronously, ≈ 10–20 ms) whether bubblewrap is
 * installed and can create its namespaces here. `bwrap` is looked up on
 * `PATH` and in the system folders, or taken from the `TOOLSMITH_BWRAP`
 * environment variable (an absolute path) when that is set.
 *
 * @remarks
 * Called while {@link probeBubblewrapAsync} is still running, it probes
 * again on its own rather than wait (it cannot): the first answer is kept.
 *
 * @returns The cached support record.
 * @internal
 */
export function probeBubblewrap(): BubblewrapSupport {
  if (support !== undefined) return support
  const steps = probeSteps()
  let step = steps.next()
  while (!step.done) step = steps.next(tryBwrapSync(step.value))
  support = step.value
  return support
}

/**
 * The same probe without blocking the event loop: the bwrap runs go on in
 * child processes while the caller's other start-up work (loading the MCP
 * SDK, say) runs, and {@link probeBubblewrap} then answers from the cache.
 *
 * @returns The cached support record, once probed.
 * @internal
 */
export function probeBubblewrapAsync(): Promise<BubblewrapSupport> {
  if (support !== undefined) return Promise.resolve(support)
  probing ??= (async () => {
    const steps = probeSteps()
    let step = steps.next()
    while (!step.done) step = steps.next(await tryBwrapAsync(step.value))
    support ??= step.value
    return support
  })()
  return probing
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


