/**
 * `notifications/progress` for a running `tools/call` whose request carries
 * `_meta.progressToken`: a heartbeat, and the call's output as it arrives.
 *
 * @module
 */
import type { ProgressToken, ServerContext } from '@modelcontextprotocol/server'
import type { ToolOutputChunk } from '../../core/dispatch_context.js'
import { utf8Prefix } from '../../utils/utf8.js'

/**
 * Output is gathered this long before it is sent: a command printing line
 * by line would otherwise cost the client one notification per line.
 */
export const OUTPUT_COALESCE_MS = 50

/** Most bytes (UTF-8) of output one notification carries; the rest of a burst is counted, not sent. */
export const MAX_OUTPUT_MESSAGE_BYTES = 4096

/** The progress of one call; {@link McpCallProgress.stop} ends it. */
export interface McpCallProgress {
  /** Hears the call's output (the call context's `onToolOutput`), or `undefined` when nothing is sent. */
  readonly onToolOutput: ((chunk: ToolOutputChunk) => void) | undefined
  /** Stop the heartbeat and send the output still gathered: before the answer, so it arrives first. */
  stop(): void
}

/**
 * Start the progress of one call.
 *
 * @remarks
 * The client asked for progress, and a client that resets its timeout on it
 * (the SDK's `resetTimeoutOnProgress`) then keeps waiting for a long `bash`
 * or `grep` instead of giving up. The tools report no fraction done, so
 * `progress` counts the notifications (it must increase) and there is no
 * `total`. Every `everyMs` the `message` says how long the call has run
 * (`bash running for 2.0 s`); output a running `bash` writes is sent as it
 * arrives, gathered for {@link OUTPUT_COALESCE_MS}, as the `message` of
 * notifications of its own (at most {@link MAX_OUTPUT_MESSAGE_BYTES} bytes
 * each, cut on a character; a longer burst ends with
 * `[… N bytes not shown …]`: the result still carries the output within
 * its cap). With `everyMs`
 * `Infinity` nothing is sent at all.
 *
 * @param toolName - For the heartbeat's message.
 * @param progressToken - The request's token.
 * @param everyMs - The heartbeat's interval, or `Infinity` for no progress.
 * @param extra - The SDK's request context (its `notify` sends on this request).
 * @param outer - A listener the caller's context already has: it hears every chunk too.
 * @returns The listener to give the call, and `stop`.
 * @internal
 */
export function startCallProgress(
  toolName: string,
  progressToken: ProgressToken,
  everyMs: number,
  extra: ServerContext,
  outer?: (chunk: ToolOutputChunk) => void,
): McpCallProgress {
  if (everyMs === Number.POSITIVE_INFINITY) return { onToolOutput: outer, stop: () => undefined }
  const started = performance.now()
  let count = 0
  let gathered = ''
  let gatheredBytes = 0
  let dropped = 0
  let flushTimer: NodeJS.Timeout | undefined
  const send = (message: string): void => {
    count++
    extra.mcpReq
      .notify({ method: 'notifications/progress', params: { progressToken, progress: count, message } })
      .catch(() => undefined) // the connection closed: the call's own answer fails the same way
  }
  const flush = (): void => {
    flushTimer = undefined
    if (gathered === '') return
    send(dropped === 0 ? gathered : `${gathered}\n[… ${dropped} bytes not shown …]`)
    gathered = ''
    gatheredBytes = 0
    dropped = 0
  }
  const heartbeat = setInterval(() => {
    const seconds = (performance.now() - started) / 1000
    send(`${toolName} running for ${seconds.toFixed(seconds < 10 ? 1 : 0)} s`)
  }, everyMs)
  heartbeat.unref()
  const onToolOutput = (chunk: ToolOutputChunk): void => {
    outer?.(chunk)
    const bytes = Buffer.byteLength(chunk.text)
    const room = MAX_OUTPUT_MESSAGE_BYTES - gatheredBytes
    if (bytes <= room) {
      gathered += chunk.text
      gatheredBytes += bytes
    } else {
      const kept = room > 0 ? utf8Prefix(chunk.text, room) : ''
      const keptBytes = Buffer.byteLength(kept)
      gathered += kept
      gatheredBytes += keptBytes
      dropped += bytes - keptBytes
    }
    if (flushTimer === undefined) {
      flushTimer = setTimeout(flush, OUTPUT_COALESCE_MS)
      flushTimer.unref()
    }
  }
  return {
    onToolOutput,
    stop: () => {
      clearInterval(heartbeat)
      if (flushTimer !== undefined) clearTimeout(flushTimer)
      flush()
    },
  }
}
