/**
 * `bash`: run one program inside the sandbox, without a shell.
 *
 * @module
 */
import { constants } from 'node:fs'
import { readlink } from 'node:fs/promises'
import path from 'node:path'
import {
  E_TOOL_COMMAND_FAILED,
  E_TOOL_COMMAND_NOT_FOUND,
  E_TOOL_FILE_NOT_FOUND,
  E_TOOL_PATH_INVALID,
  E_TOOL_SANDBOX_UNAVAILABLE,
} from '../exceptions.js'
import type { DispatchContext } from '../core/dispatch_context.js'
import { Tool, type ToolCallInfo } from '../core/tool.js'
import { validator, type ObjectSchema } from '../validation.js'
import { buildSandboxEnv } from '../sandbox/environment.js'
import { resolveExecutable } from '../sandbox/executable.js'
import { openInside } from '../sandbox/files.js'
import { CommandLimits } from '../sandbox/limits.js'
import { assertOfflineCommand } from '../sandbox/network.js'
import type { GatewayLease } from '../sandbox/network_gateway.js'
import type { NetworkDecision } from '../sandbox/network_proxy.js'
import { resolveInRoot } from '../sandbox/paths.js'
import { runBounded } from '../sandbox/process.js'
import { createdProtectedPaths, type ProtectedScan } from '../sandbox/protected_scan.js'
import { whyProtected, type ProtectedMatch } from '../sandbox/protected_paths.js'
import type { LaunchPlan } from '../sandbox/engine.js'
import type { Sandbox } from '../sandbox/sandbox.js'

/** Longest `cmd`, and longest single argument, in characters. */
export const MAX_COMMAND_CHARS = 8192
/** Most arguments one call may pass. */
export const MAX_COMMAND_ARGS = 128

/** Arguments of `bash`. */
export interface BashArgs {
  /** The program: a name looked up in `PATH`, or a path. */
  cmd: string
  /**
   * Its arguments, passed verbatim (no shell parsing).
   *
   * @defaultValue []
   */
  args?: string[]
  /** Options. */
  opts?: {
    /**
     * Working directory, relative to the sandbox root.
     *
     * @defaultValue the root
     */
    cwd?: string
  }
}

const noNul = /^[^\0]*$/

const bashSchema: ObjectSchema<BashArgs> = validator.object<BashArgs>({
  cmd: validator
    .string()
    .min(1)
    .max(MAX_COMMAND_CHARS)
    .pattern(noNul, 'no NUL bytes')
    .required()
    .description('Executable to run (name on PATH, or a path). No shell: for pipes or redirects use cmd "sh" with args ["-c", "…"]'),
  args: validator
    .array()
    .items(validator.string().allow('').max(MAX_COMMAND_CHARS).pattern(noNul, 'no NUL bytes'))
    .max(MAX_COMMAND_ARGS)
    .default([])
    .description('Arguments, passed to the program verbatim'),
  opts: validator
    .object({
      cwd: validator.string().allow('').description('Working directory, relative to the sandbox root (default: the root)'),
    })
    .default({})
    .description('Options'),
})

