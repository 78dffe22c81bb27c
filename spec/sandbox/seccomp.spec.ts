/**
 * The OS sandbox's seccomp filter: the program the kit builds (run here in
 * a small classic-BPF interpreter over synthetic `seccomp_data`, on any
 * architecture), its syscall numbers against the kernel headers, and the
 * filter at work inside `bash`: every denied call fails with EPERM, nested
 * user namespaces are refused, other ABIs are killed, and ordinary work
 * (threads, child processes, git, compilers) still runs.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { Sandbox, createDispatchContext, createTools, type SandboxOptions } from '../../lib/index.js'
// Internal on purpose: the program and its tables are what this spec checks.
import { AUDIT_ARCH, SECCOMP_RET, seccompArchFor, seccompProgram } from '../../lib/sandbox/os/seccomp.js'
import { DENIED_SYSCALLS, SYSCALL_NUMBERS, type SeccompArch } from '../../lib/sandbox/os/syscalls.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'

const ARCHES: readonly SeccompArch[] = ['x86_64', 'aarch64']
const EPERM = SECCOMP_RET.ERRNO | 1
const ENOSYS = SECCOMP_RET.ERRNO | 38
const CLONE_NEWUSER = 0x10000000

/** `struct seccomp_data` as the kernel fills it (little-endian). */
function seccompData(nr: number, arch: number, args: readonly bigint[] = []): DataView {
  const view = new DataView(new ArrayBuffer(64))
  view.setUint32(0, nr >>> 0, true)
  view.setUint32(4, arch >>> 0, true)
  for (const [index, value] of args.entries()) view.setBigUint64(16 + index * 8, BigInt.asUintN(64, value), true)
  return view
}

/** A classic-BPF interpreter for the instructions a seccomp filter may use; refuses anything else. */
function runFilter(program: Uint8Array, data: DataView): number {
  const code = new DataView(program.buffer, program.byteOffset, program.byteLength)
  const count = program.byteLength / 8
  let a = 0
  for (let pc = 0; pc < count; ) {
    const op = code.getUint16(pc * 8, true)
    const jt = code.getUint8(pc * 8 + 2)
    const jf = code.getUint8(pc * 8 + 3)
    const k = code.getUint32(pc * 8 + 4, true)
    const jump = (taken: boolean): number => pc + 1 + (taken ? jt : jf)
    switch (op) {
      case 0x20: // ld [k]
        if (k % 4 !== 0 || k + 4 > data.byteLength) throw new Error(`bad load offset ${k}`)
        a = data.getUint32(k, true)
        pc++
        break
      case 0x15: // jeq #k
        pc = jump(a === k)
        break
      case 0x35: // jge #k
        pc = jump(a >>> 0 >= k)
        break
      case 0x25: // jgt #k
        pc = jump(a >>> 0 > k)
        break
      case 0x45: // jset #k
        pc = jump((a & k) !== 0)
        break
      case 0x06: // ret #k
        return k
      default:
        throw new Error(`opcode 0x${op.toString(16)} at ${pc}`)
    }
    if (pc > count) throw new Error('jump past the end')
  }
  throw new Error('fell off the end of the program')
}

