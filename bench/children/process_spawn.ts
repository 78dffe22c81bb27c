/**
 * Child-process entry of the process-spawn figure: `process_spawn.ts
 * <calls> <warmup> <samples>` times the kit's spawn path (`runBounded`,
 * through execa) against `child_process.spawn` of the same program, in
 * whatever descriptors this process was started with, and prints the
 * samples as JSON on the last stdout line.
 *
 * @module
 */
import { spawn } from 'node:child_process'
import { openSync } from 'node:fs'
import { execa } from 'execa'
import { inheritableDescriptors } from '../../lib/sandbox/process/descriptors.js'
import { runBounded } from '../../lib/sandbox/process/process.js'
import { interleave, metric, timed } from '../harness.js'

const [calls, warmup, samples] = process.argv.slice(2).map(Number) as [number, number, number]
const TRUE = '/bin/true'
const env = { PATH: '/usr/bin:/bin' }
const inherited = inheritableDescriptors()
const devNull = openSync('/dev/null', 'r+')
/** What the kit laid over inherited descriptors before it closed them in the child: `/dev/null` at each. */
const laid: Array<'ignore' | 'pipe' | number> = ['ignore', 'pipe', 'pipe']
for (const fd of inherited) {
  while (laid.length < fd) laid.push('ignore')
  laid[fd] = devNull
}

function spawnWith(stdio: Array<'ignore' | 'pipe' | number>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(TRUE, [], { env, stdio, detached: true })
    child.stdout?.on('data', () => undefined)
    child.stderr?.on('data', () => undefined)
    child.on('error', reject)
    child.on('close', () => resolve())
  })
}

async function execaWith(stdio: Array<'ignore' | 'pipe' | number>): Promise<void> {
  const child = execa(TRUE, [], { env, extendEnv: false, stdio: stdio as unknown as ['ignore', 'pipe', 'pipe'], detached: true, cleanup: false, buffer: false, reject: false, forceKillAfterDelay: false })
  child.stdout?.on('data', () => undefined)
  child.stderr?.on('data', () => undefined)
  await child
}

const kit = () =>
  runBounded({ file: TRUE, args: [], cwd: '/', env, maxOutputBytes: 200_000, timeoutMs: 60_000, mergeStderr: true, mode: 'headTail', label: 'true', singleProcess: true })

const batch = (fn: () => Promise<unknown>) => timed(fn, calls)
const result = await interleave(
  {
    kit: () => batch(kit),
    spawnShort: () => batch(() => spawnWith(['ignore', 'pipe', 'pipe'])),
    spawnLaid: () => batch(() => spawnWith(laid)),
    execaLaid: () => batch(() => execaWith(laid)),
  },
  { warmup, samples },
)
process.stdout.write(
  `\n${JSON.stringify({
    inherited: inherited.length,
    stdioLaid: laid.length,
    kit: metric(result.kit, 'ms'),
    spawnShort: metric(result.spawnShort, 'ms'),
    spawnLaid: metric(result.spawnLaid, 'ms'),
    execaLaid: metric(result.execaLaid, 'ms'),
  })}\n`,
)