/**
 * The built-in `bash` tool: runs a program and returns its combined stdout
 * and stderr.
 *
 * @remarks
 * `cmd` is executed directly (no shell), with `args` verbatim, stdin closed,
 * the working directory checked against the root (`TOOL_FILE_NOT_FOUND` when
 * missing), and a scrubbed environment (allow-listed host variables plus
 * `Sandbox.env`). Output is streamed into a bounded buffer: over
 * `maxOutputBytes` the head and tail are kept around a `[… N bytes
 * truncated …]` marker. A non-zero exit is `TOOL_COMMAND_FAILED` with
 * `{ exitCode, signal, output }`; after `timeoutMs` the whole process tree is
 * SIGKILLed and `TOOL_TIMEOUT` carries the partial output; aborting the
 * context does the same with `TOOL_ABORTED`; an unknown program is
 * `TOOL_COMMAND_NOT_FOUND`. On Linux with bubblewrap the program runs in
 * the OS sandbox: the host read-only, the root (and `writablePaths`, and a
 * private `/tmp`) writable, credentials masked, the protected paths
 * present (`readOnlyPaths`: every `.git`, shell startup files, editor and
 * agent settings…) read-only, host Unix sockets unreachable, its own PID
 * namespace and — with `allowNetwork: false` — an empty network namespace.
 * Where that sandbox cannot run, every call is `TOOL_SANDBOX_UNAVAILABLE`
 * unless the sandbox opted out (`isolation: { filesystem: false }`). The
 * word guard (`TOOL_NETWORK_DISABLED`, `TOOL_GIT_REMOTE_DISABLED`) runs only
 * where no network namespace is made, or with `networkGuard: 'always'`.
 * `Sandbox.isolation` reports what is enforced. Protected paths a command
 * creates are named in a note under its output, in a failed command's
 * `details.protectedPathsCreated`, and in a `protectedPathCreated` event.
 * `sideEffect: true`, `idempotent: false`.
 */
export class BashTool extends Tool<any, BashArgs> {
  /**
   * @param sandbox - The sandbox whose root and limits apply.
   */
  constructor(sandbox: Sandbox) {
    super({
      name: 'bash',
      description:
        'Run one program inside the sandbox and return its combined stdout and stderr. There is NO shell: `cmd` is the program and `args` its arguments; ' +
        'for pipes, redirects or globbing use { "cmd": "sh", "args": ["-c", "…"] }. `opts.cwd` is relative to the sandbox root. ' +
        `Non-zero exits are errors carrying the output; commands are killed after ${sandbox.timeoutMs} ms.` +
        networkSentence(sandbox),
      inputSchema: bashSchema,
      sideEffect: true,
      idempotent: false,
      roles: { command: 'cmd', commandArgs: 'args', workingDirectory: 'opts.cwd' },
      // All four parameters are declared on purpose: see Tool's idempotency-key warning.
      handler: (args, ctx, _meta, call) => bashHandler(sandbox, args, call, ctx),
    })
  }
}

function networkSentence(sandbox: Sandbox): string {
  const domains = sandbox.allowedDomains
  if (domains === undefined) return sandbox.allowNetwork === true ? '' : ' Network access is disabled.'
  const listed = domains.length === 0 ? 'no host' : domains.join(', ')
  return (
    ` Network access goes through a proxy (HTTP_PROXY/HTTPS_PROXY are set) that allows only: ${listed}; ` +
    'other hosts answer 403 naming the host, so you can ask the user to allow it.'
  )
}

/** Most refused hosts named in the note under a command's output. */
const MAX_NOTED_REFUSALS = 10

/** The note added to a command's output when the proxy refused some of its requests. */
function refusalNote(decisions: readonly NetworkDecision[]): string {
  const refused = new Map<string, NetworkDecision>()
  for (const decision of decisions) if (!decision.allowed) refused.set(`${decision.host}:${decision.port}`, decision)
  if (refused.size === 0) return ''
  const named = [...refused.values()].slice(0, MAX_NOTED_REFUSALS).map((d) => `${d.host}:${d.port} (${d.reason})`)
  const more = refused.size > MAX_NOTED_REFUSALS ? ` and ${refused.size - MAX_NOTED_REFUSALS} more` : ''
  const hosts = [...new Set([...refused.values()].map((d) => d.host))].slice(0, MAX_NOTED_REFUSALS)
  return (
    `[toolsmith] The network proxy refused ${named.join(', ')}${more}. Nothing was sent to ${refused.size === 1 ? 'it' : 'them'}. ` +
    `If the task needs ${hosts.length === 1 ? 'this host' : 'these hosts'}, ask the user to add ${hosts.map((h) => JSON.stringify(h)).join(', ')} ` +
    'to the sandbox\'s allowNetwork.domains (toolsmith CLI: --allow-domain).\n'
  )
}

function withNote(output: string, note: string): string {
  if (note === '') return output
  return `${output}${output.endsWith('\n') || output === '' ? '' : '\n'}${note}`
}

