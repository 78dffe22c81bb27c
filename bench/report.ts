/**
 * The results table, as aligned text for the terminal and as markdown for
 * the docs; both from the same rows so they cannot disagree.
 *
 * @module
 */
import type { Row, Target } from './figure.js'

function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return '-'
  const abs = Math.abs(value)
  if (abs >= 100) return value.toFixed(0)
  if (abs >= 10) return value.toFixed(1)
  if (abs >= 1) return value.toFixed(2)
  return value.toFixed(3)
}

function formatTarget(target: Target, unit: string): string {
  if (target.kind === 'ratio') return `ratio ≤ ${target.max}`
  if (target.kind === 'absolute') return `≤ ${target.max} ${unit}`
  if (target.kind === 'overhead') return `+≤ ${target.max} ${unit}`
  return 'report'
}

function verdict(row: Row): string {
  if (row.skipped !== undefined) return 'SKIP'
  if (row.pass === null) return 'info'
  return row.pass ? 'pass' : 'MISS'
}

/**
 * A ratio means something for time rows only: memory rows (an absolute
 * target, or a reference "report" row in MB) compare against a baseline
 * that barely allocates, so their quotient (e.g. 170×) is noise, not a result.
 */
function showsRatio(row: Row): boolean {
  return Number.isFinite(row.ratio) && row.target.kind !== 'absolute' && row.unit !== 'MB'
}

const HEADERS = ['figure', 'unit', 'baseline median', 'subject median', 'subject min', 'subject max', 'ratio', 'target', 'result']

function cells(row: Row): string[] {
  const s = row.subjectStats
  const b = row.baselineStats
  return [
    row.figure,
    row.unit,
    formatNumber(b.median),
    formatNumber(s.median),
    formatNumber(s.min),
    formatNumber(s.max),
    showsRatio(row) ? row.ratio.toFixed(2) : '-',
    formatTarget(row.target, row.unit),
    verdict(row),
  ]
}

function notes(rows: readonly Row[]): string[] {
  return rows.flatMap((row) => {
    const out: string[] = []
    if (row.skipped !== undefined) out.push(`${row.figure}: skipped: ${row.skipped}`)
    else out.push(`${row.figure}: subject = ${row.subject}; baseline = ${row.baseline}${row.note ? `; ${row.note}` : ''}`)
    return out
  })
}

/** The table as aligned plain text, notes underneath. */
export function textTable(rows: readonly Row[]): string {
  const body = rows.map(cells)
  const widths = HEADERS.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)))
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')
  return [line(HEADERS), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line), '', ...notes(rows).map((n) => `  · ${n}`)].join('\n')
}

/** The table as GitHub markdown, notes as a list. */
export function markdownTable(rows: readonly Row[]): string {
  const escapePipes = (c: string) => c.replace(/\|/g, '\\|')
  const head = `| ${HEADERS.join(' | ')} |`
  const rule = `|${HEADERS.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`
  const body = rows.map((row) => `| ${cells(row).map(escapePipes).join(' | ')} |`)
  return [head, rule, ...body, '', ...notes(rows).map((n) => `- ${n}`)].join('\n')
}
