/**
 * `toolsmith demo`: a scripted agent turn on a temporary copy of the demo
 * project, printed as it happens, then the journal; with `--policy` the turn
 * runs under a permission policy, with `--json` it prints one JSON document.
 *
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { errorSummary } from '../exceptions.js'
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
import { journalShowRow, parseRowJson, type JournalShowRow } from './journal_rows.js'
import { canAskOnTerminal, commandPermissions, noTerminalApprover, terminalApprover } from './policy.js'
import { commandSandbox } from './sandbox_tools.js'
import { CliUsageError } from './usage.js'

/** What `demo --json` prints: the whole run as one JSON document. */
export interface DemoReport {
  /** Whether the tests pass after the fix (the exit code is 0 exactly then). */
  passed: boolean
  /** The prompt the scripted model was given. */
  prompt: string
  /** The temporary copy of the demo project (removed afterwards unless `kept`). */
  project: string
  /** Where the project was copied from: a folder, or `'embedded'`. */
  projectSource: string
  /** The JSONL journal of the turn. */
  journal: string
  /** The temporary folder when `--keep` kept it, else `null`. */
  kept: string | null
  /** What bash enforces: the engine, why the OS sandbox was unavailable (the demo then runs without it), and the lines of `doctor`. */
  sandbox: { engine: string; unavailableReason: string | null; enforcement: string[] }
  /** `--policy`: the file, and who answers its `ask` (`terminal`, or `none`: denied); `null` without it. */
  policy: { file: string; approver: 'terminal' | 'none' } | null
  /** Every event of the turn, as `TurnRunner`'s `onEvent` reported it (`type` first). */
  events: TurnEvent[]
  /** The turn's result. */
  result: {
    text: string
    steps: number
    durationMs: number
    toolCalls: { id: string; tool: string; isComplete: boolean; isError: boolean; error: string | null }[]
  }
  /** What the `bash` test run printed, or `null` when it did not run or failed to. */
  testOutput: string | null
  /** The journal's rows, in seq order, as `journal show --json` prints them. */
  rows: JournalShowRow[]
}

/**
 * Run `demo`.
 *
 * @param parsed - The command line.
 * @param io - The streams.
 * @returns 0 when the tests pass after the fix, 1 otherwise.
 * @throws {@link CliUsageError} for extra arguments, and a `--policy` file that cannot be loaded.
 */
