/**
 * Resource limits of `bash` commands in the OS sandbox: how many processes
 * at once, how much memory, how large the private `/tmp` and `/run`, how
 * large a file. Each has a default that ordinary work (a test suite with
 * workers, compilers, `npm test`, `tsc`) does not reach, each can be raised
 * or switched off, and a command that hits one fails with
 * `TOOL_LIMIT_EXCEEDED` naming the limit and how to raise it.
 *
 * @remarks
 * Processes and memory are bounded by a cgroup per command where the kit
 * can make one ({@link probeCgroups}: root, or a delegated hierarchy; cgroup
 * v1 or v2), else by rlimits, which are weaker (per process or per user).
 * The private `/tmp` and `/run` are tmpfs mounts of the given size; the
 * file size is `RLIMIT_FSIZE`. A small `/bin/sh` wrapper in front of `bwrap`
 * enters the cgroup and sets the rlimits before anything can fork, then
 * execs `bwrap`: every descendant starts inside. It closes no descriptor.
 *
 * @module
 */
import { statfsSync } from 'node:fs'
import { E_TOOL_LIMIT_EXCEEDED } from '../../exceptions.js'
import { validator, type Schema } from '../../validation.js'
import { CommandCgroup, probeCgroups, type CgroupEvents } from './cgroups.js'
import type { CommandStatus, LaunchPlan } from './engine.js'

const KiB = 1024
const MiB = 1024 * KiB
const GiB = 1024 * MiB

/**
 * The `limits` sandbox option: each value is a number, or `false` to switch
 * that limit off. Applies to `bash` commands in the OS sandbox (bubblewrap).
 */
export interface SandboxLimitsOptions {
  /**
   * Processes (and threads) the command may have at once, all its
   * descendants together (8 … 4,194,304). A cgroup's `pids.max`; without a
   * cgroup `RLIMIT_NPROC`, which counts every process of the user (and does
   * not bind root). A command that reaches it is killed.
   *
   * @defaultValue 1024
   */
  processes?: number | false
  /**
   * Memory in bytes (at least 32 MiB), all the command's processes together,
   * swap not allowed: a cgroup's memory limit; at the limit the kernel kills
   * a process of the command. Without a cgroup `RLIMIT_DATA`, per process
   * (an allocation fails instead).
   *
   * @defaultValue 4 GiB (4_294_967_296)
   */
  memoryBytes?: number | false
  /**
   * Size in bytes (at least 1 MiB) of the private `/tmp`, and of the
   * private `/run`: each is a tmpfs that holds at most this much (it lives
   * in memory). A write beyond fails with `ENOSPC`.
   *
   * @defaultValue 1 GiB (1_073_741_824)
   */
  tmpBytes?: number | false
  /**
   * Largest file in bytes (at least 1 MiB) a command may write, anywhere:
   * `RLIMIT_FSIZE`, rounded up to 512 bytes. A write beyond kills the
   * writer with `SIGXFSZ` (or fails with `EFBIG` if it ignores the signal).
   *
   * @defaultValue 4 GiB (4_294_967_296)
   */
  fileSizeBytes?: number | false
}

/** {@link SandboxLimitsOptions} with every default applied. */
export type SandboxLimits = Readonly<Required<SandboxLimitsOptions>>

/** The defaults of {@link SandboxLimitsOptions}: far above what a build or a test suite needs on a small machine. */
export const DEFAULT_LIMITS: SandboxLimits = Object.freeze({
  processes: 1024,
  memoryBytes: 4 * GiB,
  tmpBytes: 1 * GiB,
  fileSizeBytes: 4 * GiB,
})

/** The name of a limit, as `TOOL_LIMIT_EXCEEDED` reports it in `details.limit`. */
export type LimitName = 'processes' | 'memory' | 'tmp' | 'fileSize'

/** How a limit is enforced on this machine. */
export type LimitMechanism = 'cgroup v1' | 'cgroup v2' | 'rlimit' | 'tmpfs' | 'none' | 'off'

/** One limit as {@link Sandbox.enforcement} reports it. */
export interface LimitEnforcement {
  /** The value (a count or bytes), or `false` when switched off. */
  readonly value: number | false
  /** What enforces it here (`none`: nothing can, see `detail`). */
  readonly mechanism: LimitMechanism
  /** In words: what is bounded, and why it is weaker or missing when it is. */
  readonly detail: string
}

