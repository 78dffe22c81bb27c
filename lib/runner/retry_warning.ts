/**
 * The message a retried attempt sends the model before it acts: which
 * non-idempotent side-effect tools earlier attempts already ran.
 *
 * @module
 */
import type { ToolCallRow } from './journal.js'

/**
 * Build the retry warning.
 *
 * @param rows - Journal rows of earlier attempts, oldest first.
 * @param attempt - The attempt about to run.
 * @returns The message text: one line per call (tool, redacted args, time, attempt, outcome).
 */
export function retryWarning(rows: readonly ToolCallRow[], attempt: number): string {
  const lines = rows.map((row) => {
    const when = new Date(row.startedAtMs).toISOString()
    const outcome = row.status === 'success' ? 'succeeded' : 'failed'
    return `- ${row.toolName} ${row.inputJson} at ${when} (attempt ${row.attempt}, ${outcome})`
  })
  return [
    `This is attempt ${attempt} of this task. Earlier attempts already called these tools, which have side effects ` +
      'and are not safe to repeat:',
    ...lines,
    'Before calling any of them again, check whether its effect already happened, and do not repeat it if so.',
  ].join('\n')
}
