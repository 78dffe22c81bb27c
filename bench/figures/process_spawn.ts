/**
 * The process layer's spawn path: the kit's `runBounded` (through execa,
 * bounded capture, descriptor hygiene) spawning `/bin/true`, against
 * `child_process.spawn` of the same program with the same stdio, in a
 * normal process (nothing inherited: 3 stdio entries) and in one that
 * inherited 40 descriptors. There the kit closes them in the child (a
 * system bash exec'd first) and keeps 3 entries; the baseline lays
 * `/dev/null` over each (43 entries), the other way to keep them out. A
 * report row shows what execa itself costs with that 43-entry array.
 *
 * @module
 */
import { spawn } from 'node:child_process'
import { closeSync, openSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { childDescriptors } from '../../lib/sandbox/process/descriptors.js'
import { makeRow, type Figure, type Row } from '../figure.js'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const CHILD = path.join(ROOT, 'bench/children/process_spawn.ts')

interface ChildSamples {
  inherited: number
  stdioLaid: number
  kit: number[]
  spawnShort: number[]
  spawnLaid: number[]
  execaLaid: number[]
}

/** Where the inherited descriptors start: after a gap, since Node marks a contiguous run from 0 close-on-exec at startup. */
const FIRST_INHERITED = 20

/**
 * Run the measuring child with exactly `extra` inherited descriptors (each
 * `/dev/null`, from {@link FIRST_INHERITED} up): whatever this process
 * itself inherited is closed in the child the kit's way, so a harness's
 * stray descriptor does not turn the normal case into a long array.
 */
function measure(extra: number, args: string[]): Promise<ChildSamples> {
  const devNull = openSync('/dev/null', 'r+')
  const passed = new Map<number, number>()
  for (let fd = FIRST_INHERITED; fd < FIRST_INHERITED + extra; fd++) passed.set(fd, devNull)
  const { stdio, closer } = childDescriptors(passed)
  stdio[2] = 'inherit' as never
  const node = [process.execPath, '--import', 'tsx', CHILD, ...args]
  const [file, argv] = closer === undefined ? [node[0]!, node.slice(1)] : [closer.file, [...closer.args, ...node]]
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv, { cwd: ROOT, stdio: stdio as never })
    closeSync(devNull)
    let out = ''
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) => {
      const last = out.trim().split('\n').pop() ?? ''
      if (code !== 0) return reject(new Error(`process_spawn child exited with ${code}`))
      try {
        resolve(JSON.parse(last) as ChildSamples)
      } catch {
        reject(new Error(`process_spawn child printed no result: ${last.slice(0, 200)}`))
      }
    })
  })
}

export const processSpawnFigure: Figure = {
  id: 'process-spawn',
  title: 'the spawn path through execa against child_process.spawn',
  async run(config) {
    const calls = config.quick ? 20 : 100
    const args = [String(calls), '1', String(config.quick ? 3 : 7)]
    const normal = await measure(0, args)
    const forty = await measure(40, args)
    if (normal.inherited !== 0 || forty.inherited !== 40) {
      throw new Error(`the children inherited ${normal.inherited} and ${forty.inherited} descriptors, not 0 and 40`)
    }
    const scaled = config.quick ? `; quick: ${calls} spawns per sample` : ''
    const rows: Row[] = [
      makeRow({
        id: 'process-spawn',
        figure: 'spawn path, normal process (3 stdio entries)',
        subject: "runBounded({ file: '/bin/true' }) (execa, bounded capture, descriptor scan), awaited",
        baseline: "child_process.spawn('/bin/true', { stdio: ['ignore', 'pipe', 'pipe'], detached: true }), drained, awaited",
        unit: 'ms',
        subjectValues: normal.kit,
        baselineValues: normal.spawnShort,
        target: { kind: 'ratio', max: 1.3 },
        note: `ms per spawn, ${calls} per sample${scaled}`,
      }),
      makeRow({
        id: 'process-spawn-fds40',
        figure: 'spawn path, 40 inherited descriptors',
        subject: 'runBounded (execa, 3 stdio entries; a system bash closes the 40 in the child, then execs the program)',
        baseline: `child_process.spawn with /dev/null laid over each inherited descriptor (${forty.stdioLaid} stdio entries)`,
        unit: 'ms',
        subjectValues: forty.kit,
        baselineValues: forty.spawnLaid,
        target: { kind: 'ratio', max: 1.3 },
        note: `ms per spawn, ${calls} per sample${scaled}`,
      }),
      makeRow({
        id: 'process-spawn-execa-long',
        figure: `execa with a ${forty.stdioLaid}-entry stdio array`,
        subject: `execa('/bin/true', { stdio: <${forty.stdioLaid} entries, /dev/null laid over the inherited> })`,
        baseline: 'child_process.spawn with the same array',
        unit: 'ms',
        subjectValues: forty.execaLaid,
        baselineValues: forty.spawnLaid,
        target: { kind: 'report' },
        note: 'reference, not the kit: why the kit closes inherited descriptors in the child instead',
      }),
      makeRow({
        id: 'process-spawn-execa',
        figure: 'execa with 3 stdio entries',
        subject: "execa('/bin/true', { stdio: ['ignore', 'pipe', 'pipe'], buffer: false })",
        baseline: 'child_process.spawn with the same array',
        unit: 'ms',
        subjectValues: normal.execaLaid,
        baselineValues: normal.spawnShort,
        target: { kind: 'report' },
        note: 'reference, not the kit: the library alone',
      }),
    ]
    return rows
  },
}
