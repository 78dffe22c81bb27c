/**
 * The ignore rules `grep` hands to ripgrep, gathered by the kit itself.
 *
 * ripgrep opens `.gitignore`, `.ignore` and `.rgignore` by path, following
 * symlinks, resolves `.git` links and `gitdir:` files, reads git's global
 * excludes, and opens and parses the ignore files of every directory above
 * the one it searches — `--no-ignore-parent` only stops it from *applying*
 * them, and it stops nothing while `.gitignore` support is on. So `grep` runs
 * rg with `--no-ignore` (rg then reads no ignore file at all) and gives it one
 * rules file built here from the ignore files inside the root only, each
 * opened without following symlinks through a verified directory descriptor.
 *
 * The rules keep ripgrep's meaning: a pattern of `sub/.gitignore` is rewritten
 * to apply below `sub/` only, and the rules are ordered so that "the last
 * matching line wins" reproduces rg's precedence (`.rgignore` over `.ignore`
 * over `.gitignore`, a deeper file over a shallower one, a later line over an
 * earlier one). This equals rg run with `--no-require-git --no-ignore-parent
 * --no-ignore-exclude --no-ignore-global` on a tree with nothing above it.
 *
 * @module
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  readdirSync,
  statSync,
  type BigIntStats,
  type Dirent,
} from 'node:fs'
import { E_TOOL_ABORTED, E_TOOL_TIMEOUT } from '../exceptions.js'

/** Ignore file names, lowest precedence first (rg: `.rgignore` > `.ignore` > `.gitignore`). */
export const IGNORE_FILE_NAMES = ['.gitignore', '.ignore', '.rgignore'] as const

/** An ignore file larger than this is not read (rg would read it whole). */
export const MAX_IGNORE_FILE_BYTES = 1024 * 1024

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0
const O_NONBLOCK = constants.O_NONBLOCK ?? 0
const O_DIRECTORY = constants.O_DIRECTORY ?? 0