/** The four limits as {@link Sandbox.enforcement} reports them. */
export interface SandboxLimitsEnforcement {
  /** {@link SandboxLimitsOptions.processes}. */
  readonly processes: LimitEnforcement
  /** {@link SandboxLimitsOptions.memoryBytes}. */
  readonly memoryBytes: LimitEnforcement
  /** {@link SandboxLimitsOptions.tmpBytes}. */
  readonly tmpBytes: LimitEnforcement
  /** {@link SandboxLimitsOptions.fileSizeBytes}. */
  readonly fileSizeBytes: LimitEnforcement
}

function limitSchema(min: number, max: number, fallback: number): Schema {
  // allow(false): the one value besides a number, accepted before the number rules (whose messages name the option).
  return validator.number().integer().min(min).max(max).allow(false).default(fallback)
}

/**
 * The joi schema of the `limits` option (a range error names the option,
 * e.g. `"limits.processes"`): built by the sandbox options' schema, on its
 * first use.
 *
 * @returns A new schema.
 * @internal
 */
export function limitsSchema(): Schema<SandboxLimitsOptions> {
  return validator
  .object({
    processes: limitSchema(8, 4_194_304, DEFAULT_LIMITS.processes as number),
    memoryBytes: limitSchema(32 * MiB, Number.MAX_SAFE_INTEGER, DEFAULT_LIMITS.memoryBytes as number),
    tmpBytes: limitSchema(1 * MiB, Number.MAX_SAFE_INTEGER, DEFAULT_LIMITS.tmpBytes as number),
    fileSizeBytes: limitSchema(1 * MiB, Number.MAX_SAFE_INTEGER, DEFAULT_LIMITS.fileSizeBytes as number),
  })
    .unknown(false)
    .default(() => ({ ...DEFAULT_LIMITS }))
}

/**
 * A byte count for people: `4 GiB`, `1.5 MiB`, `100 bytes`.
 *
 * @param bytes - A count.
 * @returns The text.
 * @internal
 */
export function formatBytes(bytes: number): string {
  for (const [unit, size] of [['GiB', GiB], ['MiB', MiB], ['KiB', KiB]] as const) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(2))} ${unit}`
  }
  return `${bytes} bytes`
}

function isRoot(): boolean {
  return process.getuid?.() === 0
}

/**
 * What enforces each limit for commands of an engine.
 *
 * @param limits - The sandbox's limits.
 * @param osSandbox - The engine is bubblewrap (limits apply only there).
 * @returns One record per limit.
 * @internal
 */
export function limitsEnforcement(limits: SandboxLimits, osSandbox: boolean): SandboxLimitsEnforcement {
  const entry = (value: number | false, mechanism: LimitMechanism, detail: string): LimitEnforcement =>
    Object.freeze(value === false ? { value, mechanism: 'off' as const, detail: 'switched off' } : { value, mechanism, detail })
  if (!osSandbox) {
    const none = (value: number | false) => entry(value, 'none', 'limits apply in the OS sandbox (bubblewrap) only')
    return Object.freeze({
      processes: none(limits.processes),
      memoryBytes: none(limits.memoryBytes),
      tmpBytes: none(limits.tmpBytes),
      fileSizeBytes: none(limits.fileSizeBytes),
    })
  }
  const { slots, reason } = limits.processes === false && limits.memoryBytes === false ? { slots: {}, reason: undefined } : probeCgroups()
  const why = reason === undefined ? '' : `; no cgroup: ${reason}`
  const processes = slots.pids
    ? entry(limits.processes, `cgroup ${slots.pids.version}`, "pids.max of the command's own cgroup; the kit kills a command that reaches it")
    : isRoot()
      ? entry(limits.processes, 'none', `RLIMIT_NPROC does not bind root${why}`)
      : entry(limits.processes, 'rlimit', `RLIMIT_NPROC: counts every process of this user, not only the command's${why}`)
  const memoryBytes = slots.memory
    ? entry(limits.memoryBytes, `cgroup ${slots.memory.version}`, "all the command's processes together, no swap; the kernel kills at the limit")
    : entry(limits.memoryBytes, 'rlimit', `RLIMIT_DATA: per process, not the command as a whole${why}`)
  return Object.freeze({
    processes,
    memoryBytes,
    tmpBytes: entry(limits.tmpBytes, 'tmpfs', 'their size; they live in memory, and a write beyond fails with "No space left on device"'),
    fileSizeBytes: entry(limits.fileSizeBytes, 'rlimit', 'RLIMIT_FSIZE, any file the command writes; a write beyond gets SIGXFSZ'),
  })
}

