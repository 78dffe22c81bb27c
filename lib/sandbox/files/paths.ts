/**
 * The one place where a path given to a built-in tool becomes a real path on
 * disk. Every tool goes through {@link resolveInRoot}; nothing else in the
 * sandbox turns user input into a path.
 *
 * @module
 */
import { readlink, realpath, stat } from 'node:fs/promises'
import { lstatSync, type Stats } from 'node:fs'
import path from 'node:path'
import { E_TOOL_FILE_NOT_FOUND, E_TOOL_NOT_A_FILE, E_TOOL_PATH_ESCAPE, E_TOOL_PATH_INVALID } from '../../exceptions.js'
import { errnoCode, toToolError } from './fs_errors.js'
import { rootNotADirectory } from './root_dir.js'

/** Longest accepted path, in UTF-8 bytes (Linux `PATH_MAX`). */
export const MAX_PATH_BYTES = 4096
/** Longest accepted path component, in UTF-8 bytes (Linux `NAME_MAX`). */
export const MAX_COMPONENT_BYTES = 255
/** How many symbolic links one resolution may cross (Linux's own limit). */
const MAX_SYMLINK_HOPS = 40

/**
 * What path resolution needs to know about a sandbox.
 *
 * @internal
 */
export interface PathScope {
  /** The root as configured (absolute, not resolved through symlinks). */
  readonly rootDir: string
  /** The root's real path; throws `TOOL_NOT_A_DIRECTORY` when it is missing. */
  realRoot(): Promise<string>
}

/**
 * A path checked against the root.
 *
 * @internal
 */
export interface ResolvedPath {
  /** The path as the caller gave it: the only form used in messages. */
  readonly input: string
  /** The real root. */
  readonly root: string
  /**
   * Absolute path: every existing component resolved through its symlinks,
   * missing components appended as given.
   */
  readonly absolute: string
  /** `absolute` relative to the root; `.` for the root itself. */
  readonly relative: string
  /** The deepest existing directory or file on the way (real, inside the root). */
  readonly existing: string
  /** Components below `existing` that do not exist yet (empty when the target exists). */
  readonly missing: readonly string[]
  /** `lstat` of the target when it exists (never a symlink: those are resolved). */
  readonly stats: Stats | undefined
  /**
   * Set by `resolveInRoot(…, { target: 'open' })` when the last component
   * was left to the caller's `O_NOFOLLOW` open instead of an `lstat`: then
   * `stats` is `undefined` without meaning the target is missing.
   */
  readonly targetUnchecked?: true
  /**
   * Set when the path runs into a symlink whose target does not exist (inside
   * the root): reads report it missing, writes refuse to go through it.
   */
  readonly danglingLink: string | undefined
}

/**
 * Whether `candidate` is `root` or lies below it, compared component by
 * component (`/srv/root` never contains `/srv/root-evil`).
 *
 * @param root - An absolute, normalised directory path.
 * @param candidate - An absolute, normalised path.
 * @returns Whether `candidate` is inside `root`.
 * @internal
 */
export function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate)
  if (relative === '') return true
  if (path.isAbsolute(relative)) return false
  const first = relative.split(path.sep, 1)[0]
  return first !== '..'
}

/**
 * Reject paths no file system call should ever see.
 *
 * @param input - The path a tool was given.
 * @throws {@link toolsmith/core!E_TOOL_PATH_INVALID} for empty, NUL-bearing or over-long
 *   paths, and (on POSIX) Windows drive-letter or backslash-rooted paths.
 * @internal
 */
export function assertValidPathInput(input: unknown): asserts input is string {
  if (typeof input !== 'string') {
    throw new E_TOOL_PATH_INVALID('A path must be a string', { details: { path: null } })
  }
  const shown = input.length > 200 ? `${input.slice(0, 200)}…` : input
  const details = { path: shown }
  if (input.trim() === '') {
    throw new E_TOOL_PATH_INVALID('The path is empty; give a file path relative to the sandbox root', { details })
  }
  if (input.includes('\0')) {
    throw new E_TOOL_PATH_INVALID(`The path ${JSON.stringify(shown)} contains a NUL byte`, { details })
  }
  const windows = windowsPathKind(input)
  if (windows !== undefined) {
    throw new E_TOOL_PATH_INVALID(
      `The path ${JSON.stringify(shown)} is a Windows path (it starts with ${windows}); the sandbox uses POSIX paths: ` +
        'give a path relative to the sandbox root with "/" separators, such as "notes.md" or "docs/notes.md"',
      { details },
    )
  }
  if (Buffer.byteLength(input) > MAX_PATH_BYTES) {
    throw new E_TOOL_PATH_INVALID(`The path is longer than ${MAX_PATH_BYTES} bytes`, { details })
  }
  for (const part of input.split('/')) {
    if (Buffer.byteLength(part) > MAX_COMPONENT_BYTES) {
      throw new E_TOOL_PATH_INVALID(`A component of the path is longer than ${MAX_COMPONENT_BYTES} bytes`, { details })
    }
  }
}

