/**
 * `Sandbox`: the root directory and the limits the five built-in tools run
 * under.
 *
 * @module
 */
import os from 'node:os'
import path from 'node:path'
import { E_INVALID_OPTIONS } from '../exceptions.js'
import { hasBrand } from '../utils/guards.js'
import { ValidationException, validateOrThrow, type ObjectSchema } from '../validation.js'
import { probeBubblewrap } from './os/bubblewrap_probe.js'
import { CredentialGuard } from './files/credential_paths.js'
import { selectEngine, type SandboxEngine, type SandboxIsolation } from './os/engine.js'
import { findSystemExecutable } from './os/isolation.js'
import { limitsEnforcement, type SandboxLimits } from './os/limits.js'
import { NetworkAllowlist } from './network/network_allowlist.js'
import type { NetworkGateway } from './network/network_gateway.js'
import { resolveInRoot, resolveRealRoot } from './files/paths.js'
import { assertRootDirectory } from './files/root_dir.js'
import { ProtectedPaths } from './files/protected_paths.js'
import { ProtectedScanner } from './files/protected_scan.js'
import {
  sandboxOptionsWithoutJoi,
  sandboxOptionsSchema,
  type NetworkAllowlistOptions,
  type SandboxEnforcement,
  type SandboxIsolationOptions,
  type SandboxOptions,
} from './sandbox_options.js'

export type { SandboxEngineName, SandboxIsolation } from './os/engine.js'
export type { SyscallFilterStatus } from './os/seccomp.js'
export { DEFAULT_UNREADABLE_PATHS } from './files/credential_paths.js'
export { SYSTEM_READABLE_PATHS } from './os/host_view.js'
export { DEFAULT_LIMITS, type LimitEnforcement, type LimitMechanism, type LimitName, type SandboxLimits, type SandboxLimitsEnforcement, type SandboxLimitsOptions } from './os/limits.js'

export {
  DEFAULT_READ_ONLY_PATHS,
  MAX_OUTPUT_BYTES_LIMIT,
  MAX_TIMEOUT_MS,
  type NetworkAllowlistOptions,
  type SandboxEnforcement,
  type SandboxIsolationOptions,
  type SandboxOptions,
} from './sandbox_options.js'

const SANDBOX_BRAND = Symbol.for('toolsmith.sandbox')

/**
 * The root and limits of the built-in tools.
 *
 * @remarks
 * Construction does no I/O: the root is resolved (through symlinks) on first
 * use, and the machine is probed for bubblewrap and namespaces (once per
 * process) the first time {@link Sandbox.isolation} is read or a command
 * runs. Share one sandbox between tools with `createTools(options)`.
 *
 * @example
 * ```ts
 * import { Sandbox } from 'toolsmith'
 *
 * const sandbox = new Sandbox({ rootDir: '/srv/work', timeoutMs: 30_000 })
 * await sandbox.resolve('src/index.ts') // '/srv/work/src/index.ts'
 * await sandbox.resolve('../etc/passwd') // throws TOOL_PATH_ESCAPE
 * sandbox.isolation // { filesystem: true, network: true, pid: true } on Linux with bubblewrap
 * ```
 */
export class Sandbox {
  /** The joi schema of {@link SandboxOptions}. */
  static readonly schema: ObjectSchema<SandboxOptions> = sandboxOptionsSchema

  /**
   * Whether `value` is a {@link Sandbox} from any copy of this package (two
   * installed versions each have their own class).
   *
   * @param value - Anything.
   * @returns Whether `value` is a sandbox.
   */
  static isSandbox(value: unknown): value is Sandbox {
    return value instanceof Sandbox || hasBrand(value, SANDBOX_BRAND)
  }

  /** Brand for {@link Sandbox.isSandbox}. */
  get [SANDBOX_BRAND](): true {
    return true
  }

