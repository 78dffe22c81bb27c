/**
 * Bounded spawn: no shell, stdin closed, a scrubbed environment, no
 * inherited descriptor beyond 0–2, stdout/stderr streamed into
 * constant-size captures, and a timeout or abort that SIGKILLs the whole
 * process tree.
 *
 * @remarks
 * Built on `child_process.spawn` rather than execa: every option execa adds
 * is switched off here, and laying `/dev/null` over inherited descriptors
 * needs a long `stdio` array, which execa normalises entry by entry (≈ 8 ms
 * for 40 entries against ≈ 0.2 ms in Node; see docs/performance.md).
 *
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync, readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { E_TOOL_ABORTED, E_TOOL_COMMAND_FAILED, E_TOOL_COMMAND_NOT_FOUND, E_TOOL_IO_ERROR, E_TOOL_TIMEOUT } from '../exceptions.js'
import { BoundedCapture, type CaptureMode } from './capture.js'
import { stdioWithoutLeaks } from './descriptors.js'

/** How long after the main process exits its pipes may stay open (held by an escaped grandchild). */
const STREAM_GRACE_MS = 2_000
/** How long after the exit open pipes are taken as a sign of an escapee worth a /proc scan. */
const SLOW_DRAIN_MS = 50

/**
 * Options of {@link runBounded}.
 *
 * @internal
 */
export interface BoundedRunOptions {
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
  /** Kill the tree after this many milliseconds. */
  timeoutMs: number
  /** Kill the tree when this fires. */
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
  /** Count the output's line feeds, kept or not ({@link BoundedRunResult.outputLines}). */
  countLines?: boolean | undefined
  /** How to name the command in messages. */
  label: string
  /** Extra descriptors for the child: a pipe at each `fd`, fed `data` and closed right after the spawn. */
  inputs?: ReadonlyArray<{ readonly fd: number; readonly data: Uint8Array }> | undefined
  /**
   * Host descriptors the child gets at `childFd` (bind sources for bwrap).
   * Owned by the run: the kit's copies are closed once the child is spawned, or failed to be.
   */
  descriptors?: ReadonlyArray<{ readonly childFd: number; readonly hostFd: number }> | undefined
  /**
   * Polled every `everyMs` while the command runs: when `shouldStop`
   * returns `true` the whole tree is killed, and the exit is reported as
   * usual (the caller knows why: a resource limit).
   */
  watch?: { everyMs: number; shouldStop: () => boolean } | undefined
}

/**
 * What {@link runBounded} returns when the process exited by itself.
 *
 * @internal
 */
export interface BoundedRunResult {
  /** Exit code, or `null` when killed by a signal. */
  exitCode: number | null
  /** Signal name, or `null`. */
  signal: string | null
  /** stdout (and stderr when merged), bounded, with a truncation marker if cut. */
  output: string
  /** stderr when not merged, bounded; `''` otherwise. */
  stderr: string
  /** How many output bytes the process actually wrote. */
  outputBytes: number
  /** How many line feeds it wrote, when {@link BoundedRunOptions.countLines} asked. */
  outputLines?: number | undefined
}

/** Running commands, by the PID of the spawned process. */
const liveGroups = new Map<number, CapturedRun>()
let exitHookInstalled = false

function installExitHook(): void {
  if (exitHookInstalled) return
  exitHookInstalled = true
  // If the host process exits mid-command, take the commands down with it.
  process.on('exit', () => {
    for (const run of liveGroups.values()) {
      if (run.tracker !== undefined) run.tracker.killAll(false)
      else killLeader(run)
    }
  })
}

/** One row of `/proc/PID/stat`: the fields the tracker needs. */
interface ProcEntry {
  pid: number
  ppid: number
  pgrp: number
  session: number
  /** Start time, in clock ticks after boot. */
  start: number
}

function readStat(pid: number | string): ProcEntry | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
    // Fields after the parenthesised command name: state ppid pgrp session … (starttime is field 22).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return { pid: Number(pid), ppid: Number(fields[1]), pgrp: Number(fields[2]), session: Number(fields[3]), start: Number(fields[19]) }
  } catch {
    return undefined // gone already
  }
}

