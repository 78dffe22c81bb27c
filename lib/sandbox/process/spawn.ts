/**
 * The spawn of one bounded command, through execa: no shell, a scrubbed
 * environment (nothing merged from the host's), a new session, stdin
 * closed, exactly the descriptors the kit passes, and stdout/stderr
 * streamed into constant-size captures.
 *
 * @remarks
 * Of execa's options the kit uses `cancelSignal` (execa also kills the
 * leader on abort) with `killSignal: 'SIGKILL'`, `detached` (the command
 * leads its own process group) and the `stdio` array; it turns off what
 * would change the kit's guarantees: `extendEnv` (the environment is
 * complete), `buffer`, `maxBuffer` and `lines` (the kit's captures keep the
 * head and the tail of a long output, where execa keeps the head and stops
 * the command), `cleanup` (the kit kills the whole group at exit, execa only
 * the leader), `forceKillAfterDelay` (the first signal is SIGKILL), `reject`
 * (the kit reads the exit itself), and `timeout` (execa signals the leader;
 * the kit's deadline kills the tree, see `process.ts`).
 *
 * @module
 */
import { closeSync } from 'node:fs'
import type { Options, ResultPromise } from 'execa'

type Execa = typeof import('execa')
let execaModule: Execa | undefined

/**
 * Load execa (once): it is imported on the first command rather than with
 * the package, so `import 'toolsmith'` stays cheap.
 *
 * @internal
 */
export async function loadExeca(): Promise<void> {
  execaModule ??= await import('execa')
}
import { E_TOOL_COMMAND_FAILED, E_TOOL_COMMAND_NOT_FOUND, E_TOOL_IO_ERROR } from '../../exceptions.js'
import { BoundedCapture, type CaptureMode } from './capture.js'
import { childDescriptors } from './descriptors.js'
import { hostFds, leaderHeld, readStat, rememberRun, TreeTracker, type LiveRun } from './process_tree.js'

/**
 * What the engine asks of the spawn (the engine's `LaunchGate`), held by `launch_gate.ts`.
 *
 * @internal
 */
export interface SpawnGate {
  /** The child's descriptor bwrap blocks on. */
  readonly blockFd: number
  /** The child's descriptor bwrap writes `{"child-pid": N, …}` to. */
  readonly infoFd: number
  /** Look once at the child's mounts: still setting up, as planned, or the error to fail the call with. */
  check(childPid: number): 'pending' | 'ready' | Error
  /** The error for a sandbox that exited by itself before the release (its output is bwrap's), if it has a better one than the exit status. */
  explainEarlyExit?(output: string): Error | undefined
}

/**
 * What to spawn and how to capture it.
 *
 * @internal
 */
export interface SpawnRequest {
  /** Absolute path of the executable. */
  file: string
  /** Its arguments, passed as is (no shell). */
  args: readonly string[]
  /** Working directory. */
  cwd: string
  /** The complete environment (nothing is inherited). */
  env: Record<string, string>
  /** Largest rendered output, in UTF-8 bytes. */
  maxOutputBytes: number
  /** Kill the tree when this fires (execa's `cancelSignal`). */
  signal?: AbortSignal | undefined
  /** Interleave stderr into the output (bash) or keep it apart (grep). */
  mergeStderr: boolean
  /** Keep the head only, or head and tail, when the output is too long. */
  mode: CaptureMode
  /**
   * The spawned process leads a PID namespace (bwrap, `unshare --pid`):
   * killing it takes every process of the command down, so no `/proc`
   * tracking is needed.
   */
  contained?: boolean | undefined
  /**
   * The program starts no other process: the kit's own ripgrep, whose
   * arguments are fixed (`--no-config`, so no config file can add flags;
   * never `--pre`, `--search-zip` or `--hostname-bin`, the ways rg runs
   * another program). Killing its group is enough,
   * so no `/proc` tracking is needed (a scan of every process during the
   * search, measured at ≈ 3 ms of a 70 ms search of a large tree).
   */
  singleProcess?: boolean | undefined
  /**
   * A descriptor of the host's that the program gets as fd 3 (the search
   * jail's directory, which bwrap mounts with `--ro-bind-fd 3`).
   */
  passFd?: number | undefined
  /** Count the output's line feeds. */
  countLines?: boolean | undefined
  /** Hears each chunk of output as it arrives, before (and whatever) the capture keeps of it. */
  onOutput?: ((stream: 'stdout' | 'stderr', chunk: Buffer) => void) | undefined
  /** How to name the command in messages. */
  label: string
  /** A pipe at each `fd`, fed `data` and closed right after the spawn. */
  inputs?: ReadonlyArray<{ readonly fd: number; readonly data: Uint8Array }> | undefined
  /**
   * Host descriptors the child gets at `childFd` (bind sources for bwrap).
   * Owned by the run: the kit's copies are closed once the child is spawned, or failed to be.
   */
  descriptors?: ReadonlyArray<{ readonly childFd: number; readonly hostFd: number }> | undefined
  /** Hold the command after bwrap's set-up until its mounts are checked (`launch_gate.ts`): two more pipes. */
  gate?: SpawnGate | undefined
}