/**
 * On POSIX a drive-letter path (`C:\x`, `C:/x`, `C:`) or a backslash-rooted
 * one (`\x`, `\\server\share`) is a legal relative file name, so it would be
 * created as one oddly named file in the root: what a model meant is a
 * Windows absolute path. Names that merely contain `:` or `\` stay legal.
 */
function windowsPathKind(input: string): string | undefined {
  if (process.platform === 'win32') return undefined
  if (/^[A-Za-z]:([\\/]|$)/.test(input)) return 'a drive letter'
  if (input.startsWith('\\')) return 'a backslash'
  return undefined
}

/**
 * Reject, besides what {@link assertValidPathInput} rejects, a path that can
 * only name a directory (`dir/`, `dir/.`): the file tools would otherwise drop
 * the trailing separator and write a file where a folder was meant.
 *
 * @param input - The path a file tool (read, write, edit) was given.
 * @throws {@link toolsmith/core!E_TOOL_PATH_INVALID} as {@link assertValidPathInput} does.
 * @throws {@link toolsmith/core!E_TOOL_NOT_A_FILE} for a path ending in `/` or `/.`.
 * @internal
 */
export function assertFilePathInput(input: unknown): asserts input is string {
  assertValidPathInput(input)
  if (input.endsWith('/') || input === '.' || input.endsWith('/.')) {
    throw new E_TOOL_NOT_A_FILE(
      `The path ${JSON.stringify(input)} names a directory (it ends in "/" or "/."); give a file path such as "dir/name.txt"`,
      { details: { path: input } },
    )
  }
}

/**
 * Resolve the real path of a configured root.
 *
 * @param rootDir - The configured root (absolute).
 * @returns Its real path.
 * @throws {@link toolsmith/core!E_TOOL_NOT_A_DIRECTORY} when it is missing or not a
 *   directory (removed or replaced since it was configured): the root is
 *   what is missing, not the file a call named.
 * @internal
 */
export async function resolveRealRoot(rootDir: string): Promise<string> {
  let real: string
  let stats: Stats
  try {
    real = await realpath(rootDir)
    stats = await stat(real)
  } catch (error) {
    throw rootNotADirectory(rootDir, error)
  }
  if (!stats.isDirectory()) throw rootNotADirectory(rootDir, undefined)
  return real
}

/**
 * Check `input` against the sandbox and resolve it to a real path inside the
 * root, without creating or opening anything.
 *
 * @remarks
 * Relative paths resolve against the root; absolute ones must lie inside it
 * (given either as the configured root or its real path). `..` is collapsed
 * lexically first, and the result must stay inside the root. Then every
 * existing component is examined with `lstat`: a symlink is resolved with
 * `realpath` and must land inside the root, at any depth. A symlink whose
 * target is missing is reported as dangling (or as an escape when its target
 * lies outside). The caller still opens the result with `O_NOFOLLOW` and
 * re-checks what it opened (see `files.ts`): this function alone cannot stop
 * a swap that happens after it returns.
 *
 * @param scope - The sandbox.
 * @param input - The path as the model gave it.
 * @returns The resolution.
 * @throws {@link toolsmith/core!E_TOOL_PATH_INVALID}, {@link toolsmith/core!E_TOOL_PATH_ESCAPE},
 *   {@link toolsmith/core!E_TOOL_FILE_NOT_FOUND} (a file used as a directory),
 *   {@link toolsmith/core!E_TOOL_NOT_A_DIRECTORY} (a missing root).
 * @internal
 */
export async function resolveInRoot(scope: PathScope, input: string, options?: ResolveOptions): Promise<ResolvedPath> {
  assertValidPathInput(input)
  const root = await scope.realRoot()
  const walk = new Walk(input, root, lexicalParts(scope, root, input), options)
  let step = walk.run()
  while (typeof step === 'string') step = walk.resume(await followLink(input, root, step))
  return step
}

/**
 * {@link resolveInRoot} without a promise, for a caller that already knows
 * the real root: the same checks and the same result, or `undefined` when
 * the path goes through a symlink (following one takes a `realpath`; the
 * caller then uses {@link resolveInRoot}).
 *
 * @param scope - The sandbox.
 * @param root - Its real root, as `scope.realRoot()` resolved it.
 * @param input - The path as the model gave it.
 * @returns The resolution, or `undefined` when a symlink must be followed.
 * @throws As {@link resolveInRoot}.
 * @internal
 */
