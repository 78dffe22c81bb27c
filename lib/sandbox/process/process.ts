/**
 * Bounded run: a command spawned through execa (`spawn.ts`) with its
 * output streamed into constant-size captures, and a timeout or abort that
 * SIGKILLs the whole process tree (`process_tree.ts`).
 *
 * @module
 */
import { closeSync } from 'node:fs'
import { E_TOOL_ABORTED, E_TOOL_TIMEOUT } from '../../exceptions.js'
import { holdUntilChecked } from './launch_gate.js'
import { forgetRun, killLeader } from './process_tree.js'
import { loadExeca, spawnCaptured, spawnError, waitForExit, type CapturedRun, type Exit, type SpawnRequest } from './spawn.js'

/** How long after the main process exits its pipes may stay open (held by an escaped grandchild). */
const STREAM_GRACE_MS = 2_000
/** How long after the exit open pipes are taken as a sign of an escapee worth a /proc scan. */
const SLOW_DRAIN_MS = 50

/**
 * Options of {@link runBounded}.
 *
 * @internal
 */
export interface BoundedRunOptions extends SpawnRequest {
  /** Kill the tree after this many milliseconds. */
  timeoutMs: number
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
  /** How many line feeds it wrote, when {@link SpawnRequest.countLines} asked. */
  outputLines?: number | undefined
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
  // execa loads with the first command, not with `import 'toolsmith'`.
  await loadExeca()
  if (signal?.aborted) {
    for (const { hostFd } of options.descriptors ?? []) {
      try {
        closeSync(hostFd)
      } catch {
        // already closed
      }
    }
    throw new E_TOOL_ABORTED(`${label} was cancelled before it started`, {
      cause: signal.reason,
      details: { exitCode: null, signal: null, output: '' },
    })
  }
  const run = spawnCaptured(options)
  const watchdog = armWatchdog(run, options)
  // The OS sandbox holds the command until its mounts are checked; a refusal kills it before it ran.
  const held = options.gate === undefined ? undefined : holdUntilChecked(run, options.gate)
  try {
    const exit = await waitForExit(run)
    // The exit status is known: a deadline or an abort from now on (while the
    // pipes drain) must not turn it into TOOL_TIMEOUT / TOOL_ABORTED.
    watchdog.disarm()
    await reapAfterExit(run)
    const hold = await held
    if (hold instanceof Error) throw hold
    // bwrap failed before the command was let go: nothing ran, and bwrap's message may say why in the kit's terms.
    const early = hold === 'exited' && watchdog.ending === undefined ? options.gate?.explainEarlyExit?.(run.output.render()) : undefined
    if (early !== undefined) throw early
    return settle(run, exit, watchdog.ending, options)
  } finally {
    watchdog.disarm()
    forgetRun(run.pid)
  }
}

/** A spawned command with its output captures and, without a PID namespace, its tree tracker. */
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
    forgetRun(pid)
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

