/**
 * The system calls the OS sandbox's seccomp filter refuses, and their
 * numbers on each architecture the filter is written for (from the
 * kernel's `arch/x86/entry/syscalls/syscall_64.tbl` and the generic table
 * `include/uapi/asm-generic/unistd.h` that arm64 uses).
 *
 * @module
 */

/** An architecture the seccomp filter is written for, in the kernel's (audit) spelling. */
export type SeccompArch = 'x86_64' | 'aarch64'

/**
 * Refused with `EPERM`, whatever the arguments: what Docker's default
 * profile and Codex's sandbox also deny, and an agent's command never
 * needs. Grouped by why:
 *
 * - the kernel keyring (the kit's session keyring would be shared with
 *   every command): `add_key`, `request_key`, `keyctl`;
 * - reading or changing other processes: `ptrace`, `process_vm_readv`,
 *   `process_vm_writev`, `pidfd_getfd`;
 * - large kernel attack surface, used by exploits far more than by
 *   builds and tests: `bpf`, `perf_event_open`, `userfaultfd`,
 *   `io_uring_setup`, `io_uring_enter`, `io_uring_register`;
 * - the machine itself (each also needs a capability the sandbox has
 *   dropped, refused here before the kernel looks at the arguments):
 *   `kexec_load`, `kexec_file_load`, `init_module`, `finit_module`,
 *   `delete_module`, `iopl`, `ioperm`, `swapon`, `swapoff`, `reboot`,
 *   `syslog`, `acct`, `vhangup`, `quotactl`, `quotactl_fd`,
 *   `lookup_dcookie`, `open_by_handle_at`;
 * - the clock: `settimeofday`, `clock_settime`, `clock_adjtime`,
 *   `adjtimex` (reading it through them is refused too);
 * - mounts and namespaces (only possible inside a nested user namespace,
 *   which is refused as well): `mount`, `umount2`, `pivot_root`,
 *   `move_mount`, `open_tree`, `fsopen`, `fsconfig`, `fsmount`, `fspick`,
 *   `mount_setattr`, `setns`.
 */
export const DENIED_SYSCALLS = [
  'add_key',
  'request_key',
  'keyctl',
  'ptrace',
  'process_vm_readv',
  'process_vm_writev',
  'pidfd_getfd',
  'bpf',
  'perf_event_open',
  'userfaultfd',
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
  'kexec_load',
  'kexec_file_load',
  'init_module',
  'finit_module',
  'delete_module',
  'iopl',
  'ioperm',
  'swapon',
  'swapoff',
  'reboot',
  'syslog',
  'acct',
  'vhangup',
  'quotactl',
  'quotactl_fd',
  'lookup_dcookie',
  'open_by_handle_at',
  'settimeofday',
  'clock_settime',
  'clock_adjtime',
  'adjtimex',
  'mount',
  'umount2',
  'pivot_root',
  'move_mount',
  'open_tree',
  'fsopen',
  'fsconfig',
  'fsmount',
  'fspick',
  'mount_setattr',
  'setns',
] as const

/** One of {@link DENIED_SYSCALLS}. */
export type DeniedSyscall = (typeof DENIED_SYSCALLS)[number]

/** The calls the filter looks at beyond the denied list. */
export type CheckedSyscall = 'clone' | 'unshare' | 'clone3'

/**
 * System call numbers per architecture; a call the architecture does not
 * have (`iopl` and `ioperm` exist on x86 only) is absent.
 */
export const SYSCALL_NUMBERS: Readonly<Record<SeccompArch, Readonly<Partial<Record<DeniedSyscall | CheckedSyscall, number>>>>> = {
  x86_64: {
    add_key: 248,
    request_key: 249,
    keyctl: 250,
    ptrace: 101,
    process_vm_readv: 310,
    process_vm_writev: 311,
    pidfd_getfd: 438,
    bpf: 321,
    perf_event_open: 298,
    userfaultfd: 323,
    io_uring_setup: 425,
    io_uring_enter: 426,
    io_uring_register: 427,
    kexec_load: 246,
    kexec_file_load: 320,
    init_module: 175,
    finit_module: 313,
    delete_module: 176,
    iopl: 172,
    ioperm: 173,
    swapon: 167,
    swapoff: 168,
    reboot: 169,
    syslog: 103,
    acct: 163,
    vhangup: 153,
    quotactl: 179,
    quotactl_fd: 443,
    lookup_dcookie: 212,
    open_by_handle_at: 304,
    settimeofday: 164,
    clock_settime: 227,
    clock_adjtime: 305,
    adjtimex: 159,
    mount: 165,
    umount2: 166,
    pivot_root: 155,
    move_mount: 429,
    open_tree: 428,
    fsopen: 430,
    fsconfig: 431,
    fsmount: 432,
    fspick: 433,
    mount_setattr: 442,
    setns: 308,
    clone: 56,
    unshare: 272,
    clone3: 435,
  },
  aarch64: {
    add_key: 217,
    request_key: 218,
    keyctl: 219,
    ptrace: 117,
    process_vm_readv: 270,
    process_vm_writev: 271,
    pidfd_getfd: 438,
    bpf: 280,
    perf_event_open: 241,
    userfaultfd: 282,
    io_uring_setup: 425,
    io_uring_enter: 426,
    io_uring_register: 427,
    kexec_load: 104,
    kexec_file_load: 294,
    init_module: 105,
    finit_module: 273,
    delete_module: 106,
    swapon: 224,
    swapoff: 225,
    reboot: 142,
    syslog: 116,
    acct: 89,
    vhangup: 58,
    quotactl: 60,
    quotactl_fd: 443,
    lookup_dcookie: 18,
    open_by_handle_at: 265,
    settimeofday: 170,
    clock_settime: 112,
    clock_adjtime: 266,
    adjtimex: 171,
    mount: 40,
    umount2: 39,
    pivot_root: 41,
    move_mount: 429,
    open_tree: 428,
    fsopen: 430,
    fsconfig: 431,
    fsmount: 432,
    fspick: 433,
    mount_setattr: 442,
    setns: 268,
    clone: 220,
    unshare: 97,
    clone3: 435,
  },
}
