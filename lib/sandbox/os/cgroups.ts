/**
 * Control groups for `bash` commands: one cgroup per command, under one
 * parent per kit process (`toolsmith-<pid>`), so the kernel bounds the
 * command's processes (`pids`) and memory (`memory`) as a whole and counts
 * when it refused a fork or killed a process for memory.
 *
 * @remarks
 * Found at first use from `/proc/self/mountinfo` and `/proc/self/cgroup`:
 * a controller mounted as its own cgroup v1 hierarchy is used there (below
 * the kit's own cgroup in it), else the cgroup v2 hierarchy when it has the
 * controller. cgroup v2 only lets a cgroup without processes (or the root)
 * hand controllers to its children, so the kit's parent goes in the kit's
 * own cgroup if that delegates them (`cgroup.subtree_control`) or accepts
 * them, else beside it in its parent if that delegates them already (as
 * systemd slices do); otherwise there is no cgroup and the limits fall back
 * to rlimits. Creating the parent is the test of
 * writability (root, or a delegated hierarchy). The parent exists only
 * while commands run (a kit process killed between commands leaves
 * nothing); those of kit processes killed during a command are removed when
 * found, and what runs when the process exits is killed and removed.
 *
 * @module
 */
import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { unescapeMountinfo } from './mount_check.js'

/** The two controllers the kit uses. */
export type CgroupController = 'memory' | 'pids'

/** Where the kit can create command cgroups for one controller. */
export interface CgroupSlot {
  /** `v1`: the controller's own hierarchy; `v2`: the unified hierarchy. */
  readonly version: 'v1' | 'v2'
  /** The kit's parent cgroup (`…/toolsmith-<pid>`): it exists while a command runs. */
  readonly parent: string
  /** cgroup v2: what the parent's `cgroup.subtree_control` needs (`+memory +pids`). */
  readonly delegate?: string | undefined
}

/** What the kit can use on this machine, found once per process. */
export interface CgroupSupport {
  /** The usable controllers. */
  readonly slots: Readonly<Partial<Record<CgroupController, CgroupSlot>>>
  /** Why a controller is not usable (for `doctor`), when one is not. */
  readonly reason: string | undefined
}

interface Mount {
  readonly root: string
  readonly point: string
  readonly type: string
  readonly options: readonly string[]
}

let support: CgroupSupport | undefined
let commandCount = 0
/** cgroup v2 `subtree_control` files the kit enabled controllers in: restored at exit. */
const enabled: Array<{ file: string; controllers: readonly CgroupController[] }> = []

function readOrUndefined(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
}

function mounts(): Mount[] {
  const found: Mount[] = []
  for (const line of (readOrUndefined('/proc/self/mountinfo') ?? '').split('\n')) {
    // id parent major:minor root mountpoint options [optional…] - type source superoptions
    const [left, right] = line.split(' - ')
    if (left === undefined || right === undefined) continue
    const fields = left.split(' ')
    const [type, , superOptions] = right.split(' ')
    if (type !== 'cgroup' && type !== 'cgroup2') continue
    found.push({ root: unescapeMountinfo(fields[3] ?? '/'), point: unescapeMountinfo(fields[4] ?? ''), type, options: (superOptions ?? '').split(',') })
  }
  return found
}


/** The host path of the process's cgroup `inside` a hierarchy mounted at `mount`. */
function hostPath(mount: Mount, inside: string): string | undefined {
  const relative = path.posix.relative(mount.root, inside)
  if (relative.startsWith('..')) return undefined
  return path.join(mount.point, relative)
}

function ownCgroups(): Map<string, string> {
  // hierarchy-id:controllers:path; v2 is "0::path".
  const own = new Map<string, string>()
  for (const line of (readOrUndefined('/proc/self/cgroup') ?? '').split('\n')) {
    const match = /^(\d+):([^:]*):(.*)$/.exec(line)
    if (match === null) continue
    if (match[1] === '0' && match[2] === '') own.set('', match[3]!)
    else for (const controller of match[2]!.split(',')) own.set(controller, match[3]!)
  }
  return own
}