export function resolveInRootSync(scope: PathScope, root: string, input: string): ResolvedPath | undefined {
  assertValidPathInput(input)
  const step = new Walk(input, root, lexicalParts(scope, root, input), undefined).run()
  return typeof step === 'string' ? undefined : step
}

/**
 * The component-by-component walk of {@link resolveInRoot}: synchronous up
 * to the first symlink, whose path `run`/`resume` return for the caller to
 * follow (asynchronously) and hand back.
 */
class Walk {
  readonly #input: string
  readonly #root: string
  readonly #parts: readonly string[]
  readonly #options: ResolveOptions | undefined
  #i = 0
  #current: string
  #hops = 0
  // The lstat of `current` when the loop already made it (saves one syscall per call).
  #currentStats: Stats | undefined

  constructor(input: string, root: string, parts: readonly string[], options: ResolveOptions | undefined) {
    this.#input = input
    this.#root = root
    this.#parts = parts
    this.#options = options
    this.#current = root
  }

  /** Walk until done (the resolution) or until a symlink (its path, to follow). */
  run(): ResolvedPath | string {
    const input = this.#input
    const root = this.#root
    const parts = this.#parts
    for (; this.#i < parts.length; this.#i++) {
      const i = this.#i
      const current = this.#current
      const next = childOf(current, parts[i]!)
      if (i === parts.length - 1 && this.#options?.target === 'open') {
        // The caller opens the target with O_NOFOLLOW and re-checks what it
        // opened: the lstat would only repeat what that open and fstat learn.
        return { input, root, absolute: next, relative: relativeBelow(root, next) ?? relativeOf(root, next), existing: current, missing: [], stats: undefined, danglingLink: undefined, targetUnchecked: true }
      }
      let stats: Stats | undefined
      try {
        stats = metadataOf(next)
      } catch (error) {
        throw toToolError(error, input, 'resolve')
      }
      if (stats === undefined) return missingFrom(input, root, current, parts.slice(i), undefined)
      if (stats.isSymbolicLink()) {
        if (++this.#hops > MAX_SYMLINK_HOPS) {
          throw new E_TOOL_PATH_INVALID(`${JSON.stringify(input)} crosses too many symbolic links`, {
            details: { path: input },
          })
        }
        return next
      }
      if (!stats.isDirectory() && i < parts.length - 1) {
        throw new E_TOOL_FILE_NOT_FOUND(
          `${JSON.stringify(input)} does not exist: ${JSON.stringify(relativeOf(root, next))} is a file, not a directory`,
          { details: { path: input } },
        )
      }
      this.#current = next
      this.#currentStats = stats
    }
    const current = this.#current
    return {
      input,
      root,
      absolute: current,
      relative: relativeBelow(root, current) ?? relativeOf(root, current),
      existing: current,
      missing: [],
      stats: this.#currentStats ?? lstatOrToolError(current, input),
      danglingLink: undefined,
    }
  }

