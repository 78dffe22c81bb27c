/**
 * The sandbox engine: the one place that decides how a `bash` command is
 * confined on this machine, and says so truthfully.
 *
 * - `bubblewrap` — the OS sandbox (Linux with `bwrap`): read-only host,
 *   writable root, private `/tmp` and `/run`, masked credentials, read-only
 *   kernel settings, fresh PID and (unless the network is allowed) network
 *   namespaces, and the seccomp filter (handed over on {@link SECCOMP_FD}).
 * - `unshare` — the explicit opt-out (`isolation: { filesystem: false }`):
 *   util-linux `unshare` network and PID namespaces only; the program can
 *   read and write whatever the host user can.
 * - `direct` — the opt-out with no namespace at all (switched off, or the
 *   kernel refuses them).
 * - `unavailable` — the OS sandbox was asked for (the default) and cannot be
 *   had here: `bash` refuses with `TOOL_SANDBOX_UNAVAILABLE` rather than run
 *   unconfined.
 *
 * @module
 */
import { constants as osConstants } from 'node:os'
import { bubblewrapArgs, isVisibleInside, type BoundDescriptor, resolveWritablePaths } from './bubblewrap.js'
import { probeBubblewrap } from './bubblewrap_probe.js'
import { resolveReadablePaths, systemHostView, visibleSearchPath } from './host_view.js'
import { probeIsolation, warnNotIsolated, wrapInNamespaces } from './isolation.js'
import { checkSandboxMounts, explainSetupFailure, mountCheckSeam, type ExpectedMount, type MountVerdict } from './mount_check.js'
import type { SyscallFilterStatus } from './seccomp.js'

/** Which kernel isolation `bash` commands actually run under. */
export interface SandboxIsolation {
  /**
   * `true` only when commands run in the OS sandbox: the host file system
   * read-only outside the root and the writable paths, a private `/tmp` and
   * `/run`, credentials masked.
   */
  readonly filesystem: boolean
  /** `true` only when commands run in an empty network namespace (`allowNetwork: false` and the kernel allows it). */
  readonly network: boolean
  /** `true` only when commands run in their own PID namespace, so no descendant outlives a kill and `/proc` shows no host process. */
  readonly pid: boolean
}

/** Name of the mechanism that confines `bash` commands. */
export type SandboxEngineName = 'bubblewrap' | 'unshare' | 'direct' | 'unavailable'

/** What {@link selectEngine} needs to know of a sandbox. */
export interface EngineSettings {
  /** `Sandbox.allowNetwork === true`: the host's network, no namespace. */
  readonly allowNetwork: boolean
  /** `allowNetwork: { domains }`: a network namespace whose only way out is the proxy. */
  readonly allowlist?: boolean
  /** The `isolation` option, defaults applied. */
  readonly wanted: Readonly<{ filesystem: boolean; network: boolean; pid: boolean }>
  /** Absolute extra writable paths. */
  readonly writable: readonly string[]
  /** Paths relative to the root that stay read-only (a trailing `/` is allowed and ignored). */
  readonly readOnly: readonly string[]
  /** Absolute paths that read as empty. */
  readonly unreadable: readonly string[]
  /** `'system'`: the strict profile (only the system folders and `readable` of the host). */
  readonly readableHost?: 'all' | 'system'
  /** Absolute extra host paths visible in the strict profile. */
  readonly readable?: readonly string[]
  /** `Sandbox.env`: what the user set on purpose wins over the engine's defaults. */
  readonly explicitEnv: Readonly<Record<string, string>>
  /** Size of the private `/tmp` and `/run` (`limits.tmpBytes`); `undefined`: tmpfs's default (half the RAM). */
  readonly tmpBytes?: number | undefined
}

/** One command, as the engine receives it: already checked and resolved. */
export interface EngineCommand {
  /** Absolute path of the program (same inside and outside). */
  file: string
  /** Its arguments. */
  args: readonly string[]
  /** The real path of the sandbox root. */
  root: string
  /** Real path of the working directory, inside the root. */
  cwd: string
  /** Where the spawned process (bwrap, unshare or the program) starts on the host. */
  hostCwd: string
  /** The environment the program gets. */
  env: Record<string, string>
  /**
   * The protected paths present in the root (absolute), found by the
   * sandbox's scan: bound read-only. Without it, the `readOnly` settings
   * are taken as paths relative to the root.
   */
  readOnly?: readonly string[]
  /**
   * Run in this existing network namespace (the allowlist proxy's) instead
   * of a fresh one: the program to exec first and its arguments.
   */
  join?: {
    readonly file: string
    readonly args: readonly string[]
    /** Host files to mount read-only inside (source → target). */
    readonly files: ReadonlyArray<{ readonly source: string; readonly target: string }>
  }
}

/**
 * Data the spawned process reads from an extra descriptor: a pipe at `fd`,
 * written and closed right after the spawn. Not close-on-exec, so it
 * survives every program that execs the next one (`nsenter`, a wrapper
 * shell's `exec "$@"`) until the one that reads it.
 */
