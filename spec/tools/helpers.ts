/**
 * Shared fixtures for the sandbox and built-in tool specs: a real temp root
 * with a canary directory and a look-alike sibling beside it, and helpers
 * that run a tool through its executor and unwrap the E_TOOL_* cause.
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'vitest'
import {
  createDispatchContext,
  createTools,
  type BuiltinTools,
  type SandboxOptions,
  type Tool,
  type DispatchContext,
} from '../../lib/index.js'

/** A temp layout: `base/root` (the sandbox), `base/canary` and `base/root-evil` beside it. */
export interface Fixture {
  base: string
  root: string
  canary: string
  evil: string
  tools: BuiltinTools
  /** A recursive listing of everything in `base` except `root`: names, types, modes, link counts, content hashes. */
  snapshot(): string
  cleanup(): void
}

export const CANARY_TEXT = 'CANARY SECRET: must never be read through the sandbox\n'

/** Build the layout; `options` go to `createTools` (rootDir is set to `base/root`). */
export function makeFixture(options: SandboxOptions = {}): Fixture {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolsmith-spec-')))
  const root = path.join(base, 'root')
  const canary = path.join(base, 'canary')
  const evil = path.join(base, 'root-evil')
  fs.mkdirSync(root)
  fs.mkdirSync(path.join(canary, 'deep'), { recursive: true })
  fs.mkdirSync(evil)
  fs.writeFileSync(path.join(canary, 'secret.txt'), CANARY_TEXT)
  fs.writeFileSync(path.join(canary, 'deep', 'secret.txt'), CANARY_TEXT)
  fs.writeFileSync(path.join(evil, 'secret.txt'), CANARY_TEXT)
  const tools = createTools({ rootDir: root, ...options })
  return {
    base,
    root,
    canary,
    evil,
    tools,
    snapshot: () => snapshotOutside(base, root),
    cleanup: () => fs.rmSync(base, { recursive: true, force: true }),
  }
}

function snapshotOutside(base: string, root: string): string {
  const lines: string[] = []
  const walk = (dir: string): void => {
    for (const name of fs.readdirSync(dir).sort()) {
      const full = path.join(dir, name)
      if (full === root) continue
      const stats = fs.lstatSync(full)
      const rel = path.relative(base, full)
      if (stats.isSymbolicLink()) lines.push(`L ${rel} -> ${fs.readlinkSync(full)}`)
      else if (stats.isDirectory()) {
        lines.push(`D ${rel} ${(stats.mode & 0o7777).toString(8)}`)
        walk(full)
      } else {
        const hash = createHash('sha256').update(fs.readFileSync(full)).digest('hex')
        lines.push(`F ${rel} ${(stats.mode & 0o7777).toString(8)} n${stats.nlink} ${stats.size} ${hash}`)
      }
    }
  }
  walk(base)
  return lines.join('\n')
}

/** Run `tool` with `args` through its executor. */
export async function call(tool: Tool, args: unknown, ctx: DispatchContext = createDispatchContext()): Promise<unknown> {
  return await tool.executor(ctx)(args)
}

/** A thrown E_TOOL_* cause, as specs look at it. */
export interface ToolFailure {
  code: string
  message: string
  details: Record<string, unknown>
  outer: Error & { code?: string }
}

/**
 * Run `tool` and return the E_TOOL_* error its handler threw (the cause of
 * the executor's E_TOOL_DOWNSTREAM_ERROR). Fails the spec when the call succeeds.
 */
export async function failure(tool: Tool, args: unknown, ctx?: DispatchContext): Promise<ToolFailure> {
  let result: unknown
  try {
    result = await call(tool, args, ctx)
  } catch (error) {
    const outer = error as Error & { code?: string; cause?: unknown }
    if (outer.code === 'E_INVALID_TOOL_ARGS') {
      return { code: outer.code, message: outer.message, details: {}, outer }
    }
    expect(outer.code).toBe('E_TOOL_DOWNSTREAM_ERROR')
    const cause = outer.cause as { code: string; message: string; details: Record<string, unknown> }
    expect(typeof cause.code).toBe('string')
    return { code: cause.code, message: cause.message, details: cause.details ?? {}, outer }
  }
  throw new Error(`expected ${tool.name} to fail, but it returned ${JSON.stringify(result)?.slice(0, 300)}`)
}

