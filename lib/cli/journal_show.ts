/**
 * `toolsmith journal show`: the rows a journal holds — every recorded call
 * with its identity, key, status and times — and the checkpoint of each turn
 * they belong to, as a table or (`--json`) one JSON document.
 *
 * @module
 */
import type { ToolCallJournal, ToolCallRow } from '../journal/contract.js'
import { isClaimingJournal, type TurnCheckpoint } from '../journal/claiming.js'
import { writeOut, type CliIo } from './io.js'
import { readJournal } from './journal_read.js'
import { journalShowRow, parseRowJson } from './journal_rows.js'
import type { ParsedCommandLine } from './options.js'

/** Longest input, result or prompt shown in a cell of the table, in characters. */
const CELL_CHARS = 60
/** Characters of an idempotency key (a SHA-256 in hex) the table shows. */
const KEY_CHARS = 12

/** The latest checkpoint of a turn as `journal show --json` prints it (the conversation itself is left out). */
export interface JournalShowTurn {
  /** The run. */
  runId: string
  /** The node. */
  nodeId: string
  /** The iteration. */
  iteration: number
  /** The attempt that wrote the checkpoint. */
  attempt: number
  /** The turn's prompt. */
  prompt: string
  /** Model calls made so far. */
  steps: number
  /** Messages in the conversation so far. */
  messages: number
  /** `true` once the turn ended normally; `false` for a turn a resume can continue. */
  done: boolean
  /** Epoch milliseconds of the checkpoint's write. */
  updatedAtMs: number
}

/**
 * Run `toolsmith journal show (--jsonl FILE | --sqlite FILE | --postgres URL) [--run ID] [--json]`.
 *
 * @param parsed - The parsed command line.
 * @param io - The streams.
 * @param defaultUrl - The PostgreSQL URL from the environment, used when no store is named.
 * @returns 0 once the rows are printed.
 * @throws {@link CliUsageError} as `journal audit` does (no store or several, a file
 *   that is missing, not regular or not a journal, a URL that is not PostgreSQL's);
 *   `E_JOURNAL_UNAVAILABLE` when PostgreSQL refuses.
 */
export async function runJournalShow(parsed: ParsedCommandLine, io: CliIo, defaultUrl: string | undefined): Promise<number> {
  const { journal, rows, explain, close } = await readJournal(parsed, defaultUrl, 'show')
  try {
    const ordered = byIdentity(rows)
    let turns: JournalShowTurn[]
    try {
      turns = await turnsOf(journal, ordered, parsed.run)
    } catch (error) {
      throw explain(error)
    }
    const text = parsed.json
      ? `${JSON.stringify({ rows: ordered.map(journalShowRow), turns }, null, 2)}\n`
      : showReport(ordered, turns, parsed.run).map((line) => `${line}\n`).join('')
    await writeOut(io.stdout, text)
  } finally {
    await close()
  }
  return 0
}

/**
 * Rows grouped by attempt (run, node, iteration, attempt; in order of each
 * group's first row), by `seq` within one: calls that ran in parallel are
 * recorded as they finish, not in the model's order.
 */
function byIdentity(rows: readonly ToolCallRow[]): ToolCallRow[] {
  const groups = new Map<string, ToolCallRow[]>()
  for (const row of rows) {
    const key = JSON.stringify([row.runId, row.nodeId, row.iteration, row.attempt])
    const group = groups.get(key)
    if (group === undefined) groups.set(key, [row])
    else group.push(row)
  }
  return [...groups.values()].flatMap((group) => group.sort((a, b) => a.seq - b.seq))
}

/**
 * The latest checkpoint of every turn (run, node, iteration) the rows belong
 * to, and of `--run` itself when given (a turn that made no call has
 * checkpoints but no rows).
 */
async function turnsOf(journal: ToolCallJournal, rows: readonly ToolCallRow[], run: string | undefined): Promise<JournalShowTurn[]> {
  if (!isClaimingJournal(journal)) return []
  const scopes = new Map<string, { runId: string; nodeId?: string; iteration?: number }>()
  for (const row of rows) scopes.set(JSON.stringify([row.runId, row.nodeId, row.iteration]), { runId: row.runId, nodeId: row.nodeId, iteration: row.iteration })
  if (run !== undefined && scopes.size === 0) scopes.set(JSON.stringify([run]), { runId: run })
  const turns: JournalShowTurn[] = []
  for (const { runId, ...scope } of scopes.values()) {
    const checkpoint = await journal.loadTurn(runId, scope)
    if (checkpoint !== undefined) turns.push(showTurn(checkpoint))
  }
  return turns
}

