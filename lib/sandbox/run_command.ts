/**
 * The sandbox's one verb for commands: run a program in the sandbox, with
 * its engine (bubblewrap, unshare or none), resource limits, network
 * policy (the word guard, an empty namespace, or the allowlist proxy),
 * protected paths and bounded output. The `bash` tool is this verb plus its
 * schema and its messages.
 *
 * @module
 */
import { constants } from 'node:fs'
import { readlink } from 'node:fs/promises'
import path from 'node:path'
import { StringDecoder } from 'node:string_decoder'
import type { E_TOOL_LIMIT_EXCEEDED } from '../exceptions.js'
import { cannotStartInside, limitsUnavailable, networkUnavailable, notADirectory, sandboxUnavailable, workingDirectoryMissing } from './command_errors.js'
import type { CommandStatus, LaunchPlan } from './os/engine.js'
import { buildSandboxEnv } from './process/environment.js'
import { resolveExecutable } from './os/executable.js'
import { openInside } from './files/open_inside.js'
import { CommandLimits } from './os/limits.js'
import { assertOfflineCommand } from './network/network.js'
import type { GatewayLease } from './network/network_gateway.js'
import type { NetworkDecision } from './network/network_proxy.js'
import { resolveInRoot } from './files/paths.js'
import { runBounded } from './process/process.js'
import type { ProtectedMatch } from './files/protected_paths.js'
import { createdProtectedPaths, type ProtectedScan } from './files/protected_scan.js'
import type { Sandbox } from './sandbox.js'

export type { CommandStatus } from './os/engine.js'
export type { NetworkDecision } from './network/network_proxy.js'
export { whyProtected, type ProtectedMatch } from './files/protected_paths.js'

/**
 * One command for {@link runInSandbox}.
 *
 * @internal
 */
export interface SandboxCommand {
  /** The program: a name looked up in `PATH`, or a path. */
  cmd: string
  /** Its arguments, passed verbatim (no shell). */
  args: readonly string[]
  /** Working directory relative to the root (`''` or `'.'`: the root). */
  cwd?: string | undefined
  /** Kills the command's whole process tree when it fires (`TOOL_ABORTED`). */
  signal?: AbortSignal | undefined
  /** Hears each decision of the allowlist proxy while the command runs. */
  onNetworkDecision?: ((decision: NetworkDecision) => void) | undefined
  /** Hears the protected paths the command created (after it ran, stopped or failed), when there are any. */
  onProtectedPathsCreated?: ((created: readonly ProtectedMatch[]) => void) | undefined
  /** Hears the command's output as it arrives, decoded as UTF-8 per stream (never an empty text). */
  onOutput?: ((stream: 'stdout' | 'stderr', text: string) => void) | undefined
}

/**
 * How a command that ran to its end ended.
 *
 * @internal
 */
export interface SandboxCommandResult {
  /** The exit status as the engine reads it (a signal seen through bwrap's init is a signal). */
  status: CommandStatus
  /** stdout and stderr interleaved, bounded (`maxOutputBytes`, head and tail around a marker). */
  output: string
  /** The allowlist proxy's decisions (at most 1000), or `undefined` when no allowlist applied. */
  networkDecisions: readonly NetworkDecision[] | undefined
  /** Whether the command ran in an empty network namespace. */
  networkIsolated: boolean
  /** Protected paths the command created. */
  protectedPathsCreated: readonly ProtectedMatch[]
  /**
   * The `TOOL_LIMIT_EXCEEDED` error when a resource limit explains a failed
   * status (`undefined` otherwise).
   *
   * @param how - How the command ended, in words (`exited with code 1`).
   */
  limitExceeded(how: string): E_TOOL_LIMIT_EXCEEDED | undefined
}

/**
 * Run one command in the sandbox.
 *
 * @param sandbox - The sandbox whose root, engine, limits, network and environment apply.
 * @param command - See {@link SandboxCommand}.
 * @returns How it ended; a non-zero status is a result, not an error.
 * @throws `TOOL_SANDBOX_UNAVAILABLE`, `TOOL_NETWORK_DISABLED` /
 *   `TOOL_GIT_REMOTE_DISABLED` (the word guard), `TOOL_FILE_NOT_FOUND` /
 *   `TOOL_PATH_INVALID` (working directory), `TOOL_COMMAND_NOT_FOUND`,
 *   `TOOL_TIMEOUT`, `TOOL_ABORTED`, `TOOL_COMMAND_FAILED` (E2BIG), path errors.
 * @internal
 */
