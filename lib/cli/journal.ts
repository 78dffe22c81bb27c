/**
 * `toolsmith journal migrate`: create (or upgrade) the PostgreSQL journal's
 * schema; `toolsmith journal audit`: the permission decisions a journal recorded;
 * `toolsmith journal show`: the rows it holds.
 *
 * @module
 */
import { E_INVALID_OPTIONS } from '../exceptions.js'
import { runJournalAudit } from './journal_audit.js'
import { runJournalShow } from './journal_show.js'
import { PostgresJournal, parsePostgresUrl, postgresJournalMigration } from '../journal/postgres_journal.js'
import { writeOut, type CliIo } from './io.js'
import { JOURNAL_URL_ENV } from './journal_option.js'
import type { ParsedCommandLine } from './options.js'
import { CliUsageError } from './usage.js'

/**
 * Run `toolsmith journal migrate --postgres URL [--schema S] [--print-sql]`,
 * or `toolsmith journal audit|show (--jsonl FILE | --sqlite FILE | --postgres URL) [--run ID] [--json]`.
 *
 * @param parsed - The parsed command line.
 * @param io - The streams.
 * @returns 0 when the schema exists afterwards.
 * @throws {@link CliUsageError} for a missing subcommand or URL, or one that is not PostgreSQL's; `E_JOURNAL_UNAVAILABLE`
 *   (printed in one line, without the password) when the database refuses.
 */
export async function runJournal(parsed: ParsedCommandLine, io: CliIo): Promise<number> {
  const [sub, ...rest] = parsed.args
  if (sub !== 'migrate' && sub !== 'audit' && sub !== 'show') {
    throw new CliUsageError(
      sub === undefined ? 'journal needs a subcommand: migrate, audit or show' : `Unknown journal subcommand "${sub}"; expected migrate, audit or show`,
      'journal',
    )
  }
  if (rest.length > 0) throw new CliUsageError(`Unexpected argument "${rest[0]}"`, 'journal')
  const only = sub === 'migrate' ? ['jsonl', 'sqlite', 'run', 'json'] : ['print-sql']
  for (const option of only) {
    const value = parsed[option === 'print-sql' ? 'printSql' : (option as 'jsonl' | 'sqlite' | 'run' | 'json')]
    if (value !== undefined && value !== false) throw new CliUsageError(`Option "--${option}" does not apply to "journal ${sub}"`, 'journal')
  }
  if (sub === 'audit') return await runJournalAudit(parsed, io, process.env[JOURNAL_URL_ENV])
  if (sub === 'show') return await runJournalShow(parsed, io, process.env[JOURNAL_URL_ENV])
  const schema = parsed.schema ?? 'toolsmith'
  if (parsed.printSql) {
    // Checked like the journal checks it, without connecting.
    await new PostgresJournal('postgres://localhost/unused', { schema }).close()
    const statements = postgresJournalMigration(schema)
    await writeOut(io.stdout, `${statements.map((s) => `${s};`).join('\n\n')}\n`)
    return 0
  }
  const url = parsed.postgres ?? process.env[JOURNAL_URL_ENV]
  if (!url) throw new CliUsageError(`journal migrate needs --postgres URL (or ${JOURNAL_URL_ENV} in the environment)`, 'journal')
  let target: string
  try {
    ;({ target } = parsePostgresUrl(url))
  } catch (error) {
    // Not a PostgreSQL URL: the command line is wrong, not the database.
    if (error instanceof E_INVALID_OPTIONS) throw new CliUsageError(error.message, 'journal')
    throw error
  }
  const journal = new PostgresJournal(url, { schema })
  try {
    await journal.migrate()
  } finally {
    await journal.close()
  }
  await writeOut(io.stdout, `Journal schema "${schema}" is ready at ${target} (tables tool_calls, tool_claims, turn_checkpoints, turn_checkpoint_deltas)\n`)
  return 0
}