  /** The given root; without one the root is `process.cwd()` when first used (see {@link Sandbox.rootDir}). */
  readonly #givenRoot: string | undefined
  #rootDir: string | undefined
  readonly #maxOutputBytes: number
  readonly #timeoutMs: number
  readonly #allowNetwork: boolean | Readonly<NetworkAllowlistOptions>
  readonly #allowlist: NetworkAllowlist | undefined
  #gateway: NetworkGateway | undefined
  #closed = false
  readonly #env: Readonly<Record<string, string>>
  readonly #wantedIsolation: Readonly<Required<SandboxIsolationOptions>>
  readonly #networkGuard: 'auto' | 'always'
  readonly #writablePaths: readonly string[]
  readonly #readOnlyPaths: readonly string[]
  readonly #unreadablePaths: readonly string[]
  readonly #readableHost: 'all' | 'system'
  readonly #readablePaths: readonly string[]
  readonly #credentials: CredentialGuard
  #protectedPaths: ProtectedPaths | undefined
  #protectedScanner: ProtectedScanner | undefined
  readonly #limits: SandboxLimits
  #engine: SandboxEngine | undefined
  #realRoot: Promise<string> | undefined

  /**
   * @param options - Root, limits, network and environment; see {@link SandboxOptions}.
   * @throws {@link toolsmith/core!E_INVALID_OPTIONS} when an option is invalid; the
   *   `ValidationException` is the cause.
   * @throws {@link toolsmith/core!E_TOOL_NOT_A_DIRECTORY} when `rootDir` is given and is
   *   missing or not a directory.
   */
  constructor(options: SandboxOptions = {}) {
    let valid: Required<Omit<SandboxOptions, 'rootDir' | 'isolation' | 'limits'>> &
      Pick<SandboxOptions, 'rootDir'> & { isolation: Required<SandboxIsolationOptions>; limits: SandboxLimits }
    try {
      valid = (sandboxOptionsWithoutJoi(options) ?? validateOrThrow(sandboxOptionsSchema, options ?? {}, { convert: false })) as typeof valid
    } catch (error) {
      const message = error instanceof ValidationException ? error.message : String(error)
      throw new E_INVALID_OPTIONS(`Invalid sandbox options: ${message}`, { cause: error })
    }
    this.#givenRoot = valid.rootDir
    if (valid.rootDir !== undefined) {
      this.#rootDir = path.resolve(valid.rootDir)
      // A given root is checked now, where the mistake is made; the default
      // (the cwd at first use) stays lazy for the ready instances.
      assertRootDirectory(this.#rootDir)
    }
    this.#maxOutputBytes = valid.maxOutputBytes
    this.#timeoutMs = valid.timeoutMs
    if (typeof valid.allowNetwork === 'boolean') this.#allowNetwork = valid.allowNetwork
    else {
      this.#allowlist = new NetworkAllowlist(valid.allowNetwork.domains)
      this.#allowNetwork = Object.freeze({ domains: this.#allowlist.domains as string[] })
    }
    this.#env = Object.freeze({ ...valid.env })
    this.#wantedIsolation = Object.freeze({ ...valid.isolation })
    this.#networkGuard = valid.networkGuard
    this.#writablePaths = Object.freeze(valid.writablePaths.map((p) => path.resolve(p)))
    // Checking writable paths against the root fixes the root now (the cwd
    // at construction when none was given); without writable paths it stays
    // lazy, as the ready instances need.
    for (const writable of this.#writablePaths) {
      const relative = path.relative(writable, this.rootDir)
      const overlaps = relative === '' || !relative.startsWith('..') || !path.relative(this.rootDir, writable).startsWith('..')
      if (overlaps) {
        throw new E_INVALID_OPTIONS(
          `Invalid sandbox options: writablePaths entry ${JSON.stringify(writable)} is the root, inside it, or contains it ` +
            '(the root is writable already; a writable folder around it would let a command move the root itself)',
        )
      }
    }
    this.#readOnlyPaths = Object.freeze([...valid.readOnlyPaths])
    this.#limits = Object.freeze({ ...valid.limits })
    const home = os.homedir()
    const expand = (p: string): string => (p === '~' ? home : p.startsWith('~/') ? path.join(home, p.slice(2)) : path.resolve(p))
    this.#unreadablePaths = Object.freeze(valid.unreadablePaths.map(expand))
    this.#credentials = new CredentialGuard(this.#unreadablePaths)
    this.#readableHost = valid.readableHost
    this.#readablePaths = Object.freeze(valid.readablePaths.map(expand))
  }

  /** The root as configured, made absolute (not resolved through symlinks). */
  get rootDir(): string {
    // Fixed on first use, not at construction: the ready instances of
    // 'toolsmith' are built at import, before a program may chdir.
    this.#rootDir ??= path.resolve(this.#givenRoot ?? process.cwd())
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

  /**
   * What network `bash` commands reach: `false`, `true`, or `{ domains }`
   * (normalised: lower case, no trailing dot, no duplicates; frozen).
   */
  get allowNetwork(): boolean | Readonly<NetworkAllowlistOptions> {
    return this.#allowNetwork
  }

  /** The allowlist's entries with `allowNetwork: { domains }`, else `undefined`. */
  get allowedDomains(): readonly string[] | undefined {
    return this.#allowlist?.domains
  }

  /**
   * Release what the sandbox holds: the allowlist proxy's namespace holder
   * and every connection through it. Commands started afterwards fail with
   * `TOOL_SANDBOX_UNAVAILABLE` when they need the proxy. Idempotent; a
   * sandbox without a domain allowlist holds nothing.
   *
   * @returns Once released.
   */
  async close(): Promise<void> {
    this.#closed = true
    this.#gateway?.close()
    this.#gateway = undefined
  }

  /**
   * Why this sandbox can run no allowlist proxy, or `undefined` when it can
   * (nothing is started).
   *
   * @internal
   */
  networkGatewayProblem(): string | undefined {
    if (this.#allowlist === undefined) return 'this sandbox has no domain allowlist'
    if (this.#closed) return 'the sandbox was closed'
    const engine = this.engine
    if (engine.name !== 'bubblewrap' || !engine.isolation.network) {
      return engine.name === 'bubblewrap'
        ? 'the kernel refuses a network namespace here, and the allowlist needs one'
        : 'the network allowlist needs the OS sandbox (bubblewrap), which this sandbox does not use'
    }
    if (probeBubblewrap().bwrap === undefined || findSystemExecutable('nsenter') === undefined) return 'nsenter (util-linux) is not installed'
    return undefined
  }

  /**
   * The allowlist proxy's gateway (started on first use by `bash`), or the
   * reason there can be none. The proxy's code loads with the first one:
   * only an allowlist sandbox's `bash` pays for it.
   *
   * @internal
   */
  async networkGateway(): Promise<NetworkGateway | string> {
    const problem = this.networkGatewayProblem()
    if (problem !== undefined) return problem
    if (this.#gateway === undefined) {
      const [{ NetworkGateway }, { NetworkProxy }] = await Promise.all([import('./network/network_gateway.js'), import('./network/network_proxy.js')])
      // Closed, or started by a concurrent call, while the code loaded.
      if (this.#closed) return 'the sandbox was closed'
      this.#gateway ??= new NetworkGateway(
        { bwrap: probeBubblewrap().bwrap!, nsenter: findSystemExecutable('nsenter')! },
        new NetworkProxy(this.#allowlist!),
      )
    }
    return this.#gateway
  }

  /** Extra environment variables for spawned processes (frozen). */
  get env(): Readonly<Record<string, string>> {
    return this.#env
  }


  /** The resource limits of `bash` commands, defaults applied (frozen; `false`: switched off). */
  get limits(): SandboxLimits {
    return this.#limits
  }

  /** When the word guard runs (see {@link SandboxOptions.networkGuard}). */
  get networkGuard(): 'auto' | 'always' {
    return this.#networkGuard
  }

  /**
   * Which isolation `bash` commands really get on this machine: each flag
   * is `true` only where the kernel enforces it.
   *
   * @remarks
   * Probed once per process (10–20 ms, the first time it is read).
   * `filesystem` is `true` only in the OS sandbox (bubblewrap usable here,
   * and not switched off); when it was asked for and cannot be had, every
   * flag is `false` and `bash` refuses with `TOOL_SANDBOX_UNAVAILABLE`.
   * `network` is `false` when `allowNetwork` is `true` (nothing to isolate),
   * when the option turned it off, or when the kernel refuses a network
   * namespace; `pid` likewise. When the kernel is the reason, one process
   * warning (`TOOLSMITH_NETWORK_NOT_ISOLATED` / `TOOLSMITH_PID_NOT_ISOLATED`)
   * says so; a layer switched off on purpose warns nothing.
   */
  get isolation(): SandboxIsolation {
    return this.engine.isolation
  }

  /**
   * Everything `toolsmith doctor` prints: the engine, each layer, whether
   * the word guard runs, why the OS sandbox is unavailable (if it is), the
   * path policy, and the resource limits with what enforces each (reading
   * it the first time also finds the cgroups the kit can use).
   */
  get enforcement(): SandboxEnforcement {
    const engine = this.engine
    return Object.freeze({
      engine: engine.name,
      ...engine.isolation,
      networkGuard: this.guardsCommands,
      unavailableReason: engine.unavailableReason,
      writablePaths: this.#writablePaths,
      readOnlyPaths: this.#readOnlyPaths,
      unreadablePaths: this.#unreadablePaths,
      readableHost: this.#readableHost,
      readablePaths: this.#readablePaths,
      allowedDomains: this.#allowlist?.domains,
      seccomp: engine.seccomp,
      limits: limitsEnforcement(this.#limits, engine.name === 'bubblewrap'),
    })
  }

  /**
   * Whether `bash` runs the word guard before each command.
   *
   * @internal
   */
  get guardsCommands(): boolean {
    if (this.#allowNetwork !== false) return false
    return this.#networkGuard === 'always' || !this.engine.isolation.network
  }

  /**
   * The compiled `readOnlyPaths` (what `write` and `edit` refuse).
   *
   * @internal
   */
  get protectedPaths(): ProtectedPaths {
    this.#protectedPaths ??= new ProtectedPaths(this.#readOnlyPaths)
    return this.#protectedPaths
  }

  /**
   * The walk that finds the protected paths present in the root, for `bash`
   * (its folder listings are cached between commands).
   *
   * @internal
   */
  get protectedScanner(): ProtectedScanner {
    this.#protectedScanner ??= new ProtectedScanner(this.protectedPaths)
    return this.#protectedScanner
  }

  /**
   * The engine that confines `bash` commands (chosen on first use).
   *
   * @internal
   */
  get engine(): SandboxEngine {
    this.#engine ??= selectEngine({
      allowNetwork: this.#allowNetwork === true,
      allowlist: this.#allowlist !== undefined,
      wanted: this.#wantedIsolation,
      writable: this.#writablePaths,
      readOnly: this.#readOnlyPaths,
      unreadable: this.#unreadablePaths,
      readableHost: this.#readableHost,
      readable: this.#readablePaths,
      explicitEnv: this.#env,
      tmpBytes: this.#limits.tmpBytes === false ? undefined : this.#limits.tmpBytes,
    })
    return this.#engine
  }

  /**
   * The check that keeps `read`, `grep`, `edit` and `write` out of the
   * unreadable paths inside the root.
   *
   * @internal
   */
  get credentials(): CredentialGuard {
    return this.#credentials
  }

  /**
   * The real path of the root (resolved once, then cached).
   *
   * @returns The absolute real path.
   * @throws `TOOL_NOT_A_DIRECTORY` when the root does not exist or is not a directory.
   */
  async realRoot(): Promise<string> {
    this.#realRoot ??= resolveRealRoot(this.rootDir)
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
   * @throws `TOOL_PATH_INVALID`, `TOOL_PATH_ESCAPE`, `TOOL_NOT_A_DIRECTORY`
   *   (for a missing root).
   */
  async resolve(input: string): Promise<string> {
    return (await resolveInRoot(this, input)).absolute
  }
}