/**
 * A spawned command with its output captures and, without a PID namespace,
 * its tree tracker.
 *
 * @internal
 */
export interface CapturedRun extends LiveRun {
  readonly subprocess: ResultPromise
  readonly output: BoundedCapture
  readonly errors: BoundedCapture
}

/**
 * How a command ended: its status, or the error that kept it from starting.
 *
 * @internal
 */
export type Exit = { code: number | null; signal: string | null } | { error: unknown }

/**
 * Spawn `request` through execa and stream its output into bounded captures.
 *
 * @param request - See {@link SpawnRequest}.
 * @returns The running command.
 * @internal
 */
export function spawnCaptured(request: SpawnRequest): CapturedRun {
  const output = new BoundedCapture(request.maxOutputBytes, request.mode, request.countLines === true)
  const errors = request.mergeStderr ? output : new BoundedCapture(Math.min(request.maxOutputBytes, 65_536), 'headTail')
  const passed = new Map<number, 'pipe' | number>()
  // passFd and inputs are never given together (grep's jail / the OS sandbox's seccomp program).
  if (request.passFd !== undefined) passed.set(3, request.passFd)
  for (const { fd } of request.inputs ?? []) passed.set(fd, 'pipe')
  for (const { childFd, hostFd } of request.descriptors ?? []) passed.set(childFd, hostFd)
  if (request.gate !== undefined) {
    passed.set(request.gate.blockFd, 'pipe')
    passed.set(request.gate.infoFd, 'pipe')
  }
  let subprocess: ResultPromise
  try {
    const { stdio, closer } = childDescriptors(passed)
    const [file, args] = closer === undefined ? [request.file, request.args] : [closer.file, [...closer.args, request.file, ...request.args]]
    if (execaModule === undefined) throw new Error('spawnCaptured before loadExeca()')
    subprocess = execaModule.execa(file, [...args], {
      cwd: request.cwd,
      env: request.env,
      extendEnv: false,
      // Always at least stdin, stdout and stderr (childDescriptors starts with them).
      stdio: stdio as unknown as Options['stdio'],
      // A new session: the child leads its own process group, which a timeout kills whole.
      detached: true,
      cleanup: false,
      buffer: false,
      reject: false,
      encoding: 'buffer',
      stripFinalNewline: false,
      killSignal: 'SIGKILL',
      forceKillAfterDelay: false,
      ...(request.signal === undefined ? {} : { cancelSignal: request.signal }),
      windowsHide: true,
    })
  } catch (error) {
    // Options execa refuses, thrown at once.
    throw spawnError(error, request.label)
  } finally {
    // The child has its own copies now (or never will): the kit's are not needed.
    for (const { hostFd } of request.descriptors ?? []) closeQuietly(hostFd)
  }
  feedInputs(subprocess, request.inputs)
  const onOutput = request.onOutput
  if (onOutput === undefined) {
    subprocess.stdout?.on('data', (chunk: Buffer) => output.push(chunk))
    subprocess.stderr?.on('data', (chunk: Buffer) => errors.push(chunk))
  } else {
    subprocess.stdout?.on('data', (chunk: Buffer) => {
      output.push(chunk)
      onOutput('stdout', chunk)
    })
    subprocess.stderr?.on('data', (chunk: Buffer) => {
      errors.push(chunk)
      onOutput('stderr', chunk)
    })
  }
  const pid = subprocess.pid
  // Synchronously after the spawn (which returns once the program is
  // exec'd) the leader's entry still exists: it cannot have been reaped yet.
  const start = pid === undefined ? undefined : readStat(pid)?.start
  const held = (): boolean => leaderHeld({ subprocess, pid, start })
  // Without a PID namespace nothing takes a `setsid` escapee down for us: follow the tree in /proc.
  const tracker =
    pid !== undefined && request.contained !== true && request.singleProcess !== true && process.platform === 'linux'
      ? new TreeTracker(pid, start ?? Number.POSITIVE_INFINITY, hostFds(subprocess.stdout, subprocess.stderr), held)
      : undefined
  const run: CapturedRun = { subprocess, pid, start, output, errors, tracker }
  rememberRun(run)
  return run
}