async function openLease(sandbox: Sandbox, call: ToolCallInfo, ctx: DispatchContext | undefined, decisions: NetworkDecision[]): Promise<GatewayLease> {
  const gateway = sandbox.networkGateway()
  if (typeof gateway === 'string') throw networkUnavailable(gateway)
  try {
    return await gateway.lease({
      onDecision: (decision) => {
        // Bounded: a command looping over refused requests must not grow the kit.
        if (decisions.length < 1000) decisions.push(decision)
        ctx?.emitNetworkRequest?.({ ...decision, toolName: call.toolName, callId: call.callId, turnId: ctx.id, at: Date.now() })
      },
    })
  } catch (error) {
    throw networkUnavailable(`its network namespace could not be made: ${(error as Error).message}`)
  }
}

function networkUnavailable(reason: string): E_TOOL_SANDBOX_UNAVAILABLE {
  return new E_TOOL_SANDBOX_UNAVAILABLE(
    `bash cannot run commands with a network allowlist here: ${reason}. Nothing was run. ` +
      'Ask the user to run on Linux with bubblewrap and user namespaces, or to choose allowNetwork: false (no network) or true (all of it).',
    { details: { reason } },
  )
}

function sandboxUnavailable(reason: string): E_TOOL_SANDBOX_UNAVAILABLE {
  return new E_TOOL_SANDBOX_UNAVAILABLE(
    `bash cannot run commands here: the OS sandbox is unavailable (${reason}). Nothing was run. ` +
      'Ask the user to install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; ' +
      'Arch: pacman -S bubblewrap), or to accept less isolation explicitly with the sandbox option ' +
      '`isolation: { filesystem: false }` (toolsmith CLI: --no-os-sandbox).',
    { details: { reason } },
  )
}

/** What resolver and connect failures print, in the programs agents run most. */
const NETWORK_FAILURE =
  /could not resolve host|temporary failure in name resolution|name or service not known|getaddrinfo|EAI_AGAIN|ENOTFOUND|ENETUNREACH|network is unreachable|failed to establish a new connection|no address associated with hostname|nodename nor servname|could not connect to server|failed to connect to|connection refused|ECONNREFUSED/i

/** The line added to the output of a failed command that looks like it tried the network. */
export const NETWORK_OFF_NOTE =
  '[toolsmith] Note: this sandbox has no network (only its own loopback); the failure above looks like a network access. Work offline, or ask the user to allow the network.'

