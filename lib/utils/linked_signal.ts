/**
 * `linkSignals`: one signal following several, unlinked by hand once its
 * user is done.
 *
 * @module
 */

/** A signal linked to its sources until {@link LinkedSignal.release}. */
export interface LinkedSignal {
  /** Aborts, with the source's reason, as soon as any source does (or at once if one already had). */
  readonly signal: AbortSignal
  /** Unlink from every source; the signal stays as it is. Idempotent. */
  release(): void
}

/** The live links of one source, behind the source's single `abort` listener. */
interface Fanout {
  readonly links: Set<AbortController>
  readonly onAbort: () => void
}

const fanouts = new WeakMap<AbortSignal, Fanout>()

/**
 * Link `sources` into one signal until `release()`: the deterministic form
 * of `AbortSignal.any`, for a caller that knows when a call is over (a
 * server, once the call is answered).
 *
 * @remarks
 * A source carries **one** `abort` listener however many links are live on
 * it (so 32 calls in flight raise no `MaxListenersExceededWarning`), and the
 * listener is removed with the last link: once every call has been released
 * the source has no listener and holds nothing of them. `AbortSignal.any`
 * instead leaves a `WeakRef` per composite on every source that Node 20
 * never removes (nodejs/node#55351), ≈ 50 bytes per call for as long as a
 * server's signal lives.
 *
 * @param sources - The signals to follow.
 * @returns The linked signal and its `release`.
 */
export function linkSignals(sources: readonly AbortSignal[]): LinkedSignal {
  const controller = new AbortController()
  const aborted = sources.find((source) => source.aborted)
  if (aborted !== undefined) {
    controller.abort(aborted.reason)
    return { signal: controller.signal, release: () => undefined }
  }
  for (const source of sources) fanoutOf(source).links.add(controller)
  let released = false
  return {
    signal: controller.signal,
    release: () => {
      if (released) return
      released = true
      for (const source of sources) unlink(source, controller)
    },
  }
}

function fanoutOf(source: AbortSignal): Fanout {
  let fanout = fanouts.get(source)
  if (fanout === undefined) {
    const links = new Set<AbortController>()
    const onAbort = (): void => {
      fanouts.delete(source)
      const live = [...links]
      links.clear()
      for (const link of live) link.abort(source.reason)
    }
    fanout = { links, onAbort }
    fanouts.set(source, fanout)
    source.addEventListener('abort', onAbort, { once: true })
  }
  return fanout
}

function unlink(source: AbortSignal, controller: AbortController): void {
  const fanout = fanouts.get(source)
  if (fanout === undefined || !fanout.links.delete(controller) || fanout.links.size > 0) return
  source.removeEventListener('abort', fanout.onAbort)
  fanouts.delete(source)
}
