/**
 * `Sandbox`: the root directory and the limits the five built-in tools run
 * under.
 *
 * @module
 */
import path from 'node:path'
import type { SpoolStore } from '../artifacts/stores.js'
import { E_INVALID_OPTIONS } from '../exceptions.js'
import { ValidationException, validateOrThrow, validator, type ObjectSchema } from '../validation.js'
import { isForbiddenEnvName } from './environment.js'
import { probeIsolation, warnNotIsolated } from './isolation.js'
import { resolveInRoot, resolveRealRoot } from './paths.js'

const NO_ISOLATION: SandboxIsolation = Object.freeze({ network: false, pid: false })

/** The longest `timeoutMs` accepted: one hour. */
export const MAX_TIMEOUT_MS = 3_600_000

function isSpoolStore(value: unknown): value is SpoolStore {
  const store = value as Partial<Record<'write' | 'read' | 'delete', unknown>> | null
  return (
    typeof store === 'object' &&
    store !== null &&
    typeof store.write === 'function' &&
    typeof store.read === 'function' &&
    typeof store.delete === 'function'
  )
}

/** Options of `new Sandbox(options)` and `createTools(options)`. */
export interface SandboxOptions {
  /**
   * The directory the tools may work in. Nothing outside it is read, written,
   * listed or used as a working directory. It may itself be reached through
   * a symlink: its real path becomes the boundary.
   *
   * @defaultValue `process.cwd()` at construction
   */
  rootDir?: string
  /**
   * Cap, in UTF-8 bytes, on what a tool returns (`read`, `grep`, `bash`),
   * on the file `read` accepts, and on `write` content and `edit` patches.
   * At least 64.
   *
   * @defaultValue 200_000
   */
  maxOutputBytes?: number
  /**
   * Deadline of each `bash` and `grep` call, in milliseconds (at most one hour).
   *
   * @defaultValue 60_000
   */
  timeoutMs?: number
  /**
   * Let `bash` reach the network: disables the command guard and the network
   * namespace.
   *
   * @defaultValue false
   */
  allowNetwork?: boolean
  /**
   * Extra environment variables for `bash` and `grep`, on top of the
   * allow-listed host ones (`PATH`, `HOME`, `LANG`, `LC_*`, `TERM`, `TMPDIR`,
   * `USER`, `SHELL`, `TZ`…). `LD_*`, `DYLD_*`, `NODE_OPTIONS`, `BASH_ENV`,
   * `ENV` and `*_PROXY` are refused.
   */
  env?: Record<string, string>
  /** Where large results may be spooled (`InMemorySpoolStore`, `FileSpoolStore`…): kept for the turn runner. */
  spoolStore?: SpoolStore
  /**
   * Turn kernel namespaces for `bash` OFF (it can never turn one on that the
   * defaults or the kernel do not give). `network: false` skips the network
   * namespace even when `allowNetwork` is `false`: the command guard still
   * refuses network commands, but an interpreter (`node -e`, `python3 -c`)
   * could then reach the network. `pid: false` skips the PID namespace:
   * timeouts and aborts still SIGKILL the command's whole process group, its
   * descendants found in `/proc`, and the sessions and groups seen in its tree
   * while it ran, but a process that double-forks, calls `setsid()` and drops
   * the command's output before a scan sees it can outlive the call (see
   * docs/tools.md). Each saves the cost of
   * `unshare` (and of `ip link set lo up`) on every command.
   * {@link Sandbox.isolation} reports what is actually enforced.
   *
   * @defaultValue `{ network: true, pid: true }` (each where the kernel allows;
   *   the network namespace only when `allowNetwork` is `false`)
   */
  isolation?: SandboxIsolationOptions
}