  /**
   * Go on after the symlink `run` returned: `target` is where it leads
   * (checked inside the root), or `undefined` when it dangles.
   */
  resume(target: string | undefined): ResolvedPath | string {
    const link = childOf(this.#current, this.#parts[this.#i]!)
    if (target === undefined) return missingFrom(this.#input, this.#root, this.#current, this.#parts.slice(this.#i), link)
    this.#current = target
    this.#currentStats = undefined
    this.#i++
    return this.run()
  }
}

/**
 * `lstat` of one path component, synchronously; `undefined` when it is missing.
 *
 * @remarks
 * Synchronous on purpose. The components of a path the kit is about to open
 * are in the kernel's dentry and inode caches (the open walks them too), so
 * one `lstat` costs a few microseconds on the main thread, while the same
 * call through the thread pool costs a round trip and a place in libuv's
 * four-thread queue: with 20 reads in flight, one job per directory level was
 * most of the cost of a small read. What this gives up: on a network
 * filesystem whose attribute cache has expired, an `lstat` can wait for the
 * server, and the event loop waits with it (docs/tools.md, "Performance").
 */
function metadataOf(file: string): Stats | undefined {
  return lstatSync(file, { throwIfNoEntry: false })
}

/** {@link metadataOf} where the path is known to exist; a vanished one is a tool error like any other. */
function lstatOrToolError(file: string, input: string): Stats {
  try {
    return lstatSync(file)
  } catch (error) {
    throw toToolError(error, input, 'resolve')
  }
}

/**
 * Options of {@link resolveInRoot}.
 *
 * @internal
 */
export interface ResolveOptions {
  /**
   * `'open'`: do not `lstat` the last component; the result says so with
   * `targetUnchecked` (the caller must open it with `O_NOFOLLOW`, re-check
   * the opened file's real path, and resolve again without this option
   * when the open fails). Default: `lstat` it like every other component.
   */
  readonly target?: 'lstat' | 'open'
}

/** Split `input` into components below the root, refusing lexical escapes. */
function lexicalParts(scope: PathScope, root: string, input: string): string[] {
  let relative: string
  if (path.isAbsolute(input)) {
    const normalised = path.resolve(input)
    const base = [root, path.resolve(scope.rootDir)].find((candidate) => isInside(candidate, normalised))
    if (base === undefined) throw pathEscape(input, 'is an absolute path outside the sandbox root')
    relative = path.relative(base, normalised)
  } else {
    const normalised = path.resolve(root, input)
    const below = relativeBelow(root, normalised)
    if (below !== undefined) relative = below === '.' ? '' : below
    else {
      if (!isInside(root, normalised)) throw pathEscape(input, 'climbs out of the sandbox root with ".."')
      relative = path.relative(root, normalised)
    }
  }
  return relative.split(path.sep).filter((part) => part !== '' && part !== '.')
}

/**
 * Resolve a symlink found at `link`; `undefined` when its target (or a
 * target further down its chain) is missing.
 */
async function followLink(input: string, root: string, link: string): Promise<string | undefined> {
  try {
    const target = await realpath(link)
    if (!isInside(root, target)) throw pathEscape(input, 'goes through a symbolic link that points outside the sandbox root')
    return target
  } catch (error) {
    const errno = errnoCode(error)
    if (errno === 'ENOENT') {
      // Dangling: judge it by where it says it points, without touching the target.
      const text = await readlink(link).catch(() => '')
      const lexical = path.resolve(path.dirname(link), text)
      if (!isInside(root, lexical)) {
        throw pathEscape(input, 'goes through a dangling symbolic link that points outside the sandbox root')
      }
      return undefined
    }
    if (errno === 'ELOOP') {
      throw new E_TOOL_PATH_INVALID(`${JSON.stringify(input)} goes through a symbolic link loop`, {
        cause: error,
        details: { path: input },
      })
    }
    throw toToolError(error, input, 'resolve')
  }
}

function missingFrom(
  input: string,
  root: string,
  existing: string,
  missing: string[],
  danglingLink: string | undefined,
): ResolvedPath {
  const absolute = path.join(existing, ...missing)
  return {
    input,
    root,
    absolute,
    relative: relativeOf(root, absolute),
    existing,
    missing,
    stats: undefined,
    danglingLink: danglingLink === undefined ? undefined : relativeOf(root, danglingLink),
  }
}

/**
 * `path.join(dir, name)` for a normalised absolute `dir` and one component
 * `name` (no separator, not `.` or `..`): what the resolution loop joins, on
 * every call of every path tool, without `join`'s normalisation pass.
 */
function childOf(dir: string, name: string): string {
  if (path.sep !== '/') return path.join(dir, name)
  return dir === '/' ? `/${name}` : `${dir}/${name}`
}

/**
 * `relativeOf(root, candidate)` when `candidate` is `root` or lies below it,
 * by comparing strings; `undefined` otherwise (or off POSIX), for the caller
 * to fall back on `path.relative`. Only for paths known to be normalised
 * and absolute (`path.resolve`, `realpath`, {@link childOf} of those):
 * `path.relative` resolves both sides again, which a path tool paid two or
 * three times per call.
 */
function relativeBelow(root: string, candidate: string): string | undefined {
  if (path.sep !== '/') return undefined
  if (candidate === root) return '.'
  if (root === '/') return candidate.length > 1 && candidate.charCodeAt(0) === 47 ? candidate.slice(1) : undefined
  return candidate.length > root.length + 1 && candidate.charCodeAt(root.length) === 47 && candidate.startsWith(root) ? candidate.slice(root.length + 1) : undefined
}

/**
 * The path of `absolute` relative to `root`, `.` for the root itself.
 *
 * @param root - The real root.
 * @param absolute - A path inside it.
 * @returns The relative path.
 * @internal
 */
export function relativeOf(root: string, absolute: string): string {
  return path.relative(root, absolute) || '.'
}

function pathEscape(input: string, why: string): E_TOOL_PATH_ESCAPE {
  return new E_TOOL_PATH_ESCAPE(`${JSON.stringify(input)} ${why}; only paths inside the sandbox root are allowed`, {
    details: { path: input },
  })
}
