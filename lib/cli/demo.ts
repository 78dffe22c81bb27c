/**
 * `toolsmith demo`: a scripted agent turn on a temporary copy of the demo
 * project, printed as it happens, then the journal.
 *
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { performance } from 'node:perf_hooks'
import { JsonlJournal } from '../journal/jsonl_journal.js'
import type { ToolCallRow } from '../journal/contract.js'
import type { TurnEvent } from '../runner/events.js'
import { TurnRunner } from '../runner/turn_runner.js'
import { DEMO_PROMPT, demoModel } from './demo_model.js'
import { createTools } from '../tools/index.js'
import { copyDemoProject } from './demo_project.js'
import { enforcementLines } from './doctor.js'
import type { ParsedCommandLine } from './options.js'
import { writeOut, type CliIo } from './io.js'
import { commandSandbox } from './sandbox_tools.js'
import { CliUsageError } from './usage.js'

/**
 * Run `demo`.
 *
 * @param parsed - The command line.
 * @param io - The streams.
 * @returns 0 when the tests pass after the fix, 1 otherwise.
 * @throws {@link CliUsageError} for extra arguments.
 */
export async function runDemo(parsed: ParsedCommandLine, io: CliIo): Promise<number> {
  if (parsed.args.length > 0) throw new CliUsageError(`Unexpected argument "${parsed.args[0]}"`, 'demo')
  const dir = mkdtempSync(join(tmpdir(), 'toolsmith-demo-'))
  const project = join(dir, 'project')
  const journalFile = join(dir, 'journal.jsonl')
  const lines: string[] = []
  const out = (line = ''): void => {
    lines.push(line)
    io.stdout.write(`${line}\n`)
  }
  try {
    const source = copyDemoProject(project)
    let sandbox = commandSandbox({ ...parsed.sandbox, rootDir: project }, 'demo')
    const wanted = sandbox.enforcement
    // The demo must run anywhere: without bubblewrap it opts out on its own, and says so.
    if (wanted.engine === 'unavailable') sandbox = commandSandbox({ ...parsed.sandbox, rootDir: project, isolation: { filesystem: false } }, 'demo')
    const { read, grep, edit, bash } = createTools(sandbox)
    const journal = new JsonlJournal(journalFile)
    out('toolsmith demo: a scripted agent fixes a failing test (no API key, no network)')
    out(`project   ${project}  (copy of ${source === 'embedded' ? 'the built-in demo project' : relativeOrAbsolute(source)})`)
    out(`journal   ${journalFile}`)
    out('sandbox   what bash enforces here:')
    if (wanted.engine === 'unavailable') out(`  OS sandbox unavailable (${wanted.unavailableReason}): the demo runs without it`)
    for (const line of enforcementLines(sandbox.enforcement, project)) out(`  ${line}`)
    out()
    const runner = new TurnRunner({
      model: demoModel(),
      tools: [read, grep, edit, bash],
      journal,
      identity: { runId: `demo-${Date.now()}`, nodeId: 'fix-tests', iteration: 0, attempt: 1 },
      onEvent: (event) => printEvent(event, out),
    })
    const started = performance.now()
    const result = await runner.run(DEMO_PROMPT)
    out()
    out(`done      ${result.steps} model steps, ${result.toolCalls.length} tool calls in ${seconds(performance.now() - started)}`)

    const testCall = result.toolCalls.find((call) => call.tool === 'bash')
    if (testCall?.results) {
      out()
      out('test output (bash):')
      for (const line of (await testCall.results.asString()).trimEnd().split('\n')) out(`  │ ${line}`)
    }
    const rows = (await journal.list()).sort((a, b) => a.seq - b.seq)
    out()
    out(`journal (${rows.length} rows, ${journalFile}):`)
    for (const line of journalTable(rows)) out(`  ${line}`)
    const passed = testCall?.isComplete === true && !testCall.isError
    out()
    out(passed ? 'The demo passed: the bug is fixed and the tests pass.' : 'The demo did not end with passing tests.')
    return passed ? 0 : 1
  } finally {
    if (parsed.keep) io.stdout.write(`\nKept ${dir}\n`)
    else rmSync(dir, { recursive: true, force: true })
    await writeOut(io.stdout, '')
  }
}

function printEvent(event: TurnEvent, out: (line?: string) => void): void {
  switch (event.type) {
    case 'turn-start':
      out(`user      ${event.prompt}`)
      break
    case 'model-start':
      break
    case 'model-end': {
      const asks = event.toolCalls.length ? `  → asks for ${event.toolCalls.map((c) => c.name).join(', ')}` : ''
      out(`step ${event.step + 1}    model (${ms(event.durationMs)}): ${event.text || '(no text)'}${asks}`)
      break
    }
    case 'tool-start':
      out(`  ▶ #${event.seq} ${event.toolName} ${clip(JSON.stringify(event.args), 100)}`)
      break
    case 'tool-end': {
      const mark = event.isError ? '✗' : '✓'
      const detail = event.isError ? event.error ?? 'failed' : `${event.bytes} bytes${event.spooled ? ', spooled' : ''}`
      out(`  ${mark} #${event.seq} ${event.toolName} ${ms(event.durationMs)}, ${clip(detail, 120)}`)
      break
    }
    case 'retry-warning':
      out(`warning   ${event.content}`)
      break
    case 'turn-end':
      break
  }
}

function journalTable(rows: ToolCallRow[]): string[] {
  const header = ['seq', 'tool', 'status', 'ms', 'input', 'output']
  const body = rows.map((row) => [
    String(row.seq),
    row.toolName,
    row.status,
    String(row.finishedAtMs - row.startedAtMs),
    clip(row.inputJson, 60),
    clip(row.status === 'success' ? (row.outputJson ?? '') : (row.errorJson ?? ''), 40),
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)))
  const format = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()
  return [format(header), ...body.map(format)]
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ')
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}

function ms(value: number): string {
  return `${Math.round(value)} ms`
}

function seconds(value: number): string {
  return `${(value / 1000).toFixed(2)} s`
}

function relativeOrAbsolute(path: string): string {
  const rel = relative(process.cwd(), path)
  return rel.startsWith('..') ? path : rel || '.'
}