function withNetworkNote(output: string): string {
  if (!NETWORK_FAILURE.test(output)) return output
  return `${output}${output.endsWith('\n') || output === '' ? '' : '\n'}${NETWORK_OFF_NOTE}\n`
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

/** Most created protected paths named in the note under a command's output. */
const MAX_NOTED_PROTECTED = 10

/**
 * The note added to a command's output when it created protected paths:
 * what they are, why they matter, and what the model should do.
 */
function protectedNote(created: readonly ProtectedMatch[]): string {
  if (created.length === 0) return ''
  const named = created.slice(0, MAX_NOTED_PROTECTED).map((match) => `${match.path} (${whyProtected(match)})`)
  const more = created.length > MAX_NOTED_PROTECTED ? ` and ${created.length - MAX_NOTED_PROTECTED} more` : ''
  const one = created.length === 1
  return (
    `[toolsmith] This command created ${named.join('; ')}${more}: ${one ? 'a protected path that' : 'protected paths that'} can run code on the host later, ` +
    `outside the sandbox (the sandbox's readOnlyPaths). The sandbox cannot stop a command from creating ${one ? 'it' : 'them'}; ` +
    `from now on ${one ? 'it is' : 'they are'} read-only to every tool. Tell the user about ${one ? 'it' : 'them'} in your answer, ` +
    'and ask them to remove what the task did not need.\n'
  )
}

/**
 * After the command: the protected paths it created, reported to the
 * context (`protectedPathCreated`) and returned for the call's note.
 */
function reportCreated(sandbox: Sandbox, root: string, before: ProtectedScan, call: ToolCallInfo, ctx: DispatchContext | undefined): ProtectedMatch[] {
  const created = createdProtectedPaths(before, sandbox.protectedScanner.scan(root))
  if (created.length > 0) {
    ctx?.emitProtectedPathCreated?.({
      toolName: call.toolName,
      turnId: ctx.id,
      callId: call.callId,
      paths: created.map(({ path: created, rule }) => ({ path: created, rule })),
      at: Date.now(),
    })
  }
  return created
}

/**
 * What `bash` spawns for a program already found and a working directory
 * already checked: the engine's command line (the bwrap argument vector in
 * the OS sandbox), the environment and where it starts. The handler spawns
 * exactly this; the benchmark spawns it by hand as the isolation floor.
 *
 * @param sandbox - The sandbox whose engine and environment apply.
 * @param command - The program's absolute path and arguments, the real
 *   root, the real working directory, where the spawn starts on the host
 *   (`/proc/self/fd/N` of the held directory, or `cwd`), and the domain
 *   allowlist's lease when one is open (its environment and namespace),
 *   and the protected paths present (absolute; scanned now when omitted).
 * @param hostEnv - The environment before `PWD` (built from `process.env` when omitted).
 * @returns The launch plan.
 * @internal
 */
export function bashLaunchPlan(
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

/** The limits of one command; a cgroup the kernel refuses is a typed error naming the way out. */
function commandLimits(sandbox: Sandbox): CommandLimits {
  try {
    return new CommandLimits(sandbox.limits)
  } catch (error) {
    throw new E_TOOL_SANDBOX_UNAVAILABLE(
      `bash cannot set up the resource limits of this command: its cgroup could not be created (${(error as Error).message}). Nothing was run. ` +
        'Ask the user to check the cgroup hierarchy, or to switch the processes and memory limits off (limits: { processes: false, memoryBytes: false }).',
      { cause: error, details: { reason: (error as Error).message } },
    )
  }
}

/**
 * The `bash` tool's handler, as a function of its sandbox: what
 * `BashTool` runs after validation.
 *
 * @param sandbox - The sandbox whose root and limits apply.
 * @param args - Validated args.
 * @param call - The call (its abort signal is honoured).
 * @param ctx - The dispatch context: hears the allowlist proxy's `networkRequest` decisions.
 * @returns The tool's result text.
 * @internal
 */
export async function bashHandler(
  sandbox: Sandbox,
  { cmd, args = [], opts = {} }: BashArgs,
  call: ToolCallInfo,
  ctx?: DispatchContext,
): Promise<string> {
  const engine = sandbox.engine
  if (engine.unavailableReason !== undefined) throw sandboxUnavailable(engine.unavailableReason)
  if (sandbox.guardsCommands) assertOfflineCommand(cmd, args)
  const cwdInput = opts.cwd === undefined || opts.cwd === '' ? '.' : opts.cwd
  const hostEnv = buildSandboxEnv(process.env, sandbox.env)
  // In the strict profile, PATH folders the command cannot see are skipped, as the shell inside would.
  const searchPath = engine.searchPath?.(hostEnv.PATH ?? '', sandbox.rootDir) ?? hostEnv.PATH ?? ''
  // A bare name on a PATH of absolute folders does not depend on the
  // working directory: look it up while the cwd is being checked.
  const early = isCwdIndependent(cmd, searchPath) ? resolveExecutable(cmd, '/', searchPath) : undefined
  early?.catch(() => undefined) // awaited below, after the cwd errors it must not overtake
  const resolved = await resolveInRoot(sandbox, cwdInput)
  if (resolved.stats === undefined) {
    throw new E_TOOL_FILE_NOT_FOUND(`The working directory ${JSON.stringify(cwdInput)} does not exist`, {
      details: { path: cwdInput },
    })
  }
  if (!resolved.stats.isDirectory()) {
    throw new E_TOOL_PATH_INVALID(`The working directory ${JSON.stringify(cwdInput)} is not a directory`, {
      details: { path: cwdInput },
    })
  }
  // Hold the checked directory open and start the program in it through
  // /proc/self/fd, so swapping the path for a symlink now cannot move it.
  // The PATH search does not depend on the open: both thread-pool round trips run at once.
  const lookup = early ?? resolveExecutable(cmd, resolved.absolute, searchPath)
  lookup.catch(() => undefined) // awaited below; an open failure must not leave it unhandled
  const directory = await openInside(resolved, resolved.absolute, constants.O_RDONLY | (constants.O_DIRECTORY ?? 0))
  try {
    const file = await lookup
    if (!engine.canStart(file, resolved.root)) {
      // Found on the host, but not visible inside (a host /tmp path, a masked folder).
      throw new E_TOOL_COMMAND_NOT_FOUND(
        `${JSON.stringify(cmd)} cannot be started inside the sandbox: programs in the host's /tmp or /run, in unreadable paths, ` +
          "or (with readableHost: 'system') outside the system folders and readablePaths, are not visible there; " +
          'use a program installed under /usr, or ask the user to add its folder to readablePaths',
        { details: { cmd, exitCode: null, signal: null, output: '' } },
      )
    }
    const procCwd = `/proc/self/fd/${directory.fd}`
    const hostCwd = (await usableProcCwd(procCwd)) ? procCwd : resolved.absolute
    const decisions: NetworkDecision[] = []
    const lease = sandbox.allowedDomains === undefined ? undefined : await openLease(sandbox, call, ctx, decisions)
    let result: Awaited<ReturnType<typeof runBounded>>
    // The protected paths present now are bound read-only; the ones present
    // after the command and not now, it created (reported below).
    const before = sandbox.protectedScanner.scan(resolved.root)
    let limits: CommandLimits | undefined
    let events: Awaited<ReturnType<CommandLimits['finish']>> | undefined
    try {
      // Resource limits bind commands in the OS sandbox only: its cgroup exists before the spawn.
      limits = engine.name === 'bubblewrap' ? commandLimits(sandbox) : undefined
      const readOnly = protectedAbsolute(resolved.root, before)
      const plan = bashLaunchPlan(sandbox, { file, args, root: resolved.root, cwd: resolved.absolute, hostCwd, lease, readOnly }, hostEnv)
      result = await runBounded({
        ...(limits ? limits.wrap(plan) : plan),
        maxOutputBytes: sandbox.maxOutputBytes,
        timeoutMs: sandbox.timeoutMs,
        signal: call.signal,
        mergeStderr: true,
        mode: 'headTail',
        label: `\`${cmd}\``,
        watch: limits?.watch,
      })
    } catch (error) {
      // A command stopped by its deadline or an abort may have created some too: the event still says so.
      reportCreated(sandbox, resolved.root, before, call, ctx)
      throw error
    } finally {
      lease?.close()
      events = await limits?.finish()
    }
    const created = reportCreated(sandbox, resolved.root, before, call, ctx)
    const createdDetails = created.length > 0 ? { protectedPathsCreated: created.map(({ path: p, rule }) => ({ path: p, rule })) } : {}
    const note = refusalNote(decisions)
    const status = engine.status(result.exitCode, result.signal)
    if (status.exitCode === 0) return withNote(withNote(result.output, note), protectedNote(created))
    const how =
      status.exitCode === null ? `was killed by ${status.signal ?? 'a signal'}` : `exited with code ${status.exitCode}${status.hint}`
    const limited = limits?.error({ cmd, status, how, output: result.output, events: events!, root: resolved.root })
    if (limited !== undefined) throw limited
    const output = withNote(
      lease !== undefined ? withNote(result.output, note) : engine.isolation.network ? withNetworkNote(result.output) : result.output,
      protectedNote(created),
    )
    throw new E_TOOL_COMMAND_FAILED(`\`${cmd}\` ${how}. Output:\n${output}`, {
      details: { exitCode: status.exitCode, signal: status.signal, output, ...createdDetails },
    })
  } finally {
    // The program has exited: nothing needs the descriptor any more, so do not wait for the close.
    void directory.close().catch(() => undefined)
  }
}
