/**
 * Per-command cost of bash: 200 sequential `true`s, so the figure is the
 * kit's spawn path (validation, path checks, environment, namespaces), not
 * the command.
 *
 * @module
 */
import { spawn } from 'node:child_process'
import { mkdirSync } from 'node:fs'
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
    const rootDir = path.join(BENCH_TMP, 'bash-root')
    mkdirSync(rootDir, { recursive: true })
    // Isolation off for real: no network namespace and no PID namespace (the network guard still runs).
    const offSandbox = new Sandbox({ rootDir, isolation: { network: false, pid: false } })
    const onSandbox = new Sandbox({ rootDir })
    const off = createTools(offSandbox).bash.executor(createDispatchContext())
    const on = createTools(onSandbox).bash.executor(createDispatchContext())
    const describe = (s: Sandbox) => `network ${s.isolation.network ? 'on' : 'off'}, pid ${s.isolation.pid ? 'on' : 'off'}`
    const batch = (fn: () => Promise<unknown>) => timed(async () => {
      for (let i = 0; i < calls; i++) await fn()
    })
    const samples = await interleave(
      {
        baseline: () => batch(() => spawnAndWait('true', [])),
        off: () => batch(() => off({ cmd: 'true' })),
        on: () => batch(() => on({ cmd: 'true' })),
        // What any PID namespace costs per command: `unshare` forks twice before `true` runs.
        unshare: () => batch(() => spawnAndWait('unshare', ['--map-root-user', '--pid', '--fork', '--kill-child', 'true'])),
      },
      { warmup: 1, samples: config.quick ? 3 : 5 },
    )
    const baselineValues = metric(samples.baseline, 'ms')
    const label = `${calls} sequential \`true\``
    const scaled = config.quick ? `; quick: ${calls} calls instead of 200` : ''
    const baseline = `child_process.spawn('true') awaited ${calls}×`
    const rows: Row[] = [
      makeRow({
        id: 'bash-spawn-off',
        figure: `bash: ${label}, isolation off`,
        subject: `bash.executor({ cmd: 'true' }) with isolation: { network: false, pid: false } (${describe(offSandbox)}; network guard on)`,
        baseline,
        unit: 'ms',
        subjectValues: metric(samples.off, 'ms'),
        baselineValues,
        target: { kind: 'ratio', max: 1.5 },
        note: `ms per ${calls} calls${scaled}`,
      }),
      makeRow({
        id: 'bash-spawn-on',
        figure: `bash: ${label}, isolation on`,
        subject: `bash.executor({ cmd: 'true' }) with defaults (${describe(onSandbox)})`,
        baseline,
        unit: 'ms',
        subjectValues: metric(samples.on, 'ms'),
        baselineValues,
        target: { kind: 'report' },
        note: `ms per ${calls} calls${scaled}`,
      }),
      makeRow({
        id: 'bash-spawn-unshare',
        figure: `floor: ${label} under unshare --pid`,
        subject: `child_process.spawn('unshare', ['--map-root-user', '--pid', '--fork', '--kill-child', 'true'])`,
        baseline,
        unit: 'ms',
        subjectValues: metric(samples.unshare, 'ms'),
        baselineValues,
        target: { kind: 'report' },
        note: `reference, not the kit: the cost of a PID namespace alone${scaled}`,
      }),
    ]
    return rows
  },
}