describe('seccomp program (the BPF the kit builds)', () => {
  for (const arch of ARCHES) {
    describe(arch, () => {
      const program = seccompProgram(arch)
      const numbers = SYSCALL_NUMBERS[arch]
      const own = AUDIT_ARCH[arch]
      const denied = DENIED_SYSCALLS.filter((name) => numbers[name] !== undefined)

      it('is small enough for one pipe write and made of whole instructions', () => {
        expect(program.byteLength % 8).toBe(0)
        expect(program.byteLength).toBeLessThan(4096)
      })

      it('kills a call made through any other ABI (i386, arm, the other 64-bit arch)', () => {
        for (const foreign of [0x40000003 /* i386 */, 0x40000028 /* arm */, AUDIT_ARCH[arch === 'x86_64' ? 'aarch64' : 'x86_64'], 0]) {
          expect(runFilter(program, seccompData(39, foreign))).toBe(SECCOMP_RET.KILL_PROCESS)
          expect(runFilter(program, seccompData(0, foreign))).toBe(SECCOMP_RET.KILL_PROCESS)
        }
      })

      // x32 is an x86-64 ABI: arm64 has nothing like it.
      if (arch === 'x86_64') {
        it('kills x32 calls (numbers with bit 30 set)', () => {
          for (const nr of [0x40000000, 0x40000027, 0x40000000 + 250, 0x7fffffff]) {
            expect(runFilter(program, seccompData(nr, own))).toBe(SECCOMP_RET.KILL_PROCESS)
          }
        })
      }

      it(`refuses each of the ${denied.length} denied calls with EPERM, whatever the arguments`, () => {
        expect(denied.length).toBeGreaterThanOrEqual(arch === 'x86_64' ? 45 : 43)
        for (const name of denied) {
          for (const args of [[], [0n, 0n], [-1n, 0xffffffffn, 7n]]) {
            expect([name, runFilter(program, seccompData(numbers[name]!, own, args))]).toEqual([name, EPERM])
          }
        }
      })

      it('refuses clone and unshare with CLONE_NEWUSER (EPERM), allows them without; clone3 is ENOSYS', () => {
        const threadFlags = 0x3d0f00n // CLONE_VM|FS|FILES|SIGHAND|THREAD|SYSVSEM|SETTLS|PARENT_SETTID|CHILD_CLEARTID
        expect(runFilter(program, seccompData(numbers.clone!, own, [threadFlags]))).toBe(SECCOMP_RET.ALLOW)
        expect(runFilter(program, seccompData(numbers.clone!, own, [0x11n /* SIGCHLD: fork */]))).toBe(SECCOMP_RET.ALLOW)
        expect(runFilter(program, seccompData(numbers.clone!, own, [BigInt(CLONE_NEWUSER) | 0x11n]))).toBe(EPERM)
        expect(runFilter(program, seccompData(numbers.clone!, own, [0xffffffff00000000n | BigInt(CLONE_NEWUSER)]))).toBe(EPERM)
        expect(runFilter(program, seccompData(numbers.unshare!, own, [0x20000n /* CLONE_NEWNS */]))).toBe(SECCOMP_RET.ALLOW)
        expect(runFilter(program, seccompData(numbers.unshare!, own, [0x200n /* CLONE_FS */]))).toBe(SECCOMP_RET.ALLOW)
        expect(runFilter(program, seccompData(numbers.unshare!, own, [BigInt(CLONE_NEWUSER)]))).toBe(EPERM)
        expect(runFilter(program, seccompData(numbers.unshare!, own, [BigInt(CLONE_NEWUSER | 0x20000)]))).toBe(EPERM)
        expect(runFilter(program, seccompData(numbers.clone3!, own, [0n, 88n]))).toBe(ENOSYS)
      })

      it('allows every other call number from 0 to 1023', () => {
        const special = new Set([...denied.map((name) => numbers[name]), numbers.clone, numbers.unshare, numbers.clone3])
        for (let nr = 0; nr < 1024; nr++) {
          if (special.has(nr)) continue
          expect([nr, runFilter(program, seccompData(nr, own, [BigInt(CLONE_NEWUSER)]))]).toEqual([nr, SECCOMP_RET.ALLOW])
        }
      })
    })
  }

  it('has a filter for x64 and arm64 (little-endian) only', () => {
    expect(seccompArchFor('x64', 'LE')).toBe('x86_64')
    expect(seccompArchFor('arm64', 'LE')).toBe('aarch64')
    for (const other of ['ia32', 'arm', 'riscv64', 'ppc64', 's390x', 'loong64', 'mips']) expect(seccompArchFor(other, 'LE')).toBeUndefined()
    expect(seccompArchFor('arm64', 'BE')).toBeUndefined()
  })
})

