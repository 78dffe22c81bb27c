/**
 * `toolsmith doctor`: what `bash` enforces on this machine, and why.
 *
 * @module
 */
import { formatBytes, type LimitEnforcement } from '../sandbox/os/limits.js'
import type { SandboxEnforcement } from '../sandbox/sandbox.js'
import { writeOut, type CliIo } from './io.js'
import type { ParsedCommandLine } from './options.js'
import { commandSandbox } from './sandbox_tools.js'
import { CliUsageError } from './usage.js'

/**
 * The lines that say what a sandbox enforces (also printed by `demo`).
 *
 * @param enforcement - `sandbox.enforcement`.
 * @param root - The root, as shown to the user.
 * @returns One line per layer, label first.
 */
export function enforcementLines(enforcement: SandboxEnforcement, root: string): string[] {
  if (enforcement.engine === 'unavailable') {
    return [
      `engine      unavailable: ${enforcement.unavailableReason ?? 'unknown reason'}`,
      'bash        REFUSES every command (TOOL_SANDBOX_UNAVAILABLE) rather than run it unconfined',
      'fix         install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap;',
      '            Arch: pacman -S bubblewrap), or accept less isolation with --no-os-sandbox',
      '            (API: isolation: { filesystem: false })',
    ]
  }
  const lines = [`engine      ${enforcement.engine}`]
  lines.push(
    enforcement.filesystem
      ? `filesystem  enforced by the kernel: ${enforcement.readableHost === 'system' ? 'only the system folders visible, read-only' : 'host read-only'}; writable: ${[root, ...enforcement.writablePaths, 'a private /tmp'].join(', ')}`
      : 'filesystem  NOT enforced: bash commands can read and write whatever this user can (only the working directory is checked)',
  )
  if (enforcement.filesystem) {
    const masked = enforcement.unreadablePaths.length
    lines.push(`secrets     ${masked} path${masked === 1 ? '' : 's'} read as empty (${enforcement.unreadablePaths.slice(0, 3).join(', ')}${masked > 3 ? ', …' : ''}); the file tools refuse those inside the root`)
    lines.push(
      enforcement.readableHost === 'system'
        ? `host view   strict: only the system folders, the root${enforcement.readablePaths.length > 0 ? `, ${enforcement.readablePaths.join(', ')}` : ''} and /tmp; no home directory (toolchains under it must be named with --readable-path)`
        : 'host view   the whole host, read-only (strict profile: --readable-host system)',
    )
    const kept = enforcement.readOnlyPaths.length
    lines.push(`read-only   inside the root, for every tool: ${kept === 0 ? 'none' : `${enforcement.readOnlyPaths.slice(0, 4).join(', ')}${kept > 4 ? `, … (${kept} entries)` : ''}`}`)
    lines.push('sockets     host Unix sockets unreachable (private /tmp and /run, the others masked)')
    lines.push('kernel      /proc/sys, /proc/irq, /proc/bus, /proc/fs and /sys read-only; /proc/keys, /proc/timer_list… masked; /sys/firmware empty')
  }
  const guard = enforcement.networkGuard ? '; word guard on (a heuristic)' : ''
  const domains = enforcement.allowedDomains
  lines.push(
    domains !== undefined && enforcement.network
      ? `network     cut by the kernel; the only way out is the kit's proxy, to ${domains.length === 0 ? 'no host (every request answers 403 naming the host)' : domains.join(', ')}`
      : enforcement.network
      ? `network     cut by the kernel (empty network namespace, own loopback)${guard}`
      : `network     NOT cut by the kernel${enforcement.networkGuard ? ': only the word guard (a heuristic) refuses network commands' : ' (allowNetwork)'}`,
  )
  lines.push(
    enforcement.pid
      ? `processes   own PID namespace: no process outlives its call${enforcement.filesystem ? '; /proc shows only the command' : ' (/proc still shows host processes)'}`
      : 'processes   no PID namespace: process-group kills plus /proc tracking; /proc shows host processes',
  )
  const seccomp = enforcement.seccomp
  lines.push(
    seccomp.enabled
      ? `seccomp     on (${seccomp.arch ?? '?'}): ${seccomp.denied.length} system calls fail with EPERM (${seccomp.denied.slice(0, 6).join(', ')}, …); ` +
          'nested user namespaces refused; calls through another ABI kill the process (SIGSYS)'
      : `seccomp     OFF: ${seccomp.reason ?? 'unknown reason'}`,
  )
  lines.push(...limitLines(enforcement))
  return lines
}

/** One line per resource limit: its value and what enforces it here. */
function limitLines(enforcement: SandboxEnforcement): string[] {
  const { processes, memoryBytes, tmpBytes, fileSizeBytes } = enforcement.limits
  const line = (label: string, limit: LimitEnforcement, value: (n: number) => string): string => {
    if (limit.value === false) return `${label}: off`
    if (limit.mechanism === 'none') return `${label}: ${value(limit.value)}, NOT enforced (${limit.detail})`
    return `${label}: ${value(limit.value)}, by ${limit.mechanism} (${limit.detail})`
  }
  const entries = [
    line('processes', processes, (n) => `${n} at once`),
    line('memory', memoryBytes, formatBytes),
    line('/tmp and /run', tmpBytes, (n) => `${formatBytes(n)} each`),
    line('file size', fileSizeBytes, formatBytes),
  ]
  return entries.map((entry, i) => `${i === 0 ? 'limits' : ''}`.padEnd(12) + entry)
}

/**
 * Run `doctor`.
 *
 * @param parsed - The command line (`--root`, `--allow-network`, `--no-os-sandbox`).
 * @param io - The streams.
 * @returns 0 when `bash` can run here with these options, 1 when it would refuse.
 * @throws {@link CliUsageError} for extra arguments or bad options.
 */
export async function runDoctor(parsed: ParsedCommandLine, io: CliIo): Promise<number> {
  if (parsed.args.length > 0) throw new CliUsageError(`Unexpected argument "${parsed.args[0]}"`, 'doctor')
  const sandbox = commandSandbox(parsed.sandbox, 'doctor')
  const enforcement = sandbox.enforcement
  const lines = ['toolsmith doctor: what bash enforces here', `platform    ${process.platform} ${process.arch}, node ${process.version}`]
  lines.push(...enforcementLines(enforcement, sandbox.rootDir))
  await writeOut(io.stdout, `${lines.join('\n')}\n`)
  return enforcement.engine === 'unavailable' ? 1 : 0
}
