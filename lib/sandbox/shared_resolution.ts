/**
 * A path as a permission gate judged it, handed to the handler of the same
 * run: the handler then acts on exactly that file, or refuses.
 *
 * @remarks
 * The key is the run's call object (the executor makes one per run and gives
 * the same object to the gate and to the handler), so a judged path never
 * reaches another call or another run of the same call. It is taken once.
 *
 * A handler that takes one holds itself to it: what it opens must be the
 * judged file (its descriptor's real path is exactly the judged path), and
 * a fresh resolution that leads elsewhere (a symlink or directory swapped
 * in between decision and open) is refused. Where the policy has rules that
 * can refuse a path, a regular file with more than one name (hard link) is
 * refused too, since a rule sees only the name it was given.
 *
 * @module
 */
import type { Stats } from 'node:fs'
import { E_TOOL_PATH_ESCAPE } from '../exceptions.js'
import { swappedSinceResolved } from './files.js'
import type { PathScope, ResolvedPath } from './paths.js'

/** A path a permission gate judged for one run. @internal */
export interface JudgedPath {
  /** The gate's resolution (its target may be missing; its `stats` may be minutes old after an approval). */
  readonly resolution: ResolvedPath
  /**
   * The policy has rules that can refuse a path of this tool: a regular
   * file with other names (hard links) than the judged one must not be
   * acted on, whatever the gate saw.
   */
  readonly singleName: boolean
  /**
   * Set when an approver allowed this very file knowing it has several
   * names: what is opened must be this file (device and inode), whatever
   * its name count.
   */
  readonly file?: { readonly dev: number; readonly ino: number } | undefined
}

const shared = new WeakMap<object, JudgedPath>()

/**
 * Hand the path the gate judged (and allowed) to the handler of this run.
 *
 * @param run - The run's call object (what the gate was given).
 * @param judged - The resolution the decision was made on, and whether hard links must be refused.
 * @internal
 */
export function shareResolution(run: object, judged: JudgedPath): void {
  shared.set(run, judged)
}

/**
 * Take the path the gate judged for this run, when it is of the same path
 * argument; the caller checks that it was made inside its own root
 * (`resolution.root`), or uses {@link takeJudgedPath} which does.
 *
 * @param run - The handler's call info (the same object the gate was given).
 * @param input - The path argument as the handler has it.
 * @returns The judged path, or `undefined` (none, or of another path).
 * @internal
 */
export function takeSharedResolution(run: object, input: string): JudgedPath | undefined {
  const judged = shared.get(run)
  if (judged === undefined) return undefined
  shared.delete(run)
  return judged.resolution.input === input ? judged : undefined
}

/**
 * {@link takeSharedResolution}, kept only when it was made inside `scope`'s
 * root (a gate configured with another root judged another tree).
 *
 * @param run - The handler's call info.
 * @param input - The path argument as the handler has it.
 * @param scope - The handler's sandbox.
 * @returns The judged path, or `undefined`.
 * @internal
 */
export async function takeJudgedPath(run: object, input: string, scope: PathScope): Promise<JudgedPath | undefined> {
  const judged = takeSharedResolution(run, input)
  if (judged === undefined) return undefined
  return judged.resolution.root === (await scope.realRoot()) ? judged : undefined
}

/**
 * Refuse a fresh resolution that leads somewhere else than the judged one.
 *
 * @param judged - What the gate judged, if anything.
 * @param resolved - The handler's own resolution of the same path argument.
 * @throws `TOOL_PATH_ESCAPE` when the path now names another file.
 * @internal
 */
export function assertAsJudged(judged: JudgedPath | undefined, resolved: ResolvedPath): void {
  if (judged !== undefined && resolved.absolute !== judged.resolution.absolute) throw swappedSinceResolved(resolved)
}

/**
 * Refuse an opened file that is not the judged one by identity: another
 * file than the one an approver allowed (see {@link JudgedPath.file}), or a
 * file with other names than the judged one where the policy has rules that
 * could refuse one of them (see {@link JudgedPath.singleName}).
 *
 * @param judged - What the gate judged, if anything.
 * @param input - The path argument, for the message.
 * @param stats - The `fstat` of what the handler opened.
 * @throws `TOOL_PATH_ESCAPE` for another file, or a regular file with more than one link.
 * @internal
 */
export function assertSingleName(judged: JudgedPath | undefined, input: string, stats: Stats): void {
  if (judged === undefined) return
  if (judged.file !== undefined) {
    if (stats.dev === judged.file.dev && stats.ino === judged.file.ino) return
    throw new E_TOOL_PATH_ESCAPE(`${JSON.stringify(input)} was replaced by another file after it was approved, so toolsmith left it alone; call again to be asked about the new file`, {
      details: { path: input },
    })
  }
  if (!judged.singleName || !stats.isFile() || stats.nlink <= 1) return
  throw new E_TOOL_PATH_ESCAPE(
    `${JSON.stringify(input)} has ${stats.nlink} names (hard links) now; a permission rule judges a file by the one name it is given, ` +
      'so a file with other names is not read or changed under this policy. Use a file with a single name.',
    { details: { path: input, nlink: stats.nlink } },
  )
}