/** `__NR_name value` pairs of a kernel header. */
function headerNumbers(file: string): Map<string, number> {
  const numbers = new Map<string, number>()
  for (const match of fs.readFileSync(file, 'utf8').matchAll(/^#define __NR(?:3264)?_(\w+)\s+(\d+)\s*$/gm)) numbers.set(match[1]!, Number(match[2]))
  return numbers
}

const HEADERS: Record<SeccompArch, string> = {
  x86_64: '/usr/include/x86_64-linux-gnu/asm/unistd_64.h',
  aarch64: '/usr/include/asm-generic/unistd.h',
}

describe('syscall numbers match the kernel headers', () => {
  for (const arch of ARCHES) {
    it.skipIf(!fs.existsSync(HEADERS[arch]))(`${arch}: ${HEADERS[arch]} (needs the kernel headers, linux-libc-dev)`, () => {
      const header = headerNumbers(HEADERS[arch])
      for (const [name, nr] of Object.entries(SYSCALL_NUMBERS[arch])) expect([name, nr]).toEqual([name, header.get(name)])
      // A call the table leaves out for this arch is one the header does not have either.
      for (const name of DENIED_SYSCALLS) if (SYSCALL_NUMBERS[arch][name] === undefined) expect([name, header.get(name)]).toEqual([name, undefined])
    })
  }
})

// ---------------------------------------------------------------------------
// Inside bash

/** Calls each named syscall (name=nr pairs) with harmless arguments; prints `name errno` (0 = success). */
const CALLS = `
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
buf = ctypes.create_string_buffer(4096)
ARGS = {
  # Chosen so that without the filter the call returns something other than EPERM where it can:
  # a bad address (EFAULT), a bad descriptor (EBADF), success on harmless read-only requests.
  'add_key': [0, 0, 0, 0, 0], 'request_key': [0, 0, 0, 0],
  'keyctl': [0, -3, 0],                      # KEYCTL_GET_KEYRING_ID of the session keyring: succeeds unfiltered
  'ptrace': [7, 999999, 0, 0],               # PTRACE_CONT to no such process: ESRCH
  'process_vm_readv': [os.getpid(), 0, 0, 0, 0, 0], 'process_vm_writev': [os.getpid(), 0, 0, 0, 0, 0],
  'pidfd_getfd': [-1, 0, 0], 'bpf': [999, 0, 0], 'perf_event_open': [1, 0, -1, -1, 0],
  'userfaultfd': [1],                         # UFFD_USER_MODE_ONLY: allowed unprivileged, succeeds unfiltered
  'io_uring_setup': [1, 1], 'io_uring_enter': [-1, 0, 0, 0, 0, 0], 'io_uring_register': [-1, 0, 0, 0],
  'kexec_load': [0, 0, 0, 0], 'kexec_file_load': [-1, -1, 0, 0, 0], 'init_module': [1, 0, 0],
  'finit_module': [-1, 0, 0], 'delete_module': [1, 0], 'iopl': [0], 'ioperm': [0, 0, 0],
  'swapon': [1, -1], 'swapoff': [1], 'reboot': [0, 0, 0, 0], 'syslog': [10, 0, 0], 'acct': [1],
  'vhangup': [], 'quotactl': [0, 1, 0, 0], 'quotactl_fd': [-1, 0, 0, 0], 'lookup_dcookie': [0, 0, 0],
  'open_by_handle_at': [-1, 1, 0], 'settimeofday': [1, 0], 'clock_settime': [0, 1],
  'clock_adjtime': [0, ctypes.addressof(buf)], 'adjtimex': [ctypes.addressof(buf)],   # modes 0: a read
  'mount': [0, 1, 0, 0, 0], 'umount2': [1, 0], 'pivot_root': [1, 1], 'move_mount': [-1, 1, -1, 1, 0],
  'open_tree': [-1, 1, 0], 'fsopen': [1, 0], 'fsconfig': [-1, 0, 0, 0, 0], 'fsmount': [-1, 0, 0],
  'fspick': [-1, 1, 0], 'mount_setattr': [-1, 1, 0, 0, 0], 'setns': [-1, 0],
  'unshare_newuser': [0x10000000], 'unshare_fs': [0x200], 'clone3': [0, 0],
}
for pair in sys.argv[1:]:
    name, nr = pair.split('=')
    args = [ctypes.c_long(a) for a in ARGS[name]]
    ctypes.set_errno(0)
    result = libc.syscall(ctypes.c_long(int(nr)), *args)
    print(name, ctypes.get_errno() if result < 0 else 0)
`

/** Calls getpid through the i386 ABI (int 0x80) or the x32 ABI from a 64-bit process (x86-64 machine code). */
const FOREIGN_ABI = `
import ctypes, mmap, sys
code = {'i386': b'\\xb8\\x14\\x00\\x00\\x00\\xcd\\x80\\xc3', 'x32': b'\\xb8\\x27\\x00\\x00\\x40\\x0f\\x05\\xc3'}[sys.argv[1]]
page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
page.write(code)
function = ctypes.CFUNCTYPE(ctypes.c_long)(ctypes.addressof(ctypes.c_char.from_buffer(page)))
print('returned', function())
`

/** Syscalls the sandbox's missing capabilities already refuse with EPERM: the filter refuses them first (shown by the program spec above). */
const CAPABILITY_GATED = new Set(['swapoff', 'reboot', 'syslog', 'acct', 'vhangup', 'pivot_root', 'move_mount', 'fsopen', 'fsmount', 'fspick'])

let root: string
const hostArch = seccompArchFor(process.arch, os.endianness())
const has = (program: string): boolean => spawnSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' }).status === 0

beforeAll(() => {
  // Outside /tmp: the host's /tmp is private inside.
  root = fs.realpathSync(trackedMkdtemp(path.join(fs.existsSync('/var/tmp') ? '/var/tmp' : os.homedir(), 'toolsmith-seccomp-')))
  fs.writeFileSync(path.join(root, 'calls.py'), CALLS)
  fs.writeFileSync(path.join(root, 'foreign.py'), FOREIGN_ABI)
})

async function attempt(cmd: string, args: string[], options: SandboxOptions = {}): Promise<{ ok: boolean; text: string; code?: string; signal?: unknown }> {
  const tools = createTools({ rootDir: root, timeoutMs: 60_000, ...options })
  try {
    return { ok: true, text: String(await tools.bash.executor(createDispatchContext())({ cmd, args })) }
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string; details?: { output?: string; signal?: unknown } } }).cause
    return { ok: false, code: cause?.code, signal: cause?.details?.signal, text: `${cause?.message ?? ''}\n${cause?.details?.output ?? ''}` }
  }
}

