/**
 * Per-command cost of bash: 200 sequential `true`s, so the figure is the
 * kit's spawn path (validation, path checks, environment, the sandbox's
 * command line), not the command. In the OS sandbox the baseline is the
 * exact launch plan the tool spawns (`launchPlan` of the sandbox's run verb, the same function
 * the handler calls: bwrap argument vector, environment, the seccomp
 * program on its descriptor), spawned by hand with the same pipes, and with
 * the same resource limits done by hand: a cgroup per command (made, set,
 * entered by the same `/bin/sh` wrapper, removed) and the same rlimits. The
 * ratio is what the kit adds.
 *
 * @module
 */
import { constants, mkdirSync, realpathSync, rmdirSync, writeFileSync } from 'node:fs'
import { access } from 'node:fs/promises'
import path from 'node:path'
import { Sandbox, createDispatchContext, createTools } from '../../lib/index.js'
// Internal on purpose (not in any public entry): the floor must be the very command line the tool builds.
import { launchPlan } from '../../lib/sandbox/run_command.js'
import { probeCgroups } from '../../lib/sandbox/os/cgroups.js'
import { LIMIT_WRAPPER_SHELL, limitWrapperScript } from '../../lib/sandbox/os/limits.js'
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
    const plan = launchPlan(osSandbox, { file: trueFile, args: [], root: rootDir, cwd: rootDir })
    const limited = handLimits(osSandbox)
    const batch = (fn: () => Promise<unknown>) => timed(async () => {
      for (let i = 0; i < calls; i++) await fn()
    })
    const samples = await interleave(
      {
        spawnTrue: () => batch(() => spawnDrained(trueFile, [])),
        off: () => batch(() => off({ cmd: 'true' })),
        bwrapTrue: () => batch(() => limited.run(plan)),
        sandboxed: () => batch(() => sandboxed({ cmd: 'true' })),
      },
      { warmup: 1, samples: config.quick ? 3 : 5 },
    )
    const label = `${calls} sequential \`true\``
    const scaled = config.quick ? `; quick: ${calls} calls instead of 200` : ''
    limited.close()
    const rows: Row[] = [
      makeRow({
        id: 'bash-spawn-os',
        figure: `bash: ${label} in the OS sandbox`,
        subject: "bash.executor({ cmd: 'true' }) with defaults (bubblewrap: filesystem, network and PID isolation)",
        baseline: `child_process.spawn('bwrap', <the ${plan.args.length} arguments launchPlan builds>, its environment, the seccomp program on fd 3, stdout and stderr piped and drained) awaited ${calls}×, behind the same limits done by hand (${limited.describe})`,
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
        subject: `child_process.spawn('bwrap', <launchPlan's arguments>) with pipes, behind the limits done by hand, awaited ${calls}×`,
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

/**
 * The sandbox's resource limits, done by hand for the floor: one cgroup
 * per command in a parent made once (mkdir, the same limit files, rmdir
 * after), entered through the same `/bin/sh` wrapper with the same rlimits.
 * Only the locating of the hierarchies is the kit's.
 */
function handLimits(sandbox: Sandbox): { run(plan: { file: string; args: string[]; cwd: string; env: NodeJS.ProcessEnv; inputs?: ReadonlyArray<{ fd: number; data: Uint8Array }> | undefined }): Promise<unknown>; close(): void; describe: string } {
  const { processes, memoryBytes, fileSizeBytes } = sandbox.limits
  const slots = probeCgroups().slots
  const parents: Array<{ dir: string; files: Array<[string, string]> }> = []
  const pids = processes !== false && slots.pids ? path.join(path.dirname(slots.pids.parent), `bench-${process.pid}`) : undefined
  const memory = memoryBytes !== false && slots.memory ? path.join(path.dirname(slots.memory.parent), `bench-${process.pid}`) : undefined
  if (pids !== undefined && pids === memory) {
    parents.push({ dir: pids, files: [['pids.max', String(processes)], ['memory.max', String(memoryBytes)], ['memory.swap.max', '0']] })
  } else {
    if (pids !== undefined) parents.push({ dir: pids, files: [['pids.max', String(processes)]] })
    if (memory !== undefined) parents.push({ dir: memory, files: [['memory.limit_in_bytes', String(memoryBytes)], ['memory.memsw.limit_in_bytes', String(memoryBytes)]] })
  }
  for (const parent of parents) {
    mkdirSync(parent.dir, { recursive: true })
    if (slots.pids?.delegate !== undefined) writeFileSync(path.join(parent.dir, 'cgroup.subtree_control'), slots.pids.delegate)
  }
  const ulimits = fileSizeBytes === false ? [] : [`-f ${Math.ceil(fileSizeBytes / 512)}`]
  const script = limitWrapperScript(ulimits)
  let count = 0
  return {
    describe: `${parents.length} cgroup${parents.length === 1 ? '' : 's'} per command, /bin/sh wrapper${ulimits.length > 0 ? ', RLIMIT_FSIZE' : ''}`,
    async run(plan) {
      const name = `cmd-${++count}`
      const dirs = parents.map((parent) => path.join(parent.dir, name))
      parents.forEach((parent, i) => {
        mkdirSync(dirs[i]!)
        for (const [file, value] of parent.files) {
          try {
            writeFileSync(path.join(dirs[i]!, file), value)
          } catch {
            // memsw / swap.max are missing without swap accounting (the kit skips them too)
          }
        }
      })
      const procs = dirs.map((dir) => path.join(dir, 'cgroup.procs'))
      await spawnDrained(LIMIT_WRAPPER_SHELL, ['-c', script, 'toolsmith-limits', ...procs, '--', plan.file, ...plan.args], { cwd: plan.cwd, env: plan.env, inputs: plan.inputs })
      for (const dir of dirs) {
        // The sandbox's last processes may still be leaving the cgroup (the kit waits the same way).
        for (let i = 0; ; i++) {
          try {
            rmdirSync(dir)
            break
          } catch (error) {
            if (i === 200) throw error
            await new Promise((resolve) => setTimeout(resolve, 10))
          }
        }
      }
    },
    close() {
      for (const parent of parents) rmdirSync(parent.dir)
    },
  }
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
