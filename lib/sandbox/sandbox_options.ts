/**
 * The options of a `Sandbox`: what each means, its default, and the
 * schema that checks them.
 *
 * @module
 */
import path from 'node:path'
import { forbiddenOption, validator, type ObjectSchema } from '../validation.js'
import { lazyObject } from '../utils/lazy_object.js'
import { isNeverWritable } from './os/bubblewrap.js'
import { DEFAULT_UNREADABLE_PATHS } from './files/credential_paths.js'
import type { SandboxEngineName, SandboxIsolation } from './os/engine.js'
import { isForbiddenEnvName } from './process/environment.js'
import { DEFAULT_LIMITS, limitsSchema, type SandboxLimitsEnforcement, type SandboxLimitsOptions } from './os/limits.js'
import { isValidAllowlistEntry } from './network/network_allowlist.js'
import { isValidProtectedEntry } from './files/protected_paths.js'
import type { SyscallFilterStatus } from './os/seccomp.js'

/** The longest `timeoutMs` accepted: one hour. */
export const MAX_TIMEOUT_MS = 3_600_000

/**
 * The largest `maxOutputBytes` accepted: 10 MiB (as smithers). `bash` may
 * hold up to twice the cap while it reads (head and tail), and a result this
 * size is already far more than a model's context.
 */
export const MAX_OUTPUT_BYTES_LIMIT = 10 * 1024 * 1024

/**
 * What no tool may create or change inside the root: the default of
 * {@link SandboxOptions.readOnlyPaths}. Each names something that runs code
 * on the host later, outside the sandbox, when the user does something they
 * do not take for running the project's code:
 *
 * - `**\/.git` — every repository at any depth (nested ones, submodules,
 *   worktrees, a `.git` file's `gitdir:` and `commondir` targets, and any
 *   folder shaped like a git directory, bare ones included): hooks,
 *   aliases, `core.fsmonitor`, `core.pager`… run on the next `git status`.
 *   The whole folder, not only `hooks` and `config`: a `commondir` pointing
 *   at a planted copy, or a renamed-and-copied `.git`, would get around that.
 * - `**\/.gitmodules`, `**\/.gitconfig`, `.config/git` — what git fetches
 *   and the global configuration (when the root is the home directory).
 * - Shell startup and logout files (`.bashrc`, `.bash_profile`,
 *   `.bash_login`, `.bash_logout`, `.profile`, `.zshrc`, `.zprofile`,
 *   `.zshenv`, `.zlogin`, `.zlogout`, `.config/fish`).
 * - `.config/autostart`, `.config/systemd`, `.local/bin` — what the
 *   desktop and systemd start, and what a login shell finds first on
 *   `PATH` (when the root is the home directory).
 * - `**\/.envrc` (direnv), `**\/.vscode`, `**\/.idea` (editor tasks and
 *   tools), `**\/.mcp.json`, `**\/.claude`, `**\/.cursor`, `**\/.gemini`,
 *   `**\/.codex` (the hooks and MCP servers coding agents start),
 *   `**\/.ripgreprc`.
 *
 * `write` and `edit` refuse these (`TOOL_PATH_PROTECTED`); `bash` commands
 * can read but not change the ones that exist, and a command that creates
 * one is reported. See docs/tools.md for what this costs (commands cannot
 * commit) and what it does not cover.
 */
export const DEFAULT_READ_ONLY_PATHS: readonly string[] = Object.freeze([
  '**/.git',
  '**/.gitmodules',
  '**/.gitconfig',
  '.config/git',
  '**/.bashrc',
  '**/.bash_profile',
  '**/.bash_login',
  '**/.bash_logout',
  '**/.profile',
  '**/.zshrc',
  '**/.zprofile',
  '**/.zshenv',
  '**/.zlogin',
  '**/.zlogout',
  '.config/fish',
  '.config/autostart',
  '.config/systemd',
  '.local/bin',
  '**/.envrc',
  '**/.vscode',
  '**/.idea',
  '**/.mcp.json',
  '**/.claude',
  '**/.cursor',
  '**/.gemini',
  '**/.codex',
  '**/.ripgreprc',
])

/** The domain allowlist form of {@link SandboxOptions.allowNetwork}. */
export interface NetworkAllowlistOptions {
  /** Exact hosts, `*.` wildcards, or `*`; compared case-insensitively. */
  domains: string[]
}

