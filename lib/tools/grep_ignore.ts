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
import { Pruning, fileLines, parseLine, relocate } from './grep_ignore_lines.js'

export { rememberRules, rememberedRules, rememberedRulesSize } from './grep_ignore_memo.js'

/** Ignore file names, lowest precedence first (rg: `.rgignore` > `.ignore` > `.gitignore`). */
export const IGNORE_FILE_NAMES = ['.gitignore', '.ignore', '.rgignore'] as const

/** An ignore file larger than this is not read (rg would read it whole). */
export const MAX_IGNORE_FILE_BYTES = 1024 * 1024

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0
const O_NONBLOCK = constants.O_NONBLOCK ?? 0
const O_DIRECTORY = constants.O_DIRECTORY ?? 0

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
