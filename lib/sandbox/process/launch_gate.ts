/**
 * Hold a spawned sandbox after its set-up until its mounts are checked:
 * bwrap's child blocks on a pipe (`--block-fd`) after its last mount, the
 * kit learns the child's PID from `--info-fd`, asks the engine's check
 * (`os/mount_check.ts`) until the mount table is final, then writes the
 * one byte that lets the command run, or kills the sandbox first.
 *
 * @module
 */
import type { Readable, Writable } from 'node:stream'
import { killLeader } from './process_tree.js'
import type { CapturedRun, SpawnGate } from './spawn.js'

/** How the hold ended: the command was let go, the sandbox exited before (bwrap failed), or the check refused (the sandbox was killed). */
export type HoldOutcome = 'released' | 'exited' | Error

/** Between two looks at a set-up still going on (bwrap's set-up takes a few milliseconds). */
const POLL_MS = 1

/**
 * Release the command once its mounts are as planned.
 *
 * @remarks
 * bwrap's child goes on when its `read()` of the block descriptor returns,
 * whatever it returns: end-of-file (the kit's end closed) releases it as
 * surely as the byte. So on a refusal the whole group is SIGKILLed before
 * the kit's end is closed (a fatal signal is acted on before the child
 * returns to user space), and the end is never closed while the check is
 * pending, except once the sandbox has exited.
 *
 * @param run - The spawned sandbox (bwrap leads its process group until the command's own `setsid`, which comes after the block).
 * @param gate - The descriptors and the check.
 * @returns `'released'`; `'exited'` when the sandbox exited before the
 *   release (bwrap failed during its set-up: nothing ran); the check's error
 *   once the sandbox was killed.
 * @internal
 */
export function holdUntilChecked(run: CapturedRun, gate: SpawnGate): Promise<HoldOutcome> {
  const { subprocess } = run
  const info = subprocess.stdio[gate.infoFd] as Readable | null | undefined
  const block = subprocess.stdio[gate.blockFd] as Writable | null | undefined
  return new Promise((resolve) => {
    let exited = false
    let settled = false
    const finish = (outcome: HoldOutcome): void => {
      if (settled) return
      settled = true
      info?.destroy()
      resolve(outcome)
    }
    subprocess.once('exit', () => {
      exited = true
    })
    if (!info || !block || run.pid === undefined) {
      block?.destroy()
      finish('exited')
      return
    }
    block.on('error', () => undefined)
    info.on('error', () => undefined)
    info.setEncoding('utf8')
    let text = ''
    let polling = false
    const poll = (childPid: number): void => {
      if (exited) {
        block.destroy()
        finish('exited')
        return
      }
      const verdict = gate.check(childPid)
      if (verdict === 'pending') {
        setTimeout(() => poll(childPid), POLL_MS)
        return
      }
      if (verdict === 'ready') {
        block.end(Buffer.of(1), () => block.destroy())
        finish('released')
        return
      }
      // Kill before closing the pipe: end-of-file alone would release the command.
      killLeader(run)
      block.destroy()
      finish(verdict)
    }
    info.on('data', (chunk: string) => {
      text += chunk
      const pid = /"child-pid":\s*(\d+)/.exec(text)?.[1]
      if (pid === undefined || polling) return
      polling = true
      poll(Number(pid))
    })
    // bwrap closes the descriptor after writing; with nothing in it, bwrap failed before its child existed.
    info.once('close', () => {
      if (polling) return
      block.destroy()
      finish('exited')
    })
  })
}
