/**
 * A path resolution handed from the permission gate to the handler of the
 * same run, so a gated `read` resolves its path once instead of twice.
 *
 * @remarks
 * The key is the run's call object (the executor makes one per run and gives
 * the same object to the gate and to the handler), so a resolution never
 * reaches another call or another run of the same call. It is taken once.
 * It also keeps the handler to the file the gate judged: the handler opens
 * the resolved path with `O_NOFOLLOW` and refuses a descriptor whose real
 * path is not exactly the judged one, or a fresh resolution that leads
 * elsewhere (a symlink or directory swapped in between decision and open).
 *
 * @module
 */
import type { ResolvedPath } from './paths.js'

const shared = new WeakMap<object, ResolvedPath>()

/**
 * Offer a resolution to the handler of this run.
 *
 * @param run - The run's call object (what the gate was given).
 * @param resolved - A resolution made just now (its target may be missing).
 * @internal
 */
export function shareResolution(run: object, resolved: ResolvedPath): void {
  shared.set(run, resolved)
}

/**
 * Take the resolution the gate made for this run, when it is of the same
 * path. The caller checks that it was made inside its own root
 * (`resolved.root`).
 *
 * @param run - The handler's call info (the same object the gate was given).
 * @param input - The path argument as the handler has it.
 * @returns The resolution, or `undefined` (none, or of another path).
 * @internal
 */
export function takeSharedResolution(run: object, input: string): ResolvedPath | undefined {
  const resolved = shared.get(run)
  if (resolved === undefined) return undefined
  shared.delete(run)
  return resolved.input === input ? resolved : undefined
}
