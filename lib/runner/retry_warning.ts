/**
 * The message a retried attempt sends the model before it acts: which
 * non-idempotent side-effect tools earlier attempts already ran.
 *
 * @module
 */
import type { ToolCallRow } from '../journal/contract.js'

/** Options of {@link retryWarning}. */
export interface RetryWarningOptions {
  /**
   * The journal claims these calls (a claiming journal with a run identity):
   * the same call with the same arguments is answered from the journal
   * instead of running again, and the warning says so.
   *
   * @defaultValue false
   */
  replays?: boolean
}

/**
 * Build the retry warning.
 *
 * @param rows - Journal rows of earlier attempts, oldest first.
 * @param attempt - The attempt about to run.
 * @param options - Whether the calls replay; see {@link RetryWarningOptions}.
 * @returns The message text: one line per call (tool, redacted args, time, attempt, outcome).
 */
export function retryWarning(rows: readonly ToolCallRow[], attempt: number, options: RetryWarningOptions = {}): string {
  const lines = rows.map((row) => {
    const when = new Date(row.startedAtMs).toISOString()
    const outcome = row.status === 'success' ? 'succeeded' : 'failed'
    return `- ${row.toolName} ${row.inputJson} at ${when} (attempt ${row.attempt}, ${outcome})`
  })
  if (options.replays === true) {
    return [
      `This is attempt ${attempt} of this task. Earlier attempts already called these tools, which have side effects:`,
      ...lines,
      'Calling one of them again with exactly the same arguments does not repeat it: you get the recorded result. ' +
        'A call with different arguments runs anew, so check whether its effect already happened before you make it.',
    ].join('\n')
  }
  return [
    `This is attempt ${attempt} of this task. Earlier attempts already called these tools, which have side effects ` +
      'and are not safe to repeat:',
    ...lines,
    'Before calling any of them again, check whether its effect already happened, and do not repeat it if so.',
  ].join('\n')
}