export interface LaunchInput {
  /** The descriptor number in the child (3 or more). */
  readonly fd: number
  /** Everything there is to read; the reader sees end-of-file after it. */
  readonly data: Uint8Array
}

/** The descriptor bwrap reads the seccomp program from. */
export const SECCOMP_FD = 3

/** bwrap's `--block-fd` (the child reads one byte before running the command) and `--info-fd` (bwrap writes the child's PID). */
const GATE_FDS = { blockFd: 4, infoFd: 5 } as const

/**
 * A command held after the sandbox's set-up until its mounts are checked:
 * the spawn reads `{"child-pid": N}` from `infoFd`, polls `check(N)` until
 * it is no longer `'pending'`, then writes one byte to `blockFd` to let the
 * command run (`'ready'`) or kills the sandbox and fails the call (an error).
 */
export interface LaunchGate {
  /** The descriptor in the child that bwrap blocks on. */
  readonly blockFd: number
  /** The descriptor in the child that bwrap writes its JSON information to. */
  readonly infoFd: number
  /** Look once at the child's mounts. */
  check(childPid: number): MountVerdict
  /** The error for a sandbox bwrap stopped before the release, when its output says why in the kit's terms. */
  explainEarlyExit?(output: string): Error | undefined
}

/** What to spawn for a command. */
export interface LaunchPlan {
  file: string
  args: string[]
  cwd: string
  env: Record<string, string>
  /** Killing the spawned process's group takes every process of the command down (PID namespace). */
  contained: boolean
  /** Extra descriptors to hand the child (the seccomp program). */
  inputs?: readonly LaunchInput[]
  /**
   * Host descriptors the child gets at fixed numbers (bind sources of the
   * mount plan); `runBounded` closes the kit's copies once the child is spawned.
   */
  descriptors?: readonly BoundDescriptor[]
  /** Hold the command until its mounts are checked (the OS sandbox, when a mount lands inside a writable place). */
  gate?: LaunchGate
}

/** An exit status as the engine reports it. */
export interface CommandStatus {
  exitCode: number | null
  signal: string | null
  /** Words for the message when the status came through a layer that blurs it. */
  hint: string
}

/** The engine chosen for a sandbox. */
export interface SandboxEngine {
  readonly name: SandboxEngineName
  readonly isolation: SandboxIsolation
  /** Why `bash` must refuse (only for `unavailable`). */
  readonly unavailableReason: string | undefined
  /** Whether commands run under the seccomp filter (only the `bubblewrap` engine installs it). */
  readonly seccomp: SyscallFilterStatus
  /** Turn a checked command into what to spawn. */
  launch(command: EngineCommand): LaunchPlan
  /** Whether the program, found on the host, can be started where the command runs. */
  canStart(file: string, root: string): boolean
  /** The `PATH` to look a program up in: without the folders a command cannot see (strict profile only). */
  searchPath?(searchPath: string, root: string): string
  /** Read the spawned process's status as the program's own. */
  status(exitCode: number | null, signal: string | null): CommandStatus
}

const NOTHING: SandboxIsolation = Object.freeze({ filesystem: false, network: false, pid: false })
const NO_FILTER: SyscallFilterStatus = Object.freeze({
  enabled: false,
  arch: undefined,
  denied: [],
  reason: 'only the OS sandbox (bubblewrap) installs the seccomp filter',
})

function signalName(number: number): string | undefined {
  return Object.entries(osConstants.signals).find(([, value]) => value === number)?.[0]
}

/**
 * Choose the engine for `settings` on this machine (probing it once per
 * process) and emit the one-time warnings for layers the kernel refuses.
 *
 * @param settings - The sandbox's network, isolation and path options.
 * @returns The engine.
 * @internal
 */
export function selectEngine(settings: EngineSettings): SandboxEngine {
  return settings.wanted.filesystem ? bubblewrapEngine(settings) : namespaceEngine(settings)
}

