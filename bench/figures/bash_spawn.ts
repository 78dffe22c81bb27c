/**
 * Per-command cost of bash: 200 sequential `true`s, so the figure is the
 * kit's spawn path (validation, path checks, environment, the sandbox's
 * command line), not the command. In the OS sandbox the baseline is the
 * same bwrap command line spawned by hand: the ratio is what the kit adds.
 *
 * @module
 */
import { spawn } from 'node:child_process'
import { constants, mkdirSync, realpathSync } from 'node:fs'
import { access } from 'node:fs/promises'
import path from 'node:path'
import { Sandbox, createDispatchContext, createTools } from '../../lib/index.js'
import { BENCH_TMP } from '../fixtures.js'
import { interleave, metric, timed } from '../harness.js'
import { makeRow, type Figure, type Row } from '../figure.js'

function spawnAndWait(file: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: 'ignore' })
    child.on('error', reject)
    child.on('close', () => resolve())
  })
}

export const bashSpawnFigure: Figure = {
  id: 'bash-spawn',
  title: '200 sequential bash `true` calls',
  async run(config) {
    const calls = config.quick ? 50 : 200
    mkdirSync(path.join(BENCH_TMP, 'bash-root'), { recursive: true })
    const rootDir = realpathSync(path.join(BENCH_TMP, 'bash-root'))
    // The opt-out with nothing left: no OS sandbox, no namespace (the word guard runs).
    const offSandbox = new Sandbox({ rootDir, isolation: { filesystem: false, network: false, pid: false } })
    const osSandbox = new Sandbox({ rootDir })
    if (!osSandbox.isolation.filesystem) throw new Error(`the OS sandbox is unavailable here: ${osSandbox.enforcement.unavailableReason}`)
    const off = createTools(offSandbox).bash.executor(createDispatchContext())
    const sandboxed = createTools(osSandbox).bash.executor(createDispatchContext())
    // The very bwrap command line the kit builds for `true` (same mounts, masks and namespaces), spawned by hand.
    const trueFile = await resolveTrue()
    const plan = osSandbox.engine.launch({ file: trueFile, args: [], root: rootDir, cwd: rootDir, hostCwd: rootDir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } })
    const batch = (fn: () => Promise<unknown>) => timed(async () => {
      for (let i = 0; i < calls; i++) await fn()
    })
    const samples = await interleave(
      {
        spawnTrue: () => batch(() => spawnAndWait('true', [])),
        off: () => batch(() => off({ cmd: 'true' })),
        bwrapTrue: () => batch(() => spawnAndWait(plan.file, plan.args)),
        sandboxed: () => batch(() => sandboxed({ cmd: 'true' })),
      },
      { warmup: 1, samples: config.quick ? 3 : 5 },
    )
    const label = `${calls} sequential \`true\``
    const scaled = config.quick ? `; quick: ${calls} calls instead of 200` : ''
    const rows: Row[] = [
      makeRow({
        id: 'bash-spawn-os',
        figure: `bash: ${label} in the OS sandbox`,
        subject: "bash.executor({ cmd: 'true' }) with defaults (bubblewrap: filesystem, network and PID isolation)",
        baseline: `child_process.spawn('bwrap', <the same ${plan.args.length - 1} arguments>) awaited ${calls}×`,
        unit: 'ms',
        subjectValues: metric(samples.sandboxed, 'ms'),
        baselineValues: metric(samples.bwrapTrue, 'ms'),
        target: { kind: 'ratio', max: 1.3 },
        note: `ms per ${calls} calls${scaled}`,
      }),
      makeRow({
        id: 'bash-spawn-off',
        figure: `bash: ${label}, no isolation (opt-out)`,
        subject: "bash.executor({ cmd: 'true' }) with isolation: { filesystem: false, network: false, pid: false } (word guard on)",
        baseline: `child_process.spawn('true') awaited ${calls}×`,
        unit: 'ms',
        subjectValues: metric(samples.off, 'ms'),
        baselineValues: metric(samples.spawnTrue, 'ms'),
        target: { kind: 'ratio', max: 1.5 },
        note: `ms per ${calls} calls${scaled}`,
      }),
      makeRow({
        id: 'bash-spawn-bwrap',
        figure: `floor: ${label} under bwrap`,
        subject: `child_process.spawn('bwrap', <the kit's arguments>) awaited ${calls}×`,
        baseline: `child_process.spawn('true') awaited ${calls}×`,
        unit: 'ms',
        subjectValues: metric(samples.bwrapTrue, 'ms'),
        baselineValues: metric(samples.spawnTrue, 'ms'),
        target: { kind: 'report' },
        note: `reference, not the kit: what the OS sandbox itself costs per command${scaled}`,
      }),
    ]
    return rows
  },
}

async function resolveTrue(): Promise<string> {
  for (const candidate of ['/usr/bin/true', '/bin/true']) {
    try {
      await access(candidate, constants.X_OK)
      return candidate
    } catch {
      // next
    }
  }
  throw new Error('no true(1) on this machine')
}