/** Which namespaces {@link SandboxOptions.isolation} leaves on (`false` turns one off). */
export interface SandboxIsolationOptions {
  /**
   * `false`: no network namespace, even with `allowNetwork: false` (the command guard still applies).
   *
   * @defaultValue true
   */
  network?: boolean
  /**
   * `false`: no PID namespace (an unseen `setsid` escapee can outlive a kill).
   *
   * @defaultValue true
   */
  pid?: boolean
}

/** Which kernel isolation `bash` commands actually run under. */
export interface SandboxIsolation {
  /** `true` only when commands run in an empty network namespace (`allowNetwork: false` and the kernel allows it). */
  readonly network: boolean
  /** `true` only when commands run in their own PID namespace, so no descendant outlives a kill. */
  readonly pid: boolean
}

const optionsSchema: ObjectSchema<SandboxOptions> = validator
  .object<SandboxOptions>({
    rootDir: validator.string().min(1).pattern(/^[^\0]*$/, 'no NUL bytes'),
    maxOutputBytes: validator.number().integer().min(64).max(2 ** 31 - 1).default(200_000),
    timeoutMs: validator.number().integer().min(1).max(MAX_TIMEOUT_MS).default(60_000),
    allowNetwork: validator.boolean().default(false),
    env: validator
      .object()
      .pattern(
        validator
          .string()
          .pattern(/^[A-Za-z_][A-Za-z0-9_]*$/)
          .custom((name: string, helpers) => (isForbiddenEnvName(name) ? helpers.error('any.invalid') : name))
          .messages({ 'any.invalid': '{#label} may not be set in a sandbox (loader, runtime or proxy variable)' }),
        validator.string().pattern(/^[^\0]*$/, 'no NUL bytes'),
      )
      .default({}),
    // any().custom keeps the store's identity (an object schema would clone it).
    spoolStore: validator
      .any()
      .custom((store: unknown, helpers) => (isSpoolStore(store) ? store : helpers.error('any.invalid')))
      .messages({ 'any.invalid': '{#label} must be a SpoolStore (an object with write(), read() and delete())' }),
    isolation: validator
      .object({
        network: validator.boolean().default(true),
        pid: validator.boolean().default(true),
      })
      .unknown(false)
      .default({ network: true, pid: true }),
  })
  .unknown(false)

/**
 * The root and limits of the built-in tools.
 *
 * @remarks
 * Construction does no I/O: the root is resolved (through symlinks) on first
 * use, and the kernel is probed for namespaces the first time
 * {@link Sandbox.isolation} is read or a command runs. Share one sandbox
 * between tools with `createTools(options)`.
 *
 * @example
 * ```ts
 * import { Sandbox } from 'toolsmith'
 *
 * const sandbox = new Sandbox({ rootDir: '/srv/work', timeoutMs: 30_000 })
 * await sandbox.resolve('src/index.ts') // '/srv/work/src/index.ts'
 * await sandbox.resolve('../etc/passwd') // throws TOOL_PATH_ESCAPE
 * sandbox.isolation // { network: true, pid: true } on a Linux host with user namespaces
 * ```
 */
export class Sandbox {
  /** The joi schema of {@link SandboxOptions}. */
  static readonly schema: ObjectSchema<SandboxOptions> = optionsSchema

  readonly #rootDir: string
  readonly #maxOutputBytes: number
  readonly #timeoutMs: number
  readonly #allowNetwork: boolean
  readonly #env: Readonly<Record<string, string>>
  readonly #spoolStore: SpoolStore | undefined
  readonly #wantedIsolation: Readonly<Required<SandboxIsolationOptions>>
  #realRoot: Promise<string> | undefined

