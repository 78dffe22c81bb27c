/**
 * Resource limits of `bash` in the OS sandbox: a fork bomb, a memory
 * balloon, a `/tmp` fill and an oversized file each end the command with
 * `TOOL_LIMIT_EXCEEDED` naming the limit; the kit answers the next call;
 * ordinary work runs under the defaults; no cgroup is left behind. The
 * limits here are small so each case is quick and light on a shared machine.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { DEFAULT_LIMITS, Sandbox, createDispatchContext, createTools, type SandboxOptions } from '../../lib/index.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'
import { kitCgroups } from './support/kit_cgroups.js'

const MiB = 1024 * 1024
const SMALL = { processes: 64, memoryBytes: 256 * MiB, tmpBytes: 16 * MiB, fileSizeBytes: 1 * MiB }

let root: string

beforeAll(() => {
  root = fs.realpathSync(trackedMkdtemp(path.join(fs.existsSync('/var/tmp') ? '/var/tmp' : os.tmpdir(), 'toolsmith-limits-')))
})

const osSandbox = new Sandbox().isolation.filesystem
/**
 * The cgroup cases need what CI has: root and the cgroup v1 memory and pids
 * hierarchies (read from the machine, not from the kit, so that a kit
 * without limits fails them rather than skipping them). cgroup v2 is not
 * exercised here.
 */
const cgroups =
  osSandbox &&
  process.getuid?.() === 0 &&
  fs.existsSync('/sys/fs/cgroup/pids/cgroup.procs') &&
  fs.existsSync('/sys/fs/cgroup/memory/cgroup.procs')

function bashOf(options: SandboxOptions) {
  return createTools({ rootDir: root, timeoutMs: 60_000, ...options }).bash.executor(createDispatchContext())
}

/** Run a call; the result text, or the error's code, details and message. */
async function attempt(run: ReturnType<typeof bashOf>, cmd: string, args: string[]) {
  try {
    return { ok: true as const, text: String(await run({ cmd, args })) }
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string; details?: Record<string, unknown> } }).cause
    return { ok: false as const, code: cause?.code, message: cause?.message ?? String(error), details: cause?.details ?? {} }
  }
}

describe('resource limits: options and enforcement', () => {
  it('validates each limit: ranges name the option, false switches one off', () => {
    expect(() => new Sandbox({ limits: { processes: 2 } })).toThrow(/"limits\.processes" must be greater than or equal to 8/)
    expect(() => new Sandbox({ limits: { memoryBytes: 1024 } })).toThrow(/"limits\.memoryBytes" must be greater than or equal to 33554432/)
    expect(() => new Sandbox({ limits: { tmpBytes: 1.5 } as never })).toThrow(/"limits\.tmpBytes" must be an integer/)
    expect(() => new Sandbox({ limits: { fileSizeBytes: true } as never })).toThrow(/"limits\.fileSizeBytes" must be a number/)
    expect(() => new Sandbox({ limits: { cpu: 1 } as never })).toThrow(/"limits\.cpu" is not allowed/)
    expect(new Sandbox({ limits: { tmpBytes: false } }).limits).toEqual({ ...DEFAULT_LIMITS, tmpBytes: false })
    expect(new Sandbox().limits).toEqual({ processes: 1024, memoryBytes: 4 * 1024 * MiB, tmpBytes: 1024 * MiB, fileSizeBytes: 4 * 1024 * MiB })
  })

  it.skipIf(!osSandbox)('enforcement shows each limit and what enforces it', () => {
    const limits = new Sandbox({ rootDir: os.tmpdir(), limits: { ...SMALL, fileSizeBytes: false } }).enforcement.limits
    expect(limits.processes).toMatchObject({ value: 64, mechanism: expect.stringMatching(/^(cgroup v1|cgroup v2|rlimit|none)$/) })
    expect(limits.memoryBytes).toMatchObject({ value: 256 * MiB, mechanism: expect.stringMatching(/^(cgroup v1|cgroup v2|rlimit)$/) })
    expect(limits.tmpBytes).toMatchObject({ value: 16 * MiB, mechanism: 'tmpfs' })
    expect(limits.fileSizeBytes).toMatchObject({ value: false, mechanism: 'off' })
    // The opt-out runs no OS sandbox: the limits are not enforced, and it says so.
    const off = new Sandbox({ rootDir: os.tmpdir(), isolation: { filesystem: false } }).enforcement.limits
    expect(off.processes).toMatchObject({ value: 1024, mechanism: 'none', detail: expect.stringContaining('OS sandbox') })
  })

  it.skipIf(!cgroups)('as root with cgroup v1, processes and memory are bounded by a cgroup per command', () => {
    const limits = new Sandbox({ rootDir: os.tmpdir() }).enforcement.limits
    expect(limits.processes.mechanism).toBe('cgroup v1')
    expect(limits.memoryBytes.mechanism).toBe('cgroup v1')
  })
})

