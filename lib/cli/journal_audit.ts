/**
 * `toolsmith journal audit`: the permission decisions recorded in a journal,
 * one line per call, and a count of allowed, approved, remembered and
 * refused calls.
 *
 * @module
 */
import { statSync } from 'node:fs'
import { resolve } from 'node:path'
import { E_INVALID_OPTIONS, E_JOURNAL_UNAVAILABLE } from '../exceptions.js'
import type { ToolCallJournal, ToolCallPermission, ToolCallRow } from '../journal/contract.js'
import { JsonlJournal } from '../journal/jsonl_journal.js'
import { PostgresJournal } from '../journal/postgres_journal.js'
import { SqliteJournal, hasSqliteJournal } from '../journal/sqlite_journal.js'
import { nonRegularKind } from '../utils/file_kind.js'
import { writeOut, type CliIo } from './io.js'
import type { ParsedCommandLine } from './options.js'
import { CliUsageError } from './usage.js'

/** Longest input shown on a line of the text report, in characters. */
const INPUT_CHARS = 80

/**
 * Run `toolsmith journal audit (--jsonl FILE | --sqlite FILE | --postgres URL) [--run ID] [--json]`.
 *
 * @param parsed - The parsed command line.
 * @param io - The streams.
 * @param defaultUrl - The PostgreSQL URL from the environment, used when no store is named.
 * @returns 0 once the report is printed.
 * @throws {@link CliUsageError} when no store or several are named, for a journal file
 *   that does not exist, is not a regular file (a directory, FIFO, socket or device:
 *   refused before it is opened, so a FIFO cannot block the command) or is not a
 *   journal, and for a URL that is not
 *   PostgreSQL's; `E_JOURNAL_UNAVAILABLE` when PostgreSQL refuses.
 */
export async function runJournalAudit(parsed: ParsedCommandLine, io: CliIo, defaultUrl: string | undefined): Promise<number> {
  const named = [parsed.jsonl && '--jsonl', parsed.sqlite && '--sqlite', parsed.postgres && '--postgres'].filter(Boolean)
  if (named.length > 1) throw new CliUsageError(`journal audit reads one journal; got ${named.join(' and ')}`, 'journal')
  const file = journalFile(parsed)
  let journal: ToolCallJournal | undefined
  let rows: ToolCallRow[]
  try {
    journal = openJournal(parsed, defaultUrl, file)
    rows = await journal.list(parsed.run === undefined ? {} : { runId: parsed.run })
  } catch (error) {
    if (journal !== undefined) await close(journal).catch(() => undefined)
    throw notAJournal(error, file)
  }
  // A crash can cut a JSONL journal's last line, so unreadable lines are
  // skipped; a file none of whose lines is a row is not a journal at all.
  if (file?.kind === 'JSONL' && rows.length === 0 && statSync(file.path).size > 0 && parsed.run === undefined) {
    await close(journal)
    throw new CliUsageError(`${file.path} is not a JSONL journal: none of its lines is a journal row`, 'journal')
  }
  try {
    if (parsed.json) {
      const lines = rows.filter((row) => row.permissionJson != null).map((row) => JSON.stringify(auditEntry(row)))
      await writeOut(io.stdout, lines.map((line) => `${line}\n`).join(''))
    } else {
      await writeOut(io.stdout, auditReport(rows).map((line) => `${line}\n`).join(''))
    }
  } finally {
    await close(journal)
  }
  return 0
}

/** The journal file the command line names, checked: it exists and is a regular file. */
function journalFile(parsed: ParsedCommandLine): { path: string; kind: 'JSONL' | 'SQLite' } | undefined {
  for (const [file, kind] of [[parsed.jsonl, 'JSONL'], [parsed.sqlite, 'SQLite']] as const) {
    if (file === undefined) continue
    if (file === '') throw new CliUsageError(`--${kind === 'JSONL' ? 'jsonl' : 'sqlite'} needs a journal file`, 'journal')
    const path = resolve(file)
    // Reading must not create: a mistyped path would otherwise audit a new, empty journal.
    const stats = statSync(path, { throwIfNoEntry: false })
    if (stats === undefined) throw new CliUsageError(`No ${kind} journal at ${path}`, 'journal')
    // Looked at before anything opens it: reading a FIFO would wait for a writer forever.
    const what = nonRegularKind(stats)
    if (what !== undefined) throw new CliUsageError(`${path} is ${what}, not a ${kind} journal`, 'journal')
    return { path, kind }
  }
  return undefined
}

function openJournal(parsed: ParsedCommandLine, defaultUrl: string | undefined, file: { path: string; kind: 'JSONL' | 'SQLite' } | undefined): ToolCallJournal {
  if (file?.kind === 'JSONL') return new JsonlJournal(file.path)
  if (file?.kind === 'SQLite') {
    // Looked at read-only first: opening a journal creates its tables, in any database.
    if (!hasSqliteJournal(file.path)) throw new CliUsageError(`${file.path} is not a SQLite journal: it has no tool_calls table`, 'journal')
    return new SqliteJournal(file.path)
  }
  const url = parsed.postgres ?? defaultUrl
  if (!url) throw new CliUsageError('journal audit needs a journal: --jsonl FILE, --sqlite FILE or --postgres URL', 'journal')
  return new PostgresJournal(url, { schema: parsed.schema ?? 'toolsmith' })
}

