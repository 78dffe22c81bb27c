/**
 * The process tree of one command: killing it whole, and following it
 * through `/proc` where no PID namespace does that for the kit.
 *
 * @module
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'

/**
 * The spawned process of a command as the kill helpers see it: what Node
 * knows of it (unreaped while `exitCode` and `signalCode` are `null`), its
 * PID and its start time in `/proc`, read right after the spawn.
 *
 * @internal
 */
export interface Leader {
  readonly subprocess: { readonly exitCode: number | null; readonly signalCode: string | null }
  readonly pid: number | undefined
  /** Clock ticks after boot, from `/proc/PID/stat`. */
  readonly start: number | undefined
}

/** A running command: its leader and, without a PID namespace, its tree tracker. */
export interface LiveRun extends Leader {
  readonly tracker: TreeTracker | undefined
}

/** Running commands, by the PID of the spawned process. */
const liveRuns = new Map<number, LiveRun>()
let exitHookInstalled = false

/**
 * Remember a running command until {@link forgetRun}: if the host process
 * exits meanwhile, the command is taken down with it.
 *
 * @param run - The command.
 * @internal
 */
export function rememberRun(run: LiveRun): void {
  if (run.pid === undefined) return
  if (!exitHookInstalled) {
    exitHookInstalled = true
    process.on('exit', () => {
      for (const live of liveRuns.values()) {
        if (live.tracker !== undefined) live.tracker.killAll(false)
        else killLeader(live)
      }
    })
  }
  liveRuns.set(run.pid, run)
}

/**
 * The command is over: nothing of it to kill at the host's exit.
 *
 * @param pid - The spawned process's PID.
 * @internal
 */
export function forgetRun(pid: number | undefined): void {
  if (pid !== undefined) liveRuns.delete(pid)
}

/**
 * One row of `/proc/PID/stat`: the fields the tracker needs.
 *
 * @internal
 */
export interface ProcEntry {
  pid: number
  ppid: number
  pgrp: number
  session: number
  /** Start time, in clock ticks after boot. */
  start: number
}

/**
 * Read one process's row, or `undefined` when it is gone.
 *
 * @param pid - The process.
 * @returns Its row.
 * @internal
 */
export function readStat(pid: number | string): ProcEntry | undefined {
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
 *
 * @internal
 */
export class TreeTracker {
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

/**
 * The host's file descriptors behind `streams` (libuv pipe handles).
 *
 * @param streams - The child's stdout and stderr.
 * @returns Their descriptors in the host.
 * @internal
 */
export function hostFds(...streams: unknown[]): number[] {
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
 *
 * @param run - The command's leader.
 * @returns Whether it is unreaped.
 * @internal
 */
export function leaderHeld(run: Leader): boolean {
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
 *
 * @param run - The command's leader.
 * @internal
 */
export function killLeader(run: Leader): void {
  if (run.pid === undefined || !leaderHeld(run)) return
  kill(-run.pid)
  kill(run.pid)
}

