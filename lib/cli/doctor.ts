/**
 * `toolsmith doctor`: what `bash` enforces on this machine, and why.
 *
 * @module
 */
import { formatBytes, type LimitEnforcement } from '../sandbox/os/limits.js'
import type { SandboxEnforcement } from '../sandbox/sandbox.js'
import { writeOut, type CliIo } from './io.js'
import { writeJson } from './json_output.js'
import type { ParsedCommandLine } from './options.js'
import { commandSandbox } from './sandbox_tools.js'
import { CliUsageError } from './usage.js'

/** One layer of what `bash` enforces, as `doctor --json` reports it. */
export interface DoctorCheck {
  /**
   * The layer: `engine`, `filesystem`, `secrets`, `host-view`, `read-only`,
   * `sockets`, `kernel`, `network`, `processes`, `seccomp`,
   * `limits.processes`, `limits.memory`, `limits.tmp`, `limits.file-size`;
   * `engine` and `bash` only when no engine can run.
   */
  name: string
  /** Whether the layer is enforced as described; `false` when it is off, missing or not enforced. */
  ok: boolean
  /** What is enforced and by what, or why not: the text `doctor` prints for the layer, on one line. */
  detail: string
  /** How to get the layer, when it is missing for want of something on the machine. */
  fix?: string
}

/** A check with the label and lines it prints as. */
interface Row {
  name: string
  label: string
  ok: boolean
  lines: string[]
  fix?: string[]
}

/**
 * The lines that say what a sandbox enforces (also printed by `demo`).
 *
 * @param enforcement - `sandbox.enforcement`.
 * @param root - The root, as shown to the user.
 * @returns One line per layer, label first.
 */
export function enforcementLines(enforcement: SandboxEnforcement, root: string): string[] {
  const line = (label: string, text: string): string => label.padEnd(12) + text
  return enforcementRows(enforcement, root).flatMap((row) => [
    ...row.lines.map((text, i) => line(i === 0 ? row.label : '', text)),
    ...(row.fix ?? []).map((text, i) => line(i === 0 ? 'fix' : '', text)),
  ])
}

/**
 * What a sandbox enforces, one check per layer, as `doctor --json` reports it.
 *
 * @param enforcement - `sandbox.enforcement`.
 * @param root - The root, as shown to the user.
 * @returns The checks, in the order `doctor` prints them.
 */
export function enforcementChecks(enforcement: SandboxEnforcement, root: string): DoctorCheck[] {
  return enforcementRows(enforcement, root).map(({ name, ok, lines, fix }) => ({
    name,
    ok,
    detail: lines.join(' '),
    ...(fix === undefined ? {} : { fix: fix.join(' ') }),
  }))
}

function enforcementRows(enforcement: SandboxEnforcement, root: string): Row[] {
  if (enforcement.engine === 'unavailable') {
    return [
      { name: 'engine', label: 'engine', ok: false, lines: [`unavailable: ${enforcement.unavailableReason ?? 'unknown reason'}`] },
      {
        name: 'bash',
        label: 'bash',
        ok: false,
        lines: ['REFUSES every command (TOOL_SANDBOX_UNAVAILABLE) rather than run it unconfined'],
        fix: [
          'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap;',
          'Arch: pacman -S bubblewrap), or accept less isolation with --no-os-sandbox',
          '(API: isolation: { filesystem: false })',
        ],
      },
    ]
  }
  const rows: Row[] = [{ name: 'engine', label: 'engine', ok: true, lines: [enforcement.engine] }]
  const row = (name: string, label: string, ok: boolean, text: string): void => {
    rows.push({ name, label, ok, lines: [text] })
  }
  row(
    'filesystem',
    'filesystem',
    enforcement.filesystem,
    enforcement.filesystem
      ? `enforced by the kernel: ${enforcement.readableHost === 'system' ? 'only the system folders visible, read-only' : 'host read-only'}; writable: ${[root, ...enforcement.writablePaths, 'a private /tmp'].join(', ')}`
      : 'NOT enforced: bash commands can read and write whatever this user can (only the working directory is checked)',
  )
  if (enforcement.filesystem) {
    const masked = enforcement.unreadablePaths.length
    row('secrets', 'secrets', true, `${masked} path${masked === 1 ? '' : 's'} read as empty (${enforcement.unreadablePaths.slice(0, 3).join(', ')}${masked > 3 ? ', …' : ''}); the file tools refuse those inside the root`)
    row(
      'host-view',
      'host view',
      true,
      enforcement.readableHost === 'system'
        ? `strict: only the system folders, the root${enforcement.readablePaths.length > 0 ? `, ${enforcement.readablePaths.join(', ')}` : ''} and /tmp; no home directory (toolchains under it must be named with --readable-path)`
        : 'the whole host, read-only (strict profile: --readable-host system)',
    )
    const kept = enforcement.readOnlyPaths.length
    row('read-only', 'read-only', true, `inside the root, for every tool: ${kept === 0 ? 'none' : `${enforcement.readOnlyPaths.slice(0, 4).join(', ')}${kept > 4 ? `, … (${kept} entries)` : ''}`}`)
    row('sockets', 'sockets', true, 'host Unix sockets unreachable (private /tmp and /run, the others masked)')
    row('kernel', 'kernel', true, '/proc/sys, /proc/irq, /proc/bus, /proc/fs and /sys read-only; /proc/keys, /proc/timer_list… masked; /sys/firmware empty')
  }
  const guard = enforcement.networkGuard ? '; word guard on (a heuristic)' : ''
  const domains = enforcement.allowedDomains
  row(
    'network',
    'network',
    enforcement.network,
    domains !== undefined && enforcement.network
      ? `cut by the kernel; the only way out is the kit's proxy, to ${domains.length === 0 ? 'no host (every request answers 403 naming the host)' : domains.join(', ')}`
      : enforcement.network
      ? `cut by the kernel (empty network namespace, own loopback)${guard}`
      : `NOT cut by the kernel${enforcement.networkGuard ? ': only the word guard (a heuristic) refuses network commands' : ' (allowNetwork)'}`,
  )
  row(
    'processes',
    'processes',
    enforcement.pid,
    enforcement.pid
      ? `own PID namespace: no process outlives its call${enforcement.filesystem ? '; /proc shows only the command' : ' (/proc still shows host processes)'}`
      : 'no PID namespace: process-group kills plus /proc tracking; /proc shows host processes',
  )
  const seccomp = enforcement.seccomp
  row(
    'seccomp',
    'seccomp',
    seccomp.enabled,
    seccomp.enabled
      ? `on (${seccomp.arch ?? '?'}): ${seccomp.denied.length} system calls fail with EPERM (${seccomp.denied.slice(0, 6).join(', ')}, …); ` +
          'nested user namespaces refused; calls through another ABI kill the process (SIGSYS)'
      : `OFF: ${seccomp.reason ?? 'unknown reason'}`,
  )
  rows.push(...limitRows(enforcement))
  return rows
}