function showTurn(checkpoint: TurnCheckpoint): JournalShowTurn {
  const messages = parseRowJson(checkpoint.messagesJson)
  return {
    runId: checkpoint.runId,
    nodeId: checkpoint.nodeId,
    iteration: checkpoint.iteration,
    attempt: checkpoint.attempt,
    prompt: checkpoint.prompt,
    steps: checkpoint.steps,
    messages: Array.isArray(messages) ? messages.length : 0,
    done: checkpoint.done,
    updatedAtMs: checkpoint.updatedAtMs,
  }
}

/**
 * The text report: a table per attempt, the turns' checkpoints, then the counts.
 *
 * @param rows - The rows, grouped by attempt.
 * @param turns - The turns' latest checkpoints.
 * @param run - `--run`, for the empty case's wording.
 * @returns The lines.
 */
export function showReport(rows: readonly ToolCallRow[], turns: readonly JournalShowTurn[], run?: string): string[] {
  const lines: string[] = []
  if (rows.length === 0 && turns.length === 0) {
    return [run === undefined ? 'The journal holds no rows.' : `The journal holds no rows of run ${JSON.stringify(run)}.`]
  }
  const header = ['seq', 'started', 'tool', 'status', 'ms', 'permission', 'key', 'input', 'result']
  let group: ToolCallRow[] = []
  const flush = (): void => {
    const first = group[0]
    if (first === undefined) return
    lines.push(`run ${first.runId}  node ${first.nodeId}#${first.iteration}  attempt ${first.attempt}`)
    for (const line of table(header, group.map(cells))) lines.push(`  ${line}`)
    group = []
  }
  for (const row of rows) {
    const first = group[0]
    if (first !== undefined && (first.runId !== row.runId || first.nodeId !== row.nodeId || first.iteration !== row.iteration || first.attempt !== row.attempt)) flush()
    group.push(row)
  }
  flush()
  if (turns.length > 0) {
    if (lines.length > 0) lines.push('')
    lines.push('turns (latest checkpoint):')
    for (const turn of turns) {
      lines.push(
        `  run ${turn.runId}  node ${turn.nodeId}#${turn.iteration}  attempt ${turn.attempt}  ${turn.steps} ${turn.steps === 1 ? 'step' : 'steps'}, ` +
          `${turn.messages} messages, ${turn.done ? 'done' : 'not done (resumable)'}, saved ${new Date(turn.updatedAtMs).toISOString()}  ${clip(JSON.stringify(turn.prompt))}`,
      )
    }
  }
  const runs = new Set(rows.map((row) => row.runId)).size
  const count = (n: number, what: string): string => `${n} ${what}`
  const errors = rows.filter((row) => row.status === 'error').length
  const replayed = rows.filter((row) => row.replayed === true).length
  lines.push(
    `${count(rows.length, rows.length === 1 ? 'row' : 'rows')} in ${count(runs, runs === 1 ? 'run' : 'runs')}: ` +
      `${rows.length - errors} succeeded, ${errors} failed, ${replayed} replayed; ${count(turns.length, turns.length === 1 ? 'turn checkpoint' : 'turn checkpoints')}`,
  )
  return lines
}

function cells(row: ToolCallRow): string[] {
  const permission = row.permissionJson == null ? '-' : (parseRowJson(row.permissionJson) as { decision?: unknown }).decision
  return [
    String(row.seq),
    new Date(row.startedAtMs).toISOString(),
    row.toolName,
    `${row.status}${row.replayed ? ' (replayed)' : ''}`,
    String(row.finishedAtMs - row.startedAtMs),
    typeof permission === 'string' ? permission : '?',
    row.idempotencyKey.slice(0, KEY_CHARS),
    clip(row.inputJson),
    clip(row.status === 'success' ? (row.outputJson ?? '') : (row.errorJson ?? '')),
  ]
}

function table(header: string[], body: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)))
  const format = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()
  return [format(header), ...body.map(format)]
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ')
  return flat.length <= CELL_CHARS ? flat : `${flat.slice(0, CELL_CHARS - 1)}…`
}
