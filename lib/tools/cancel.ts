/**
 * Cancellation checks shared by the built-in tools.
 *
 * @module
 */
import { E_TOOL_ABORTED } from '../exceptions.js'

/**
 * Throw `TOOL_ABORTED` when `signal` has fired: called before a tool makes
 * a change it could not take back.
 *
 * @param signal - The call's abort signal.
 * @param what - What was about to happen, for the message.
 * @throws {@link toolsmith/core!E_TOOL_ABORTED} with the signal's reason as cause.
 * @internal
 */
export function assertNotAborted(signal: AbortSignal, what: string): void {
  if (!signal.aborted) return
  throw new E_TOOL_ABORTED(`The call was cancelled before ${what}; nothing was changed`, {
    cause: signal.reason,
    details: { exitCode: null, signal: null, output: '' },
  })
}