/**
 * What the wrapper runs: write its own pid into each `cgroup.procs` named
 * before `--` (so `bwrap` and all it starts are inside before the first
 * fork), set the rlimits (hard and soft), then exec the rest. Exit 125 when
 * either fails. dash's `ulimit`: `-f` in 512-byte blocks, `-d` in KiB, `-p`
 * processes.
 *
 * @param ulimits - `ulimit` arguments, e.g. `-f 8192` (numbers only).
 * @returns The script for `/bin/sh -c`.
 * @internal
 */
export function limitWrapperScript(ulimits: readonly string[]): string {
  return (
    'while [ "$1" != -- ]; do { echo $$ >"$1"; } 2>/dev/null || { echo "toolsmith: cannot enter the cgroup $1" >&2; exit 125; }; shift; done; shift; ' +
    ulimits.map((limit) => `ulimit ${limit} || exit 125; `).join('') +
    'exec "$@"'
  )
}

/** The program that runs {@link limitWrapperScript}: POSIX guarantees it. */
export const LIMIT_WRAPPER_SHELL = '/bin/sh'

/**
 * The limits of one command: its cgroup (if any), the wrapper that puts the
 * command in it, the watch that stops a fork bomb, and the counters read
 * after it.
 *
 * @internal
 */
export class CommandLimits {
  readonly #limits: SandboxLimits
  readonly #cgroup: CommandCgroup | undefined
  readonly #ulimits: string[]
  #stoppedForProcesses = false

