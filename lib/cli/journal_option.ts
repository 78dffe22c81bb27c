/**
 * `--journal SPEC` of `toolsmith call` and `toolsmith mcp`: the journal every
 * call is recorded in (and claimed in, when the call has a stable identity).
 *
 * @module
 */
import { statSync } from 'node:fs'
import { extname, resolve } from 'node:path'
import { E_INVALID_OPTIONS } from '../exceptions.js'
import type { ToolCallJournal } from '../journal/contract.js'
import { JsonlJournal } from '../journal/jsonl_journal.js'
import { PostgresJournal } from '../journal/postgres_journal.js'
import { SqliteJournal } from '../journal/sqlite_journal.js'
import { nonRegularKind } from '../utils/file_kind.js'
import { CliUsageError } from './usage.js'

/**
 * The environment variable read when `--postgres` (or `--journal postgres`)
 * gives no URL: it keeps the password off the command line. Defined here, not
 * in journal.ts, so `mcp` and `call` do not load the `journal` command.
 */
export const JOURNAL_URL_ENV = 'TOOLSMITH_JOURNAL_URL'

/** File name endings read as a SQLite journal; every other file is JSONL unless prefixed `sqlite:`. */
const SQLITE_EXTENSIONS = new Set(['.sqlite', '.sqlite3', '.db'])

/** A journal the command opened, and how to close it when the command ends. */
export interface CommandJournal {
  /** The journal. */
  readonly journal: ToolCallJournal
  /** What it is, for messages: `SQLite journal /tmp/calls.sqlite`. */
  readonly label: string
  /** Close it (a PostgreSQL pool, a SQLite handle). */
  close(): Promise<void>
}

/**
 * Open the journal `--journal` names.
 *
 * @remarks
 * `SPEC` is `postgres://…` or `postgresql://…` (a PostgreSQL journal whose
 * tables `toolsmith journal migrate` made; `--schema` picks the schema), the
 * word `postgres` (the URL is read from `TOOLSMITH_JOURNAL_URL`, keeping the
 * password off the command line), a file ending in `.sqlite`, `.sqlite3` or
 * `.db` (SQLite), or any other file (JSONL); `sqlite:FILE` and `jsonl:FILE`
 * say which whatever the name. A file is created when missing; one that
 * exists must be a regular file.
 *
 * @param spec - The option's value.
 * @param schema - `--schema`, for PostgreSQL.
 * @param command - The command, for usage errors.
 * @param env - The environment (`TOOLSMITH_JOURNAL_URL`).
 * @returns The open journal.
 * @throws {@link CliUsageError} for a spec that names nothing usable (a directory, a FIFO,
 *   a URL that is not PostgreSQL's, `postgres` with the variable unset, `--schema` without PostgreSQL).
 */
export function openCommandJournal(
  spec: string,
  schema: string | undefined,
  command: string,
  env: NodeJS.ProcessEnv = process.env,
): CommandJournal {
  const url = spec === 'postgres' ? env[JOURNAL_URL_ENV] : /^postgres(ql)?:\/\//i.test(spec) ? spec : undefined
  if (spec === 'postgres' && !url) throw new CliUsageError(`--journal postgres reads the URL from ${JOURNAL_URL_ENV}, which is not set`, command)
  if (url !== undefined) {
    let journal: PostgresJournal
    try {
      journal = new PostgresJournal(url, schema === undefined ? {} : { schema })
    } catch (error) {
      // A malformed URL or schema name: the command line is wrong, not the database.
      if (error instanceof E_INVALID_OPTIONS) throw new CliUsageError(`--journal: ${error.message}`, command)
      throw error
    }
    return { journal, label: `PostgreSQL journal ${journal.target}`, close: () => journal.close() }
  }
  if (schema !== undefined) throw new CliUsageError('--schema applies only to a PostgreSQL journal (--journal postgres://…)', command)
  const prefixed = /^(sqlite|jsonl):(.+)$/.exec(spec)
  if (prefixed === null && /^[a-z][a-z0-9+.-]*:\/\//i.test(spec)) {
    throw new CliUsageError(`--journal takes FILE.jsonl, FILE.sqlite or a postgres:// URL, not ${spec.split('://')[0]}://…`, command)
  }
  const file = resolve(prefixed?.[2] ?? spec)
  const kind = (prefixed?.[1] ?? (SQLITE_EXTENSIONS.has(extname(file).toLowerCase()) ? 'sqlite' : 'jsonl')) as 'sqlite' | 'jsonl'
  const stats = statSync(file, { throwIfNoEntry: false })
  // Looked at before anything opens it: appending to a FIFO would wait for a reader forever.
  const what = stats === undefined ? undefined : nonRegularKind(stats)
  if (what !== undefined) throw new CliUsageError(`--journal ${file} is ${what}, not a journal file`, command)
  if (kind === 'sqlite') {
    const journal = new SqliteJournal(file)
    return { journal, label: `SQLite journal ${file}`, close: async () => journal.close() }
  }
  const journal = new JsonlJournal(file)
  return { journal, label: `JSONL journal ${file}`, close: () => journal.close() }
}

/**
 * The journal of a `call` or `mcp` command line, opened, or `undefined`
 * without `--journal`.
 *
 * @param parsed - `--journal` and `--schema`.
 * @param command - The command, for usage errors.
 * @returns The open journal, or `undefined`.
 * @throws {@link CliUsageError} as {@link openCommandJournal}, and for `--schema` without `--journal`.
 */
export function commandJournal(parsed: { journal: string | undefined; schema: string | undefined }, command: string): CommandJournal | undefined {
  if (parsed.journal !== undefined) return openCommandJournal(parsed.journal, parsed.schema, command)
  if (parsed.schema !== undefined) throw new CliUsageError('--schema applies only with --journal postgres://…', command)
  return undefined
}
