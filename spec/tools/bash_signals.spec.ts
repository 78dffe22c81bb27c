/**
 * `bash` and `grep` never signal a PID or process group the kit has already
 * reaped: once reaped, the number may belong to a stranger (`pid_max` is
 * often 32768), and a SIGKILL sent to it would hit that process.
 *
 * Real PID reuse cannot be forced in a spec, so these watch the mechanism
 * instead: `process.kill` is spied on (in this process, where the kit runs)
 * and each signal is recorded with whether its target still existed in
 * `/proc` at that moment (a zombie counts: it still holds its number).
 */
import fs from 'node:fs'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { Sandbox, createTools } from '../../lib/index.js'
import { call, makeFixture, pidsWithMarker, uniqueSleep, waitNoneWithMarker, type Fixture } from './helpers.js'

let fx: Fixture

beforeEach(() => {
  fx = makeFixture()
})
afterEach(() => {
  vi.restoreAllMocks()
  fx.cleanup()
})

/** One signal the kit sent: its target (negative: a group) and whether that target existed when it was sent. */
interface Sent {
  target: number
  signal: string | number | undefined
  existed: boolean
}

/** Field 5 (pgrp) of every `/proc/PID/stat`, zombies included. */
function groupExists(pgrp: number): boolean {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'latin1')
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === pgrp) return true
    } catch {
      // gone meanwhile
    }
  }
  return false
}

/** Record every real signal (not the signal-0 probe) sent through `process.kill` from now on, and still send it. */
function recordSignals(): Sent[] {
  const sent: Sent[] = []
  const realKill = process.kill.bind(process)
  vi.spyOn(process, 'kill').mockImplementation((target: number, signal?: string | number) => {
    if (signal !== 0) {
      const existed = target > 0 ? fs.existsSync(`/proc/${target}/stat`) : groupExists(-target)
      sent.push({ target, signal, existed })
    }
    return realKill(target, signal)
  })
  return sent
}

const uncontained = { filesystem: false, network: false, pid: false } as const

describe('bash: no signal reaches a reaped PID or an empty group', () => {
  it('without a PID namespace, a command that leaves nothing behind is not signalled after its exit', async () => {
    const tools = createTools({ rootDir: fx.root, isolation: uncontained })
    const sent = recordSignals()
    // $$ is the spawned process itself: no wrapper without namespaces.
    const leader = Number(await call(tools.bash, { cmd: 'sh', args: ['-c', 'echo $$'] }))
    expect(leader).toBeGreaterThan(1)
    expect(sent.filter(({ target }) => Math.abs(target) === leader)).toEqual([])
    expect(sent.filter(({ existed }) => !existed)).toEqual([])
  })

  it('without a PID namespace, a background child left by a finished command is still killed, through a group that still exists', async () => {
    const tools = createTools({ rootDir: fx.root, isolation: uncontained })
    const marker = uniqueSleep()
    const sent = recordSignals()
    // Output redirected away: only its group (the command's) can find the child.
    const leader = Number(await call(tools.bash, { cmd: 'sh', args: ['-c', `sleep ${marker} >/dev/null 2>&1 & echo $$; exit 0`] }))
    expect(await waitNoneWithMarker(marker), 'the background child outlived its command').toBe(true)
    expect(sent.some(({ target }) => target === -leader)).toBe(true)
    expect(sent.filter(({ existed }) => !existed)).toEqual([])
  })

  const engines = [
    ['bubblewrap', undefined, new Sandbox().isolation.filesystem],
    ['unshare --pid', { filesystem: false }, new Sandbox({ isolation: { filesystem: false } }).isolation.pid],
  ] as const
  for (const [name, isolation, available] of engines) {
    // Skipped only where the machine cannot make that PID namespace (CI can, as root).
    it.runIf(available)(`${name}: nothing is signalled after the exit; the namespace died with its init, background child included`, async () => {
      const tools = createTools({ rootDir: fx.root, ...(isolation ? { isolation } : {}) })
      const marker = uniqueSleep()
      const sent = recordSignals()
      expect(await call(tools.bash, { cmd: 'sh', args: ['-c', `sleep ${marker} & echo started; exit 0`] })).toBe('started\n')
      // bwrap reports the exit before its namespace's init has finished, so
      // the background child may still be dying in the command's cgroup when
      // the kit removes it: a member already exiting gets no signal (its
      // number is about to be freed).
      expect(sent).toEqual([])
      // Killed with the namespace's init: nothing of it runs any more.
      expect(pidsWithMarker(marker)).toEqual([])
    })
  }
})

describe('grep: ripgrep is not signalled after its exit', () => {
  it('a finished search sends no signal', async () => {
    fs.writeFileSync(`${fx.root}/a.txt`, 'needle\n')
    const sent = recordSignals()
    expect(await call(fx.tools.grep, { pattern: 'needle' })).toContain('needle')
    expect(sent).toEqual([])
  })
})