  /**
   * @param options - Root, limits, network and environment; see {@link SandboxOptions}.
   * @throws {@link E_INVALID_OPTIONS} when an option is invalid; the
   *   `ValidationException` is the cause.
   */
  constructor(options: SandboxOptions = {}) {
    let valid: Required<Omit<SandboxOptions, 'spoolStore' | 'rootDir' | 'isolation'>> &
      Pick<SandboxOptions, 'spoolStore' | 'rootDir'> & { isolation: Required<SandboxIsolationOptions> }
    try {
      valid = validateOrThrow(optionsSchema, options ?? {}, { convert: false }) as typeof valid
    } catch (error) {
      const message = error instanceof ValidationException ? error.message : String(error)
      throw new E_INVALID_OPTIONS(`Invalid sandbox options: ${message}`, { cause: error })
    }
    this.#rootDir = path.resolve(valid.rootDir ?? process.cwd())
    this.#maxOutputBytes = valid.maxOutputBytes
    this.#timeoutMs = valid.timeoutMs
    this.#allowNetwork = valid.allowNetwork
    this.#env = Object.freeze({ ...valid.env })
    this.#spoolStore = valid.spoolStore
    this.#wantedIsolation = Object.freeze({ network: valid.isolation.network, pid: valid.isolation.pid })
  }

  /** The root as configured, made absolute (not resolved through symlinks). */
  get rootDir(): string {
    return this.#rootDir
  }

  /** Cap on returned text, read files, written content and patches, in bytes. */
  get maxOutputBytes(): number {
    return this.#maxOutputBytes
  }

  /** Deadline of each `bash` and `grep` call, in milliseconds. */
  get timeoutMs(): number {
    return this.#timeoutMs
  }

  /** Whether `bash` may reach the network. */
  get allowNetwork(): boolean {
    return this.#allowNetwork
  }

  /** Extra environment variables for spawned processes (frozen). */
  get env(): Readonly<Record<string, string>> {
    return this.#env
  }

  /** The spool store given at construction, if any. */
  get spoolStore(): SpoolStore | undefined {
    return this.#spoolStore
  }

  /**
   * Which isolation `bash` commands really get on this machine.
   *
   * @remarks
   * Probed once per process (a few milliseconds, the first time it is read).
   * `network` is `false` when `allowNetwork` is `true` (nothing to isolate),
   * when the `isolation` option turned it off, or when the kernel refuses an
   * unprivileged network namespace; `pid` is `false` when the option turned
   * it off or the kernel refuses it. When the kernel is the reason, one
   * process warning (`TOOLSMITH_NETWORK_NOT_ISOLATED` /
   * `TOOLSMITH_PID_NOT_ISOLATED`) says so; a namespace switched off on
   * purpose warns nothing.
   */
  get isolation(): SandboxIsolation {
    const wanted = this.#wantedIsolation
    const wantNetwork = !this.#allowNetwork && wanted.network
    if (!wantNetwork && !wanted.pid) return NO_ISOLATION
    const probe = probeIsolation()
    if (wantNetwork && !probe.network) warnNotIsolated('network', probe.reason)
    if (wanted.pid && !probe.pid) warnNotIsolated('pid', probe.reason)
    return Object.freeze({ network: wantNetwork && probe.network, pid: wanted.pid && probe.pid })
  }

  /**
   * The real path of the root (resolved once, then cached).
   *
   * @returns The absolute real path.
   * @throws `TOOL_FILE_NOT_FOUND` when the root does not exist or is not a directory.
   */
  async realRoot(): Promise<string> {
    this.#realRoot ??= resolveRealRoot(this.#rootDir)
    try {
      return await this.#realRoot
    } catch (error) {
      // Not cached: the root may be created later.
      this.#realRoot = undefined
      throw error
    }
  }

  /**
   * Check a path the way every built-in tool does and return its real
   * location: handy for your own tools.
   *
   * @param input - A path relative to the root, or absolute inside it.
   * @returns The absolute real path (the file need not exist).
   * @throws `TOOL_PATH_INVALID`, `TOOL_PATH_ESCAPE`, `TOOL_FILE_NOT_FOUND`
   *   (for a missing root).
   */
  async resolve(input: string): Promise<string> {
    return (await resolveInRoot(this, input)).absolute
  }
}