/**
 * What the command line got wrong, as a usage error: a file SQLite cannot
 * read as a database, or a URL that is not PostgreSQL's. Anything else (the
 * database refusing, a read failing) is passed on as it is.
 */
function notAJournal(error: unknown, file: { path: string; kind: 'JSONL' | 'SQLite' } | undefined): unknown {
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

async function close(journal: ToolCallJournal): Promise<void> {
  await (journal as { close?: () => unknown }).close?.()
}

/** One judged call as `--json` prints it. */
interface AuditEntry {
  runId: string
  nodeId: string
  iteration: number
  attempt: number
  seq: number
  toolName: string
  input: unknown
  status: ToolCallRow['status']
  startedAtMs: number
  replayed: boolean
  permission: ToolCallPermission
}

function auditEntry(row: ToolCallRow): AuditEntry {
  return {
    runId: row.runId,
    nodeId: row.nodeId,
    iteration: row.iteration,
    attempt: row.attempt,
    seq: row.seq,
    toolName: row.toolName,
    input: parseJson(row.inputJson),
    status: row.status,
    startedAtMs: row.startedAtMs,
    replayed: row.replayed === true,
    permission: parseJson(row.permissionJson!) as ToolCallPermission,
  }
}

/**
 * The text report: one line per judged call, in journal order, then the counts.
 *
 * @param rows - The journal's rows.
 * @returns The lines.
 */
export function auditReport(rows: readonly ToolCallRow[]): string[] {
  const lines: string[] = []
  const counts = { allowed: 0, byPolicy: 0, approved: 0, remembered: 0, denied: 0, deniedByPolicy: 0, declined: 0, unanswered: 0, rememberedDenials: 0, unjudged: 0 }
  for (const row of rows) {
    if (row.permissionJson == null) {
      counts.unjudged++
      continue
    }
    const p = parseJson(row.permissionJson) as ToolCallPermission
    const how = howDecided(p)
    if (p.decision === 'allow') {
      counts.allowed++
      if (p.policyDecision === 'allow') counts.byPolicy++
      else if (p.approver === 'remembered') counts.remembered++
      else counts.approved++
    } else {
      counts.denied++
      if (p.policyDecision === 'deny') counts.deniedByPolicy++
      else if (p.approver === 'remembered') counts.rememberedDenials++
      else if (p.approver === 'none') counts.unanswered++
      else counts.declined++
    }
    const rule = p.rule === null ? 'the default' : `rules[${p.rule.index}] ${JSON.stringify(p.rule.name)}`
    const why = [p.reason && `reason: ${p.reason}`, p.note && `note: ${p.note}`].filter(Boolean).join('; ')
    lines.push(
      `${new Date(row.startedAtMs).toISOString()}  ${row.runId} ${row.nodeId}#${row.iteration} attempt ${row.attempt} seq ${row.seq}  ` +
        `${p.decision === 'allow' ? 'ALLOW' : 'DENY '}  ${row.toolName} ${clip(row.inputJson)}  ${how}, ${rule}${why ? ` (${why})` : ''}, ` +
        `${p.latencyMs} ms${row.replayed ? ', replayed' : ''}`,
    )
  }
  const judged = counts.allowed + counts.denied
  const parts = (entries: [number, string][]): string => entries.filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}`).join(', ')
  lines.push(
    `${judged} ${judged === 1 ? 'call' : 'calls'} judged: ${counts.allowed} allowed` +
      (counts.allowed ? ` (${parts([[counts.byPolicy, 'by policy'], [counts.approved, 'approved'], [counts.remembered, 'remembered']])})` : '') +
      `, ${counts.denied} denied` +
      (counts.denied
        ? ` (${parts([[counts.deniedByPolicy, 'by policy'], [counts.declined, 'declined'], [counts.rememberedDenials, 'remembered'], [counts.unanswered, 'nobody to ask']])})`
        : '') +
      `; ${counts.unjudged} without a decision`,
  )
  return lines
}

/** How the decision came about, in words. */
function howDecided(p: ToolCallPermission): string {
  if (p.policyDecision !== 'ask') return `policy says ${p.policyDecision}`
  if (p.approver === 'none') return 'ask, nobody to ask'
  if (p.approver === 'remembered') return `ask, ${p.decision === 'allow' ? 'approved' : 'declined'} earlier in the turn (remembered)`
  return `ask, ${p.decision === 'allow' ? 'approved' : 'declined'} by ${p.approver}`
}

function clip(text: string): string {
  return text.length <= INPUT_CHARS ? text : `${text.slice(0, INPUT_CHARS - 1)}…`
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
