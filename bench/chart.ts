/**
 * The results as a hand-written SVG: no charting dependency for one picture.
 *
 * Time rows are drawn as ratios to their baseline (1.0 = as fast as the
 * baseline) with each row's own target marked; memory rows as megabytes of
 * peak RSS growth, baseline and subject side by side, against the budget.
 *
 * @module
 */
import type { Row } from './figure.js'
import type { MachineInfo } from './machine.js'

const WIDTH = 960
const LABEL_WIDTH = 360
const PLOT_LEFT = LABEL_WIDTH + 10
const PLOT_RIGHT = WIDTH - 70
const ROW_HEIGHT = 30
const COLORS = { pass: '#2e7d32', miss: '#c62828', info: '#546e7a', baseline: '#b0bec5', target: '#c62828', grid: '#e0e0e0' }

function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

function colorOf(row: Row): string {
  return row.pass === null ? COLORS.info : row.pass ? COLORS.pass : COLORS.miss
}

/** A round upper bound for an axis holding `value`. */
function niceMax(value: number): number {
  const steps = [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]
  const magnitude = 10 ** Math.floor(Math.log10(Math.max(value, 1e-9)))
  for (const s of steps) if (s * magnitude >= value) return s * magnitude
  return 10 * magnitude
}

function axis(y: number, max: number, x: (v: number) => number, label: (v: number) => string, ticks = 5): string[] {
  const out: string[] = []
  for (let i = 0; i <= ticks; i++) {
    const v = (max / ticks) * i
    out.push(`<line x1="${x(v)}" y1="${y}" x2="${x(v)}" y2="${y + 6}" stroke="#757575"/>`)
    out.push(`<text x="${x(v)}" y="${y + 18}" text-anchor="middle" font-size="11" fill="#424242">${esc(label(v))}</text>`)
  }
  out.push(`<line x1="${PLOT_LEFT}" y1="${y}" x2="${PLOT_RIGHT}" y2="${y}" stroke="#757575"/>`)
  return out
}

function timeSection(rows: readonly Row[], top: number): { svg: string[]; height: number } {
  const svg: string[] = []
  const ratios = rows.flatMap((r) => [r.subjectStats.max / r.baselineStats.median, r.target.kind === 'ratio' ? r.target.max : 0])
  const max = niceMax(Math.min(Math.max(2, ...ratios.filter(Number.isFinite)) * 1.05, 20))
  const x = (v: number) => PLOT_LEFT + (Math.min(v, max) / max) * (PLOT_RIGHT - PLOT_LEFT)
  svg.push(`<text x="12" y="${top + 16}" font-size="14" font-weight="bold">Time: subject median ÷ baseline median (whisker: subject min–max; red dash: target)</text>`)
  let y = top + 30
  const plotTop = y
  for (const row of rows) {
    const mid = y + ROW_HEIGHT / 2
    svg.push(`<text x="${LABEL_WIDTH}" y="${mid + 4}" text-anchor="end" font-size="12">${esc(row.figure)}</text>`)
    if (row.skipped !== undefined) {
      svg.push(`<text x="${PLOT_LEFT + 4}" y="${mid + 4}" font-size="12" fill="${COLORS.info}">skipped: ${esc(row.skipped)}</text>`)
    } else {
      const base = row.baselineStats.median
      svg.push(`<rect x="${PLOT_LEFT}" y="${y + 7}" width="${Math.max(1, x(row.ratio) - PLOT_LEFT)}" height="${ROW_HEIGHT - 14}" fill="${colorOf(row)}" opacity="0.85"/>`)
      svg.push(`<line x1="${x(row.subjectStats.min / base)}" y1="${mid}" x2="${x(row.subjectStats.max / base)}" y2="${mid}" stroke="#212121" stroke-width="1.5"/>`)
      if (row.target.kind === 'ratio') {
        svg.push(`<line x1="${x(row.target.max)}" y1="${y + 2}" x2="${x(row.target.max)}" y2="${y + ROW_HEIGHT - 2}" stroke="${COLORS.target}" stroke-width="2" stroke-dasharray="4 2"/>`)
      }
      const overflow = row.ratio > max ? ' ▶' : ''
      svg.push(`<text x="${x(row.ratio) + 4}" y="${mid - 6}" font-size="11">${row.ratio.toFixed(2)}×${overflow}</text>`)
    }
    y += ROW_HEIGHT
  }
  svg.push(`<line x1="${x(1)}" y1="${plotTop}" x2="${x(1)}" y2="${y}" stroke="#212121" stroke-dasharray="2 3"/>`)
  svg.push(...axis(y, max, x, (v) => `${v.toFixed(max <= 3 ? 1 : 0)}×`))
  return { svg, height: y + 30 - top }
}

