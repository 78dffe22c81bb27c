/**
 * The kernel's control files inside the OS sandbox: `/proc/sys` and the
 * other kernel trees are read-only, the files that show the host's keys,
 * timers and hardware are masked, `/sys` is read-only and `/sys/firmware`
 * empty. Every probe only OPENS a file for writing and closes it without
 * writing a byte, so the host's settings never change, whatever the code
 * under test does.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { Sandbox, createDispatchContext, createTools, type SandboxOptions } from '../../lib/index.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'

/** Opens each path as asked and prints, per path, `ok` or the errno's name (JSON). */
const PROBE = `
import errno, json, os, sys
mode, out = sys.argv[1], {}
for p in sys.argv[2:]:
    try:
        if mode == 'list':
            out[p] = sorted(os.listdir(p))
            continue
        if mode == 'create':
            fd = os.open(os.path.join(p, 'probe-file'), os.O_WRONLY | os.O_CREAT, 0o600)
        else:
            fd = os.open(p, os.O_WRONLY if mode == 'write' else os.O_RDONLY)
            if mode == 'read':
                out[p] = os.read(fd, 4096).decode('latin1')
                os.close(fd)
                continue
        os.close(fd)
        out[p] = 'ok'
    except OSError as e:
        out[p] = errno.errorcode.get(e.errno, str(e.errno))
print(json.dumps(out))
`

/** Sysctls a root process could change on the host before (each only opened here). */
const SYSCTLS = [
  'kernel/core_pattern',
  'kernel/core_uses_pid',
  'kernel/panic',
  'kernel/modprobe',
  'vm/drop_caches',
  'vm/overcommit_memory',
  'fs/protected_symlinks',
  'user/max_user_namespaces',
  'net/ipv4/ip_forward',
  'net/core/somaxconn',
].map((name) => `/proc/sys/${name}`).filter((file) => fs.existsSync(file))

const MASKED_FILES = ['/proc/kcore', '/proc/keys', '/proc/timer_list', '/proc/sched_debug', '/proc/timer_stats', '/proc/latency_stats'].filter((file) =>
  fs.existsSync(file),
)
const MASKED_DIRS = ['/proc/acpi', '/proc/scsi', '/proc/asound', '/sys/firmware', '/sys/devices/virtual/powercap'].filter((dir) => fs.existsSync(dir))
const READ_ONLY_TREES = ['/proc/sys', '/proc/sysrq-trigger', '/proc/irq', '/proc/bus', '/proc/fs', '/sys'].filter((tree) => fs.existsSync(tree))

let root: string

beforeAll(() => {
  // Outside /tmp: the host's /tmp is private inside.
  root = fs.realpathSync(trackedMkdtemp(path.join(fs.existsSync('/var/tmp') ? '/var/tmp' : os.homedir(), 'toolsmith-kernel-')))
  fs.writeFileSync(path.join(root, 'probe.py'), PROBE)
})

async function run(cmd: string, args: string[], options: SandboxOptions = {}): Promise<string> {
  const tools = createTools({ rootDir: root, timeoutMs: 60_000, ...options })
  return String(await tools.bash.executor(createDispatchContext())({ cmd, args }))
}

async function probe(mode: 'write' | 'read' | 'list' | 'create', paths: readonly string[], options: SandboxOptions = {}): Promise<Record<string, unknown>> {
  return JSON.parse(await run('python3', ['probe.py', mode, ...paths], options)) as Record<string, unknown>
}

/** Whether the mount that holds `target` (the deepest mount point above it, the last one listed) is read-only. */
function mountedReadOnly(mountinfo: string, target: string): boolean | undefined {
  let best: { point: string; readOnly: boolean } | undefined
  for (const line of mountinfo.split('\n')) {
    const fields = line.split(' ')
    const point = fields[4]?.replace(/\\040/g, ' ')
    if (point === undefined || fields[5] === undefined) continue
    if (!(target === point || target.startsWith(point === '/' ? '/' : `${point}/`))) continue
    if (best === undefined || point.length >= best.point.length) best = { point, readOnly: fields[5].split(',').includes('ro') }
  }
  return best?.readOnly
}

