/**
 * `npm run bench [-- --quick] [-- --only=id,id]`: run every figure against
 * its baseline, print the table, write bench/results/latest.json,
 * docs/performance.svg and the generated block of docs/performance.md.
 * A run of some figures (`--only`) writes bench/results/partial.json
 * instead and leaves the committed table alone: a subset, or a mistyped id,
 * must not replace the full run's figures.
 *
 * @module
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { renderChart } from './chart.js'
import { updatePerformanceDoc } from './docs.js'
import { skippedRow, type Figure, type Row, type RunConfig } from './figure.js'
import { bashSpawnFigure } from './figures/bash_spawn.js'
import { processSpawnFigure } from './figures/process_spawn.js'
import { callIdFigure } from './figures/call_id.js'
import { editFigure } from './figures/edit.js'
import { executorFigure } from './figures/executor.js'
import { grepFigure } from './figures/grep.js'
import { importTimeFigure } from './figures/import_time.js'
import { journalScaleFigure } from './figures/journal_scale.js'
import { bashOutputFigure, spoolFigure } from './figures/memory_figures.js'
import { readFigure } from './figures/read.js'
import { readConcurrentFigure } from './figures/read_concurrent.js'
import { readHeadFigure, readRangeFigure } from './figures/read_range.js'
import { mcpHttpFigure } from './figures/mcp_http.js'
import { mcpPeerFigure } from './figures/mcp_peer.js'
import { permissionsFigure } from './figures/permissions.js'
import { mcpSoakFigure } from './figures/mcp_soak.js'
import { networkProxyFigure } from './figures/network_proxy.js'
import { spanCostFigure } from './figures/span_cost.js'
import { writeFigure } from './figures/write.js'
import { describeMachine, machineLine } from './machine.js'
import { markdownTable, textTable } from './report.js'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

const FIGURES: Figure[] = [importTimeFigure, executorFigure, spanCostFigure, callIdFigure, grepFigure, bashSpawnFigure, processSpawnFigure, bashOutputFigure, editFigure, writeFigure, readFigure, readConcurrentFigure, readRangeFigure, readHeadFigure, spoolFigure, mcpPeerFigure, mcpHttpFigure, permissionsFigure, mcpSoakFigure, networkProxyFigure, journalScaleFigure]

function parseArgs(argv: readonly string[]): { quick: boolean; only: Set<string> | undefined } {
  const quick = argv.includes('--quick')
  const onlyArg = argv.find((a) => a.startsWith('--only='))
  const only = onlyArg ? new Set(onlyArg.slice('--only='.length).split(',')) : undefined
  return { quick, only }
}

async function main(): Promise<void> {
  const { quick, only } = parseArgs(process.argv.slice(2))
  const unknown = [...(only ?? [])].filter((id) => !FIGURES.some((figure) => figure.id === id))
  if (unknown.length > 0 || only?.size === 0) {
    process.stderr.write(`[bench] unknown figure id${unknown.length === 1 ? '' : 's'}: ${unknown.join(', ') || '(none given)'}; the ids are ${FIGURES.map((figure) => figure.id).join(', ')}\n`)
    process.exitCode = 2
    return
  }
  const mode = quick ? 'quick' : 'full'
  const machine = describeMachine()
  const config: RunConfig = { quick, log: (m) => process.stderr.write(`[bench] ${m}\n`) }
  config.log(`${mode} run on ${machineLine(machine)}`)
  const started = performance.now()
  const rows: Row[] = []
  for (const figure of FIGURES) {
    if (only && !only.has(figure.id)) continue
    const t0 = performance.now()
    config.log(`${figure.id}: ${figure.title}`)
    try {
      rows.push(...(await figure.run(config)))
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      config.log(`${figure.id} failed: ${reason}`)
      rows.push(skippedRow(figure.id, figure.title, { kind: 'report' }, `failed: ${reason}`))
    }
    config.log(`${figure.id}: done in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  }
  const seconds = (performance.now() - started) / 1000
  const table = textTable(rows)
  process.stdout.write(`\ntoolsmith benchmarks, ${mode} run, ${seconds.toFixed(1)} s\n${machineLine(machine)}\n\n${table}\n`)

  const results = { mode, date: new Date().toISOString(), durationSeconds: seconds, machine, rows, ...(only ? { only: [...only] } : {}) }
  mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true })
  if (only) {
    writeFileSync(path.join(ROOT, 'bench/results/partial.json'), `${JSON.stringify(results, null, 2)}\n`)
    config.log('wrote bench/results/partial.json (a run of some figures leaves latest.json and docs/performance.* as they were)')
    return
  }
  writeFileSync(path.join(ROOT, 'bench/results/latest.json'), `${JSON.stringify(results, null, 2)}\n`)
  mkdirSync(path.join(ROOT, 'docs'), { recursive: true })
  writeFileSync(path.join(ROOT, 'docs/performance.svg'), renderChart(rows, machine, `${mode} run, ${results.date.slice(0, 10)}`))
  updatePerformanceDoc(
    path.join(ROOT, 'docs/performance.md'),
    [
      `Last run: **${mode}**, ${results.date}, ${seconds.toFixed(0)} s. Machine: ${machineLine(machine)}.`,
      '',
      '![benchmark chart](performance.svg)',
      '',
      markdownTable(rows),
    ].join('\n'),
  )
  config.log('wrote bench/results/latest.json, docs/performance.svg, docs/performance.md')
}

await main()
