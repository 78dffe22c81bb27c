/**
 * The seccomp filter of the OS sandbox: a classic-BPF program, built here
 * (no native addon), that bubblewrap installs right before it execs each
 * command (`bwrap --seccomp FD` reads the compiled `struct sock_filter[]`
 * from a descriptor). The filter is inherited by every process the command
 * starts and cannot be removed.
 *
 * What it does, in order:
 *
 * 1. A call made through another ABI than the one the filter is written
 *    for — 32-bit x86 (`int 0x80`, a 32-bit program), x32, AArch32 — kills
 *    the process (`SIGSYS`): the numbers mean other calls there, so no
 *    list could be right for them.
 * 2. The calls of {@link DENIED_SYSCALLS} fail with `EPERM`.
 * 3. Nested user namespaces are refused: `clone` and `unshare` with
 *    `CLONE_NEWUSER` fail with `EPERM`; `clone3`, whose flags sit in memory
 *    a filter cannot read, fails with `ENOSYS`, so glibc falls back to
 *    `clone` where the flags are checked (musl never uses `clone3`). A nested
 *    user namespace would give a command every capability over new mount
 *    and network namespaces: far more kernel surface, and no agent's
 *    command needs it (`unshare -r`, `bwrap`, rootless containers inside
 *    the sandbox do not work).
 * 4. Everything else is allowed: the filter is a deny list.
 *
 * Written for x86-64 and arm64 (little-endian); elsewhere no filter is
 * installed and {@link seccompSupport} says why.
 *
 * @module
 */
import { endianness } from 'node:os'
import { DENIED_SYSCALLS, SYSCALL_NUMBERS, type SeccompArch } from './syscalls.js'

/** Whether `bash` commands run under the seccomp filter, and why not. */
export interface SyscallFilterStatus {
  /** `true` when every command of the OS sandbox runs under the filter. */
  readonly enabled: boolean
  /** The ABI the filter is written for (`x86_64`, `aarch64`), when enabled. */
  readonly arch: string | undefined
  /** The system calls that fail with `EPERM` (none when the filter is off). */
  readonly denied: readonly string[]
  /** Why there is no filter (another architecture, a kernel without seccomp, no OS sandbox). */
  readonly reason: string | undefined
}

/** `AUDIT_ARCH_*`: what the kernel puts in `seccomp_data.arch` for each ABI. */
export const AUDIT_ARCH: Readonly<Record<SeccompArch, number>> = { x86_64: 0xc000003e, aarch64: 0xc00000b7 }

/** Return values of a seccomp filter (`SECCOMP_RET_*`). */
export const SECCOMP_RET = { KILL_PROCESS: 0x80000000, ERRNO: 0x00050000, ALLOW: 0x7fff0000 } as const

/** The errno values the filter returns (the same on both architectures). */
export const SECCOMP_ERRNO = { EPERM: 1, ENOSYS: 38 } as const

/** x86-64 marks x32 calls with this bit in the number. */
const X32_SYSCALL_BIT = 0x40000000
const CLONE_NEWUSER = 0x10000000

/** Offsets in `struct seccomp_data` (little-endian): nr, arch, and the low half of the first argument. */
const NR = 0
const ARCH = 4
const ARG0_LOW = 16

/** Classic BPF opcodes used: `ld [k]`, `jeq`, `jge`, `jset` with a constant, `ret k`. */
const BPF = { LD_W_ABS: 0x20, JEQ_K: 0x15, JGE_K: 0x35, JSET_K: 0x45, RET_K: 0x06 } as const

/** One instruction while assembling: jumps name their targets, resolved to offsets at the end. */
interface Pending {
  code: number
  k: number
  jt?: string
  jf?: string
  label?: string
}

/**
 * The seccomp program for `arch`, compiled: `struct sock_filter[]` in the
 * machine's byte order, as `bwrap --seccomp` reads it.
 *
 * @param arch - The ABI the program allows calls from.
 * @returns The program's bytes (8 per instruction; about 60 instructions).
 * @internal
 */