export async function runInSandbox(sandbox: Sandbox, command: SandboxCommand): Promise<SandboxCommandResult> {
  const { cmd, args } = command
  const engine = sandbox.engine
  if (engine.unavailableReason !== undefined) throw sandboxUnavailable(engine.unavailableReason)
  if (sandbox.guardsCommands) assertOfflineCommand(cmd, [...args])
  const cwdInput = command.cwd === undefined || command.cwd === '' ? '.' : command.cwd
  const hostEnv = buildSandboxEnv(process.env, sandbox.env)
  // In the strict profile, PATH folders the command cannot see are skipped, as the shell inside would.
  const searchPath = engine.searchPath?.(hostEnv.PATH ?? '', sandbox.rootDir) ?? hostEnv.PATH ?? ''
  // A bare name on a PATH of absolute folders does not depend on the
  // working directory: look it up while the cwd is being checked.
  const early = isCwdIndependent(cmd, searchPath) ? resolveExecutable(cmd, '/', searchPath) : undefined
  early?.catch(() => undefined) // awaited below, after the cwd errors it must not overtake
  const resolved = await resolveInRoot(sandbox, cwdInput)
  if (resolved.stats === undefined) throw workingDirectoryMissing(cwdInput)
  if (!resolved.stats.isDirectory()) throw notADirectory(cwdInput)
  // Hold the checked directory open and start the program in it through
  // /proc/self/fd, so swapping the path for a symlink now cannot move it.
  // The PATH search does not depend on the open: both thread-pool round trips run at once.
  const lookup = early ?? resolveExecutable(cmd, resolved.absolute, searchPath)
  lookup.catch(() => undefined) // awaited below; an open failure must not leave it unhandled
  const directory = await openInside(resolved, resolved.absolute, constants.O_RDONLY | (constants.O_DIRECTORY ?? 0))
  try {
    const file = await lookup
    // Found on the host, but not visible inside (a host /tmp path, a masked folder).
    if (!engine.canStart(file, resolved.root)) throw cannotStartInside(cmd)
    const procCwd = `/proc/self/fd/${directory.fd}`
    const hostCwd = (await usableProcCwd(procCwd)) ? procCwd : resolved.absolute
    const decisions: NetworkDecision[] | undefined = sandbox.allowedDomains === undefined ? undefined : []
    const lease = decisions === undefined ? undefined : await openLease(sandbox, decisions, command.onNetworkDecision)
    // The protected paths present now are bound read-only; the ones present
    // after the command and not now, it created (reported below).
    const before = sandbox.protectedScanner.scan(resolved.root)
    let limits: CommandLimits | undefined
    let result: Awaited<ReturnType<typeof runBounded>>
    let events: Awaited<ReturnType<CommandLimits['finish']>> | undefined
    const live = command.onOutput === undefined ? undefined : liveText(command.onOutput)
    try {
      // Resource limits bind commands in the OS sandbox only: its cgroup exists before the spawn.
      limits = engine.name === 'bubblewrap' ? commandLimits(sandbox) : undefined
      const readOnly = protectedAbsolute(resolved.root, before)
      const plan = launchPlan(sandbox, { file, args, root: resolved.root, cwd: resolved.absolute, hostCwd, lease, readOnly }, hostEnv)
      result = await runBounded({
        ...(limits ? limits.wrap(plan) : plan),
        maxOutputBytes: sandbox.maxOutputBytes,
        timeoutMs: sandbox.timeoutMs,
        signal: command.signal,
        mergeStderr: true,
        mode: 'headTail',
        label: `\`${cmd}\``,
        watch: limits?.watch,
        onOutput: live?.push,
      })
    } catch (error) {
      // A command stopped by its deadline or an abort may have created some too: the event still says so.
      reportCreated(sandbox, resolved.root, before, command)
      throw error
    } finally {
      live?.end()
      lease?.close()
      events = await limits?.finish()
    }
    const created = reportCreated(sandbox, resolved.root, before, command)
    const status = engine.status(result.exitCode, result.signal)
    const finished = { output: result.output, events: events ?? { forksRefused: 0, oomKills: 0 }, root: resolved.root }
    return {
      status,
      output: result.output,
      networkDecisions: decisions,
      networkIsolated: engine.isolation.network,
      protectedPathsCreated: created,
      limitExceeded: (how) => limits?.error({ cmd, status, how, ...finished }),
    }
  } finally {
    // The program has exited: nothing needs the descriptor any more, so do not wait for the close.
    void directory.close().catch(() => undefined)
  }
}