/** Wait until `pid` no longer exists (zombies count as gone); false after `ms`. */
export async function waitGone(pid: number, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return !isAlive(pid)
}

/**
 * Host PIDs of the live processes whose command line contains `marker`
 * (a word such as `sleep 300.4711` carries). Works whatever PID namespace
 * the processes are in: the host's /proc sees them all.
 */
export function pidsWithMarker(marker: string): number[] {
  const pids: number[] = []
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    try {
      const argv = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')
      if (argv.includes(marker) && isAlive(Number(entry))) pids.push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return pids
}

/** Wait until no live process carries `marker`; SIGKILLs the survivors at the end either way, and says whether there were none. */
export async function waitNoneWithMarker(marker: string, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (pidsWithMarker(marker).length === 0) return true
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const survivors = pidsWithMarker(marker)
  for (const pid of survivors) process.kill(pid, 'SIGKILL')
  return survivors.length === 0
}

/** A `sleep` duration no other process uses: its text is the marker {@link pidsWithMarker} looks for. */
export function uniqueSleep(): string {
  return `300.${Math.floor(Math.random() * 1e9)}`
}

/** Whether `pid` is a live (non-zombie) process. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}


/** A process that keeps swapping `root/inner` between a real directory and a symlink to the canary. */
export interface DirectorySwapper {
  /** Stop the process and wait for it; resolves with how many swaps it made. */
  stop(): Promise<number>
  /** Settles once the first flip is done: a race loop started before it could end before the swapping begins. */
  readonly ready: Promise<void>
}

/**
 * Start a separate process that flips `fx.root/inner` (which must exist)
 * between the real directory and a symlink to `fx.canary` as fast as it can,
 * holding each state for a random 0–400 µs so that a check and the use after
 * it fall in different states. Used by the check-then-use race specs.
 *
 * @param relative - The directory to flip instead of `inner`, relative to the root (`a/inner`).
 */
export function startDirectorySwapper(fx: Fixture, relative = 'inner'): DirectorySwapper {
  const inner = path.join(fx.root, relative)
  const parked = `${inner}-parked`
  const stopFile = path.join(fx.base, relative === 'inner' ? 'stop' : `stop-${relative.replace(/\//g, '-')}`)
  const flipper = spawn(
    process.execPath,
    [
      '-e',
      `const fs = require('fs');
       const [inner, parked, canary, stop] = process.argv.slice(1);
       const spin = () => { const end = process.hrtime.bigint() + BigInt(Math.floor(Math.random() * 400_000)); while (process.hrtime.bigint() < end); };
       let flips = 0;
       while (flips % 64 !== 0 || !fs.existsSync(stop)) {
         try { fs.renameSync(inner, parked); fs.symlinkSync(canary, inner); } catch {}
         spin();
         try { fs.unlinkSync(inner); fs.renameSync(parked, inner); } catch {}
         spin();
         if (flips++ === 0) process.stdout.write('ready\\n');
       }
       try { fs.unlinkSync(inner) } catch {}
       try { fs.renameSync(parked, inner) } catch {}
       console.log(flips);`,
      inner,
      parked,
      fx.canary,
      stopFile,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  let output = ''
  let markReady!: () => void
  const ready = new Promise<void>((resolve) => (markReady = resolve))
  flipper.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString()
    if (output.startsWith('ready\n')) markReady()
  })
  const exited = new Promise((resolve) => flipper.on('exit', resolve))
  // A flipper that dies before its first flip must not leave a spec waiting forever.
  void exited.then(() => markReady())
  return {
    ready,
    async stop() {
      fs.writeFileSync(stopFile, '')
      await exited
      fs.unlinkSync(stopFile)
      return Number(output.trim().split('\n').at(-1))
    },
  }
}