function readProc(): ProcEntry[] {
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return []
  }
  const rows: ProcEntry[] = []
  for (const entry of entries) {
    const code = entry.charCodeAt(0)
    if (code < 48 || code > 57) continue
    const row = readStat(entry)
    if (row !== undefined) rows.push(row)
  }
  return rows
}

function kill(target: number): void {
  try {
    process.kill(target, 'SIGKILL')
  } catch {
    // gone already
  }
}

/** Whether process group `pgrp` has a member, asked with signal 0: kill(2) then sends nothing. */
function groupExists(pgrp: number): boolean {
  try {
    process.kill(-pgrp, 0)
    return true
  } catch (error) {
    // EPERM: a member exists that this process may not signal.
    return (error as { code?: unknown }).code === 'EPERM'
  }
}

/** What each open descriptor of `pid` points to (`pipe:[…]`, `socket:[…]`, a path). */
function fdTargets(pid: number): string[] {
  let fds: string[]
  try {
    fds = readdirSync(`/proc/${pid}/fd`)
  } catch {
    return []
  }
  const targets: string[] = []
  for (const fd of fds) {
    try {
      targets.push(readlinkSync(`/proc/${pid}/fd/${fd}`))
    } catch {
      // closed meanwhile
    }
  }
  return targets
}

/** The host's own session and group: never recorded, never killed. */
const ownIds = new Set<number>([0, 1, process.pid])
{
  const self = readStat(process.pid)
  if (self !== undefined) {
    ownIds.add(self.pgrp)
    ownIds.add(self.session)
  }
}

/**
 * Without a PID namespace: follows a command's process tree through /proc
 * and remembers every session and process group created inside it, so that
 * a child that called `setsid` and was re-parented to PID 1 (double fork) is
 * still found by its session or group id.
 *
 * @remarks
 * Once the leader is reaped its PID is free and may belong to a stranger
 * (`pid_max` is often 32768). So nothing is signalled from memory: the
 * leader and its group only while it is unreaped ({@link leaderHeld}), any
 * other group or process only when seen in the same `/proc` scan, alive (or
 * a zombie, which still holds its number), started since the command, with
 * its number not held by an older process (a group's number cannot be
 * handed out again while any member of it exists). Node 20 has no pidfd, so
 * the microseconds between that scan and the kill are the one window left,
 * and the kernel hands a number out again only after every other free one.
 */
class TreeTracker {
  /** Sessions and groups first seen inside the command's tree. */
  private readonly ids = new Set<number>()
  /** What the command's stdout and stderr are (`socket:[inode]` or `pipe:[inode]`), as the command sees them. */
  private readonly outputs: string[] = []
  private poll: NodeJS.Timeout | undefined
  private stopped = false

  /**
   * @param root - The command's PID (leader of its own session and group).
   * @param start - The command's start time (clock ticks after boot); nothing older is ever killed.
   * @param hostEnds - File descriptors of the host's ends of the command's
   *   stdout/stderr, used only when the command exited before its own could be read.
   * @param rootHeld - Whether the leader is still unreaped (see {@link leaderHeld}).
   */
  constructor(
    private readonly root: number,
    private readonly start: number,
    private readonly hostEnds: readonly number[],
    private readonly rootHeld: () => boolean,
  ) {
    for (const fd of [1, 2]) {
      try {
        this.outputs.push(readlinkSync(`/proc/${root}/fd/${fd}`))
      } catch {
        // exited already
      }
    }
    this.ids.add(root)
    this.schedule(50)
  }

  private schedule(ms: number): void {
    this.poll = setTimeout(() => {
      this.members(readProc())
      if (!this.stopped) this.schedule(250)
    }, ms)
    this.poll.unref()
  }

  /** Stop polling. */
  stop(): void {
    this.stopped = true
    clearTimeout(this.poll)
  }

  private ours(row: ProcEntry): boolean {
    return row.start >= this.start && row.pid !== process.pid
  }