/**
 * Find (once per process) which controllers the kit can use, checking that
 * it can create (and remove) its parent cgroup in each. Set
 * `TOOLSMITH_CGROUPS=off` to use none (the limits then fall back to rlimits).
 *
 * @returns The cached support record.
 * @internal
 */
export function probeCgroups(): CgroupSupport {
  if (support !== undefined) return support
  if (process.platform !== 'linux') return (support = { slots: {}, reason: `cgroups need Linux (this is ${process.platform})` })
  if (process.env.TOOLSMITH_CGROUPS === 'off') return (support = { slots: {}, reason: 'TOOLSMITH_CGROUPS=off' })
  const all = mounts()
  const own = ownCgroups()
  const slots: Partial<Record<CgroupController, CgroupSlot>> = {}
  const reasons: string[] = []
  const missing: CgroupController[] = []
  for (const controller of ['memory', 'pids'] as const) {
    const mount = all.find((m) => m.type === 'cgroup' && m.options.includes(controller))
    const inside = own.get(controller)
    if (mount === undefined || inside === undefined) {
      missing.push(controller)
      continue
    }
    const dir = hostPath(mount, inside)
    const parent = dir === undefined ? undefined : tryParent(dir, undefined, reasons)
    if (parent !== undefined) slots[controller] = { version: 'v1', parent }
  }
  if (missing.length > 0) {
    const unified = all.find((m) => m.type === 'cgroup2')
    const inside = own.get('')
    const dir = unified === undefined || inside === undefined ? undefined : hostPath(unified, inside)
    if (unified === undefined || dir === undefined) reasons.push(`no cgroup hierarchy has the ${missing.join(' and ')} controller${missing.length === 1 ? '' : 's'}`)
    else {
      const place = unifiedPlace(dir, dir === unified.point ? undefined : path.dirname(dir), missing)
      if (typeof place === 'string') reasons.push(place)
      else {
        const parent = tryParent(place.base, place.delegate, reasons)
        if (parent !== undefined) for (const controller of missing) slots[controller] = { version: 'v2', parent, delegate: place.delegate }
      }
    }
  }
  support = { slots, reason: reasons.length > 0 ? reasons.join('; ') : undefined }
  if (Object.keys(slots).length > 0) process.on('exit', removeAllSync)
  return support
}

function errorText(error: unknown): string {
  return (error as { code?: string }).code ?? (error as Error).message
}

/**
 * `…/toolsmith-<pid>` in `dir`, if it can be made (and set up): made and
 * removed again, after removing those of dead kit processes.
 */
function tryParent(dir: string, delegate: string | undefined, reasons: string[]): string | undefined {
  removeStaleParents(dir)
  const parent = path.join(dir, `toolsmith-${process.pid}`)
  try {
    makeParent(parent, delegate)
  } catch (error) {
    reasons.push(`cannot create a cgroup in ${dir} (${errorText(error)}): the kit needs root or a delegated cgroup`)
    return undefined
  }
  removeQuietly(parent)
  return parent
}

function makeParent(parent: string, delegate: string | undefined): void {
  try {
    mkdirSync(parent)
  } catch (error) {
    if ((error as { code?: string }).code !== 'EEXIST') throw error
  }
  try {
    if (delegate !== undefined) writeFileSync(path.join(parent, 'cgroup.subtree_control'), delegate)
  } catch (error) {
    removeQuietly(parent)
    throw error
  }
}

/** Commands running under each parent: the parent goes when the count drops to 0. */
const running = new Map<string, number>()

function acquireParent(slot: CgroupSlot): void {
  const count = running.get(slot.parent) ?? 0
  if (count === 0) makeParent(slot.parent, slot.delegate)
  running.set(slot.parent, count + 1)
}

function releaseParent(parent: string): void {
  const count = (running.get(parent) ?? 1) - 1
  if (count > 0) running.set(parent, count)
  else {
    running.delete(parent)
    // Busy while a command cgroup would not go: the exit hook tries again.
    removeQuietly(parent)
  }
}