describe.skipIf(!osSandbox)('resource limits: each ends a runaway command with TOOL_LIMIT_EXCEEDED', () => {
  it('ordinary work runs under the defaults, and sees them', async () => {
    const bash = bashOf({})
    const result = await attempt(bash, 'sh', [
      '-c',
      // Eight node processes at once, a file in /tmp, then the limits as the command sees them.
      'for i in 1 2 3 4 5 6 7 8; do node -e "require(\'fs\').writeFileSync(\'/tmp/\'+process.pid, Buffer.alloc(1<<20))" & done; wait; ' +
        'ls /tmp | wc -l; ulimit -f; df -k /tmp /run | tail -2',
    ])
    expect(result).toMatchObject({ ok: true })
    const [count, blocks, ...df] = (result as { text: string }).text.trim().split('\n')
    expect(count).toBe('8')
    // RLIMIT_FSIZE in dash's 512-byte blocks: 4 GiB.
    expect(blocks).toBe(String((4 * 1024 * MiB) / 512))
    for (const line of df) expect(line.split(/\s+/)[1]).toBe(String(1024 * 1024)) // 1 GiB in KiB
  })

  it.skipIf(!cgroups)('a fork bomb is stopped at the process limit, and the kit answers the next call', async () => {
    const bash = bashOf({ limits: SMALL })
    for (const [cmd, script] of [
      ['sh', 'f(){ f|f& }; f; sleep 60'],
      ['bash', ':(){ :|:& };:; sleep 60'],
    ] as const) {
      const bomb = await attempt(bash, cmd, ['-c', script])
      expect(bomb).toMatchObject({ ok: false, code: 'TOOL_LIMIT_EXCEEDED', details: { limit: 'processes', value: 64, signal: 'SIGKILL' } })
      expect((bomb as { message: string }).message).toMatch(/limit of 64 processes at once.*limits\.processes.*--limit-processes/s)
      expect(await attempt(bash, 'echo', ['still answering'])).toEqual({ ok: true, text: 'still answering\n' })
    }
  })

  it.skipIf(!cgroups)('a command can neither raise its limits nor leave its cgroup', async () => {
    const bash = bashOf({ limits: SMALL })
    const script =
      'for f in $(find /sys/fs/cgroup -path "*toolsmith-*" \\( -name pids.max -o -name memory.limit_in_bytes -o -name memory.max \\)); do ' +
      '  echo found; echo max > "$f" && echo RAISED; done; ' +
      'for f in /sys/fs/cgroup/pids/cgroup.procs /sys/fs/cgroup/memory/cgroup.procs /sys/fs/cgroup/cgroup.procs; do [ -e "$f" ] && { echo $$ > "$f" && echo LEFT; }; done; true'
    const result = await attempt(bash, 'sh', ['-c', script])
    expect(result).toMatchObject({ ok: true })
    const text = (result as { text: string }).text
    expect(text).toContain('found')
    expect(text).toContain('Read-only file system')
    expect(text).not.toMatch(/RAISED|LEFT/)
  })

  it.skipIf(!cgroups)('a memory balloon is killed at the memory limit; the limit is the command\'s, not the kit\'s', async () => {
    const bash = bashOf({ limits: SMALL })
    const kitCgroupBefore = fs.readFileSync('/proc/self/cgroup', 'utf8')
    const balloons = [
      ['python3', ['-c', 'b = bytearray(1024 << 20); print("survived")']],
      ['node', ['-e', 'const a = []; for (let i = 0; i < 16; i++) a.push(Buffer.alloc(64 << 20, 1)); console.log("survived")']],
    ] as const
    for (const [cmd, args] of balloons) {
      const balloon = await attempt(bash, cmd, [...args])
      expect(balloon).toMatchObject({ ok: false, code: 'TOOL_LIMIT_EXCEEDED', details: { limit: 'memory', value: 256 * MiB } })
      expect((balloon as { message: string }).message).toMatch(/limit of 256 MiB.*kernel killed.*limits\.memoryBytes.*--limit-memory/s)
      expect((balloon as { message: string }).message).not.toContain('survived')
    }
    // Below the limit, the same kind of work runs.
    expect(await attempt(bash, 'python3', ['-c', 'b = bytearray(64 << 20); print("fits")'])).toEqual({ ok: true, text: 'fits\n' })
    // The kit's process never joined a command's cgroup, and allocates freely.
    expect(fs.readFileSync('/proc/self/cgroup', 'utf8')).toBe(kitCgroupBefore)
    const big = Buffer.alloc(300 * MiB, 1)
    expect(big.length).toBe(300 * MiB)
  })

  it('without a cgroup, memory falls back to RLIMIT_DATA per process, and says so', async () => {
    const script = fileURLToPath(new URL('./support/limits_fallback.ts', import.meta.url))
    const child = spawn(process.execPath, ['--import', 'tsx', script, root], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, TOOLSMITH_CGROUPS: 'off' } })
    let text = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
    await new Promise((resolve) => child.on('close', resolve))
    const report = JSON.parse(text) as { limits: Record<string, { mechanism: string; detail: string }>; python: unknown; node: unknown; small: unknown }
    expect(report.limits.memoryBytes).toMatchObject({ mechanism: 'rlimit', detail: expect.stringContaining('RLIMIT_DATA') })
    // RLIMIT_NPROC never binds root: as root nothing bounds the processes without a cgroup, and it says so.
    expect(report.limits.processes).toMatchObject(
      process.getuid?.() === 0 ? { mechanism: 'none', detail: expect.stringContaining('does not bind root') } : { mechanism: 'rlimit' },
    )
    expect(report.python).toEqual({ ok: false, code: 'TOOL_LIMIT_EXCEEDED', limit: 'memory' })
    expect(report.node).toEqual({ ok: false, code: 'TOOL_LIMIT_EXCEEDED', limit: 'memory' })
    // node (and its virtual reservations: ≈ 560 MiB on Node 24) still starts under a 768 MiB RLIMIT_DATA.
    expect(report.small).toEqual({ ok: true, text: 'node starts\n' })
  })

  it('filling the private /tmp (or /run) ends with the tmp limit, not the disk', async () => {
    const bash = bashOf({ limits: { ...SMALL, fileSizeBytes: false } })
    for (const dir of ['/tmp', '/run']) {
      const fill = await attempt(bash, 'dd', ['if=/dev/zero', `of=${dir}/fill`, 'bs=1M'])
      expect(fill).toMatchObject({ ok: false, code: 'TOOL_LIMIT_EXCEEDED', details: { limit: 'tmp', value: 16 * MiB, exitCode: 1 } })
      expect((fill as { message: string }).message).toMatch(/No space left on device.*at most 16 MiB each.*limits\.tmpBytes.*--limit-tmp/s)
    }
    expect(await attempt(bash, 'echo', ['still answering'])).toEqual({ ok: true, text: 'still answering\n' })
  })

  it('a file larger than the file size limit ends the writer with SIGXFSZ', async () => {
    const bash = bashOf({ limits: SMALL })
    const big = await attempt(bash, 'dd', ['if=/dev/zero', 'of=big.bin', 'bs=1M', 'count=4'])
    expect(big).toMatchObject({ ok: false, code: 'TOOL_LIMIT_EXCEEDED', details: { limit: 'fileSize', value: MiB, signal: 'SIGXFSZ' } })
    expect((big as { message: string }).message).toMatch(/file size limit of 1 MiB.*limits\.fileSizeBytes.*--limit-file-size/s)
    expect(fs.statSync(path.join(root, 'big.bin')).size).toBe(MiB)
    // Under the limit, and with the limit off, the same write works.
    expect(await attempt(bash, 'dd', ['if=/dev/zero', 'of=ok.bin', 'bs=512K', 'count=1', 'status=none'])).toEqual({ ok: true, text: '' })
    const unlimited = bashOf({ limits: { fileSizeBytes: false } })
    expect(await attempt(unlimited, 'dd', ['if=/dev/zero', 'of=big.bin', 'bs=1M', 'count=4', 'status=none'])).toEqual({ ok: true, text: '' })
  })

  it.skipIf(!cgroups)('no command cgroup outlives its call (exit, kill at the deadline, limit), nor the kit process its own', async () => {
    const bash = bashOf({ limits: SMALL })
    await attempt(bash, 'true', [])
    const hurried = createTools({ rootDir: root, timeoutMs: 1_000, limits: SMALL }).bash.executor(createDispatchContext())
    expect(await attempt(hurried, 'sh', ['-c', 'sleep 30 & sleep 30'])).toMatchObject({ ok: false, code: 'TOOL_TIMEOUT' })
    expect(await attempt(bash, 'sh', ['-c', 'f(){ f|f& }; f; sleep 60'])).toMatchObject({ ok: false, code: 'TOOL_LIMIT_EXCEEDED' })
    // Between calls the kit keeps no cgroup at all.
    expect(kitCgroups(process.pid)).toEqual([])
  })

  it.skipIf(!cgroups)('a kit process that exits mid-command removes its cgroups; one killed leaves them to the next', async () => {
    const script = fileURLToPath(new URL('./support/limits_child.ts', import.meta.url))
    const child = (mode: string) => spawn(process.execPath, ['--import', 'tsx', script, mode, root], { stdio: ['ignore', 'pipe', 'inherit'] })
    const output = (proc: ReturnType<typeof child>) => {
      let text = ''
      proc.stdout!.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
      return { get text() { return text }, closed: new Promise((resolve) => proc.on('close', resolve)) }
    }
    const exiting = child('exit')
    const exited = output(exiting)
    await exited.closed
    const [pidLine, ...seen] = exited.text.trim().split('\n')
    const pid = Number(/^pid (\d+)$/.exec(pidLine!)?.[1])
    // A parent and a command cgroup per hierarchy while the command ran; none after the exit.
    expect(seen.some((dir) => path.basename(dir) === `toolsmith-${pid}`)).toBe(true)
    expect(seen.some((dir) => path.basename(dir).startsWith('cmd-'))).toBe(true)
    expect(kitCgroups(pid)).toEqual([])

    // SIGKILL runs no exit hook: the (empty) cgroups stay until another kit process looks for cgroups.
    const hanging = child('hang')
    const hung = output(hanging)
    while (!/cmd-/.test(hung.text)) await new Promise((resolve) => setTimeout(resolve, 50))
    hanging.kill('SIGKILL')
    await hung.closed
    const killedPid = Number(/^pid (\d+)$/m.exec(hung.text)?.[1])
    // A kit killed before bwrap armed --die-with-parent leaves the command running in its cgroup:
    // made here by hand (a dead pid's parent, a sleep inside), the next kit process kills it and removes both.
    const deadPid = await new Promise<number>((resolve) => {
      const gone = spawn('true')
      gone.on('close', () => resolve(gone.pid!))
    })
    const own = /^\d+:pids:(.*)$/m.exec(fs.readFileSync('/proc/self/cgroup', 'utf8'))![1]!
    const stale = path.join('/sys/fs/cgroup/pids', own, `toolsmith-${deadPid}`, 'cmd-1')
    fs.mkdirSync(stale, { recursive: true })
    const orphan = spawn('/bin/sh', ['-c', 'echo $$ > "$0"; exec sleep 60', path.join(stale, 'cgroup.procs')], { stdio: 'ignore' })
    const orphanGone = new Promise((resolve) => orphan.on('close', (_code, signal) => resolve(signal)))
    // A process whose main thread has exited (its /proc/PID/stat says exiting) while another thread runs: still killed.
    const threaded = spawn(
      'python3',
      ['-c', 'import ctypes, os, sys, threading, time\nopen(sys.argv[1], "w").write(str(os.getpid()))\nthreading.Thread(target=time.sleep, args=(60,)).start()\nctypes.CDLL(None).pthread_exit(None)', path.join(stale, 'cgroup.procs')],
      { stdio: 'ignore' },
    )
    const threadedGone = new Promise((resolve) => threaded.on('close', (_code, signal) => resolve(signal)))
    // Not left running if the kit fails to kill them (only while unreaped: the pid is still theirs).
    onTestFinished(() => {
      for (const proc of [threaded, orphan]) if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL')
    })
    const mainThreadExited = (): boolean => {
      try {
        return /^[ZX]/.test(fs.readFileSync(`/proc/${threaded.pid}/stat`, 'latin1').split(') ')[1]!)
      } catch {
        return false
      }
    }
    while (fs.readFileSync(path.join(stale, 'cgroup.procs'), 'utf8').trim().split('\n').length < 2 || !mainThreadExited()) {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }

    const probe = output(child('probe'))
    await probe.closed
    expect(probe.text.trim()).toMatch(/^cgroup v[12]$/)
    expect(kitCgroups(killedPid)).toEqual([])
    expect(await orphanGone).toBe('SIGKILL')
    expect(await threadedGone).toBe('SIGKILL')
    expect(kitCgroups(deadPid)).toEqual([])
  })
})