  /** Record the sessions and groups of the tree; returns every process of `rows` that belongs to the command. */
  private members(rows: readonly ProcEntry[]): ProcEntry[] {
    const children = new Map<number, ProcEntry[]>()
    for (const row of rows) {
      const list = children.get(row.ppid)
      if (list === undefined) children.set(row.ppid, [row])
      else list.push(row)
    }
    const found = new Map<number, ProcEntry>()
    // Only the unreaped leader's children are the command's: after the reap,
    // a process whose parent has the leader's number may be a stranger's.
    const queue = this.rootHeld() ? [this.root] : []
    while (queue.length > 0) {
      for (const child of children.get(queue.shift()!) ?? []) {
        if (found.has(child.pid)) continue
        found.set(child.pid, child)
        queue.push(child.pid)
      }
    }
    for (const row of found.values()) {
      if (!ownIds.has(row.session)) this.ids.add(row.session)
      if (!ownIds.has(row.pgrp)) this.ids.add(row.pgrp)
    }
    const byPid = new Map(rows.map((row) => [row.pid, row]))
    const recorded = (id: number): boolean => this.ids.has(id) && this.numberIsOurs(id, byPid)
    for (const row of rows) {
      if (!found.has(row.pid) && this.ours(row) && (recorded(row.session) || recorded(row.pgrp))) found.set(row.pid, row)
    }
    return [...found.values()].filter((row) => this.ours(row))
  }

  /**
   * Whether a session or group number seen in the command's tree is still
   * the command's: a process holding that number as its PID must be the
   * unreaped leader or one started since the command. Another holder means
   * the number was freed and handed out again, so its group is a stranger's.
   */
  private numberIsOurs(id: number, byPid: ReadonlyMap<number, ProcEntry>): boolean {
    const holder = byPid.get(id)
    if (holder === undefined) return true
    return id === this.root ? this.rootHeld() : this.ours(holder)
  }

  /**
   * Cleanup at a normal exit. Each recorded group is first probed with
   * signal 0 (which sends nothing): when none exists, as after most
   * commands, there is nothing to kill and no `/proc` scan (≈ 2 ms on a
   * busy machine) is spent.
   */
  killLeftovers(): void {
    for (const id of this.ids) {
      if (groupExists(id)) {
        this.killAll(false)
        return
      }
    }
  }

  /**
   * SIGKILL everything one `/proc` scan finds: the tree still linked to the
   * command, every member of a recorded session or group (each by its
   * group, once), and with `holders` every process started since the
   * command that still holds its stdout or stderr open. The leader's group
   * is signalled only while the leader is unreaped or a member was seen.
   */
  killAll(holders = true): void {
    const rows = readProc()
    const byPid = new Map(rows.map((row) => [row.pid, row]))
    const killed = new Set<number>()
    if (this.rootHeld()) {
      // The leader directly as well: the deadline must hold even when the group kill is refused.
      kill(-this.root)
      kill(this.root)
      killed.add(this.root)
    }
    for (const row of this.members(rows)) {
      if (killed.has(row.pgrp)) continue
      // Never the host's own group, nor one whose number went to a stranger:
      // a member there (not expected) goes alone.
      if (ownIds.has(row.pgrp) || !this.numberIsOurs(row.pgrp, byPid)) kill(row.pid)
      else {
        kill(-row.pgrp)
        killed.add(row.pgrp)
      }
    }
    if (!holders) return
    for (const row of this.outputHolders(rows)) if (!killed.has(row.pgrp)) kill(row.pid)
  }