/**
 * cgroup v2: a cgroup hands controllers to its children only through its
 * `cgroup.subtree_control`, which a non-root cgroup with processes in it
 * (the kit's own) cannot set. `dir` serves if it delegates the controllers
 * already, or (with `mayEnable`) accepts them; then the kit's parent there
 * delegates them to the commands.
 *
 * @returns What the parent's `cgroup.subtree_control` needs, or why `dir` cannot serve.
 */
/**
 * Where the kit's parent goes in cgroup v2: in its own cgroup, else beside
 * it (in `besides`, its parent) when that delegates the controllers already.
 *
 * @returns The folder and what the kit's parent must delegate, or why there is none.
 */
function unifiedPlace(dir: string, besides: string | undefined, controllers: readonly CgroupController[]): { base: string; delegate: string } | string {
  const own = unifiedDelegation(dir, controllers, true)
  if (typeof own === 'string') return { base: dir, delegate: own }
  const beside = besides === undefined ? undefined : unifiedDelegation(besides, controllers, false)
  return typeof beside === 'string' ? { base: besides!, delegate: beside } : own.reason
}

function unifiedDelegation(dir: string, controllers: readonly CgroupController[], mayEnable: boolean): string | { reason: string } {
  const available = (readOrUndefined(path.join(dir, 'cgroup.controllers')) ?? '').trim().split(/\s+/)
  const absent = controllers.filter((c) => !available.includes(c))
  if (absent.length > 0) return { reason: `cgroup v2: the kit's cgroup ${dir} has no ${absent.join(' or ')} controller` }
  const enable = controllers.map((c) => `+${c}`).join(' ')
  const delegated = (readOrUndefined(path.join(dir, 'cgroup.subtree_control')) ?? '').trim().split(/\s+/)
  if (controllers.every((c) => delegated.includes(c))) return enable
  if (!mayEnable) return { reason: `cgroup v2: ${dir} does not delegate ${controllers.join(' and ')}` }
  try {
    writeFileSync(path.join(dir, 'cgroup.subtree_control'), enable)
    enabled.push({ file: path.join(dir, 'cgroup.subtree_control'), controllers })
    return enable
  } catch (error) {
    return {
      reason:
        `cgroup v2: the kit's cgroup ${dir} cannot delegate ${controllers.join(' and ')} (${errorText(error)}; ` +
        'a cgroup with processes in it cannot, unless it is the root), and its parent does not delegate them either',
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM'
  }
}

/**
 * Parents left by kit processes that were killed before their exit hook
 * ran. What still runs in them is a command of a dead kit process: one
 * killed in the first moments of a command, before bwrap armed its
 * `--die-with-parent`, leaves bwrap running. It is killed, then the
 * cgroups removed.
 */
function removeStaleParents(dir: string): void {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return
  }
  for (const name of names) {
    const pid = /^toolsmith-(\d+)$/.exec(name)?.[1]
    if (pid === undefined || Number(pid) === process.pid || isAlive(Number(pid))) continue
    const parent = path.join(dir, name)
    removeEmptied(subgroups(parent))
    removeTree(parent)
  }
}

/** Kill what runs in `commands`, wait (at most ≈ 0.5 s, synchronously) for them to empty. */
function removeEmptied(commands: readonly string[]): void {
  for (const command of commands) killMembers(command)
  const sleeper = new Int32Array(new SharedArrayBuffer(4))
  for (let i = 0; i < 50 && commands.some((command) => members(command).length > 0); i++) Atomics.wait(sleeper, 0, 0, 10)
}

function subgroups(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => path.join(dir, entry.name))
  } catch {
    return []
  }
}

/** rmdir a cgroup and its (empty) children; a cgroup with processes stays. */
function removeTree(dir: string): boolean {
  for (const child of subgroups(dir)) removeTree(child)
  return removeQuietly(dir)
}

function removeQuietly(dir: string): boolean {
  try {
    rmdirSync(dir)
    return true
  } catch (error) {
    return (error as { code?: string }).code === 'ENOENT'
  }
}

