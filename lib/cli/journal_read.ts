/**
 * Opening a journal for reading, for `toolsmith journal audit` and
 * `toolsmith journal show`: `--jsonl FILE`, `--sqlite FILE` or `--postgres URL`
 * (default `TOOLSMITH_JOURNAL_URL`), checked so that reading never creates a
 * file, never waits on a FIFO, and says in one line what is not a journal.
 *
 * @module
 */
import { statSync } from 'node:fs'
import { resolve } from 'node:path'
import { E_INVALID_OPTIONS, E_JOURNAL_UNAVAILABLE } from '../exceptions.js'
import type { ToolCallJournal, ToolCallRow } from '../journal/contract.js'
import { JsonlJournal } from '../journal/jsonl_journal.js'
import { PostgresJournal } from '../journal/postgres_journal.js'
import { SqliteJournal, hasSqliteJournal } from '../journal/sqlite_journal.js'
import { nonRegularKind } from '../utils/file_kind.js'
import type { ParsedCommandLine } from './options.js'
import { CliUsageError } from './usage.js'

/** A journal file named on the command line, checked. */
interface JournalFile {
  readonly path: string
  readonly kind: 'JSONL' | 'SQLite'
}

/** A journal opened for reading, with its rows already listed. */
export interface ReadJournal {
  /** The journal (all three stores also keep turn checkpoints, which `journal show` reads). */
  readonly journal: ToolCallJournal
  /** Its rows, of `--run` only when given, in journal order. */
  readonly rows: ToolCallRow[]
  /**
   * Map an error met while reading on (a checkpoint read) as the opening's
   * errors are mapped: a file that is not a journal becomes a usage error.
   */
  readonly explain: (error: unknown) => unknown
  /** Close it (a PostgreSQL pool, a SQLite handle). */
  close(): Promise<void>
}

/**
 * Open the journal of a `journal audit` or `journal show` command line and
 * list its rows.
 *
 * @param parsed - `--jsonl`, `--sqlite`, `--postgres`, `--schema`, `--run`.
 * @param defaultUrl - The PostgreSQL URL from the environment, used when no store is named.
 * @param sub - The subcommand, for messages.
 * @returns The open journal and its rows; the caller closes it.
 * @throws {@link CliUsageError} when no store or several are named, for a journal file
 *   that does not exist, is not a regular file (a directory, FIFO, socket or device:
 *   refused before it is opened, so a FIFO cannot block the command) or is not a
 *   journal, and for a URL that is not PostgreSQL's; `E_JOURNAL_UNAVAILABLE` when
 *   PostgreSQL refuses or a file cannot be read.
 */
export async function readJournal(parsed: ParsedCommandLine, defaultUrl: string | undefined, sub: string): Promise<ReadJournal> {
  const named = [parsed.jsonl && '--jsonl', parsed.sqlite && '--sqlite', parsed.postgres && '--postgres'].filter(Boolean)
  if (named.length > 1) throw new CliUsageError(`journal ${sub} reads one journal; got ${named.join(' and ')}`, 'journal')
  const file = journalFile(parsed)
  let journal: ToolCallJournal | undefined
  let rows: ToolCallRow[]
  try {
    journal = openJournal(parsed, defaultUrl, file, sub)
    rows = await journal.list(parsed.run === undefined ? {} : { runId: parsed.run })
  } catch (error) {
    if (journal !== undefined) await closeJournal(journal).catch(() => undefined)
    throw notAJournal(error, file)
  }
  // A crash can cut a JSONL journal's last line, so unreadable lines are
  // skipped; a file none of whose lines is a row is not a journal at all.
  if (file?.kind === 'JSONL' && rows.length === 0 && statSync(file.path).size > 0 && parsed.run === undefined) {
    await closeJournal(journal)
    throw new CliUsageError(`${file.path} is not a JSONL journal: none of its lines is a journal row`, 'journal')
  }
  const opened = journal
  return { journal: opened, rows, explain: (error) => notAJournal(error, file), close: () => closeJournal(opened) }
}

/** The journal file the command line names, checked: it exists and is a regular file. */
function journalFile(parsed: ParsedCommandLine): JournalFile | undefined {
  for (const [file, kind] of [[parsed.jsonl, 'JSONL'], [parsed.sqlite, 'SQLite']] as const) {
    if (file === undefined) continue
    if (file === '') throw new CliUsageError(`--${kind === 'JSONL' ? 'jsonl' : 'sqlite'} needs a journal file`, 'journal')
    const path = resolve(file)
    // Reading must not create: a mistyped path would otherwise read a new, empty journal.
    const stats = statSync(path, { throwIfNoEntry: false })
    if (stats === undefined) throw new CliUsageError(`No ${kind} journal at ${path}`, 'journal')
    // Looked at before anything opens it: reading a FIFO would wait for a writer forever.
    const what = nonRegularKind(stats)
    if (what !== undefined) throw new CliUsageError(`${path} is ${what}, not a ${kind} journal`, 'journal')
    return { path, kind }
  }
  return undefined
}

function openJournal(parsed: ParsedCommandLine, defaultUrl: string | undefined, file: JournalFile | undefined, sub: string): ToolCallJournal {
  if (file?.kind === 'JSONL') return new JsonlJournal(file.path)
  if (file?.kind === 'SQLite') {
    // Looked at read-only first: opening a journal creates its tables, in any database.
    if (!hasSqliteJournal(file.path)) throw new CliUsageError(`${file.path} is not a SQLite journal: it has no tool_calls table`, 'journal')
    return new SqliteJournal(file.path)
  }
  const url = parsed.postgres ?? defaultUrl
  if (!url) throw new CliUsageError(`journal ${sub} needs a journal: --jsonl FILE, --sqlite FILE or --postgres URL`, 'journal')
  return new PostgresJournal(url, { schema: parsed.schema ?? 'toolsmith' })
}

/**
 * What the command line got wrong, as a usage error: a file SQLite cannot
 * read as a database, or a URL that is not PostgreSQL's. Anything else (the
 * database refusing, a read failing) is passed on as it is.
 */
function notAJournal(error: unknown, file: JournalFile | undefined): unknown {
  const code = (error as { code?: unknown } | null)?.code
  if (file?.kind === 'SQLite' && typeof code === 'string' && /^SQLITE_(NOTADB|CANTOPEN|CORRUPT)/.test(code)) {
    return new CliUsageError(`${file.path} is not a SQLite journal (${code}: ${(error as Error).message})`, 'journal')
  }
  if (error instanceof E_INVALID_OPTIONS) return new CliUsageError(error.message, 'journal')
  if (file !== undefined && typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
    // A file that cannot be read (EACCES…): say which, in words, not as a bare errno.
    return new E_JOURNAL_UNAVAILABLE(`Cannot read the ${file.kind} journal ${file.path}: ${(error as Error).message.replace(/^[A-Z]+: /, '')}`, { cause: error })
  }
  return error
}

async function closeJournal(journal: ToolCallJournal): Promise<void> {
  await (journal as { close?: () => unknown }).close?.()
}