/**
 * Wait for the command's exit (not for its pipes: an escaped grandchild may
 * hold them). A spawn that failed before any process existed is reported on
 * execa's promise only.
 *
 * @param run - The running command.
 * @returns Its exit.
 * @internal
 */
export function waitForExit(run: CapturedRun): Promise<Exit> {
  const { subprocess } = run
  return new Promise<Exit>((resolve) => {
    subprocess.once('exit', (code, signal) => resolve({ code, signal }))
    subprocess.once('error', (error) => resolve({ error }))
    subprocess.then(
      (result) => {
        if (result.failed && run.pid === undefined) resolve({ error: (result as { cause?: unknown }).cause ?? result })
      },
      (error: unknown) => {
        if (run.pid === undefined) resolve({ error })
      },
    )
  })
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd)
  } catch {
    // already closed
  }
}

/**
 * Write each input and close the kit's end once it is flushed: the data
 * stays queued in the socket for the reader, which then sees end-of-file.
 * A child that exits without reading (a failed exec) is no error.
 */
function feedInputs(subprocess: ResultPromise, inputs: SpawnRequest['inputs']): void {
  for (const { fd, data } of inputs ?? []) {
    const stream = subprocess.stdio[fd] as (NodeJS.WritableStream & { destroy(): void }) | null | undefined
    if (!stream) continue
    stream.on('error', () => undefined)
    stream.end(data, () => stream.destroy())
    subprocess.once('exit', () => stream.destroy())
  }
}

/**
 * The typed error for a command that could not be started.
 *
 * @param error - What the spawn reported.
 * @param label - How to name the command.
 * @returns `TOOL_COMMAND_FAILED` (E2BIG), `TOOL_COMMAND_NOT_FOUND` or `TOOL_IO_ERROR`.
 * @internal
 */
export function spawnError(error: unknown, label: string): Error {
  const code = (error as { code?: unknown } | null)?.code
  const details = { exitCode: null, signal: null, output: '' }
  if (code === 'E2BIG') {
    return new E_TOOL_COMMAND_FAILED(
      `${label} could not be started: its arguments and environment are larger than the kernel accepts (E2BIG). ` +
        'Pass less on the command line, e.g. write the data to a file and pass its name',
      { cause: error, details },
    )
  }
  if (code === 'ENOENT' || code === 'EACCES' || code === 'ENOEXEC') {
    return new E_TOOL_COMMAND_NOT_FOUND(`${label} could not be started: ${String(code)}`, { cause: error, details })
  }
  return new E_TOOL_IO_ERROR(`${label} could not be started: ${error instanceof Error ? error.message : String(error)}`, {
    cause: error,
    details,
  })
}
