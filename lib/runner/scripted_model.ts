/**
 * `scriptedModel`: a model callback that plays back a script, for tests,
 * demos and docs: no API key, no network.
 *
 * @module
 */
import { E_INVALID_OPTIONS } from '../exceptions.js'
import type { ModelRequest, ModelResponse, TurnModel } from '../providers/messages.js'

/** One step of a script: a fixed response, or a function of the request (to react to tool results). */
export type ScriptedStep = ModelResponse | ((request: ModelRequest) => ModelResponse | Promise<ModelResponse>)

/**
 * A model that answers step `i` with `steps[i]`.
 *
 * @remarks
 * Once the script runs out it answers with `{ text: '' }`, which ends the
 * turn. A function step sees the whole request, so it can read the last tool
 * message (`request.messages.at(-1)`) and decide what to do next.
 *
 * @param steps - The responses, in order.
 * @returns A {@link TurnModel}.
 * @throws `E_INVALID_OPTIONS` when `steps` is not an array.
 *
 * @example
 * ```ts
 * const model = scriptedModel([
 *   { toolCalls: [{ id: 'c1', name: 'read', args: { path: 'README.md' } }] },
 *   (request) => ({ text: `The README has ${request.messages.at(-1)!.content.length} characters.` }),
 * ])
 * ```
 */
export function scriptedModel(steps: readonly ScriptedStep[]): TurnModel {
  if (!Array.isArray(steps)) throw new E_INVALID_OPTIONS('scriptedModel(steps) needs an array of steps')
  let next = 0
  return async (request) => {
    const step = steps[next++]
    if (step === undefined) return { text: '' }
    return typeof step === 'function' ? await step(request) : structuredClone(step)
  }
}