function bubblewrapEngine(settings: EngineSettings): SandboxEngine {
  const probe = probeBubblewrap()
  if (!probe.available || probe.bwrap === undefined) {
    return {
      name: 'unavailable',
      isolation: NOTHING,
      unavailableReason: probe.reason,
      seccomp: probe.seccomp,
      launch: () => {
        throw new Error('the OS sandbox is unavailable')
      },
      canStart: () => false,
      status: (exitCode, signal) => ({ exitCode, signal, hint: '' }),
    }
  }
  // The allowlist needs a namespace too: the proxy is its only way out.
  const wantNetwork = (!settings.allowNetwork || settings.allowlist === true) && settings.wanted.network
  if (wantNetwork && !probe.network) warnNotIsolated('network', probe.reason)
  const unshareNetwork = wantNetwork && probe.network
  const bwrap = probe.bwrap
  const seccompProgram = probe.seccompProgram
  const writable = resolveWritablePaths(settings.writable)
  const readable = settings.readableHost === 'system' ? resolveReadablePaths(settings.readable ?? []) : undefined
  return {
    name: 'bubblewrap',
    // The PID namespace is not optional here: it is what makes /proc private
    // and the kit's own process (and its environment) unreachable.
    isolation: Object.freeze({ filesystem: true, network: unshareNetwork, pid: true }),
    unavailableReason: undefined,
    seccomp: probe.seccomp,
    launch: (command) => {
      const descriptors: BoundDescriptor[] = []
      const expected: ExpectedMount[] = []
      const args = bubblewrapArgs(
        {
          root: command.root,
          cwd: command.cwd,
          // A joined namespace is already cut off: bwrap must not make another.
          unshareNetwork: unshareNetwork && command.join === undefined,
          joinedNetwork: command.join !== undefined,
          files: command.join?.files ?? [],
          writable,
          readOnly: command.readOnly ?? settings.readOnly.map((entry) => `${command.root}/${entry.replace(/\/+$/, '')}`),
          unreadable: settings.unreadable,
          seccompFd: seccompProgram === undefined ? undefined : SECCOMP_FD,
          hostView: readable === undefined ? undefined : systemHostView(readable),
          tmpBytes: settings.tmpBytes,
          gate: GATE_FDS,
        },
        command.file,
        command.args,
        descriptors,
        expected,
      )
      mountCheckSeam.afterPlan?.(expected)
      return {
        file: command.join?.file ?? bwrap,
        args: command.join ? [...command.join.args, bwrap, ...args] : args,
        cwd: command.hostCwd,
        env: withPrivateTmp(command.env, settings.explicitEnv),
        contained: true,
        ...(seccompProgram === undefined ? {} : { inputs: [{ fd: SECCOMP_FD, data: seccompProgram }] }),
        ...(descriptors.length === 0 ? {} : { descriptors }),
        ...(expected.length === 0 ? {} : { gate: { ...GATE_FDS, check: (childPid: number) => checkSandboxMounts(childPid, expected), explainEarlyExit: explainSetupFailure } }),
      }
    },
    canStart: (file, root) =>
      isVisibleInside(file, { root, writable, unreadable: settings.unreadable, hostView: readable === undefined ? undefined : systemHostView(readable) }),
    ...(readable === undefined ? {} : { searchPath: (searchPath: string, root: string) => visibleSearchPath(searchPath, root, writable, readable) }),
    // bwrap's init reports a death by signal N as 128 + N (like a shell).
    // Read it as the signal: `exit 137` on purpose is far rarer than a kill.
    status: (exitCode, signal) => {
      if (exitCode !== null && exitCode > 128 && exitCode <= 128 + 64) {
        const name = signalName(exitCode - 128)
        if (name !== undefined) return { exitCode: null, signal: name, hint: '' }
      }
      return { exitCode, signal, hint: '' }
    },
  }
}

const TMP_VARIABLES = ['TMPDIR', 'TMP', 'TEMP'] as const

/**
 * The host's temp folder is read-only (or hidden) inside the OS sandbox:
 * point the temp variables inherited from the host at the private `/tmp`,
 * unless `Sandbox.env` set them on purpose.
 */
function withPrivateTmp(env: Record<string, string>, explicit: Readonly<Record<string, string>>): Record<string, string> {
  for (const name of TMP_VARIABLES) if (name in env && !(name in explicit)) env[name] = '/tmp'
  return env
}

function namespaceEngine(settings: EngineSettings): SandboxEngine {
  const wantNetwork = !settings.allowNetwork && settings.wanted.network
  const wantPid = settings.wanted.pid
  let network = false
  let pid = false
  if (wantNetwork || wantPid) {
    const probe = probeIsolation()
    if (wantNetwork && !probe.network) warnNotIsolated('network', probe.reason)
    if (wantPid && !probe.pid) warnNotIsolated('pid', probe.reason)
    network = wantNetwork && probe.network
    pid = wantPid && probe.pid
  }
  return {
    name: network || pid ? 'unshare' : 'direct',
    isolation: Object.freeze({ filesystem: false, network, pid }),
    unavailableReason: undefined,
    seccomp: NO_FILTER,
    launch: (command) => {
      const wrapped = wrapInNamespaces(command.file, command.args, { network, pid })
      return { file: wrapped.file, args: wrapped.args, cwd: command.hostCwd, env: command.env, contained: pid }
    },
    canStart: () => true,
    // Inside unshare's PID namespace the status comes through a shell, which
    // reports a death by signal N as 128 + N: say what it probably means, claim nothing.
    status: (exitCode, signal) => {
      if (!pid || exitCode === null || exitCode <= 128 || exitCode > 128 + 64) return { exitCode, signal, hint: '' }
      const name = signalName(exitCode - 128)
      return {
        exitCode,
        signal,
        hint: name ? ` (probably killed by ${name}: the status came through a shell, where 128 + N also means signal N)` : '',
      }
    },
  }
}
