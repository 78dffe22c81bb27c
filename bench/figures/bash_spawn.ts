/**
 * Per-command cost of bash: 200 sequential `true`s, so the figure is the
 * kit's spawn path (validation, path checks, environment, the sandbox's
 * command line), not the command. In the OS sandbox the baseline is the
 * exact launch plan the tool spawns (`bashLaunchPlan`, the same function
 * the handler calls: bwrap argument vector, environment, the seccomp
 * program on its descriptor), spawned by hand with the same pipes: the
 * ratio is what the kit adds.
 *
 * @module
 */
import { constants, mkdirSync, realpathSync } from 'node:fs'
import { access } from 'node:fs/promises'
import path from 'node:path'
import { Sandbox, createDispatchContext, createTools } from '../../lib/index.js'
// Internal on purpose (not in any public entry): the floor must be the very command line the tool builds.
import { bashLaunchPlan } from '../../lib/tools/bash.js'
import { BENCH_TMP } from '../fixtures.js'
import { spawnDrained } from '../floors.js'
import { interleave, metric, timed } from '../harness.js'
import { makeRow, type Figure, type Row } from '../figure.js'

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
    const plan = bashLaunchPlan(osSandbox, { file: trueFile, args: [], root: rootDir, cwd: rootDir })
    const batch = (fn: () => Promise<unknown>) => timed(async () => {
      for (let i = 0; i < calls; i++) await fn()
    })
    const samples = await interleave(
      {
        spawnTrue: () => batch(() => spawnDrained(trueFile, [])),
        off: () => batch(() => off({ cmd: 'true' })),
        bwrapTrue: () => batch(() => spawnDrained(plan.file, plan.args, { cwd: plan.cwd, env: plan.env, inputs: plan.inputs })),
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
        baseline: `child_process.spawn('bwrap', <the ${plan.args.length} arguments bashLaunchPlan builds>, its environment, the seccomp program on fd 3, stdout and stderr piped and drained) awaited ${calls}×`,
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
        baseline: `child_process.spawn('true'), stdout and stderr piped and drained, awaited ${calls}×`,
        unit: 'ms',
        subjectValues: metric(samples.off, 'ms'),
        baselineValues: metric(samples.spawnTrue, 'ms'),
        target: { kind: 'ratio', max: 1.5 },
        note: `ms per ${calls} calls${scaled}`,
      }),
      makeRow({
        id: 'bash-spawn-bwrap',
        figure: `floor: ${label} under bwrap`,
        subject: `child_process.spawn('bwrap', <bashLaunchPlan's arguments>) with pipes, awaited ${calls}×`,
        baseline: `child_process.spawn('true') with pipes, awaited ${calls}×`,
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