async function run(cmd: string, args: string[], options: SandboxOptions = {}): Promise<string> {
  const result = await attempt(cmd, args, options)
  if (!result.ok) throw new Error(`${cmd} failed: ${result.code}: ${result.text}`)
  return result.text
}

/** Whether int 0x80 works on the host at all (a getpid, outside any sandbox). */
function i386Works(): boolean {
  const result = spawnSync('python3', ['-c', FOREIGN_ABI, 'i386'], { encoding: 'utf8' })
  return result.status === 0 && /returned \d+/.test(result.stdout)
}

function errnos(output: string): Map<string, number> {
  return new Map(output.trim().split('\n').map((line) => [line.split(' ')[0]!, Number(line.split(' ')[1])] as const))
}

describe.runIf(hostArch !== undefined)('seccomp filter inside bash', () => {
  const numbers = SYSCALL_NUMBERS[hostArch ?? 'x86_64']

  it('is on, for this machine\'s ABI, and every command runs under it (enforcement, /proc/self/status)', async () => {
    const denied = DENIED_SYSCALLS.filter((name) => numbers[name] !== undefined)
    expect(new Sandbox({ rootDir: root }).enforcement.seccomp).toEqual({ enabled: true, arch: hostArch, denied, reason: undefined })
    expect(new Sandbox({ rootDir: root, isolation: { filesystem: false } }).enforcement.seccomp).toMatchObject({ enabled: false, denied: [] })
    const status = await run('sh', ['-c', 'grep -E "^(NoNewPrivs|Seccomp|Seccomp_filters):" /proc/self/status'])
    expect(status).toMatch(/^NoNewPrivs:\s+1$/m)
    expect(status).toMatch(/^Seccomp:\s+2$/m)
  })

  it('every denied call fails with EPERM (python3 ctypes, from a shell\'s child)', async () => {
    const denied = DENIED_SYSCALLS.filter((name) => numbers[name] !== undefined)
    const results = errnos(await run('sh', ['-c', 'exec python3 calls.py "$@"', 'sh', ...denied.map((name) => `${name}=${numbers[name]}`)]))
    for (const name of denied) expect([name, results.get(name)]).toEqual([name, 1])
    // Most of them do not fail with EPERM without the filter; these do already (no capability in the sandbox).
    expect(denied.filter((name) => !CAPABILITY_GATED.has(name)).length).toBeGreaterThanOrEqual(33)
  })

  it('the shared keyring is out of reach through perl too (keyctl: the session keyring\'s id)', async () => {
    const output = await run('perl', ['-e', `my $id = syscall(${numbers.keyctl}, 0, -3, 0); print $id == -1 ? "keyctl $!\\n" : "keyctl $id\\n"`])
    expect(output).toBe('keyctl Operation not permitted\n')
  })

  it('nested user namespaces are refused: unshare(CLONE_NEWUSER) is EPERM, clone3 ENOSYS, unshare(CLONE_FS) still works', async () => {
    const results = errnos(await run('python3', ['calls.py', `unshare_newuser=${numbers.unshare}`, `clone3=${numbers.clone3}`, `unshare_fs=${numbers.unshare}`]))
    expect(Object.fromEntries(results)).toEqual({ unshare_newuser: 1, clone3: 38, unshare_fs: 0 })
  })

  it.runIf(has('unshare'))('`unshare -U` (util-linux) cannot make a user namespace', async () => {
    const result = await attempt('unshare', ['-U', 'id', '-u'])
    expect(result.ok).toBe(false)
    expect(result.text).toMatch(/unshare failed: Operation not permitted/)
  })

  // Some hypervisors and kernels (ia32_emulation=0) fault on int 0x80 before any filter sees it: then there is nothing to show.
  it.runIf(hostArch === 'x86_64' && i386Works())('a call through the i386 ABI (int 0x80) kills the process with SIGSYS', async () => {
    const result = await attempt('python3', ['foreign.py', 'i386'])
    expect(result).toMatchObject({ ok: false, signal: 'SIGSYS' })
    expect(result.text).not.toMatch(/returned/)
  })

  it.runIf(hostArch === 'x86_64')('a call through the x32 ABI kills the process with SIGSYS', async () => {
    const result = await attempt('python3', ['foreign.py', 'x32'])
    expect(result).toMatchObject({ ok: false, signal: 'SIGSYS' })
  })

  it('with allowNetwork: true and with a domain allowlist (nsenter in front of bwrap) the filter is on too', async () => {
    expect(await run('grep', ['^Seccomp:', '/proc/self/status'], { allowNetwork: true })).toMatch(/^Seccomp:\s+2$/m)
    expect(await run('grep', ['^Seccomp:', '/proc/self/status'], { allowNetwork: { domains: ['example.invalid'] } })).toMatch(/^Seccomp:\s+2$/m)
  })
})