/** The pids in a cgroup (host numbering); empty once it is gone. */
function members(dir: string): number[] {
  return (readOrUndefined(path.join(dir, 'cgroup.procs')) ?? '')
    .split('\n')
    .filter((line) => line !== '')
    .map(Number)
}

/**
 * SIGKILL every process in a cgroup. Each pid was read from the cgroup's
 * own list a moment before, so it is the command's. A member already
 * exiting is left alone: it needs no signal, and its number is about to
 * be freed, so a signal sent a moment later could reach whoever gets it
 * next (cgroup v1 lists a dying process until it leaves the cgroup, late
 * in its exit; a PID namespace's last processes are often still there
 * when the command's exit is seen, as bwrap reports the exit before its
 * namespace's init has finished).
 */
function killMembers(dir: string): void {
  try {
    // cgroup v2 (Linux 5.14+): one write kills the whole cgroup, forks in flight included.
    writeFileSync(path.join(dir, 'cgroup.kill'), '1')
    return
  } catch {
    // v1 (no such file), or an older kernel: one signal per process.
  }
  for (const pid of members(dir)) {
    if (!isRunning(pid)) continue
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // gone already
    }
  }
}

/** The kernel's `PF_EXITING`: set on the first step of a thread's exit. */
const PF_EXITING = 0x4

/**
 * Whether `pid` exists and some thread of it has not begun to exit (field 9
 * of `/proc/PID/task/TID/stat`, the thread's flags): a process whose main
 * thread has exited may still run others, and is listed for them. What
 * cannot be read for another reason counts as running.
 */
function isRunning(pid: number): boolean {
  let threads: string[]
  try {
    threads = readdirSync(`/proc/${pid}/task`)
  } catch (error) {
    return (error as { code?: string }).code !== 'ENOENT'
  }
  for (const thread of threads) {
    let stat: string
    try {
      stat = readFileSync(`/proc/${pid}/task/${thread}/stat`, 'latin1')
    } catch (error) {
      if ((error as { code?: string }).code === 'ENOENT') continue
      return true
    }
    // Fields after the parenthesised command name start at field 3 (state); flags is field 9.
    const flags = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[6])
    if ((flags & PF_EXITING) === 0) return true
  }
  return false
}

/** At exit: kill what is left in the command cgroups, wait briefly for them to empty, remove everything. */
function removeAllSync(): void {
  const parents = new Set(Object.values(support?.slots ?? {}).map((slot) => slot.parent))
  removeEmptied([...parents].flatMap(subgroups))
  for (const parent of parents) removeTree(parent)
  for (const { file, controllers } of enabled.splice(0)) tryWrite(file, controllers.map((c) => `-${c}`).join(' '))
}

/** What the kernel counted in a command's cgroup. */
export interface CgroupEvents {
  /** Forks refused at `pids.max`. */
  readonly forksRefused: number
  /** Processes the kernel killed at the memory limit. */
  readonly oomKills: number
}

/** Settings of one command's cgroup: `undefined` leaves that controller out. */
export interface CommandCgroupLimits {
  /** `pids.max`. */
  readonly processes?: number | undefined
  /** The memory limit, swap included (none may be used). */
  readonly memoryBytes?: number | undefined
}

function counter(text: string | undefined, key: string): number {
  const match = new RegExp(`^${key} (\\d+)$`, 'm').exec(text ?? '')
  return match === null ? 0 : Number(match[1])
}

/**
 * One command's cgroup (one directory per v1 hierarchy, one in v2): the
 * command enters it before it starts (its `cgroup.procs` files), the kit
 * reads the counters while it runs and removes it after.
 *
 * @internal
 */
export class CommandCgroup {
  /** The `cgroup.procs` files the command's first process writes its pid to. */
  readonly procsFiles: readonly string[]
  readonly #dirs: ReadonlyMap<CgroupController, string>

  private constructor(dirs: Map<CgroupController, string>) {
    this.#dirs = dirs
    this.procsFiles = [...new Set(dirs.values())].map((dir) => path.join(dir, 'cgroup.procs'))
  }