/** Options of `new Sandbox(options)` and `createTools(options)`. */
export interface SandboxOptions {
  /**
   * The directory the tools work in. `read`, `write`, `edit` and `grep`
   * never touch a path outside it; `bash` commands, in the OS sandbox, may
   * write only inside it (plus `writablePaths` and a private `/tmp`) and
   * read the rest of the host read-only. It may itself be reached through a
   * symlink: its real path becomes the boundary. A given root must exist
   * when the sandbox is created (else `E_TOOL_NOT_A_DIRECTORY`); if it is
   * removed later, every call fails with `TOOL_NOT_A_DIRECTORY` until it is
   * back.
   *
   * @defaultValue `process.cwd()` when the sandbox is first used
   */
  rootDir?: string
  /**
   * Cap, in UTF-8 bytes, on what a tool returns (`read`, `grep`, `bash`),
   * on the file `read` accepts, and on `write` content and `edit` patches.
   * At least 64, at most {@link MAX_OUTPUT_BYTES_LIMIT} (10 MiB).
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
   * What network `bash` commands reach.
   *
   * - `false`: none — an empty network namespace (only the command's own
   *   loopback).
   * - `true`: the host's whole network (no namespace, no command guard).
   * - `{ domains }`: only the listed hosts, through a proxy the kit runs
   *   (HTTP `CONNECT` and plain HTTP). Entries are exact hosts
   *   (`registry.npmjs.org`, `127.0.0.1`), wildcards (`*.github.com`, which
   *   never matches the bare `github.com`) or `*` (any host). A host that
   *   resolves to a loopback, private, link-local or metadata address is
   *   refused unless listed exactly. Every decision is a `networkRequest`
   *   event; a refused request answers 403 naming the host. Needs the OS
   *   sandbox (bubblewrap with a network namespace); elsewhere `bash`
   *   refuses with `TOOL_SANDBOX_UNAVAILABLE`. Call {@link Sandbox.close} when
   *   done.
   *
   * @defaultValue false
   */
  allowNetwork?: boolean | NetworkAllowlistOptions
  /**
   * When the word guard (`assertOfflineCommand`: refusing `curl`, `npm`,
   * `git push`, URLs in arguments…) runs before a `bash` command, with
   * `allowNetwork: false`. `'auto'`: only where no network namespace cuts
   * the network (then it is the only layer, and a heuristic). `'always'`:
   * also inside a network namespace, as smithers-orchestrator does.
   *
   * @defaultValue 'auto'
   */
  networkGuard?: 'auto' | 'always'
  /**
   * Extra host folders (absolute) that `bash` commands may write, besides
   * the root and the private `/tmp`. Each is resolved once, on first use,
   * and bound only while it still resolves there (a command cannot swap it
   * for a symlink). Refused: `/`, `/proc`, `/dev`, `/sys`, `/tmp`, `/run`
   * and anything below them, the root or a folder inside it, and a folder
   * that contains the root. Folders that do not exist on first use are
   * skipped.
   *
   * @defaultValue []
   */
  writablePaths?: string[]
  /**
   * Host paths (absolute, or `~/…` for the home directory of the process)
   * that `bash` commands read as missing or empty: a directory shows up
   * empty, a file as empty (never an error of the kit). When the root
   * contains one (a root at the home directory, say), `read`, `edit` and
   * `write` refuse it and what is below it with `TOOL_PATH_PROTECTED`
   * (`details.reason: 'credentials'`), judged by real path, and `grep`
   * leaves it out of a search (or refuses it when named). Replaces the
   * default; spread {@link DEFAULT_UNREADABLE_PATHS} to extend it. A path
   * that is the root or contains it is not masked.
   *
   * @defaultValue {@link DEFAULT_UNREADABLE_PATHS} (`~/.ssh`, `~/.aws`, … )
   */
  unreadablePaths?: string[]
  /**
   * What of the host `bash` commands see besides the root, the writable
   * paths, `/dev`, `/proc` and the private `/tmp` and `/run`. `'all'`: the
   * whole host file system, read-only (minus `unreadablePaths`).
   * `'system'` (the strict profile): only the system folders
   * ({@link SYSTEM_READABLE_PATHS}: `/usr`, `/bin`, `/lib*`, `/etc`,
   * `/opt`…) and `readablePaths`; the home directory, other users' homes,
   * `/root`, `/var`, `/srv` and `/mnt` are not there at all. A program
   * installed under the home directory (`~/.nvm`, `~/.cargo/bin`,
   * `~/.local/bin`, pyenv) then cannot start unless its folder is named in
   * `readablePaths`: `bash` refuses it with `TOOL_COMMAND_NOT_FOUND`.
   * Needs the OS sandbox; ignored without it.
   *
   * @defaultValue 'all'
   */
  readableHost?: 'all' | 'system'
  /**
   * Extra host paths (absolute, or `~/…`) that `bash` commands may read
   * with `readableHost: 'system'` (a toolchain under the home directory,
   * a shared data folder). Each is bound read-only at its real path while
   * it exists; `unreadablePaths` inside one stay masked.
   *
   * @defaultValue []
   */
  readablePaths?: string[]
  /**
   * What no tool may create or change inside the root: paths relative to
   * it, each a file or a folder with all it contains. An entry is a plain
   * path (`.git`, `tools/.envrc`: only there) or a pattern: `**` stands for
   * any number of folders (`**\/.git`: every `.git` at any depth), `*` and
   * `?` for characters within one name. Names are compared
   * case-insensitively. `write` and `edit` refuse a path that is, or lies
   * in, a match (`TOOL_PATH_PROTECTED`), judged by its real path; `bash`
   * binds every match present read-only (found by a bounded walk of the
   * root before each command) and reports the ones a command created. An
   * entry ending in `.git` protects the `gitdir:` folder of a `.git` file
   * and a repository's `commondir` too, and `**\/.git` every folder shaped
   * like a git directory. Replaces the default; spread
   * {@link DEFAULT_READ_ONLY_PATHS} to extend it, and pass `[]` for none.
   *
   * @defaultValue {@link DEFAULT_READ_ONLY_PATHS} (`**\/.git`, shell startup files, `.vscode`, … )
   */
  readOnlyPaths?: string[]
  /**
   * Extra environment variables for `bash` and `grep`, on top of the
   * allow-listed host ones (`PATH`, `HOME`, `LANG`, `LC_*`, `TERM`, `TMPDIR`,
   * `USER`, `SHELL`, `TZ`…). `LD_*`, `DYLD_*`, `NODE_OPTIONS`, `BASH_ENV`,
   * `ENV` and `*_PROXY` are refused.
   */
  env?: Record<string, string>
  /**
   * Turn isolation layers for `bash` OFF (it can never turn one on that the
   * kernel does not give). `filesystem: false` is the explicit opt-out of
   * the OS sandbox: commands then run with only network and PID namespaces
   * (util-linux `unshare`) and can read and write whatever the host user
   * can. `network: false` skips the network namespace even when
   * `allowNetwork` is `false`: the word guard then refuses network commands,
   * but an interpreter (`node -e`, `python3 -c`) could reach the network.
   * `pid: false` (only with `filesystem: false`; the OS sandbox always has
   * its own PID namespace) skips the PID namespace: timeouts and aborts
   * still SIGKILL the command's process group and what a `/proc` scan finds,
   * but a double-forked `setsid` process can outlive the call (see
   * docs/tools.md). {@link Sandbox.isolation} reports what is enforced.
   *
   * @defaultValue `{ filesystem: true, network: true, pid: true }`
   */
  isolation?: SandboxIsolationOptions
  /**
   * Resource limits of each `bash` command in the OS sandbox: processes at
   * once, memory, the size of the private `/tmp` (and `/run`), the largest
   * file. Each key is optional (its default applies); `false` switches one
   * off. A cgroup per command bounds processes and memory where the kit can
   * make one (root, or a delegated hierarchy), rlimits elsewhere;
   * {@link Sandbox.enforcement} says which. A command that hits a limit
   * fails with `TOOL_LIMIT_EXCEEDED` (`details.limit`: `processes`,
   * `memory`, `tmp` or `fileSize`). See docs/tools.md.
   *
   * @defaultValue {@link DEFAULT_LIMITS} (1024 processes, 4 GiB memory, 1 GiB `/tmp`, 4 GiB files)
   */
  limits?: SandboxLimitsOptions
}

