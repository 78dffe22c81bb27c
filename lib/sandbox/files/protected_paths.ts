/**
 * Protected paths: the files and folders inside the root that run code on
 * the host later (a repository's `.git`, shell startup files, editor and
 * agent settings…), as the sandbox's `readOnlyPaths` names them. One matcher
 * serves every tool: `write` and `edit` refuse to create or change a match
 * ({@link assertNotProtected}), and `bash` binds every existing match
 * read-only and reports the ones a command created (`protected_scan.ts`).
 *
 * @module
 */
import { lstatSync } from 'node:fs'
import path from 'node:path'
import { E_TOOL_PATH_PROTECTED } from '../../exceptions.js'
import type { ResolvedPath } from './paths.js'

/**
 * Code points a case-insensitive file system may ignore or fold in a name
 * (HFS+ drops zero-width joiners and direction marks: `.g\u200Cit` is
 * `.git` there): removed before names are compared, as git itself does.
 */
const IGNORABLE = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u206A-\u206F\uFEFF]/g

/**
 * A name as the matcher compares it: lower case, ignorable code points
 * removed. Matching is case-insensitive everywhere: on macOS and Windows
 * (and on a case-folding Linux mount) `.GIT/config` is `.git/config`, and
 * on a case-sensitive Linux file system refusing a file called `.GIT` too
 * costs nothing.
 *
 * @param name - One path component, or a whole relative path.
 * @returns The folded form.
 * @internal
 */
export function foldName(name: string): string {
  return name.toLowerCase().replace(IGNORABLE, '')
}

/** One `readOnlyPaths` entry, compiled. */
interface Rule {
  /** The entry as configured. */
  readonly entry: string
  /** Matches a whole folded relative path (`a/b/c`, no leading slash). */
  readonly pattern: RegExp
  /** The folded last segment when it has no wildcard (the fast index of the walk). */
  readonly literalName: string | undefined
}

/** What a path matched: the rule, and which part of the path it protects. */
export interface ProtectedMatch {
  /** The `readOnlyPaths` entry that matched (e.g. `**\/.git`), as configured. */
  readonly rule: string
  /** The protected file or folder, relative to the root (a prefix of the path checked, or the path itself). */
  readonly path: string
}

/**
 * Split an entry into its segments: separators collapsed, `.` segments and
 * a trailing `/**` dropped (an entry protects what it names and everything
 * below it anyway).
 *
 * @param entry - A `readOnlyPaths` entry.
 * @returns Its segments; empty when the entry names the root itself.
 * @internal
 */
export function entrySegments(entry: string): string[] {
  const segments = entry.split('/').filter((segment) => segment !== '' && segment !== '.')
  while (segments.length > 0 && segments[segments.length - 1] === '**') segments.pop()
  return segments
}

/**
 * Whether `entry` is acceptable in `readOnlyPaths`: relative, without `..`,
 * and naming something below the root (not the root, and not `**` alone).
 *
 * @param entry - A configured entry.
 * @returns Whether it is valid.
 * @internal
 */
export function isValidProtectedEntry(entry: string): boolean {
  if (entry.startsWith('/')) return false
  const segments = entry.split('/')
  if (segments.includes('..')) return false
  return entrySegments(entry).some((segment) => segment !== '**')
}

