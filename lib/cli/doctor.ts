/**
 * `toolsmith doctor`: what `bash` enforces on this machine, and why.
 *
 * @module
 */
import { formatBytes, type LimitEnforcement } from '../sandbox/limits.js'
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
      ? `filesystem  enforced by the kernel: host read-only; writable: ${[root, ...enforcement.writablePaths, 'a private /tmp'].join(', ')}`
      : 'filesystem  NOT enforced: bash commands can read and write whatever this user can (only the working directory is checked)',
  )
  if (enforcement.filesystem) {
    const masked = enforcement.unreadablePaths.length
    lines.push(`secrets     ${masked} path${masked === 1 ? '' : 's'} read as empty (${enforcement.unreadablePaths.slice(0, 3).join(', ')}${masked > 3 ? ', …' : ''})`)
    lines.push(`read-only   inside the root: ${enforcement.readOnlyPaths.join(', ') || 'none'}`)
    lines.push('sockets     host Unix sockets unreachable (private /tmp and /run, the others masked)')
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