  /**
   * Create the cgroup of one command with `limits`.
   *
   * @param limits - What to bound; a controller without a value (or without a slot) is left out.
   * @returns The cgroup, or `undefined` when there is nothing to bound.
   * @throws The file system error when a cgroup cannot be created or set up (after removing what was made).
   */
  static create(limits: CommandCgroupLimits): CommandCgroup | undefined {
    const { slots } = probeCgroups()
    const wanted: CgroupController[] = []
    if (limits.processes !== undefined && slots.pids !== undefined) wanted.push('pids')
    if (limits.memoryBytes !== undefined && slots.memory !== undefined) wanted.push('memory')
    if (wanted.length === 0) return undefined
    const name = `cmd-${++commandCount}`
    const dirs = new Map<CgroupController, string>()
    const made: string[] = []
    const parents: string[] = []
    try {
      for (const controller of wanted) {
        const slot = slots[controller]!
        const dir = path.join(slot.parent, name)
        if (!made.includes(dir)) {
          acquireParent(slot)
          parents.push(slot.parent)
          mkdirSync(dir)
          made.push(dir)
        }
        dirs.set(controller, dir)
      }
      const pids = dirs.get('pids')
      if (pids !== undefined) writeFileSync(path.join(pids, 'pids.max'), String(limits.processes))
      const memory = dirs.get('memory')
      if (memory !== undefined) setMemory(memory, slots.memory!.version, limits.memoryBytes!)
    } catch (error) {
      for (const dir of made) removeQuietly(dir)
      for (const parent of parents) releaseParent(parent)
      throw error
    }
    return new CommandCgroup(dirs)
  }

  /** Whether the controller is bound by this cgroup. */
  has(controller: CgroupController): boolean {
    return this.#dirs.has(controller)
  }

  /**
   * Read the counters (cheap: one small file each).
   *
   * @returns Refused forks and memory kills so far.
   */
  events(): CgroupEvents {
    const pids = this.#dirs.get('pids')
    const memory = this.#dirs.get('memory')
    let oomKills = 0
    if (memory !== undefined) {
      // v1: memory.oom_control (Linux 4.13+ counts kills); v2: memory.events.
      const v1 = readOrUndefined(path.join(memory, 'memory.oom_control'))
      oomKills = counter(v1 ?? readOrUndefined(path.join(memory, 'memory.events')), 'oom_kill')
    }
    return {
      forksRefused: pids === undefined ? 0 : counter(readOrUndefined(path.join(pids, 'pids.events')), 'max'),
      oomKills,
    }
  }

  /**
   * After the command: kill whatever is left in the cgroup, wait (at most
   * ≈ 2 s) for it to empty, and remove it. One that will not go is tried
   * again when the process exits (with its parent).
   *
   * @returns Once removed (or given up on).
   */
  async remove(): Promise<void> {
    const dirs = [...new Set(this.#dirs.values())]
    let pending = dirs.filter((dir) => !removeQuietly(dir))
    if (pending.length > 0) {
      for (const dir of pending) killMembers(dir)
      for (let i = 0; i < 200 && pending.length > 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10))
        pending = pending.filter((dir) => !removeQuietly(dir))
        if (i % 20 === 19) for (const dir of pending) killMembers(dir)
      }
    }
    for (const dir of dirs) releaseParent(path.dirname(dir))
  }
}

function setMemory(dir: string, version: 'v1' | 'v2', bytes: number): void {
  if (version === 'v1') {
    writeFileSync(path.join(dir, 'memory.limit_in_bytes'), String(bytes))
    // Memory plus swap at the same value: no swap. The file is missing without swap accounting.
    tryWrite(path.join(dir, 'memory.memsw.limit_in_bytes'), String(bytes))
  } else {
    writeFileSync(path.join(dir, 'memory.max'), String(bytes))
    tryWrite(path.join(dir, 'memory.swap.max'), '0')
  }
}

function tryWrite(file: string, text: string): void {
  try {
    writeFileSync(file, text)
  } catch {
    // optional
  }
}