describe.runIf(hostArch !== undefined)('ordinary work still runs under the filter', () => {
  it('sh pipelines, fork and exec', async () => {
    expect(await run('sh', ['-c', 'seq 1 1000 | sort -rn | head -n 2 | tr "\\n" " "; (sleep 0 & wait); echo done'])).toBe('1000 999 done\n')
  })

  it('node: worker threads and child processes (what npm scripts do)', async () => {
    const script = [
      "const { Worker } = require('node:worker_threads')",
      "const { execSync, spawnSync } = require('node:child_process')",
      "const w = new Worker('require(\"node:worker_threads\").parentPort.postMessage(6 * 7)', { eval: true })",
      "w.on('message', (n) => { console.log('worker', n, execSync('echo child').toString().trim(), spawnSync(process.execPath, ['-e', 'console.log(1+1)']).stdout.toString().trim()); w.terminate() })",
    ].join('\n')
    expect(await run('node', ['-e', script])).toBe('worker 42 child 2\n')
  })

  it('python3: threads and a subprocess', async () => {
    const script = [
      'import threading, subprocess',
      'out = []',
      'threads = [threading.Thread(target=lambda i=i: out.append(i * i)) for i in range(8)]',
      '[t.start() for t in threads]; [t.join() for t in threads]',
      "print(sum(out), subprocess.run(['echo', 'sub'], capture_output=True, text=True).stdout.strip())",
    ].join('\n')
    expect(await run('python3', ['-c', script])).toBe('140 sub\n')
  })

  it('git: init, add, commit, log in a repository the command creates (not the read-only .git of the root)', async () => {
    const output = await run('sh', [
      '-c',
      'rm -rf repo && git init -q repo && cd repo && echo hi > a.txt && git add a.txt && ' +
        'git -c user.name=t -c user.email=t@example.invalid commit -qm first && git log --format=%s',
    ])
    // The new repository is a protected path (every .git is): the kit reports that the command created it.
    expect(output.startsWith('first\n')).toBe(true)
    expect(output).toContain('repo/.git')
  })

  it.runIf(has('cc'))('cc: compile and run a C program (threads included)', async () => {
    fs.writeFileSync(
      path.join(root, 'hello.c'),
      '#include <pthread.h>\n#include <stdio.h>\nstatic void *run(void *p) { return p; }\n' +
        'int main(void) { pthread_t t; void *r; pthread_create(&t, 0, run, "threaded"); pthread_join(t, &r); printf("hello %s\\n", (char *)r); return 0; }\n',
    )
    expect(await run('sh', ['-c', 'cc -pthread -o hello hello.c && ./hello'])).toBe('hello threaded\n')
  })
})
