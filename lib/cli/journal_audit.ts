/**
 * `toolsmith journal audit`: the permission decisions recorded in a journal,
 * one line per call, and a count of allowed, approved, remembered and
 * refused calls.
 *
 * @module
 */
import type { ToolCallPermission, ToolCallRow } from '../journal/contract.js'
import { writeOut, type CliIo } from './io.js'
import { readJournal } from './journal_read.js'
import { parseRowJson, rowIdentity } from './journal_rows.js'
import type { ParsedCommandLine } from './options.js'

/** Longest input shown on a line of the text report, in characters. */
const INPUT_CHARS = 80

/**
 * Run `toolsmith journal audit (--jsonl FILE | --sqlite FILE | --postgres URL) [--run ID] [--json]`.
 *
 * @remarks
 * `--json` prints one JSON document, `{ summary, decisions }` (see
 * {@link AuditSummary}), also when the journal holds no decision.
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
  const { rows, close } = await readJournal(parsed, defaultUrl, 'audit')
  try {
    if (parsed.json) {
      const decisions = rows.filter((row) => row.permissionJson != null).map(auditEntry)
      await writeOut(io.stdout, `${JSON.stringify({ summary: auditSummary(rows), decisions }, null, 2)}\n`)
    } else {
      await writeOut(io.stdout, auditReport(rows).map((line) => `${line}\n`).join(''))
    }
  } finally {
    await close()
  }
  return 0
}

/** One judged call as `--json` prints it. */
interface AuditEntry extends Pick<ToolCallRow, 'runId' | 'nodeId' | 'iteration' | 'attempt' | 'seq' | 'toolName' | 'status' | 'startedAtMs'> {
  input: unknown
  replayed: boolean
  permission: ToolCallPermission
}

function auditEntry(row: ToolCallRow): AuditEntry {
  return {
    ...rowIdentity(row),
    input: parseRowJson(row.inputJson),
    status: row.status,
    startedAtMs: row.startedAtMs,
    replayed: row.replayed === true,
    permission: parseRowJson(row.permissionJson!) as ToolCallPermission,
  }
}

/**
 * The counts `journal audit` ends with, as `--json` prints them under
 * `summary`: the same numbers as the text report's last line, and per tool.
 */
export interface AuditSummary {
  /** Rows read (judged or not). */
  calls: number
  /** Calls the gate judged: `allowed.total + denied.total`. */
  judged: number
  /** Calls that ran, and how they were allowed. */
  allowed: { total: number; byPolicy: number; approved: number; remembered: number }
  /** Calls refused, and how. */
  denied: { total: number; byPolicy: number; declined: number; remembered: number; nobodyToAsk: number }
  /** Rows no gate judged (no policy, arguments that failed validation, an unknown tool). */
  withoutDecision: number
  /** Per tool name, in order of first appearance: how many of its calls were allowed and denied, and how many had no decision. */
  byTool: Record<string, { allowed: number; denied: number; withoutDecision: number }>
}

/**
 * Count the decisions of a journal's rows.
 *
 * @param rows - The journal's rows.
 * @returns The counts.
 */
export function auditSummary(rows: readonly ToolCallRow[]): AuditSummary {
  const summary: AuditSummary = {
    calls: rows.length,
    judged: 0,
    allowed: { total: 0, byPolicy: 0, approved: 0, remembered: 0 },
    denied: { total: 0, byPolicy: 0, declined: 0, remembered: 0, nobodyToAsk: 0 },
    withoutDecision: 0,
    byTool: {},
  }
  // A Map, not the object: a tool may be called "__proto__".
  const byTool = new Map<string, AuditSummary['byTool'][string]>()
  for (const row of rows) {
    let tool = byTool.get(row.toolName)
    if (tool === undefined) byTool.set(row.toolName, (tool = { allowed: 0, denied: 0, withoutDecision: 0 }))
    if (row.permissionJson == null) {
      summary.withoutDecision++
      tool.withoutDecision++
      continue
    }
    const p = parseRowJson(row.permissionJson) as ToolCallPermission
    summary.judged++
    if (p.decision === 'allow') {
      tool.allowed++
      summary.allowed.total++
      if (p.policyDecision === 'allow') summary.allowed.byPolicy++
      else if (p.approver === 'remembered') summary.allowed.remembered++
      else summary.allowed.approved++
    } else {
      tool.denied++
      summary.denied.total++
      if (p.policyDecision === 'deny') summary.denied.byPolicy++
      else if (p.approver === 'remembered') summary.denied.remembered++
      else if (p.approver === 'none') summary.denied.nobodyToAsk++
      else summary.denied.declined++
    }
  }
  summary.byTool = Object.fromEntries(byTool)
  return summary
}

/**
 * The text report: one line per judged call, in journal order, then the counts.
 *
 * @param rows - The journal's rows.
 * @returns The lines.
 */
export function auditReport(rows: readonly ToolCallRow[]): string[] {
  const lines: string[] = []
  for (const row of rows) {
    if (row.permissionJson == null) continue
    const p = parseRowJson(row.permissionJson) as ToolCallPermission
    const how = howDecided(p)
    const rule = p.rule === null ? 'the default' : `rules[${p.rule.index}] (${JSON.stringify(p.rule.name)})`
    const why = [p.reason && `reason: ${p.reason}`, p.note && `note: ${p.note}`].filter(Boolean).join('; ')
    lines.push(
      `${new Date(row.startedAtMs).toISOString()}  ${row.runId} ${row.nodeId}#${row.iteration} attempt ${row.attempt} seq ${row.seq}  ` +
        `${p.decision === 'allow' ? 'ALLOW' : 'DENY '}  ${row.toolName} ${clip(row.inputJson)}  ${how}, ${rule}${why ? ` (${why})` : ''}, ` +
        `${p.latencyMs} ms${row.replayed ? ', replayed' : ''}`,
    )
  }
  const { judged, allowed, denied, withoutDecision } = auditSummary(rows)
  const parts = (entries: [number, string][]): string => entries.filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}`).join(', ')
  lines.push(
    `${judged} ${judged === 1 ? 'call' : 'calls'} judged: ${allowed.total} allowed` +
      (allowed.total ? ` (${parts([[allowed.byPolicy, 'by policy'], [allowed.approved, 'approved'], [allowed.remembered, 'remembered']])})` : '') +
      `, ${denied.total} denied` +
      (denied.total
        ? ` (${parts([[denied.byPolicy, 'by policy'], [denied.declined, 'declined'], [denied.remembered, 'remembered'], [denied.nobodyToAsk, 'nobody to ask']])})`
        : '') +
      `; ${withoutDecision} without a decision`,
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