/** Rust's `char::is_whitespace` (Unicode White_Space), which rg's `trim_end` uses. */
const TRAILING_WHITESPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/u
/** Characters with a meaning in a glob (or at the start of a gitignore line). */
const GLOB_SPECIAL = /[\\*?[\]{}!#]/g
/** A glob body that matches exactly one literal name or path. */
const LITERAL_BODY = /^[^\\*?[\]{}]+$/

/** One gitignore line as rg's `GitignoreBuilder::add_line` reads it. */
interface ParsedLine {
  /** The trimmed line, as rg would see it alone. */
  trimmed: string
  /** `!pattern`: re-includes. */
  whitelist: boolean
  /** Matched against the path relative to the ignore file's directory (a leading or inner `/`). */
  anchored: boolean
  /** A trailing `/`: directories only. */
  onlyDir: boolean
  /** The glob without `!`, leading `/`, trailing `/`. */
  body: string
}

/**
 * Parse one line exactly as ripgrep 15 does (`ignore::gitignore::add_line`).
 *
 * @returns `undefined` for comments, blank lines and empty globs (which match nothing).
 */
function parseLine(raw: string): ParsedLine | undefined {
  if (raw.startsWith('#')) return undefined
  const trimmed = raw.endsWith('\\ ') ? raw : raw.replace(TRAILING_WHITESPACE, '')
  if (trimmed === '') return undefined
  let line = trimmed
  let whitelist = false
  let anchored = false
  if (line.startsWith('\\!') || line.startsWith('\\#')) {
    line = line.slice(1)
  } else {
    if (line.startsWith('!')) {
      whitelist = true
      line = line.slice(1)
    }
    if (line.startsWith('/')) {
      anchored = true
      line = line.slice(1)
    }
  }
  let onlyDir = false
  if (line.endsWith('/')) {
    onlyDir = true
    line = line.slice(0, -1)
    if (line.endsWith('\\')) line = line.slice(0, -1)
  }
  if (line === '') return undefined
  return { trimmed, whitelist, anchored: anchored || line.includes('/'), onlyDir, body: line }
}

/** A directory path as a glob matching only itself: every special character escaped. */
function escapeGlob(text: string): string {
  return text.replace(GLOB_SPECIAL, (c) => `\\${c}`)
}

/**
 * The line for the single rules file: the same glob, applying below `dir`
 * (root-relative, `''` for the root) only.
 */
function relocate(line: ParsedLine, dir: string): string {
  if (dir === '') return line.trimmed
  // rg prefixes an unanchored glob with `**/` (unless it has one) and matches it relative to the file's directory.
  const body = line.anchored || line.body === '**' || line.body.startsWith('**/') ? line.body : `**/${line.body}`
  return `${line.whitelist ? '!' : ''}${escapeGlob(dir)}/${body}${line.onlyDir ? '/' : ''}`
}

/** The lines of an ignore file as rg's `BufRead::lines` yields them, stopping at the first that is not UTF-8. */
function fileLines(content: Buffer): string[] {
  // ignoreBOM: decode() would otherwise drop a BOM at the start of every line; rg drops only the file's.
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
  const lines: string[] = []
  let start = 0
  while (start < content.length) {
    let end = content.indexOf(0x0a, start)
    if (end === -1) end = content.length
    let stop = end
    if (stop > start && content[stop - 1] === 0x0d) stop--
    let line: string
    try {
      line = decoder.decode(content.subarray(start, stop))
    } catch {
      break
    }
    lines.push(lines.length === 0 ? line.replace(/^\uFEFF/, '') : line)
    start = end + 1
  }
  return lines
}

/**
 * What the ignore files seen so far on the way down say about a directory,
 * used only to skip walking a directory rg will certainly skip. It is
 * deliberately weak (literal names and paths, and nothing at all once a `!`
 * rule is in scope): walking a directory rg skips costs time, never accuracy.
 */
class Pruning {
  readonly #names = new Set<string>()
  readonly #paths = new Set<string>()
  #whitelist = false

  constructor(readonly parent?: Pruning) {
    this.#whitelist = parent === undefined ? false : parent.#whitelist
  }

  add(line: ParsedLine, dir: string): void {
    if (line.whitelist) this.#whitelist = true
    else if (LITERAL_BODY.test(line.body)) {
      if (line.anchored) this.#paths.add(dir === '' ? line.body : `${dir}/${line.body}`)
      else this.#names.add(line.body)
    }
  }

  /** Whether rg is sure to skip directory `name` at root-relative `rel`. */
  skips(name: string, rel: string): boolean {
    if (this.#whitelist) return false
    for (let scope: Pruning | undefined = this; scope !== undefined; scope = scope.parent) {
      if (scope.#names.has(name) || scope.#paths.has(rel)) return true
    }
    return false
  }
}

/** Where and how long the scan may look. */
export interface IgnoreScanOptions {
  /** The real path of the sandbox root. */
  root: string
  /** The searched directory, relative to the root (`.` for the root). */
  relative: string
  /**
   * The searched directory as `/proc/self/fd/N` of its checked descriptor, or
   * `undefined` where descriptors cannot be named (then paths are used).
   */
  directory: string | undefined
  /** Give up (`TOOL_TIMEOUT`) after this `Date.now()`. */
  deadline: number
  /** The call's time limit, for the message. */
  timeoutMs: number
  /** The call's signal (`TOOL_ABORTED`). */
  signal: AbortSignal
}

/** A directory opened for the scan: its descriptor (when the scan opened it) and the name to read it by. */
interface OpenDirectory {
  fd: number | undefined
  path: string
}

/** What the scan needs from a directory: its ignore files and the subdirectories rg would walk. */
interface Listing {
  ignoreFiles: readonly string[]
  subdirs: readonly string[]
}

/** A listing remembered for a directory identity and change times. */
interface RememberedListing extends Listing {
  mtimeNs: bigint
  ctimeNs: bigint
}

/**
 * Listings by `dev:ino`. Listing a directory is most of the scan's cost (rg
 * lists every directory again); one `fstat` tells whether a remembered
 * listing still holds, since adding, removing or renaming an entry changes
 * the directory's mtime. Ignore files themselves are read on every call.
 */
const listings = new Map<string, RememberedListing>()
const MAX_REMEMBERED = 100_000
/**
 * A directory changed less than this long ago is listed again on every
 * call: timestamps are taken from a coarse clock, so two changes a few
 * milliseconds apart can leave the same mtime (git's "racy" entries).
 */
const SETTLED_NS = 2_000_000_000n

/** The remembered listing of the directory `stats` describes, when it has not changed since. */
function rememberedListing(stats: BigIntStats): RememberedListing | undefined {
  const known = listings.get(`${stats.dev}:${stats.ino}`)
  return known !== undefined && known.mtimeNs === stats.mtimeNs && known.ctimeNs === stats.ctimeNs ? known : undefined
}

/**
 * The rules the last scan of each searched directory gave, by root and
 * relative path: `grep` starts rg with them while it scans again (a guess
 * only: the run is thrown away when the scan disagrees). Bounded by count
 * and by total size: rules past {@link MAX_REMEMBERED_RULES_CHARS} are not
 * kept, and the whole map holds at most {@link MAX_REMEMBERED_TOTAL_CHARS}
 * characters (≤ 8 MiB of strings), so a process that searches many large
 * trees keeps a few megabytes, not 256 × 1 MiB.
 */
const lastRules = new Map<string, string>()
let lastRulesChars = 0
const MAX_REMEMBERED_SEARCHES = 256
const MAX_REMEMBERED_RULES_CHARS = 1024 * 1024
const MAX_REMEMBERED_TOTAL_CHARS = 4 * 1024 * 1024

/**
 * The rules the last scan for `key` gave, if remembered.
 *
 * @param key - The searched directory: its root and relative path.
 * @returns The rules file's text, `''` for none, `undefined` when unknown.
 * @internal
 */
export function rememberedRules(key: string): string | undefined {
  return lastRules.get(key)
}

/**
 * Remember what a scan for `key` gave.
 *
 * @param key - The searched directory: its root and relative path.
 * @param rules - The rules file's text.
 * @internal
 */
export function rememberRules(key: string, rules: string): void {
  const previous = lastRules.get(key)
  if (previous !== undefined) {
    lastRules.delete(key)
    lastRulesChars -= previous.length + key.length
  }
  if (rules.length > MAX_REMEMBERED_RULES_CHARS) return
  const chars = rules.length + key.length
  // Dropping everything (not the oldest entry) keeps this O(1): a guess
  // that is missing only costs the next search its head start.
  if (lastRules.size >= MAX_REMEMBERED_SEARCHES || lastRulesChars + chars > MAX_REMEMBERED_TOTAL_CHARS) {
    lastRules.clear()
    lastRulesChars = 0
  }
  lastRules.set(key, rules)
  lastRulesChars += chars
}

/**
 * The size of the remembered rules, for specs that check the bound.
 *
 * @returns How many searches are remembered and their characters (keys included).
 * @internal
 */
export function rememberedRulesSize(): { searches: number; chars: number } {
  return { searches: lastRules.size, chars: lastRulesChars }
}

/**
 * Build the rules file for a search of a directory: the rules of every
 * ignore file in that directory, its subdirectories (those rg walks: not
 * hidden, not symlinks) and its ancestors up to the root — never above.
 *
 * @remarks
 * Every directory is opened `O_NOFOLLOW | O_DIRECTORY` through its parent's
 * descriptor and every ignore file `O_NOFOLLOW | O_NONBLOCK` through its
 * directory's, so a symlink (planted or swapped in) is never followed; an
 * ignore file that is not a regular file or is larger than
 * {@link MAX_IGNORE_FILE_BYTES}, and the ignore files below a directory
 * whose name is not UTF-8 or holds a line break, are skipped. Filesystem
 * calls are synchronous (three times faster than the promise API on small
 * directories) and the scan yields to the event loop every few milliseconds.
 *
 * @returns The rules, one per line, paths relative to the root; `''` when there are none.
 * @throws `TOOL_TIMEOUT` past the deadline, `TOOL_ABORTED` when the signal fires.
 * @internal
 */
export async function scanIgnoreRules(options: IgnoreScanOptions): Promise<string> {
  const blocks: Record<(typeof IGNORE_FILE_NAMES)[number], string[]> = { '.gitignore': [], '.ignore': [], '.rgignore': [] }
  const byDescriptor = options.directory !== undefined
  let lastYield = Date.now()
  const pace = async (): Promise<void> => {
    if (Date.now() - lastYield < 8) return
    await new Promise((resolve) => setImmediate(resolve))
    lastYield = Date.now()
    if (options.signal.aborted) throw new E_TOOL_ABORTED('grep was cancelled', { cause: options.signal.reason })
    if (Date.now() > options.deadline) {
      throw new E_TOOL_TIMEOUT(`grep did not finish within ${options.timeoutMs} ms (reading the ignore files)`, {
        details: { timeoutMs: options.timeoutMs },
      })
    }
  }

  const openChild = (parent: OpenDirectory, name: string): OpenDirectory | undefined => {
    try {
      const fd = openSync(`${parent.path}/${name}`, constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
      if (!byDescriptor) {
        closeSync(fd)
        return { fd: undefined, path: `${parent.path}/${name}` }
      }
      return { fd, path: `/proc/self/fd/${fd}` }
    } catch {
      // Gone, swapped for a symlink, or unreadable: rg will not walk into it either way.
      return undefined
    }
  }
  const close = (dir: OpenDirectory): void => {
    if (dir.fd !== undefined) closeSync(dir.fd)
  }

  const list = (dir: OpenDirectory): Listing | undefined => {
    let stats: BigIntStats
    try {
      // The searched directory itself is named by its checked descriptor's /proc link: stat follows it.
      if (dir.fd !== undefined) stats = fstatSync(dir.fd, { bigint: true })
      else stats = byDescriptor ? statSync(dir.path, { bigint: true }) : lstatSync(dir.path, { bigint: true })
    } catch {
      return undefined
    }
    const key = `${stats.dev}:${stats.ino}`
    const known = rememberedListing(stats)
    if (known !== undefined) return known
    let entries: Dirent[]
    try {
      entries = readdirSync(dir.path, { withFileTypes: true })
    } catch {
      return undefined
    }
    const ignoreFiles: string[] = []
    const subdirs: string[] = []
    for (const entry of entries) {
      if (entry.name.startsWith('.')) {
        // rg walks no hidden directory (it is never given --hidden); ignore files are read through O_NOFOLLOW anyway.
        if ((IGNORE_FILE_NAMES as readonly string[]).includes(entry.name) && !entry.isDirectory() && !entry.isSymbolicLink()) {
          ignoreFiles.push(entry.name)
        }
      } else if (entry.isDirectory() && usableName(entry.name)) {
        subdirs.push(entry.name)
      }
    }
    const listing = { ignoreFiles, subdirs }
    const now = BigInt(Date.now()) * 1_000_000n
    if (now - stats.mtimeNs > SETTLED_NS && now - stats.ctimeNs > SETTLED_NS) {
      if (listings.size >= MAX_REMEMBERED) listings.clear()
      listings.set(key, { ...listing, mtimeNs: stats.mtimeNs, ctimeNs: stats.ctimeNs })
    }
    return listing
  }

  /**
   * Whether `name` in `dir` is a directory remembered, unchanged, with no
   * ignore file and no subdirectory: then there is nothing to read or walk
   * in it, and one `lstat` replaces the open, `fstat` and close (most
   * directories of a tree are such leaves). The `lstat` is of the entry
   * itself, through the parent's checked descriptor, so a symlink put in its
   * place is a symlink here (never followed) and takes the full path below.
   */
  const unchangedEmptyLeaf = (dir: OpenDirectory, name: string): boolean => {
    let stats: BigIntStats | undefined
    try {
      stats = lstatSync(`${dir.path}/${name}`, { bigint: true, throwIfNoEntry: false })
    } catch {
      return false
    }
    if (stats === undefined || !stats.isDirectory()) return false
    const known = rememberedListing(stats)
    return known !== undefined && known.subdirs.length === 0 && known.ignoreFiles.length === 0
  }

  /** Read the ignore files of one directory into the blocks and the pruning scope. */
  const readRules = (dir: OpenDirectory, listing: Listing, rel: string, pruning: Pruning): void => {
    for (const name of IGNORE_FILE_NAMES) {
      if (!listing.ignoreFiles.includes(name)) continue
      const content = readIgnoreFile(`${dir.path}/${name}`)
      if (content === undefined) continue
      for (const raw of fileLines(content)) {
        const line = parseLine(raw)
        if (line === undefined) continue
        blocks[name].push(relocate(line, rel))
        pruning.add(line, rel)
      }
    }
  }

  // The ancestors inside the root: their rules apply to the searched directory, as rg's parent rules would.
  let pruning = new Pruning()
  const components = options.relative === '.' ? [] : options.relative.split('/')
  if (components.length > 0) {
    let dir: OpenDirectory | undefined = openRoot(options.root, byDescriptor)
    for (let i = 0; dir !== undefined && i < components.length; i++) {
      const listing = list(dir)
      if (listing !== undefined) readRules(dir, listing, components.slice(0, i).join('/'), pruning)
      const next: OpenDirectory | undefined = i + 1 < components.length ? openChild(dir, components[i]!) : undefined
      close(dir)
      dir = next
    }
  }

  const walk = async (dir: OpenDirectory, rel: string, scope: Pruning): Promise<void> => {
    await pace()
    const listing = list(dir)
    if (listing === undefined) return
    const own = new Pruning(scope)
    readRules(dir, listing, rel, own)
    for (const name of listing.subdirs) {
      const childRel = rel === '' ? name : `${rel}/${name}`
      if (own.skips(name, childRel)) continue
      if (unchangedEmptyLeaf(dir, name)) continue
      const child = openChild(dir, name)
      if (child === undefined) continue
      try {
        await walk(child, childRel, own)
      } finally {
        close(child)
      }
    }
  }
  pruning = new Pruning(pruning)
  const start: OpenDirectory = byDescriptor
    ? { fd: undefined, path: options.directory! }
    : { fd: undefined, path: options.relative === '.' ? options.root : `${options.root}/${options.relative}` }
  await walk(start, options.relative === '.' ? '' : options.relative, pruning)

  const lines = [...blocks['.gitignore'], ...blocks['.ignore'], ...blocks['.rgignore']]
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`
}

/** The root itself: the configured, trusted directory (its own symlinks were resolved at configuration). */
function openRoot(root: string, byDescriptor: boolean): OpenDirectory | undefined {
  if (!byDescriptor) return { fd: undefined, path: root }
  try {
    const fd = openSync(root, constants.O_RDONLY | O_DIRECTORY)
    return { fd, path: `/proc/self/fd/${fd}` }
  } catch {
    return undefined
  }
}

/** A name usable in a rules line: valid UTF-8 (readdir turns other bytes into U+FFFD) and no line break. */
function usableName(name: string): boolean {
  return !/[\n\r\uFFFD]/.test(name)
}

/** The content of a regular ignore file, opened without following a symlink; `undefined` for anything else. */
function readIgnoreFile(path: string): Buffer | undefined {
  let fd: number
  try {
    // O_NONBLOCK: a FIFO named .gitignore must not block the scan.
    fd = openSync(path, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
  } catch {
    return undefined
  }
  try {
    const stats = fstatSync(fd)
    if (!stats.isFile() || stats.size > MAX_IGNORE_FILE_BYTES) return undefined
    const buffer = Buffer.alloc(stats.size)
    let read = 0
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, null)
      if (n === 0) break
      read += n
    }
    return buffer.subarray(0, read)
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}
