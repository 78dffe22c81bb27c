/**
 * `anySignal`: `AbortSignal.any` without Node 20's per-call retention.
 *
 * @module
 */

/** What one source signal knows of the composites that follow it. */
interface Fanout {
  /** Weak, so a finished call's composite can be collected while the source lives on. */
  readonly dependants: Set<WeakRef<AbortSignal>>
  /** Sweep dead refs when the set reaches this size (doubling keeps it amortised O(1) per add). */
  sweepAt: number
}

const MIN_SWEEP = 64
const fanouts = new WeakMap<AbortSignal, Fanout>()
/** A composite's controller lives exactly as long as its signal (an ephemeron), so no one else holds it. */
const controllers = new WeakMap<AbortSignal, AbortController>()

/**
 * A signal that aborts, with the first source's reason, as soon as any of
 * `signals` does, like `AbortSignal.any`.
 *
 * @remarks
 * Why not `AbortSignal.any`: on Node 20 every composite it makes leaves a
 * `WeakRef` on each source that is never removed (nodejs/node#55351), ≈ 50
 * bytes per call retained for as long as the source lives, so a server that
 * links each request to its long-lived signal grows without bound (≈ 50 MiB
 * per million calls). Here each source carries **one** `abort` listener,
 * whatever the number of composites, and a set of weak references to them
 * that is swept of collected ones whenever it doubles: its size stays
 * proportional to the composites still alive. A composite that aborts is
 * removed from its other sources at once.
 *
 * @param signals - The sources; an already aborted one aborts the result at once.
 * @returns The composite signal.
 */
export function anySignal(signals: readonly AbortSignal[]): AbortSignal {
  const controller = new AbortController()
  const aborted = signals.find((signal) => signal.aborted)
  if (aborted !== undefined) {
    controller.abort(aborted.reason)
    return controller.signal
  }
  const composite = controller.signal
  controllers.set(composite, controller)
  const ref = new WeakRef(composite)
  for (const signal of signals) follow(signal, ref)
  composite.addEventListener(
    'abort',
    () => {
      for (const signal of signals) fanouts.get(signal)?.dependants.delete(ref)
    },
    { once: true },
  )
  return composite
}

function follow(source: AbortSignal, ref: WeakRef<AbortSignal>): void {
  let fanout = fanouts.get(source)
  if (fanout === undefined) {
    const created: Fanout = { dependants: new Set(), sweepAt: MIN_SWEEP }
    fanout = created
    fanouts.set(source, created)
    source.addEventListener(
      'abort',
      () => {
        const live = [...created.dependants]
        created.dependants.clear()
        for (const dependant of live) {
          const signal = dependant.deref()
          if (signal !== undefined) controllers.get(signal)?.abort(source.reason)
        }
      },
      { once: true },
    )
  }
  fanout.dependants.add(ref)
  if (fanout.dependants.size >= fanout.sweepAt) {
    for (const dependant of fanout.dependants) if (dependant.deref() === undefined) fanout.dependants.delete(dependant)
    fanout.sweepAt = Math.max(MIN_SWEEP, fanout.dependants.size * 2)
  }
}
