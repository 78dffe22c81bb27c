/**
 * The walk that finds the protected paths (`readOnlyPaths`) present in the
 * root, for `bash`: before a command, so each is bound read-only; after it,
 * so the ones it created are reported (a mount cannot stop a command from
 * creating a new `.git` in a folder it may write).
 *
 * @remarks
 * A full walk per command would cost a `readdir` of every folder (≈ 30 ms
 * for a 10,000-file tree, ≈ 300 ms for 100,000 on a busy 2-core machine).
 * The scanner keeps each folder's listing and reads it again only when the
 * folder changed (its `mtime`, `ctime` or inode), so a scan costs one
 * `lstat` per folder (≈ 4–10 µs each). A listing read while its folder's
 * `mtime` was under {@link RACY_MS} old is not trusted next time: file
 * systems stamp times from a coarse clock, and an entry added in the same
 * tick would leave the `mtime` unchanged. A scan stops after
 * {@link MAX_SCAN_DIRECTORIES} folders, shallow ones first and the usual
 * dependency and build folders (`node_modules`, `.venv`, `target`…) last;
 * what lies beyond is neither bound nor reported, and the scan says so.
 *
 * @module
 */
import { lstatSync, readdirSync, type Dirent, type Stats } from 'node:fs'
import { looksLikeGitDirectory, type ProtectedMatch, type ProtectedPaths } from './protected_paths.js'

/**
 * Most folders one scan visits (the root included). Each costs an `lstat`
 * (a `readdir` when it changed): ≈ 50–100 ms at the cap on a busy 2-core
 * machine, paid before and after every command in a root that large.
 */
export const MAX_SCAN_DIRECTORIES = 20_000

/** A listing whose folder changed less than this long before it was read is read again next time. */
const RACY_MS = 2_000

/**
 * Folders visited after every other one: dependency and build output, where
 * a repository or a settings file of the user's rarely lives, and which
 * hold most of the folders of a large root.
 */
const LATE_NAMES = new Set(['node_modules', '.venv', 'venv', 'target', '.tox', '.gradle', '.cache', '.next', 'dist', 'build', '__pycache__'])

/** What one folder held, as last read. */
interface Listing {
  readonly mtimeMs: number
  readonly ctimeMs: number
  readonly ino: number
  /** Read too soon after a change to be trusted again. */
  readonly racy: boolean
  /** The folder itself is a git directory (with the `**\/.git` rule). */
  readonly gitDirectory: boolean
  /** Entries a rule names (not walked into). */
  readonly matches: ReadonlyArray<{ readonly name: string; readonly rule: string }>
  /** Sub-folders to walk (not symlinks). */
  readonly folders: readonly string[]
}

/** What a scan found. */
export interface ProtectedScan {
  /** Each protected path present, relative to the root (`/`-separated), with its rule. */
  readonly found: ReadonlyMap<string, string>
  /** `false` when the scan stopped at {@link MAX_SCAN_DIRECTORIES}. */
  readonly complete: boolean
  /** Folders visited. */
  readonly directories: number
}

/**
 * Finds the protected paths of one sandbox's root, caching folder listings
 * between scans.
 *
 * @internal
 */
export class ProtectedScanner {
  readonly #paths: ProtectedPaths
  readonly #limit: number
  #root: string | undefined
  #listings = new Map<string, Listing>()
  #warned = false

  /**
   * @param paths - The sandbox's compiled `readOnlyPaths`.
   * @param limit - Most folders per scan (a spec lowers it).
   */
  constructor(paths: ProtectedPaths, limit = MAX_SCAN_DIRECTORIES) {
    this.#paths = paths
    this.#limit = limit
  }