export async function runDemo(parsed: ParsedCommandLine, io: CliIo): Promise<number> {
  if (parsed.args.length > 0) throw new CliUsageError(`Unexpected argument "${parsed.args[0]}"`, 'demo')
  const dir = mkdtempSync(join(tmpdir(), 'toolsmith-demo-'))
  const project = join(dir, 'project')
  const journalFile = join(dir, 'journal.jsonl')
  // With --json nothing but the one document goes to stdout: the lines are dropped.
  const out = (line = ''): void => {
    if (!parsed.json) io.stdout.write(`${line}\n`)
  }
  const events: TurnEvent[] = []
  try {
    const source = copyDemoProject(project)
    let sandbox = commandSandbox({ ...parsed.sandbox, rootDir: project }, 'demo')
    const wanted = sandbox.enforcement
    // The demo must run anywhere: without bubblewrap it opts out on its own, and says so.
    if (wanted.engine === 'unavailable') sandbox = commandSandbox({ ...parsed.sandbox, rootDir: project, isolation: { filesystem: false } }, 'demo')
    // `ask` is put to the user when there is one at a terminal (on stderr, so
    // --json's stdout stays one document); otherwise it denies, saying why, as `call` does.
    const onTerminal = canAskOnTerminal(io)
    const asker = onTerminal ? { approve: terminalApprover(io.stdin, io.stderr), name: 'terminal' } : { approve: noTerminalApprover(), name: 'none' }
    const permissions = await commandPermissions(parsed.policy, project, 'demo', asker)
    const { read, grep, edit, bash } = createTools(sandbox)
    const journal = new JsonlJournal(journalFile)
    const enforcement = enforcementLines(sandbox.enforcement, project)
    out('toolsmith demo: a scripted agent fixes a failing test (no API key, no network)')
    out(`project   ${project}  (copy of ${source === 'embedded' ? 'the built-in demo project' : relativeOrAbsolute(source)})`)
    out(`journal   ${journalFile}`)
    if (parsed.policy !== undefined) {
      out(`policy    ${parsed.policy}  (paths relative to the copy; "ask" ${onTerminal ? 'is put to you on the terminal' : 'is denied: no terminal to ask on'})`)
    }
    out('sandbox   what bash enforces here:')
    if (wanted.engine === 'unavailable') out(`  OS sandbox unavailable (${wanted.unavailableReason}): the demo runs without it`)
    for (const line of enforcement) out(`  ${line}`)
    out()
    const runner = new TurnRunner({
      model: demoModel(),
      tools: [read, grep, edit, bash],
      journal,
      ...(permissions ? { permissions } : {}),
      identity: { runId: `demo-${Date.now()}`, nodeId: 'fix-tests', iteration: 0, attempt: 1 },
      onEvent: (event) => {
        events.push(event)
        printEvent(event, out)
      },
    })
    const started = performance.now()
    // Ctrl-C stops the turn (a running bash command is killed with its group)
    // and lets the finally below remove the temporary copy; main exits 130.
    const interrupt = new AbortController()
    const stop = (): void => interrupt.abort(new Error('interrupted'))
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
    let result: Awaited<ReturnType<typeof runner.run>>
    try {
      result = await runner.run(DEMO_PROMPT, { signal: interrupt.signal })
    } finally {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
    }
    const durationMs = performance.now() - started
    out()
    out(`done      ${result.steps} model steps, ${result.toolCalls.length} tool calls in ${seconds(durationMs)}`)

    const testCall = result.toolCalls.find((call) => call.tool === 'bash')
    const testOutput = testCall?.results ? (await testCall.results.asString()).trimEnd() : null
    if (testOutput !== null) {
      out()
      out('test output (bash):')
      for (const line of testOutput.split('\n')) out(`  │ ${line}`)
    }
    const rows = (await journal.list()).sort((a, b) => a.seq - b.seq)
    out()
    out(`journal (${rows.length} rows, ${journalFile}):`)
    for (const line of journalTable(rows, permissions !== undefined)) out(`  ${line}`)
    const passed = testCall?.isComplete === true && !testCall.isError
    out()
    out(passed ? 'The demo passed: the bug is fixed and the tests pass.' : 'The demo did not end with passing tests.')
    if (parsed.json) {
      const report: DemoReport = {
        passed,
        prompt: DEMO_PROMPT,
        project,
        projectSource: source,
        journal: journalFile,
        kept: parsed.keep ? dir : null,
        sandbox: { engine: sandbox.enforcement.engine, unavailableReason: wanted.engine === 'unavailable' ? (wanted.unavailableReason ?? null) : null, enforcement },
        policy: parsed.policy === undefined ? null : { file: resolve(parsed.policy), approver: onTerminal ? 'terminal' : 'none' },
        events,
        result: {
          text: result.text,
          steps: result.steps,
          durationMs: Math.round(durationMs * 1000) / 1000,
          toolCalls: result.toolCalls.map((call) => ({
            id: call.id,
            tool: call.tool,
            isComplete: call.isComplete,
            isError: call.isError,
            error: call.isError ? errorSummary(call.error) : null,
          })),
        },
        testOutput,
        rows: rows.map(journalShowRow),
      }
      await writeOut(io.stdout, `${JSON.stringify(report, null, 2)}\n`)
    }
    return passed ? 0 : 1
  } finally {
    if (parsed.keep && !parsed.json) io.stdout.write(`\nKept ${dir}\n`)
    else if (!parsed.keep) rmSync(dir, { recursive: true, force: true })
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
    case 'permission-decision': {
      const rule = event.rule === null ? "the policy's default" : `rules[${event.rule.index}] (${JSON.stringify(event.rule.name)})`
      const reason = event.reason ? ` (${event.reason})` : ''
      const head = `  ${event.decision === 'allow' ? '✓' : '✗'} ${event.toolName} ${event.decision === 'allow' ? 'allowed' : 'DENIED'}`
      if (event.policyDecision !== 'ask') {
        out(`${head} by ${rule}${reason}`)
        break
      }
      const answer = event.decision === 'allow' ? 'approved' : 'declined'
      const who = event.approver === 'none' ? 'nobody to ask' : event.approver === 'remembered' ? `${answer} earlier in the turn` : `${event.approver} ${answer}`
      out(`${head}: ${rule} asks${reason}, ${who}`)
      break
    }
    case 'retry-warning':
      out(`warning   ${event.content}`)
      break
    case 'turn-end':
      break
  }
}

function journalTable(rows: ToolCallRow[], withPermission: boolean): string[] {
  // The decision column only under --policy: without a gate every row's is empty.
  const header = ['seq', 'tool', 'status', 'ms', ...(withPermission ? ['permission'] : []), 'input', 'output']
  const body = rows.map((row) => [
    String(row.seq),
    row.toolName,
    row.status,
    String(row.finishedAtMs - row.startedAtMs),
    ...(withPermission ? [decisionOf(row)] : []),
    clip(row.inputJson, 60),
    clip(row.status === 'success' ? (row.outputJson ?? '') : (row.errorJson ?? ''), 40),
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)))
  const format = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()
  return [format(header), ...body.map(format)]
}

function decisionOf(row: ToolCallRow): string {
  if (row.permissionJson == null) return '-'
  const decision = (parseRowJson(row.permissionJson) as { decision?: unknown } | null)?.decision
  return typeof decision === 'string' ? decision : '?'
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