/** Which isolation layers {@link SandboxOptions.isolation} leaves on (`false` turns one off). */
export interface SandboxIsolationOptions {
  /**
   * `false`: no OS sandbox (bubblewrap); the program can read and write
   * anything the host user can. Without it, on a machine with no usable
   * bubblewrap, `bash` refuses with `TOOL_SANDBOX_UNAVAILABLE`.
   *
   * @defaultValue true
   */
  filesystem?: boolean
  /**
   * `false`: no network namespace, even with `allowNetwork: false` (the word guard then applies).
   *
   * @defaultValue true
   */
  network?: boolean
  /**
   * `false`: no PID namespace, with `filesystem: false` only (an unseen
   * `setsid` escapee can outlive a kill). The OS sandbox ignores it.
   *
   * @defaultValue true
   */
  pid?: boolean
}

/** What {@link Sandbox.enforcement} reports: the engine, the layers and the policy in force. */
export interface SandboxEnforcement extends SandboxIsolation {
  /** How commands are confined: `bubblewrap`, `unshare`, `direct` (no namespace), or `unavailable` (bash refuses). */
  readonly engine: SandboxEngineName
  /** Whether the word guard runs before each command (`allowNetwork: false` and `networkGuard` or no network namespace). */
  readonly networkGuard: boolean
  /** Why the OS sandbox cannot run here (engine `unavailable`). */
  readonly unavailableReason: string | undefined
  /** Extra writable paths (absolute). */
  readonly writablePaths: readonly string[]
  /** Protected paths and patterns inside the root (relative), as configured. */
  readonly readOnlyPaths: readonly string[]
  /** Masked paths (absolute). */
  readonly unreadablePaths: readonly string[]
  /** `'all'`: the host is visible read-only; `'system'`: only the system folders and `readablePaths` (see {@link SandboxOptions.readableHost}). */
  readonly readableHost: 'all' | 'system'
  /** Extra host paths visible with `readableHost: 'system'` (absolute). */
  readonly readablePaths: readonly string[]
  /** The allowlist with `allowNetwork: { domains }` (reached through the kit's proxy), else `undefined`. */
  readonly allowedDomains: readonly string[] | undefined
  /** The seccomp filter: on (and for which ABI) or why not. */
  readonly seccomp: SyscallFilterStatus
  /** Each resource limit: its value and what enforces it here (cgroup v1/v2, rlimit, tmpfs, none, off). */
  readonly limits: SandboxLimitsEnforcement
}

