/**
 * The credentials of the user running the kit: the default list of
 * unreadable paths, and the check that keeps `read`, `grep`, `edit` and
 * `write` out of them when the root contains one (a root at the home
 * directory, or at a folder around it). `bash` gets the same list as mounts
 * (see `bubblewrap.ts`).
 *
 * @module
 */
import { lstatSync, realpathSync } from 'node:fs'
import path from 'node:path'
import { E_TOOL_PATH_PROTECTED } from '../../exceptions.js'
import { isInside, type ResolvedPath } from './paths.js'

/**
 * The credentials of the user running the kit, which a sandboxed command
 * reads as missing or empty, and which the file tools refuse when the root
 * contains them: the default of `SandboxOptions.unreadablePaths`. `~/` is
 * the home directory of the process (`os.homedir()`, which honours `$HOME`)
 * when the sandbox is constructed.
 *
 * @remarks
 * A folder is listed whole only where nothing but secrets and the tool's own
 * settings live in it; where a folder also holds what builds or runs need
 * (`~/.cargo` holds the toolchain, `~/.gradle` the caches, `~/.fly` the
 * `flyctl` binary), only the credential file is listed. docs/tools.md groups
 * the entries by tool family.
 */
export const DEFAULT_UNREADABLE_PATHS: readonly string[] = Object.freeze([
  // Keys, agents and remote shells.
  '~/.ssh',
  '~/.gnupg',
  '~/.netrc', // curl, git over HTTPS, heroku, ftp
  // Cloud providers and infrastructure.
  '~/.aws',
  '~/.config/gcloud',
  '~/.azure',
  '~/.oci',
  '~/.config/doctl',
  '~/.aliyun',
  '~/.s3cfg', // s3cmd
  '~/.boto', // gsutil, boto
  '~/.passwd-s3fs',
  '~/.config/rclone',
  '~/.kube',
  '~/.minikube', // client keys of the local cluster
  '~/.config/helm/registry/config.json',
  '~/.config/helm/repositories.yaml', // repository passwords
  '~/.terraform.d/credentials.tfrc.json',
  '~/.terraformrc',
  '~/.pulumi/credentials.json',
  '~/.vault-token',
  // Containers.
  '~/.docker/config.json',
  '~/.config/containers/auth.json', // podman, buildah, skopeo (the $XDG_RUNTIME_DIR copy is under the private /run)
  // Git hosting.
  '~/.git-credentials',
  '~/.config/git/credentials', // git's credential-store, XDG location
  '~/.config/gh',
  '~/.config/hub',
  '~/.config/glab-cli',
  '~/.config/tea',
  // Package registries.
  '~/.npmrc',
  '~/.yarnrc',
  '~/.yarnrc.yml',
  '~/.bunfig.toml',
  '~/.pypirc',
  '~/.config/pip/pip.conf',
  '~/.pip/pip.conf',
  '~/.config/pypoetry/auth.toml',
  '~/.local/share/uv/credentials',
  '~/.gem/credentials',
  '~/.bundle/config',
  '~/.cargo/credentials',
  '~/.cargo/credentials.toml',
  '~/.composer/auth.json',
  '~/.config/composer/auth.json',
  '~/.nuget/NuGet/NuGet.Config',
  '~/.m2/settings.xml',
  '~/.m2/settings-security.xml',
  '~/.gradle/gradle.properties',
  '~/.sbt/.credentials',
  '~/.ivy2/.credentials',
  '~/.hex/hex.config',
  '~/.config/dart/pub-credentials.json',
  '~/.pub-cache/credentials.json',
  // Hosting and deployment.
  '~/.fly/config.yml',
  '~/.vercel',
  '~/.local/share/com.vercel.cli',
  '~/.netlify/config.json',
  '~/.config/netlify',
  '~/.supabase/access-token',
  '~/.config/configstore/firebase-tools.json',
  '~/.railway/config.json',
  '~/.wrangler/config',
  '~/.config/.wrangler/config',
  '~/.config/stripe',
  '~/.sentryclirc',
  '~/.config/ngrok',
  '~/.ngrok2',
  '~/.kaggle/kaggle.json',
  '~/.config/kaggle',
  '~/.cache/huggingface/token',
  '~/.huggingface/token',
  // Databases and mail.
  '~/.pgpass',
  '~/.my.cnf',
  '~/.mylogin.cnf',
  '~/.msmtprc',
  '~/.fetchmailrc',
  // Password managers and keyrings.
  '~/.password-store',
  '~/.local/share/keyrings',
  '~/.local/share/kwalletd',
  '~/.config/op', // 1Password CLI
  '~/.op',
  '~/.config/Bitwarden CLI',
  // Coding agents and model providers (their settings go with their tokens).
  '~/.claude',
  '~/.claude.json',
  '~/.codex',
  '~/.gemini',
  '~/.config/anthropic',
  '~/.config/github-copilot',
  '~/.continue',
  // Browser profiles and mail clients (saved passwords, cookies, sessions).
  '~/.mozilla',
  '~/.thunderbird',
  '~/.config/google-chrome',
  '~/.config/chromium',
  '~/.config/BraveSoftware',
  '~/.config/microsoft-edge',
  '~/.config/vivaldi',
  // Histories: commands and queries typed with secrets in them.
  '~/.bash_history',
  '~/.zsh_history',
  '~/.zhistory',
  '~/.histfile',
  '~/.local/share/fish/fish_history',
  '~/.python_history',
  '~/.node_repl_history',
  '~/.psql_history',
  '~/.mysql_history',
  '~/.sqlite_history',
  '~/.rediscli_history',
  '~/.lesshst',
  '~/.viminfo',
  // The host's own secrets, readable when the kit runs as root (CI, containers).
  '/etc/shadow',
  '/etc/shadow-',
  '/etc/gshadow',
  '/etc/gshadow-',
  '/etc/ssh/ssh_host_rsa_key',
  '/etc/ssh/ssh_host_ecdsa_key',
  '/etc/ssh/ssh_host_ed25519_key',
  '/etc/ssh/ssh_host_dsa_key',
  '/etc/ssl/private',
  '/etc/krb5.keytab',
  '/etc/NetworkManager/system-connections',
  '/etc/wireguard',
])

