/**
 * The strict profile from the command line: `--readable-host system` and
 * `--readable-path`, what `doctor` says about them, and the usage errors.
 */
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { Sandbox } from '../../lib/index.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'
import { runCli } from './support/run_cli.js'

/** Outside /tmp: the host's /tmp is private inside the sandbox anyway. */
const parent = '/var/tmp'
const bwrapUsable = process.platform === 'linux' && new Sandbox().enforcement.engine === 'bubblewrap'

let base: string
let root: string
let shared: string

beforeAll(() => {
  base = realpathSync(trackedMkdtemp(join(parent, 'toolsmith-cli-host-')))
  root = join(base, 'root')
  shared = join(base, 'shared')
  mkdirSync(root)
  mkdirSync(shared)
  writeFileSync(join(shared, 'data.txt'), 'shared data\n')
})

describe.concurrent('toolsmith --readable-host and --readable-path', () => {
  it.runIf(bwrapUsable)('doctor reports the strict profile and the named paths', async () => {
    const run = await runCli(['doctor', '--root', root, '--readable-host', 'system', '--readable-path', shared])
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^filesystem +enforced by the kernel: only the system folders visible, read-only; writable: /m)
    expect(run.stdout).toMatch(new RegExp(`^host view +strict: only the system folders, the root, ${shared} and /tmp; no home directory`, 'm'))
    const plain = await runCli(['doctor', '--root', root])
    expect(plain.stdout).toMatch(/^host view +the whole host, read-only \(strict profile: --readable-host system\)$/m)
  })

  it.runIf(bwrapUsable)('call bash sees the named path and not the sibling folders', async () => {
    const args = JSON.stringify({ cmd: 'sh', args: ['-c', `cat ${shared}/data.txt; ls ${base} /root 2>&1; true`] })
    const run = await runCli(['call', 'bash', args, '--root', root, '--readable-host', 'system', '--readable-path', shared])
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('shared data')
    expect(run.stdout).toMatch(/cannot access '\/root': No such file or directory/)
  })

  it.each([
    [['doctor', '--readable-host', 'none'], '--readable-host takes all or system, not "none"'],
    [['doctor', '--readable-path', '/opt'], '--readable-path applies only with --readable-host system'],
    [['doctor', '--readable-host', 'system', '--no-os-sandbox'], '--readable-host system needs the OS sandbox'],
    [['demo', '--readable-host', 'system'], 'Option "--readable-host" does not apply to "demo"'],
  ])('%j is a usage error (exit 2)', async (argv, message) => {
    const run = await runCli(argv)
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(message)
  })
})