/** A list of paths, each checked by `accept`; `rule` ends the message of a refused one. */
function pathList(accept: (value: string) => boolean, rule: string) {
  return validator.array().items(
    validator
      .string()
      .min(1)
      .pattern(/^[^\0]*$/, 'no NUL bytes')
      .custom((value: string, helpers) => (accept(value) ? value : helpers.error('any.invalid')))
      .rule({ message: { 'any.invalid': `{#label} ${rule}` } }),
  )
}

/**
 * What joi makes of options that need only its defaults filled in, built
 * without joi; `undefined` for any other options (joi checks those, and
 * words the refusals). Those options are: none, a root (a non-empty string
 * without NUL) and `allowNetwork` as a boolean or an empty allowlist —
 * the ready tools' sandbox (built at `import 'toolsmith'`) and `toolsmith
 * mcp --root DIR` (where loading joi was a fifth of the start-up).
 * spec/core/lazy_joi.spec.ts compares each case with the schema's result.
 *
 * @param options - The options given to `new Sandbox()`.
 * @returns The options with every default applied (new arrays and objects), or `undefined`.
 * @internal
 */
export function sandboxOptionsWithoutJoi(options: SandboxOptions | undefined): Record<string, unknown> | undefined {
  if (options === undefined) return defaultSandboxOptions()
  if (options === null || Object.getPrototypeOf(options) !== Object.prototype) return undefined
  const valid = defaultSandboxOptions()
  for (const key of Reflect.ownKeys(options)) {
    const value = (options as Record<PropertyKey, unknown>)[key]
    if (key === 'rootDir' && typeof value === 'string' && value.length > 0 && !value.includes('\0')) valid.rootDir = value
    else if (key === 'allowNetwork' && typeof value === 'boolean') valid.allowNetwork = value
    else if (key === 'allowNetwork' && isEmptyAllowlist(value)) valid.allowNetwork = { domains: [] }
    else return undefined
  }
  return valid
}