/**
 * How long the real locations of the masked paths are reused, in
 * milliseconds. Resolving about 120 paths takes a few hundred microseconds
 * (most of a small `read`), so it is done at most this often per sandbox.
 * What the cache can miss: a masked path (or a folder above it) turned
 * into a symlink within the last second, by the host or by a command
 * (inside the sandbox such folders are pinned and cannot be renamed).
 */
const REFRESH_MS = 1000

/** Characters with a meaning in a gitignore glob. */
const GLOB_SPECIAL = /[\\*?[\]{}!#]/g

/**
 * The file tools' side of the unreadable paths: which of them lie inside a
 * root, by real path, and the refusal.
 *
 * @internal
 */
export class CredentialGuard {
  /** The absolute paths as configured (`~` expanded). */
  readonly #paths: readonly string[]
  #cache: { root: string; at: number; masked: readonly string[] } | undefined

  /**
   * @param paths - Absolute unreadable paths (`~` already expanded).
   */
  constructor(paths: readonly string[]) {
    this.#paths = paths
  }

  /**
   * The real locations of the unreadable paths that lie inside `root`
   * (strictly: one that is the root, or contains it, is not masked — the
   * root wins, as in `bash`). A missing path counts at the real location
   * of its deepest existing folder plus the rest, so creating it is refused
   * too.
   *
   * @param root - The real root.
   * @returns Absolute real paths, each below `root`.
   */
  maskedIn(root: string): readonly string[] {
    const now = Date.now()
    const cached = this.#cache
    if (cached !== undefined && cached.root === root && now - cached.at < REFRESH_MS && now >= cached.at) return cached.masked
    const memo = new Map<string, string>()
    const masked = [...new Set(this.#paths.map((configured) => realLocation(configured, memo)))].filter(
      (real) => real !== root && isInside(root, real),
    )
    this.#cache = { root, at: now, masked }
    return masked
  }

  /**
   * Refuse a path that is, or lies below, an unreadable path.
   *
   * @param resolved - The path as the tool resolved it (real, inside the root).
   * @param tool - The tool's name, for the message.
   * @throws {@link toolsmith/core!E_TOOL_PATH_PROTECTED} with `details.reason: 'credentials'`.
   */
  assertAllowed(resolved: ResolvedPath, tool: 'read' | 'grep' | 'edit' | 'write'): void {
    const masked = this.maskedIn(resolved.root)
    if (masked.length === 0) return
    const hit = masked.find((real) => isInside(real, resolved.absolute))
    if (hit === undefined) return
    throw new E_TOOL_PATH_PROTECTED(
      `${JSON.stringify(resolved.input)} is credentials (it is ${hit === resolved.absolute ? '' : 'inside '}` +
        `${JSON.stringify(path.relative(resolved.root, hit))}, one of the sandbox's unreadable paths): ${tool} refuses it, ` +
        'and bash commands see it empty. Do not try another route to it; if the task needs it, ask the user to provide what is needed.',
      { details: { path: resolved.input, reason: 'credentials' } },
    )
  }

  /**
   * The ignore rules (gitignore syntax, anchored at the root) that keep a
   * search of the directory `resolved` out of the unreadable paths below
   * it; to be placed after every other rule, so that no `!` line of an
   * ignore file in the root can bring one back.
   *
   * @param resolved - The searched directory (real, inside the root).
   * @returns One line per unreadable path below it, each ending in a line feed; `''` when there is none.
   * @throws {@link toolsmith/core!E_TOOL_PATH_PROTECTED} when such a path has a name a rule cannot
   *   express (a line break, a trailing space, bytes that are not UTF-8).
   */
  ignoreRules(resolved: ResolvedPath): string {
    const masked = this.maskedIn(resolved.root)
    let rules = ''
    for (const real of masked) {
      if (real === resolved.absolute || !isInside(resolved.absolute, real)) continue
      const relative = path.relative(resolved.root, real)
      if (/[\n\r\uFFFD]|\s$/u.test(relative)) {
        throw new E_TOOL_PATH_PROTECTED(
          `${JSON.stringify(resolved.input)} contains credentials whose name grep cannot leave out of a search; ` +
            'search a folder that does not contain them, or name the files to search',
          { details: { path: resolved.input, reason: 'credentials' } },
        )
      }
      rules += `/${relative.replace(GLOB_SPECIAL, (c) => `\\${c}`)}\n`
    }
    return rules
  }
}

/**
 * The real location of `target`: its real path when it exists, else the
 * real location of its parent plus its name. Anything that cannot be
 * resolved (a loop, no permission) counts where it says it is.
 */
function realLocation(target: string, memo: Map<string, string>): string {
  const known = memo.get(target)
  if (known !== undefined) return known
  let real: string
  let exists = false
  try {
    exists = lstatSync(target, { throwIfNoEntry: false }) !== undefined
  } catch {
    // ENOTDIR, EACCES…: treated as missing.
  }
  if (exists) {
    try {
      real = realpathSync.native(target)
    } catch {
      real = target
    }
  } else {
    const parent = path.dirname(target)
    real = parent === target ? target : path.join(realLocation(parent, memo), path.basename(target))
  }
  memo.set(target, real)
  return real
}
