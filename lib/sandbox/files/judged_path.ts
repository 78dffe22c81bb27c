/**
 * A path as a permission gate judged it, carried to the handler of the same
 * run on the call itself (`call.verdict.judged`, by argument name): the
 * handler then acts on exactly that file, or refuses.
 *
 * @remarks
 * The call object is made per run and given to the gate and then to the
 * handler, so a judged path never reaches another call or another run of
 * the same call.
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
import { E_TOOL_PATH_ESCAPE } from '../../exceptions.js'
import { swappedSinceResolved } from './open_inside.js'
import type { PathScope, ResolvedPath } from './paths.js'

/**
 * A path a permission gate judged for one run. Only a real instance (made by
 * its constructor, not a look-alike object) is taken by a handler.
 *
 * @internal
 */
export class JudgedPath {
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
  readonly file: { readonly dev: number; readonly ino: number } | undefined
  // A brand no copy of the prototype carries: `#judged in value` is true only for what this constructor made.
  readonly #judged = true

  /**
   * @param resolution - The resolution the decision was made on.
   * @param singleName - Whether a file with other names must be refused.
   * @param file - The file an approver allowed knowing it has several names.
   */
  constructor(resolution: ResolvedPath, singleName: boolean, file?: { readonly dev: number; readonly ino: number }) {
    this.resolution = resolution
    this.singleName = singleName
    this.file = file === undefined ? undefined : Object.freeze({ dev: file.dev, ino: file.ino })
    Object.freeze(this)
  }

  /**
   * Whether `value` was made by this class.
   *
   * @param value - Anything.
   * @returns Whether it is a {@link JudgedPath}.
   */
  static is(value: unknown): value is JudgedPath {
    return typeof value === 'object' && value !== null && #judged in value && (value as JudgedPath).#judged
  }
}

/** What a handler's call info carries of the gate's verdict (a structural view of `ToolCallInfo`). */
export interface JudgedCall {
  /** The gate's verdict, when a gate ran. */
  readonly verdict?: { readonly judged?: ReadonlyMap<string, object> | undefined } | undefined
}

/**
 * The path the gate judged for this run's argument `argument`, when it is a
 * {@link JudgedPath} of the same input; the caller checks that it was made
 * inside its own root (`resolution.root`), or uses {@link judgedPathIn}
 * which does. Synchronous: a call without a gate pays no extra await.
 *
 * @param call - The handler's call info.
 * @param argument - The argument's name (the tool's `path` or `searchRoot` role).
 * @param input - The argument's value as the handler has it.
 * @returns The judged path, or `undefined` (none, or of another value).
 * @internal
 */
export function judgedPathOf(call: JudgedCall, argument: string, input: string): JudgedPath | undefined {
  const judged = call.verdict?.judged?.get(argument)
  if (!JudgedPath.is(judged)) return undefined
  return judged.resolution.input === input ? judged : undefined
}

/**
 * {@link judgedPathOf}, kept only when it was made inside `scope`'s root (a
 * gate configured with another root judged another tree).
 *
 * @param call - The handler's call info.
 * @param argument - The argument's name.
 * @param input - The argument's value as the handler has it.
 * @param scope - The handler's sandbox.
 * @returns The judged path, or `undefined`.
 * @internal
 */
export async function judgedPathIn(call: JudgedCall, argument: string, input: string, scope: PathScope): Promise<JudgedPath | undefined> {
  const judged = judgedPathOf(call, argument, input)
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