function isEmptyAllowlist(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return false
  const keys = Reflect.ownKeys(value)
  const domains = (value as { domains?: unknown }).domains
  return keys.length === 1 && keys[0] === 'domains' && Array.isArray(domains) && domains.length === 0
}

function defaultSandboxOptions(): Record<string, unknown> {
  return {
    maxOutputBytes: DEFAULT_MAX_OUTPUT_BYTES,
    timeoutMs: DEFAULT_TIMEOUT_MS,
    allowNetwork: false,
    networkGuard: 'auto',
    writablePaths: [],
    unreadablePaths: [...DEFAULT_UNREADABLE_PATHS],
    readableHost: 'all',
    readablePaths: [],
    readOnlyPaths: [...DEFAULT_READ_ONLY_PATHS],
    env: {},
    isolation: { filesystem: true, network: true, pid: true },
    limits: { ...DEFAULT_LIMITS },
  }
}

const DEFAULT_MAX_OUTPUT_BYTES = 200_000
const DEFAULT_TIMEOUT_MS = 60_000

/**
 * The joi schema of {@link SandboxOptions} (`Sandbox.schema`).
 *
 * @internal
 */
export const sandboxOptionsSchema: ObjectSchema<SandboxOptions & { spoolStore?: never }> = lazyObject(() => validator
  .object<SandboxOptions & { spoolStore?: never }>({
    rootDir: validator.string().min(1).pattern(/^[^\0]*$/, 'no NUL bytes'),
    maxOutputBytes: validator.number().integer().min(64).max(MAX_OUTPUT_BYTES_LIMIT).default(DEFAULT_MAX_OUTPUT_BYTES),
    timeoutMs: validator.number().integer().min(1).max(MAX_TIMEOUT_MS).default(DEFAULT_TIMEOUT_MS),
    allowNetwork: validator
      .alternatives()
      .try(
        validator.boolean(),
        validator
          .object({
            domains: validator
              .array()
              .items(
                validator
                  .string()
                  .custom((value: string, helpers) => (isValidAllowlistEntry(value) ? value : helpers.error('any.invalid')))
                  .rule({ message: { 'any.invalid': '{#label} must be a host name, an IP address, "*.example.com" or "*"' } }),
              )
              .required(),
          })
          .unknown(false),
      )
      .default(false),
    networkGuard: validator.string().valid('auto', 'always').default('auto'),
    writablePaths: pathList(
      (p) => path.isAbsolute(p) && !isNeverWritable(path.resolve(p)),
      'must be an absolute path, and not /, /proc, /dev, /sys, /tmp, /run or below them',
    ).default([]),
    unreadablePaths: pathList(
      (p) => path.isAbsolute(p) || p === '~' || p.startsWith('~/'),
      'must be an absolute path or start with ~/',
    ).default(() => [...DEFAULT_UNREADABLE_PATHS]),
    readableHost: validator.string().valid('all', 'system').default('all'),
    readablePaths: pathList(
      (p) => path.isAbsolute(p) || p === '~' || p.startsWith('~/'),
      'must be an absolute path or start with ~/',
    ).default([]),
    readOnlyPaths: pathList(
      (p) => !path.isAbsolute(p) && isValidProtectedEntry(p),
      'must be a path or pattern inside the root, relative to it, without .., naming more than the root itself',
    ).default(() => [...DEFAULT_READ_ONLY_PATHS]),
    env: validator
      .object()
      .pattern(
        validator
          .string()
          .pattern(/^[A-Za-z_][A-Za-z0-9_]*$/)
          .custom((name: string, helpers) => (isForbiddenEnvName(name) ? helpers.error('any.invalid') : name))
          .rule({ message: { 'any.invalid': '{#label} may not be set in a sandbox (loader, runtime or proxy variable)' } }),
        validator.string().pattern(/^[^\0]*$/, 'no NUL bytes'),
      )
      .default({}),
    // Removed: it was stored and never read. Refused by name so a
    // caller who relied on it learns where spooling is configured.
    spoolStore: forbiddenOption('{#label} is not a Sandbox option (it never had an effect): pass spoolStore to TurnRunner'),
    isolation: validator
      .object({
        filesystem: validator.boolean().default(true),
        network: validator.boolean().default(true),
        pid: validator.boolean().default(true),
      })
      .unknown(false)
      .default({ filesystem: true, network: true, pid: true }),
    limits: limitsSchema(),
  })
  .unknown(false))
