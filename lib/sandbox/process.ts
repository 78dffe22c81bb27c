/**
 * Bounded spawn on execa: no shell, stdin closed, a scrubbed environment,
 * stdout/stderr streamed into constant-size captures, and a timeout or abort
 * that SIGKILLs the whole process tree.
 *
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs'
import { constants as osConstants } from 'node:os'
import { execa } from 'execa'
import { E_TOOL_ABORTED, E_TOOL_COMMAND_NOT_FOUND, E_TOOL_IO_ERROR, E_TOOL_TIMEOUT } from '../exceptions.js'
import { BoundedCapture, type CaptureMode } from './capture.js'
import { probeIsolation, wrapInNamespaces } from './isolation.js'

/** How long after the main process exits its pipes may stay open (held by an escaped grandchild). */
const STREAM_GRACE_MS = 2_000

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
  /** Namespaces to run in (each only where supported). */
  isolate?: { network: boolean; pid: boolean } | undefined
  /** How to name the command in messages. */
  label: string
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
}

const liveGroups = new Set<number>()
let exitHookInstalled = false

function installExitHook(): void {
  if (exitHookInstalled) return
  exitHookInstalled = true
  // If the host process exits mid-command, take the commands down with it.
  process.on('exit', () => {
    for (const pid of liveGroups) killTree(pid, false)
  })
}

/** Every descendant of `root` reachable through parent links, from /proc. */
function descendantsOf(root: number): number[] {
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return []
  }
  const children = new Map<number, number[]>()
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      // Fields after the parenthesised command name: state ppid pgrp …
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      const ppid = Number(fields[1])
      const list = children.get(ppid) ?? []
      list.push(Number(entry))
      children.set(ppid, list)
    } catch {
      // the process is gone already
    }
  }
  const found: number[] = []
  const queue = [root]
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child)
      queue.push(child)
    }
  }
  return found
}

/**
 * SIGKILL the process group led by `pid` and, without a PID namespace to do
 * it for us, every descendant still linked to it (a child that called
 * `setsid` left the group but not the tree).
 */
function killTree(pid: number, scanDescendants: boolean): void {
  const stragglers = scanDescendants ? descendantsOf(pid) : []
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    // the group is gone already
  }
  for (const child of stragglers) {
    try {
      process.kill(child, 'SIGKILL')
    } catch {
      // gone already
    }
  }
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
    throw new E_TOOL_ABORTED(`${label} was cancelled before it started`, {
      cause: signal.reason,
      details: { exitCode: null, signal: null, output: '' },
    })
  }
  const wanted = options.isolate ?? { network: false, pid: false }
  const pidNamespace = wanted.pid && probeIsolation().pid
  const { file, args } = wrapInNamespaces(options.file, options.args, wanted)
  const output = new BoundedCapture(options.maxOutputBytes, options.mode)
  const errors = options.mergeStderr ? output : new BoundedCapture(Math.min(options.maxOutputBytes, 65_536), 'headTail')

  const subprocess = execa(file, args, {
    cwd: options.cwd,
    env: options.env,
    extendEnv: false,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    buffer: false,
    // A new session: the child leads its own process group, which a timeout kills whole.
    detached: true,
    // Everything execa would add per spawn that this function does itself:
    // no exit-hook cleanup listeners (liveGroups does it), no rejection, no
    // newline stripping or `all` interleaving of buffers we never ask for,
    // no delayed SIGKILL timer (we send SIGKILL to the group directly).
    cleanup: false,
    reject: false,
    all: false,
    stripFinalNewline: false,
    forceKillAfterDelay: false,
    windowsHide: true,
  })
  // execa's own promise settles when everything is over; it is only kept from rejecting unhandled.
  const settled = subprocess.then(
    (result) => result,
    (error: unknown) => error,
  )
  subprocess.stdout?.on('data', (chunk: Buffer) => output.push(chunk))
  subprocess.stderr?.on('data', (chunk: Buffer) => errors.push(chunk))
  const pid = subprocess.pid
  if (pid !== undefined) {
    installExitHook()
    liveGroups.add(pid)
  }

  let ending: 'timeout' | 'abort' | undefined
  const stop = (why: 'timeout' | 'abort'): void => {
    if (ending !== undefined || pid === undefined) return
    ending = why
    killTree(pid, !pidNamespace)
  }
  const timer = setTimeout(() => stop('timeout'), options.timeoutMs)
  const onAbort = (): void => stop('abort')
  signal?.addEventListener('abort', onAbort, { once: true })

  try {
    const exit = await new Promise<{ code: number | null; signal: string | null } | { error: unknown }>((resolve) => {
      subprocess.once('exit', (code, sig) => resolve({ code, signal: sig }))
      subprocess.once('error', (error) => resolve({ error }))
    })
    if (pid !== undefined) {
      // Leftover background children of a finished command are killed too.
      killTree(pid, false)
      liveGroups.delete(pid)
    }
    await drainStreams(subprocess.stdout, subprocess.stderr)
    // Not waiting for execa's own promise: exit status, spawn errors and both
    // pipes are already in hand, and its remaining bookkeeping (abort of its
    // internal listeners) would add ≈ 0.1 ms per command. `settled` keeps a
    // late rejection handled.
    void settled

    const rendered = output.render({ cutAtLine: options.mode === 'head' })
    const exitCode = 'code' in exit ? exit.code : null
    const details = {
      exitCode,
      signal: 'signal' in exit ? (exit.signal ?? (pidNamespace ? signalFromShellStatus(exitCode) : null)) : null,
      output: rendered,
    }
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
      stderr: options.mergeStderr ? '' : errors.render(),
      outputBytes: output.totalBytes,
    }
  } finally {
    clearTimeout(timer)
    signal?.removeEventListener('abort', onAbort)
    if (pid !== undefined) liveGroups.delete(pid)
  }
}

/** Wait for both pipes to close, destroying them if an escaped grandchild keeps them open. */
async function drainStreams(...streams: (NodeJS.ReadableStream | null | undefined)[]): Promise<void> {
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
}

/**
 * In a PID namespace the command runs under a shell that reports a death by
 * signal N as status 128 + N, as shells do; recover the signal name.
 */
function signalFromShellStatus(code: number | null): string | null {
  if (code === null || code <= 128 || code > 128 + 64) return null
  const entry = Object.entries(osConstants.signals).find(([, number]) => number === code - 128)
  return entry ? entry[0] : null
}

function spawnError(error: unknown, label: string): Error {
  const code = (error as { code?: unknown } | null)?.code
  const details = { exitCode: null, signal: null, output: '' }
  if (code === 'ENOENT' || code === 'EACCES' || code === 'ENOEXEC') {
    return new E_TOOL_COMMAND_NOT_FOUND(`${label} could not be started: ${String(code)}`, { cause: error, details })
  }
  return new E_TOOL_IO_ERROR(`${label} could not be started: ${error instanceof Error ? error.message : String(error)}`, {
    cause: error,
    details,
  })
}