function segmentSource(segment: string): string {
  let source = ''
  for (const char of foldName(segment)) {
    if (char === '*') source += '[^/]*'
    else if (char === '?') source += '[^/]'
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  return source
}

function compileRule(entry: string): Rule {
  const segments = entrySegments(entry)
  // Over "/a/b/c": a segment is "/name", `**` any number of "/name".
  const source = segments.map((segment) => (segment === '**' ? '(?:/[^/]+)*' : `/${segmentSource(segment)}`)).join('')
  const last = segments[segments.length - 1]!
  return { entry, pattern: new RegExp(`^${source}$`), literalName: /[*?]/.test(last) ? undefined : foldName(last) }
}

/**
 * The compiled `readOnlyPaths` of a sandbox.
 *
 * @internal
 */
export class ProtectedPaths {
  /** The entries as configured. */
  readonly entries: readonly string[]
  /**
   * The entry (`**\/.git`) that protects every `.git` at any depth, if the
   * list has one: it also protects every folder shaped like a git
   * directory (`HEAD` with `objects` and `refs`, or with `commondir`: bare
   * repositories, worktree and submodule git dirs), whatever its name.
   */
  readonly gitDirectoryRule: string | undefined
  readonly #byName = new Map<string, Rule[]>()
  readonly #wildcard: Rule[] = []

  /**
   * @param entries - The sandbox's `readOnlyPaths` (validated).
   */
  constructor(entries: readonly string[]) {
    this.entries = Object.freeze([...entries])
    for (const entry of entries) {
      const rule = compileRule(entry)
      if (rule.literalName === undefined) this.#wildcard.push(rule)
      else {
        const list = this.#byName.get(rule.literalName)
        if (list === undefined) this.#byName.set(rule.literalName, [rule])
        else list.push(rule)
      }
    }
    this.gitDirectoryRule = entries.find((entry) => {
      const segments = entrySegments(entry)
      return segments.length > 1 && foldName(segments[segments.length - 1]!) === '.git' && segments.slice(0, -1).every((s) => s === '**')
    })
  }

  /** Whether the list protects nothing at any depth (only root-relative literal entries): no walk is needed. */
  get rootOnly(): boolean {
    return this.entries.every((entry) => !/[*?]/.test(entry))
  }

  /**
   * The rule matching exactly `relative` (not a prefix of it).
   *
   * @param relative - A path relative to the root, `/`-separated, without `.` or `..`.
   * @param name - Its last component (saves a split in a walk).
   * @returns The first matching entry, or `undefined`.
   */
  ruleFor(relative: string, name: string = relative.slice(relative.lastIndexOf('/') + 1)): string | undefined {
    const candidates = this.#byName.get(foldName(name))
    if (candidates === undefined && this.#wildcard.length === 0) return undefined
    const subject = `/${foldName(relative)}`
    for (const rule of candidates ?? []) if (rule.pattern.test(subject)) return rule.entry
    for (const rule of this.#wildcard) if (rule.pattern.test(subject)) return rule.entry
    return undefined
  }

  /**
   * The protection `relative` falls under: the path itself or the nearest
   * folder around it that a rule names.
   *
   * @param relative - A path relative to the root (`.` for the root).
   * @returns The match, or `undefined` when it is not protected.
   */
  match(relative: string): ProtectedMatch | undefined {
    if (relative === '.' || relative === '') return undefined
    const parts = relative.split(path.sep)
    for (let end = 1; end <= parts.length; end++) {
      const prefix = parts.slice(0, end).join('/')
      const rule = this.ruleFor(prefix, parts[end - 1]!)
      if (rule !== undefined) return { rule, path: prefix }
    }
    return undefined
  }
}

/**
 * Whether a folder's entries make it a git directory, as git decides it
 * (`HEAD`, and `objects` with `refs`, or a `commondir` that lends them).
 *
 * @param has - Whether the folder holds an entry of that name.
 * @returns Whether git would take the folder for a repository.
 * @internal
 */
export function looksLikeGitDirectory(has: (name: string) => boolean): boolean {
  return has('HEAD') && (has('commondir') || (has('objects') && has('refs')))
}

/** {@link looksLikeGitDirectory} of a folder on disk (a few `lstat` calls; the first fails fast for most folders). */
function isGitDirectoryOnDisk(dir: string): boolean {
  return looksLikeGitDirectory((name) => lstatSync(`${dir}/${name}`, { throwIfNoEntry: false }) !== undefined)
}

/**
 * The protection a resolved path falls under: a rule naming it or a folder
 * around it — by its real path (a symlink `x -> .git` does not hide
 * `x/config`) and by the path as given (a symlink named `.vscode` pointing
 * at an ordinary folder is what the editor reads) — or, with the `**\/.git`
 * rule, a folder around it that is a git directory whatever its name.
 *
 * @param paths - The sandbox's compiled `readOnlyPaths`.
 * @param resolved - The path, as `resolveInRoot` resolved it.
 * @returns The match, or `undefined`.
 * @internal
 */
export function protectionOf(paths: ProtectedPaths, resolved: Pick<ResolvedPath, 'input' | 'root' | 'relative'>): ProtectedMatch | undefined {
  if (resolved.relative === '.') return undefined
  const named = paths.match(resolved.relative) ?? paths.match(lexicalRelative(resolved) ?? '.')
  if (named !== undefined || paths.gitDirectoryRule === undefined) return named
  const parts = resolved.relative.split(path.sep)
  // Every folder on the way (the root itself excepted: a root that is a git
  // directory would leave nothing to work on); the target is a file.
  let dir = resolved.root
  for (let end = 1; end < parts.length; end++) {
    dir = `${dir}/${parts[end - 1]}`
    if (isGitDirectoryOnDisk(dir)) return { rule: paths.gitDirectoryRule, path: parts.slice(0, end).join('/') }
  }
  return undefined
}

/** The input relative to the root without following anything; `undefined` when it is the real path already or leaves the root lexically. */
function lexicalRelative(resolved: Pick<ResolvedPath, 'input' | 'root' | 'relative'>): string | undefined {
  const relative = path.relative(resolved.root, path.resolve(resolved.root, resolved.input))
  if (relative === resolved.relative || relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return undefined
  return relative
}

/** What runs a protected file, by its name: the reason a model reads in the refusal. */
const WHY: Record<string, string> = {
  '.git': 'git runs hooks, aliases and core.fsmonitor/core.pager commands from a repository\'s .git on the user\'s next git status, log or commit',
  '.gitmodules': 'git fetches and checks out what .gitmodules names on the user\'s next submodule update',
  '.gitconfig': 'git runs the commands a .gitconfig names (aliases, core.fsmonitor, core.pager, credential helpers)',
  '.vscode': 'VS Code runs tasks and tools its .vscode settings name when the folder is opened',
  '.idea': 'JetBrains IDEs run the tools and run configurations their .idea settings name',
  '.envrc': 'direnv runs .envrc when the user enters the folder',
  '.mcp.json': 'coding agents start the MCP servers .mcp.json lists',
  '.claude': 'Claude Code runs the hooks and MCP servers, and follows the commands and agents, that .claude holds',
  '.cursor': 'Cursor starts the MCP servers and follows the rules that .cursor holds',
  '.gemini': 'Gemini CLI starts the MCP servers its settings list',
  '.codex': 'Codex starts the MCP servers its config lists',
  '.ripgreprc': 'ripgrep reads its flags from it (RIPGREP_CONFIG_PATH), including --pre commands it runs',
}

/** Shell startup and logout files (bash, zsh, sh): the user's shell runs them. */
const SHELL_FILES = new Set([
  '.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.profile',
  '.zshrc', '.zprofile', '.zshenv', '.zlogin', '.zlogout', 'fish',
])

/**
 * Why a protected path matters, in words a model can pass on.
 *
 * @param match - A match of {@link ProtectedPaths.match} or of a scan.
 * @returns A clause (no capital, no full stop).
 * @internal
 */
export function whyProtected(match: ProtectedMatch): string {
  const name = foldName(match.path.slice(match.path.lastIndexOf('/') + 1))
  const ruleName = foldName(entrySegments(match.rule).at(-1) ?? '')
  const reason = WHY[name] ?? WHY[ruleName]
  if (reason !== undefined) return reason
  if (SHELL_FILES.has(name)) return 'the user\'s shell runs its startup files when it starts'
  if (name === 'git') return 'git reads its global configuration from .config/git'
  return 'it is listed in the sandbox\'s readOnlyPaths as running code on the host later'
}

/**
 * Refuse a path that `write` or `edit` may not create or change: the one
 * check both call, right after resolving the path.
 *
 * @param paths - The sandbox's compiled `readOnlyPaths`.
 * @param resolved - The destination, as `resolveInRoot` resolved it.
 * @throws {@link toolsmith/core!E_TOOL_PATH_PROTECTED} with `details: { path, reason: 'executes-on-host', rule, protected }`
 *   when the path or a folder around it is protected.
 * @internal
 */
export function assertNotProtected(paths: ProtectedPaths, resolved: Pick<ResolvedPath, 'input' | 'root' | 'relative'>): void {
  const match = protectionOf(paths, resolved)
  if (match === undefined) return
  const what = match.path === resolved.relative ? JSON.stringify(match.path) : `${JSON.stringify(match.path)}, which holds it,`
  throw new E_TOOL_PATH_PROTECTED(
    `${JSON.stringify(resolved.input)} is protected: ${what} runs code on the host later (${whyProtected(match)}), outside the sandbox, ` +
      `so the file tools do not create or change it (rule ${JSON.stringify(match.rule)} of the sandbox's readOnlyPaths). ` +
      'Leave it as it is; if the task really needs the change, tell the user what to change, or ask them to change readOnlyPaths.',
    { details: { path: resolved.input, reason: 'executes-on-host', rule: match.rule, protected: match.path } },
  )
}