describe('OS sandbox: the kernel interfaces are read-only or hidden', () => {
  it('the sandbox is available (bubblewrap is a prerequisite here)', () => {
    expect(new Sandbox({ rootDir: root }).enforcement.engine).toBe('bubblewrap')
  })

  it(`no sysctl opens for writing (${SYSCTLS.length} tried; opened only, never written): EROFS or EACCES`, async () => {
    expect(SYSCTLS.length).toBeGreaterThanOrEqual(5)
    const results = await probe('write', SYSCTLS)
    for (const file of SYSCTLS) expect([file, results[file]]).toEqual([file, expect.stringMatching(/^(EROFS|EACCES)$/)])
  })

  it('with allowNetwork: true (the host network namespace) the net sysctls are read-only too, and still read the host values', async () => {
    const files = ['/proc/sys/net/ipv4/ip_forward', '/proc/sys/net/core/somaxconn'].filter((file) => fs.existsSync(file))
    const writes = await probe('write', files, { allowNetwork: true })
    for (const file of files) expect([file, writes[file]]).toEqual([file, expect.stringMatching(/^(EROFS|EACCES)$/)])
    const reads = await probe('read', files, { allowNetwork: true })
    for (const file of files) expect(reads[file]).toBe(fs.readFileSync(file, 'latin1'))
  })

  it('sysctls still read (ip_forward, ostype)', async () => {
    const reads = await probe('read', ['/proc/sys/net/ipv4/ip_forward', '/proc/sys/kernel/ostype'])
    expect(reads['/proc/sys/net/ipv4/ip_forward']).toMatch(/^[01]\n$/)
    expect(reads['/proc/sys/kernel/ostype']).toBe('Linux\n')
    expect(await run('cat', ['/proc/sys/net/ipv4/ip_forward'])).toMatch(/^[01]\n$/)
  })

  it('a shell that writes a sysctl\'s own value back is refused (the host value is unchanged)', async () => {
    const file = '/proc/sys/kernel/core_uses_pid'
    const before = fs.readFileSync(file, 'latin1')
    const output = await run('sh', ['-c', `printf %s "$(cat ${file})" > ${file} && echo WROTE || echo REFUSED`])
    expect(output).toMatch(/REFUSED/)
    expect(output).not.toMatch(/WROTE/)
    expect(fs.readFileSync(file, 'latin1')).toBe(before)
  })

  it(`the kernel trees and /sys are mounted read-only (${READ_ONLY_TREES.join(', ')})`, async () => {
    const mountinfo = await run('cat', ['/proc/self/mountinfo'])
    for (const tree of READ_ONLY_TREES) expect([tree, mountedReadOnly(mountinfo, tree)]).toEqual([tree, true])
    // Every mount under /sys (cgroups included) is read-only as well.
    const sysMounts = mountinfo.split('\n').filter((line) => line.split(' ')[4]?.startsWith('/sys'))
    expect(sysMounts.length).toBeGreaterThan(0)
    for (const line of sysMounts) expect([line.split(' ')[4], line.split(' ')[5]?.split(',').includes('ro')]).toEqual([line.split(' ')[4], true])
  })

  it('nothing under /sys opens for writing', async () => {
    const candidates = ['/sys/kernel/mm/transparent_hugepage/enabled', '/sys/kernel/profiling', '/sys/power/state', '/sys/fs/cgroup/pids/cgroup.procs', '/sys/fs/cgroup/memory/memory.limit_in_bytes', '/sys/fs/cgroup/unified/cgroup.procs'].filter((file) => fs.existsSync(file))
    expect(candidates.length).toBeGreaterThan(0)
    const results = await probe('write', candidates)
    for (const file of candidates) expect([file, results[file]]).toEqual([file, expect.stringMatching(/^(EROFS|EACCES)$/)])
  })

  it(`masked files refuse to open, for reading and for writing (${MASKED_FILES.join(', ') || 'none on this kernel'})`, async () => {
    expect(MASKED_FILES).toContain('/proc/keys')
    const reads = await probe('read', MASKED_FILES)
    const writes = await probe('write', MASKED_FILES)
    for (const file of MASKED_FILES) {
      expect([file, reads[file]]).toEqual([file, 'EACCES'])
      expect([file, writes[file]]).toEqual([file, expect.stringMatching(/^(EROFS|EACCES)$/)])
    }
  })

  it(`masked folders list empty and take no new file (${MASKED_DIRS.join(', ')})`, async () => {
    expect(MASKED_DIRS).toContain('/sys/firmware')
    // Control: the host's /sys/firmware is not empty, so an empty listing means the mask.
    expect(fs.readdirSync('/sys/firmware').length).toBeGreaterThan(0)
    const lists = await probe('list', MASKED_DIRS)
    const creates = await probe('create', MASKED_DIRS)
    for (const dir of MASKED_DIRS) {
      expect([dir, lists[dir]]).toEqual([dir, []])
      expect([dir, creates[dir]]).toEqual([dir, expect.stringMatching(/^(EROFS|EACCES)$/)])
    }
  })
})