/**
 * What {@link runInSandbox} spawns for a program already found and a
 * working directory already checked: the engine's command line (the bwrap
 * argument vector in the OS sandbox), the environment and where it starts.
 * The benchmark spawns exactly this by hand as the isolation floor.
 *
 * @param sandbox - The sandbox whose engine and environment apply.
 * @param command - The program's absolute path and arguments, the real
 *   root, the real working directory, where the spawn starts on the host
 *   (`/proc/self/fd/N` of the held directory, or `cwd`), the domain
 *   allowlist's lease when one is open (its environment and namespace),
 *   and the protected paths present (absolute; scanned now when omitted).
 * @param hostEnv - The environment before `PWD` (built from `process.env` when omitted).
 * @returns The launch plan.
 * @internal
 */
export function launchPlan(
  sandbox: Sandbox,
  command: {
    file: string
    args: readonly string[]
    root: string
    cwd: string
    hostCwd?: string
    lease?: Pick<GatewayLease, 'env' | 'join'> | undefined
    readOnly?: readonly string[]
  },
  hostEnv: Record<string, string> = buildSandboxEnv(process.env, sandbox.env),
): LaunchPlan {
  const env = { ...hostEnv, PWD: command.cwd }
  const lease = command.lease
  return sandbox.engine.launch({
    file: command.file,
    args: command.args,
    root: command.root,
    cwd: command.cwd,
    hostCwd: command.hostCwd ?? command.cwd,
    readOnly: command.readOnly ?? protectedAbsolute(command.root, sandbox.protectedScanner.scan(command.root)),
    env: lease ? { ...env, ...lease.env } : env,
    ...(lease ? { join: lease.join } : {}),
  })
}

async function openLease(sandbox: Sandbox, decisions: NetworkDecision[], onDecision: SandboxCommand['onNetworkDecision']): Promise<GatewayLease> {
  const gateway = await sandbox.networkGateway()
  if (typeof gateway === 'string') throw networkUnavailable(gateway)
  try {
    return await gateway.lease({
      onDecision: (decision) => {
        // Bounded: a command looping over refused requests must not grow the kit.
        if (decisions.length < 1000) decisions.push(decision)
        onDecision?.(decision)
      },
    })
  } catch (error) {
    throw networkUnavailable(`its network namespace could not be made: ${(error as Error).message}`)
  }
}

/** The limits of one command; a cgroup the kernel refuses is a typed error naming the way out. */
function commandLimits(sandbox: Sandbox): CommandLimits {
  try {
    return new CommandLimits(sandbox.limits)
  } catch (error) {
    throw limitsUnavailable(error)
  }
}

function isCwdIndependent(cmd: string, searchPath: string): boolean {
  return !cmd.includes('/') && searchPath.split(path.delimiter).every((dir) => path.isAbsolute(dir))
}

let procCwdWorks: boolean | undefined

async function usableProcCwd(candidate: string): Promise<boolean> {
  if (procCwdWorks === undefined) {
    procCwdWorks = await readlink(candidate).then(
      () => true,
      () => false,
    )
  }
  return procCwdWorks
}

/** The scan's paths, absolute (what the engine binds read-only). */
function protectedAbsolute(root: string, scan: ProtectedScan): string[] {
  return [...scan.found.keys()].map((relative) => `${root}/${relative}`)
}

/** After the command: the protected paths it created, told to the caller and returned. */
function reportCreated(sandbox: Sandbox, root: string, before: ProtectedScan, command: SandboxCommand): ProtectedMatch[] {
  const created = createdProtectedPaths(before, sandbox.protectedScanner.scan(root))
  if (created.length > 0) command.onProtectedPathsCreated?.(created)
  return created
}

/**
 * Decode each stream's chunks as UTF-8 as they arrive: a character split
 * across two reads is held back until its last byte comes (or the end).
 */
function liveText(onOutput: (stream: 'stdout' | 'stderr', text: string) => void): {
  push: (stream: 'stdout' | 'stderr', chunk: Buffer) => void
  end: () => void
} {
  const decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') }
  const emit = (stream: 'stdout' | 'stderr', text: string): void => {
    if (text !== '') onOutput(stream, text)
  }
  return {
    push: (stream, chunk) => emit(stream, decoders[stream].write(chunk)),
    end: () => {
      emit('stdout', decoders.stdout.end())
      emit('stderr', decoders.stderr.end())
    },
  }
}