  /**
   * Scan the root now.
   *
   * @param root - The real root.
   * @returns What is there.
   */
  scan(root: string): ProtectedScan {
    if (this.#paths.rootOnly) return this.#literal(root)
    if (root !== this.#root) {
      this.#root = root
      this.#listings = new Map()
    }
    const found = new Map<string, string>()
    const seen = new Map<string, Listing>()
    const queue: string[] = ['']
    const late: string[] = []
    let directories = 0
    let complete = true
    for (let next = 0, lateNext = 0; ; ) {
      let relative: string
      let isLate = false
      if (next < queue.length) relative = queue[next++]!
      else if (lateNext < late.length) {
        relative = late[lateNext++]!
        isLate = true
      } else break
      if (directories >= this.#limit) {
        complete = false
        break
      }
      directories++
      const absolute = relative === '' ? root : `${root}/${relative}`
      const listing = this.#listing(absolute, relative)
      if (listing === undefined) continue
      seen.set(absolute, listing)
      if (listing.gitDirectory) {
        found.set(relative, this.#paths.gitDirectoryRule!)
        continue
      }
      for (const { name, rule } of listing.matches) found.set(relative === '' ? name : `${relative}/${name}`, rule)
      for (const name of listing.folders) {
        const child = relative === '' ? name : `${relative}/${name}`
        if (isLate || LATE_NAMES.has(name)) late.push(child)
        else queue.push(child)
      }
    }
    // Forget folders no longer reached (removed, renamed, or past the cap).
    this.#listings = complete ? seen : new Map([...this.#listings, ...seen])
    if (!complete && !this.#warned) {
      this.#warned = true
      process.emitWarning(
        `toolsmith sandbox: the root ${root} has more than ${this.#limit} folders; protected paths (readOnlyPaths) beyond the first ` +
          `${this.#limit} (dependency and build folders last) are not read-only for bash commands, nor reported when a command creates them.`,
        { code: 'TOOLSMITH_PROTECTED_SCAN_INCOMPLETE' },
      )
    }
    return { found, complete, directories }
  }

  /** A list of root-relative paths only: each is there or not. */
  #literal(root: string): ProtectedScan {
    const found = new Map<string, string>()
    for (const entry of this.#paths.entries) {
      const relative = entry.split('/').filter((part) => part !== '' && part !== '.').join('/')
      if (lstatSync(`${root}/${relative}`, { throwIfNoEntry: false }) !== undefined) found.set(relative, entry)
    }
    return { found, complete: true, directories: 0 }
  }

  /** The folder's listing: the cached one while the folder is unchanged, else read now. */
  #listing(absolute: string, relative: string): Listing | undefined {
    let stats: Stats | undefined
    try {
      stats = lstatSync(absolute, { throwIfNoEntry: false })
    } catch {
      return undefined
    }
    if (stats === undefined || !stats.isDirectory()) return undefined
    const cached = this.#listings.get(absolute)
    if (cached !== undefined && !cached.racy && cached.mtimeMs === stats.mtimeMs && cached.ctimeMs === stats.ctimeMs && cached.ino === stats.ino) {
      return cached
    }
    const readAt = Date.now()
    let entries: Dirent[]
    try {
      entries = readdirSync(absolute, { withFileTypes: true })
    } catch {
      return undefined // unreadable: nothing below it can be listed (nor written by the command)
    }
    const matches: Array<{ name: string; rule: string }> = []
    const folders: string[] = []
    for (const entry of entries) {
      const name = entry.name
      const rule = this.#paths.ruleFor(relative === '' ? name : `${relative}/${name}`, name)
      if (rule !== undefined) matches.push({ name, rule })
      else if (entry.isDirectory()) folders.push(name)
    }
    let gitDirectory = false
    if (relative !== '' && this.#paths.gitDirectoryRule !== undefined && entries.some((entry) => entry.name === 'HEAD')) {
      const names = new Set(entries.map((entry) => entry.name))
      gitDirectory = looksLikeGitDirectory((name) => names.has(name))
    }
    return {
      mtimeMs: stats.mtimeMs,
      ctimeMs: stats.ctimeMs,
      ino: stats.ino,
      racy: Math.max(stats.mtimeMs, stats.ctimeMs) >= readAt - RACY_MS,
      gitDirectory,
      matches,
      folders,
    }
  }
}

/**
 * The protected paths a command created: in `after` and not in `before`.
 *
 * @param before - The scan before the command.
 * @param after - The scan after it.
 * @returns Each new path with its rule, in walk order.
 * @internal
 */
export function createdProtectedPaths(before: ProtectedScan, after: ProtectedScan): ProtectedMatch[] {
  const created: ProtectedMatch[] = []
  for (const [relative, rule] of after.found) if (!before.found.has(relative)) created.push({ path: relative, rule })
  return created
}