export function seccompProgram(arch: SeccompArch): Uint8Array {
  const numbers = SYSCALL_NUMBERS[arch]
  const code: Pending[] = [
    { code: BPF.LD_W_ABS, k: ARCH },
    { code: BPF.JEQ_K, k: AUDIT_ARCH[arch], jf: 'kill' },
    { code: BPF.LD_W_ABS, k: NR },
  ]
  if (arch === 'x86_64') code.push({ code: BPF.JGE_K, k: X32_SYSCALL_BIT, jt: 'kill' })
  for (const name of DENIED_SYSCALLS) {
    const nr = numbers[name]
    if (nr !== undefined) code.push({ code: BPF.JEQ_K, k: nr, jt: 'eperm' })
  }
  code.push(
    { code: BPF.JEQ_K, k: numbers.clone3!, jt: 'enosys' },
    { code: BPF.JEQ_K, k: numbers.clone!, jt: 'flags' },
    { code: BPF.JEQ_K, k: numbers.unshare!, jt: 'flags' },
    { code: BPF.RET_K, k: SECCOMP_RET.ALLOW },
    // clone's and unshare's flags are the first argument; the kernel reads only its low 32 bits for clone.
    { code: BPF.LD_W_ABS, k: ARG0_LOW, label: 'flags' },
    { code: BPF.JSET_K, k: CLONE_NEWUSER, jt: 'eperm' },
    { code: BPF.RET_K, k: SECCOMP_RET.ALLOW },
    { code: BPF.RET_K, k: SECCOMP_RET.ERRNO | SECCOMP_ERRNO.EPERM, label: 'eperm' },
    { code: BPF.RET_K, k: SECCOMP_RET.ERRNO | SECCOMP_ERRNO.ENOSYS, label: 'enosys' },
    { code: BPF.RET_K, k: SECCOMP_RET.KILL_PROCESS, label: 'kill' },
  )
  return assemble(code)
}

/** Resolve the labels (forward jumps only, at most 255 instructions ahead) and encode. */
function assemble(code: readonly Pending[]): Uint8Array {
  const labels = new Map<string, number>()
  code.forEach((instruction, index) => {
    if (instruction.label !== undefined) labels.set(instruction.label, index)
  })
  const bytes = new Uint8Array(code.length * 8)
  const view = new DataView(bytes.buffer)
  const offset = (from: number, label: string | undefined): number => {
    if (label === undefined) return 0
    const jump = labels.get(label)! - from - 1
    if (!(jump >= 0 && jump <= 255)) throw new Error(`seccomp program: jump to ${label} out of range`)
    return jump
  }
  code.forEach((instruction, index) => {
    view.setUint16(index * 8, instruction.code, true)
    view.setUint8(index * 8 + 2, offset(index, instruction.jt))
    view.setUint8(index * 8 + 3, offset(index, instruction.jf))
    view.setUint32(index * 8 + 4, instruction.k >>> 0, true)
  })
  return bytes
}

/**
 * The filter's architecture for a Node `process.arch` and byte order.
 *
 * @param nodeArch - `process.arch`.
 * @param order - `os.endianness()`.
 * @returns `x86_64`, `aarch64`, or `undefined` where the kit has no filter.
 * @internal
 */
export function seccompArchFor(nodeArch: string, order: 'BE' | 'LE'): SeccompArch | undefined {
  if (order !== 'LE') return undefined
  return nodeArch === 'x64' ? 'x86_64' : nodeArch === 'arm64' ? 'aarch64' : undefined
}

/**
 * The calls of {@link DENIED_SYSCALLS} that exist on `arch`, in order.
 *
 * @param arch - The filter's architecture.
 * @returns Their names.
 * @internal
 */
export function deniedOn(arch: SeccompArch): readonly string[] {
  return DENIED_SYSCALLS.filter((name) => SYSCALL_NUMBERS[arch][name] !== undefined)
}

let host: { readonly arch: SeccompArch; readonly program: Uint8Array } | { readonly reason: string } | undefined

/**
 * The filter for this machine, built once per process, or why there is
 * none.
 *
 * @returns The architecture and the compiled program, or a reason.
 * @internal
 */
export function seccompSupport(): { readonly arch: SeccompArch; readonly program: Uint8Array } | { readonly reason: string } {
  if (host !== undefined) return host
  const arch = seccompArchFor(process.arch, endianness())
  host =
    arch === undefined
      ? { reason: `the kit has no seccomp filter for ${process.arch} (${endianness()}); it has one for x64 and arm64 (little-endian)` }
      : { arch, program: seccompProgram(arch) }
  return host
}