/** One row per resource limit: its value and what enforces it here. */
function limitRows(enforcement: SandboxEnforcement): Row[] {
  const { processes, memoryBytes, tmpBytes, fileSizeBytes } = enforcement.limits
  const entry = (name: string, label: string, limit: LimitEnforcement, value: (n: number) => string, first: boolean): Row => {
    const text =
      limit.value === false
        ? `${label}: off`
        : limit.mechanism === 'none'
        ? `${label}: ${value(limit.value)}, NOT enforced (${limit.detail})`
        : `${label}: ${value(limit.value)}, by ${limit.mechanism} (${limit.detail})`
    return { name: `limits.${name}`, label: first ? 'limits' : '', ok: limit.value !== false && limit.mechanism !== 'none', lines: [text] }
  }
  return [
    entry('processes', 'processes', processes, (n) => `${n} at once`, true),
    entry('memory', 'memory', memoryBytes, formatBytes, false),
    entry('tmp', '/tmp and /run', tmpBytes, (n) => `${formatBytes(n)} each`, false),
    entry('file-size', 'file size', fileSizeBytes, formatBytes, false),
  ]
}

/** `toolsmith doctor --json`'s document. */
export interface DoctorJson {
  /** Whether `bash` can run here with these options (the engine is not `unavailable`); the exit code is 0 exactly then. */
  ok: boolean
  /** Where the check ran. */
  platform: { os: string; arch: string; node: string }
  /** The sandbox root. */
  root: string
  /** One entry per layer, in the order `doctor` prints them. */
  checks: DoctorCheck[]
  /** The sandbox's own report (`Sandbox.enforcement`), every field as the library gives it. */
  enforcement: SandboxEnforcement
  /** 0, or 1 when `bash` would refuse every command. */
  exitCode: 0 | 1
}

/**
 * Run `doctor`.
 *
 * @param parsed - The command line (`--root`, `--allow-network`, `--no-os-sandbox`, `--json`…).
 * @param io - The streams.
 * @returns 0 when `bash` can run here with these options, 1 when it would refuse.
 * @throws {@link CliUsageError} for extra arguments or bad options.
 */
export async function runDoctor(parsed: ParsedCommandLine, io: CliIo): Promise<number> {
  if (parsed.args.length > 0) throw new CliUsageError(`Unexpected argument "${parsed.args[0]}"`, 'doctor')
  const sandbox = commandSandbox(parsed.sandbox, 'doctor')
  const enforcement = sandbox.enforcement
  const exitCode = enforcement.engine === 'unavailable' ? 1 : 0
  if (parsed.json) {
    await writeJson(io, {
      ok: exitCode === 0,
      platform: { os: process.platform, arch: process.arch, node: process.version },
      root: sandbox.rootDir,
      checks: enforcementChecks(enforcement, sandbox.rootDir),
      enforcement,
      exitCode,
    } satisfies DoctorJson)
    return exitCode
  }
  const lines = ['toolsmith doctor: what bash enforces here', `platform    ${process.platform} ${process.arch}, node ${process.version}`]
  lines.push(...enforcementLines(enforcement, sandbox.rootDir))
  await writeOut(io.stdout, `${lines.join('\n')}\n`)
  return exitCode
}