function memorySection(rows: readonly Row[], top: number): { svg: string[]; height: number } {
  const svg: string[] = []
  const values = rows.flatMap((r) => [r.subjectStats.max, r.baselineStats.max, r.target.kind === 'absolute' ? r.target.max : 0])
  const max = niceMax(Math.max(1, ...values.filter(Number.isFinite)) * 1.05)
  const x = (v: number) => PLOT_LEFT + (Math.max(0, Math.min(v, max)) / max) * (PLOT_RIGHT - PLOT_LEFT)
  svg.push(`<text x="12" y="${top + 16}" font-size="14" font-weight="bold">Peak RSS growth, MB (grey: baseline, colour: subject; bar = median, whisker = max)</text>`)
  let y = top + 30
  for (const row of rows) {
    const h = ROW_HEIGHT * 1.4
    svg.push(`<text x="${LABEL_WIDTH}" y="${y + h / 2 + 4}" text-anchor="end" font-size="12">${esc(row.figure)}</text>`)
    if (row.skipped !== undefined) {
      svg.push(`<text x="${PLOT_LEFT + 4}" y="${y + h / 2 + 4}" font-size="12" fill="${COLORS.info}">skipped: ${esc(row.skipped)}</text>`)
    } else {
      const bars: [number, number, string][] = [
        [row.baselineStats.median, row.baselineStats.max, COLORS.baseline],
        [row.subjectStats.median, row.subjectStats.max, colorOf(row)],
      ]
      bars.forEach(([median, worst, color], i) => {
        const by = y + 4 + i * (h / 2 - 2)
        const bh = h / 2 - 6
        svg.push(`<rect x="${PLOT_LEFT}" y="${by}" width="${Math.max(1, x(median) - PLOT_LEFT)}" height="${bh}" fill="${color}" opacity="0.9"/>`)
        svg.push(`<line x1="${x(median)}" y1="${by + bh / 2}" x2="${x(worst)}" y2="${by + bh / 2}" stroke="#212121"/>`)
        svg.push(`<text x="${x(worst) + 4}" y="${by + bh - 2}" font-size="11">${median.toFixed(1)} MB</text>`)
      })
      if (row.target.kind === 'absolute') {
        svg.push(`<line x1="${x(row.target.max)}" y1="${y}" x2="${x(row.target.max)}" y2="${y + h}" stroke="${COLORS.target}" stroke-width="2" stroke-dasharray="4 2"/>`)
      }
    }
    y += h
  }
  svg.push(...axis(y, max, x, (v) => `${v.toFixed(0)}`))
  return { svg, height: y + 30 - top }
}

/** Draw every row; time rows first, memory rows below. */
export function renderChart(rows: readonly Row[], machine: MachineInfo, mode: string): string {
  const memoryRows = rows.filter((r) => r.unit === 'MB')
  const timeRows = rows.filter((r) => r.unit !== 'MB')
  const title = `<text x="12" y="22" font-size="16" font-weight="bold">toolsmith benchmarks (${esc(mode)})</text>`
  const sub = `<text x="12" y="40" font-size="11" fill="#616161">${esc(`${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}`)}</text>`
  const time = timeSection(timeRows, 52)
  const memory = memorySection(memoryRows, 52 + time.height + 10)
  const height = 52 + time.height + 10 + memory.height + 10
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${Math.ceil(height)}" viewBox="0 0 ${WIDTH} ${Math.ceil(height)}" font-family="sans-serif">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    title,
    sub,
    ...time.svg,
    ...memory.svg,
    '</svg>',
    '',
  ].join('\n')
}