  /**
   * Create the command's cgroup now (it must exist before the spawn).
   *
   * @param limits - The sandbox's limits.
   * @throws The file system error when the cgroup cannot be made.
   */
  constructor(limits: SandboxLimits) {
    this.#limits = limits
    this.#cgroup = CommandCgroup.create({
      processes: limits.processes === false ? undefined : limits.processes,
      memoryBytes: limits.memoryBytes === false ? undefined : limits.memoryBytes,
    })
    const ulimits: string[] = []
    if (limits.fileSizeBytes !== false) ulimits.push(`-f ${Math.ceil(limits.fileSizeBytes / 512)}`)
    // RLIMIT_NPROC binds nobody when the kit runs as root (the user namespace maps to it).
    if (limits.processes !== false && !this.#cgroup?.has('pids') && !isRoot()) ulimits.push(`-p ${limits.processes}`)
    if (limits.memoryBytes !== false && !this.#cgroup?.has('memory')) ulimits.push(`-d ${Math.floor(limits.memoryBytes / KiB)}`)
    this.#ulimits = ulimits
  }

  /**
   * Put the wrapper in front of a launch plan (unchanged when nothing is limited).
   *
   * @param plan - What the engine would spawn.
   * @returns What to spawn instead.
   */
  wrap(plan: LaunchPlan): LaunchPlan {
    const procs = this.#cgroup?.procsFiles ?? []
    if (procs.length === 0 && this.#ulimits.length === 0) return plan
    return {
      ...plan,
      file: LIMIT_WRAPPER_SHELL,
      args: ['-c', limitWrapperScript(this.#ulimits), 'toolsmith-limits', ...procs, '--', plan.file, ...plan.args],
    }
  }

  /**
   * The check `runBounded` polls while the command runs: a fork bomb never
   * ends by itself at `pids.max` (shells retry), so a command whose forks
   * the cgroup refused is stopped. `undefined` without a pids cgroup.
   */
  get watch(): { everyMs: number; shouldStop: () => boolean } | undefined {
    const cgroup = this.#cgroup
    if (cgroup === undefined || !cgroup.has('pids')) return undefined
    return {
      everyMs: 200,
      shouldStop: () => {
        if (cgroup.events().forksRefused === 0) return false
        this.#stoppedForProcesses = true
        return true
      },
    }
  }

  /**
   * After the command: read the counters and remove the cgroup.
   *
   * @returns What the kernel counted (zeros without a cgroup).
   */
  async finish(): Promise<CgroupEvents> {
    const cgroup = this.#cgroup
    if (cgroup === undefined) return { forksRefused: 0, oomKills: 0 }
    const events = cgroup.events()
    await cgroup.remove()
    return events
  }

  /**
   * The `TOOL_LIMIT_EXCEEDED` error for a command that failed at a limit, or
   * `undefined` when no limit explains the failure.
   *
   * @param failure - The command's name, its status as the engine reads it,
   *   how it ended in words, its output, the counters, and the root (whose
   *   disk is checked before blaming `/tmp` for an `ENOSPC`).
   * @returns The error, or `undefined`.
   */
  error(failure: { cmd: string; status: CommandStatus; how: string; output: string; events: CgroupEvents; root: string }): E_TOOL_LIMIT_EXCEEDED | undefined {
    const { cmd, status, how, output, events } = failure
    const limits = this.#limits
    const fail = (limit: LimitName, value: number, text: string, option: string, flag: string) =>
      new E_TOOL_LIMIT_EXCEEDED(
        `\`${cmd}\` ${text} If the task really needs more, ask the user to raise it (sandbox option limits.${option}; toolsmith CLI: ${flag}). Output:\n${output}`,
        { details: { limit, value, exitCode: status.exitCode, signal: status.signal, output } },
      )
    if (limits.processes !== false) {
      const byRlimit = !this.#cgroup?.has('pids') && /Cannot fork|fork: retry|fork failed|Resource temporarily unavailable/i.test(output)
      if (this.#stoppedForProcesses || events.forksRefused > 0 || byRlimit) {
        const stopped = this.#stoppedForProcesses ? 'was stopped by the kit' : how
        return fail(
          'processes',
          limits.processes,
          `${stopped}: it reached the sandbox's limit of ${limits.processes} processes at once and tried to start more (a fork bomb, or too much parallelism). Run fewer processes at once (fewer test workers, make -j2).`,
          'processes',
          '--limit-processes',
        )
      }
    }
    if (limits.memoryBytes !== false) {
      // Node 20 says "Array buffer allocation failed", Node 24 "RangeError: Failed to allocate memory".
      const byRlimit =
        !this.#cgroup?.has('memory') && /MemoryError|Cannot allocate memory|out of memory|bad_alloc|allocation failed|failed to allocate memory/i.test(output)
      if (events.oomKills > 0 || byRlimit) {
        const what =
          events.oomKills > 0
            ? `all its processes together, no swap), and the kernel killed ${events.oomKills === 1 ? 'a process' : `${events.oomKills} processes`}`
            : 'per process), and an allocation failed'
        return fail(
          'memory',
          limits.memoryBytes,
          `${how}: it needed more memory than the sandbox's limit of ${formatBytes(limits.memoryBytes)} (${what}. Use less memory (smaller inputs, fewer workers at once).`,
          'memoryBytes',
          '--limit-memory',
        )
      }
    }
    if (limits.fileSizeBytes !== false && (status.signal === 'SIGXFSZ' || /File too large|EFBIG/.test(output))) {
      return fail(
        'fileSize',
        limits.fileSizeBytes,
        `${how}: it tried to write a file larger than the sandbox's file size limit of ${formatBytes(limits.fileSizeBytes)} (SIGXFSZ, "File too large"). Write smaller files (split them, or compress).`,
        'fileSizeBytes',
        '--limit-file-size',
      )
    }
    if (limits.tmpBytes !== false && /No space left on device|ENOSPC/.test(output) && diskHasRoom(failure.root, limits.tmpBytes)) {
      return fail(
        'tmp',
        limits.tmpBytes,
        `${how}: it ran out of space ("No space left on device") while the disk of the root has room, so it most likely filled the private /tmp or /run, which hold at most ${formatBytes(limits.tmpBytes)} each. Write large files inside the working directory instead of /tmp.`,
        'tmpBytes',
        '--limit-tmp',
      )
    }
    return undefined
  }
}

/** The root's file system has more room left than the tmpfs holds (then it was not the one that ran full). */
function diskHasRoom(root: string, tmpBytes: number): boolean {
  try {
    const stats = statfsSync(root)
    return stats.bavail * stats.bsize > Math.min(tmpBytes, 64 * MiB)
  } catch {
    return false
  }
}