  /**
   * The command exited before its descriptors could be read. Node's stdio
   * are socket pairs, whose two ends Linux numbers consecutively: take the
   * inode after each host end, and keep it only if no process older than the
   * command holds it (then it cannot be somebody else's socket).
   */
  private guessOutputs(rows: readonly ProcEntry[]): string[] {
    const guesses: string[] = []
    for (const fd of this.hostEnds) {
      try {
        const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`))
        if (match) guesses.push(`socket:[${Number(match[1]) + 1}]`)
      } catch {
        // closed meanwhile
      }
    }
    if (guesses.length === 0) return guesses
    for (const row of rows) {
      if (this.ours(row) && row.pid !== process.pid) continue
      for (const target of fdTargets(row.pid)) if (guesses.includes(target)) return []
    }
    return guesses
  }

  /** Processes started since the command that hold its stdout or stderr open (an escapee writing to our pipe). */
  private outputHolders(rows: readonly ProcEntry[]): ProcEntry[] {
    const outputs = this.outputs.length > 0 ? this.outputs : this.guessOutputs(rows)
    const holders: ProcEntry[] = []
    if (outputs.length === 0) return holders
    for (const row of rows) {
      if (!this.ours(row)) continue
      if (fdTargets(row.pid).some((target) => outputs.includes(target))) holders.push(row)
    }
    return holders
  }
}

/** The host's file descriptors behind `streams` (libuv pipe handles). */
function hostFds(...streams: unknown[]): number[] {
  const fds: number[] = []
  for (const stream of streams) {
    const fd = (stream as { _handle?: { fd?: unknown } } | null | undefined)?._handle?.fd
    if (typeof fd === 'number' && fd >= 0) fds.push(fd)
  }
  return fds
}

/**
 * Whether the spawned process is still unreaped, so that its PID, and the
 * group and session it leads, cannot belong to anybody else. Node reaps a
 * child in the event loop and sets `exitCode`/`signalCode` right after;
 * between the two (several children reaped in one pass) the `/proc` entry
 * with the start time seen at the spawn is the proof.
 */
function leaderHeld(run: Pick<CapturedRun, 'subprocess' | 'pid' | 'start'>): boolean {
  const { subprocess, pid, start } = run
  if (pid === undefined || subprocess.exitCode !== null || subprocess.signalCode !== null) return false
  return start !== undefined && readStat(pid)?.start === start
}

/**
 * SIGKILL the process group led by the spawned process, and the process
 * itself (the group kill can fail: the call is refused, and the deadline
 * must hold anyway) — only while it is unreaped ({@link leaderHeld}).
 * Inside a PID namespace the leader's death takes everything else down with
 * it; after its exit nothing of the command is left to signal.
 */
function killLeader(run: CapturedRun): void {
  if (run.pid === undefined || !leaderHeld(run)) return
  kill(-run.pid)
  kill(run.pid)
}

/**
 * Run one program with bounded capture and a hard deadline.
 *
 * @param options - See {@link BoundedRunOptions}.
 * @returns Exit status and bounded output when the process exits by itself.
 * @throws `TOOL_TIMEOUT` / `TOOL_ABORTED` (tree killed; partial output in
 *   `details.output`), `TOOL_COMMAND_NOT_FOUND` when the spawn finds no
 *   program, `TOOL_IO_ERROR` for other spawn failures.
 * @internal
 */
export async function runBounded(options: BoundedRunOptions): Promise<BoundedRunResult> {
  const { signal, label } = options
  if (signal?.aborted) {
    for (const { hostFd } of options.descriptors ?? []) closeQuietly(hostFd)
    throw new E_TOOL_ABORTED(`${label} was cancelled before it started`, {
      cause: signal.reason,
      details: { exitCode: null, signal: null, output: '' },
    })
  }
  const run = spawnCaptured(options)
  const watchdog = armWatchdog(run, options)
  try {
    const exit = await waitForExit(run.subprocess)
    // The exit status is known: a deadline or an abort from now on (while the
    // pipes drain) must not turn it into TOOL_TIMEOUT / TOOL_ABORTED.
    watchdog.disarm()
    await reapAfterExit(run)
    return settle(run, exit, watchdog.ending, options)
  } finally {
    watchdog.disarm()
    if (run.pid !== undefined) liveGroups.delete(run.pid)
  }
}

/** A spawned command with its output captures and, without a PID namespace, its tree tracker. */
interface CapturedRun {
  readonly subprocess: ChildProcess
  readonly pid: number | undefined
  /** The spawned process's start time in `/proc` (clock ticks after boot), read before it could be reaped. */
  readonly start: number | undefined
  readonly output: BoundedCapture
  readonly errors: BoundedCapture
  readonly tracker: TreeTracker | undefined
}

type Exit = { code: number | null; signal: string | null } | { error: unknown }

/** Spawn: no shell, a new session, `/dev/null` over inherited descriptors; stdout and stderr into bounded captures. */
function spawnCaptured(options: BoundedRunOptions): CapturedRun {
  const output = new BoundedCapture(options.maxOutputBytes, options.mode, options.countLines === true)
  const errors = options.mergeStderr ? output : new BoundedCapture(Math.min(options.maxOutputBytes, 65_536), 'headTail')
  let subprocess: ChildProcess
  try {
    const stdio = stdioWithoutLeaks()
    if (options.passFd !== undefined) {
      while (stdio.length < 3) stdio.push('ignore')
      stdio[3] = options.passFd
    }
    subprocess = spawn(options.file, [...options.args], {
      cwd: options.cwd,
      env: options.env,
      // passFd and inputs are never given together (grep's jail / the OS sandbox's seccomp program).
      stdio: withDescriptors(withInputs(stdio, options.inputs), options.descriptors),
      // A new session: the child leads its own process group, which a timeout kills whole.
      detached: true,
      windowsHide: true,
    })
  } catch (error) {
    // Node throws some spawn failures (E2BIG, ENOMEM…) at once instead of emitting them.
    throw spawnError(error, options.label)
  } finally {
    // The child has its own copies now (or never will): the kit's are not needed.
    for (const { hostFd } of options.descriptors ?? []) closeQuietly(hostFd)
  }
  feedInputs(subprocess, options.inputs)
  subprocess.stdout?.on('data', (chunk: Buffer) => output.push(chunk))
  subprocess.stderr?.on('data', (chunk: Buffer) => errors.push(chunk))
  const pid = subprocess.pid
  // Synchronously after the spawn (which returns once the program is
  // exec'd) the leader's entry still exists: it cannot have been reaped yet.
  const start = pid === undefined ? undefined : readStat(pid)?.start
  const held = (): boolean => leaderHeld({ subprocess, pid, start })
  // Without a PID namespace nothing takes a `setsid` escapee down for us: follow the tree in /proc.
  const tracker =
    pid !== undefined && options.contained !== true && options.singleProcess !== true && process.platform === 'linux'
      ? new TreeTracker(pid, start ?? Number.POSITIVE_INFINITY, hostFds(subprocess.stdout, subprocess.stderr), held)
      : undefined
  const run = { subprocess, pid, start, output, errors, tracker }
  if (pid !== undefined) {
    installExitHook()
    liveGroups.set(pid, run)
  }
  return run
}

/** Each host descriptor at its number in the child, padding the gaps like {@link stdioWithoutLeaks}. */
function withDescriptors(
  stdio: Array<'ignore' | 'pipe' | number>,
  descriptors: BoundedRunOptions['descriptors'],
): Array<'ignore' | 'pipe' | number> {
  for (const { childFd, hostFd } of descriptors ?? []) {
    while (stdio.length < childFd) stdio.push('ignore')
    stdio[childFd] = hostFd
  }
  return stdio
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd)
  } catch {
    // already closed
  }
}

/** A pipe at each input's descriptor (over whatever was laid there), padding the gaps like {@link stdioWithoutLeaks}. */
function withInputs(
  stdio: Array<'ignore' | 'pipe' | number>,
  inputs: BoundedRunOptions['inputs'],
): Array<'ignore' | 'pipe' | number> {
  for (const { fd } of inputs ?? []) {
    while (stdio.length < fd) stdio.push('ignore')
    stdio[fd] = 'pipe'
  }
  return stdio
}

/**
 * Write each input and close the kit's end once it is flushed: the data
 * stays queued in the socket for the reader, which then sees end-of-file.
 * A child that exits without reading (a failed exec) is no error.
 */
function feedInputs(subprocess: ChildProcess, inputs: BoundedRunOptions['inputs']): void {
  for (const { fd, data } of inputs ?? []) {
    const stream = subprocess.stdio[fd] as NodeJS.WritableStream & { destroy(): void } | null | undefined
    if (!stream) continue
    stream.on('error', () => undefined)
    stream.end(data, () => stream.destroy())
    subprocess.once('exit', () => stream.destroy())
  }
}

/** The deadline and the abort signal: either kills the whole tree, once, unless the command already exited. */
interface Watchdog {
  /** Why the tree was killed, if it was. */
  readonly ending: 'timeout' | 'abort' | undefined
  /** The command exited: stop watching (idempotent). */
  disarm(): void
}

function armWatchdog(run: CapturedRun, options: BoundedRunOptions): Watchdog {
  const { pid, tracker } = run
  const signal = options.signal
  let ending: 'timeout' | 'abort' | undefined
  let exited = false
  const stop = (why: 'timeout' | 'abort'): void => {
    if (exited || ending !== undefined || pid === undefined) return
    ending = why
    if (tracker === undefined) killLeader(run)
    else tracker.killAll()
  }
  const timer = setTimeout(() => stop('timeout'), options.timeoutMs)
  const watch = options.watch
  const poll =
    watch === undefined || pid === undefined
      ? undefined
      : setInterval(() => {
          if (exited || ending !== undefined || !watch.shouldStop()) return
          clearInterval(poll)
          if (tracker === undefined) killLeader(run)
          else tracker.killAll()
        }, watch.everyMs)
  poll?.unref()
  const onAbort = (): void => stop('abort')
  signal?.addEventListener('abort', onAbort, { once: true })
  return {
    get ending() {
      return ending
    },
    disarm() {
      exited = true
      clearTimeout(timer)
      clearInterval(poll)
      signal?.removeEventListener('abort', onAbort)
      tracker?.stop()
    },
  }
}

function waitForExit(subprocess: ChildProcess): Promise<Exit> {
  return new Promise<Exit>((resolve) => {
    subprocess.once('exit', (code, sig) => resolve({ code, signal: sig }))
    subprocess.once('error', (error) => resolve({ error }))
  })
}

/**
 * Kill what the finished command left behind and wait for its pipes. The
 * leader is reaped: a PID namespace (bwrap's, or `unshare --pid --fork`,
 * whose init the spawned process waits for) is empty by now, as is the
 * group of a single-process program, so only a tracked tree is looked at.
 */
async function reapAfterExit(run: CapturedRun): Promise<void> {
  const { pid, tracker, subprocess } = run
  if (pid !== undefined) {
    // Leftover background children of a finished command are killed too.
    tracker?.killLeftovers()
    liveGroups.delete(pid)
  }
  await drainStreams([subprocess.stdout, subprocess.stderr], () => {
    // A pipe still open after the group is gone is held by an escapee
    // (setsid, re-parented): find it by session, group or open pipe.
    tracker?.killAll()
  })
}

/** The result, or the timeout / abort / spawn error with the partial output. */
function settle(run: CapturedRun, exit: Exit, ending: 'timeout' | 'abort' | undefined, options: BoundedRunOptions): BoundedRunResult {
  const { label, signal } = options
  const rendered = run.output.render({ cutAtLine: options.mode === 'head' })
  const exitCode = 'code' in exit ? exit.code : null
  const details = { exitCode, signal: 'signal' in exit ? exit.signal : null, output: rendered }
  if (ending === 'timeout') {
    throw new E_TOOL_TIMEOUT(
      `${label} did not finish within ${options.timeoutMs} ms; it was killed with its whole process tree. Output so far:\n${rendered}`,
      { details: { ...details, timeoutMs: options.timeoutMs } },
    )
  }
  if (ending === 'abort') {
    throw new E_TOOL_ABORTED(`${label} was cancelled; it was killed with its whole process tree. Output so far:\n${rendered}`, {
      cause: signal?.reason,
      details,
    })
  }
  if ('error' in exit) throw spawnError(exit.error, label)
  return {
    exitCode: details.exitCode,
    signal: details.signal,
    output: rendered,
    stderr: options.mergeStderr ? '' : run.errors.render(),
    outputBytes: run.output.totalBytes,
    ...(run.output.totalLines === undefined ? {} : { outputLines: run.output.totalLines }),
  }
}

/**
 * Wait for both pipes to close, destroying them if an escaped grandchild
 * keeps them open; `onSlow` runs once if they are still open after
 * {@link SLOW_DRAIN_MS}.
 */
async function drainStreams(streams: (NodeJS.ReadableStream | null | undefined)[], onSlow: () => void): Promise<void> {
  const open = streams.filter((stream) => stream && !(stream as { closed?: boolean }).closed)
  if (open.length === 0) return
  const slow = setTimeout(onSlow, SLOW_DRAIN_MS)
  await Promise.all(
    streams.map(
      (stream) =>
        new Promise<void>((resolve) => {
          if (!stream) return resolve()
          const readable = stream as NodeJS.ReadableStream & { closed?: boolean; destroy?: () => void }
          if (readable.closed) return resolve()
          const timer = setTimeout(() => {
            readable.destroy?.()
            resolve()
          }, STREAM_GRACE_MS)
          readable.once('close', () => {
            clearTimeout(timer)
            resolve()
          })
        }),
    ),
  )
  clearTimeout(slow)
}

function spawnError(error: unknown, label: string): Error {
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
