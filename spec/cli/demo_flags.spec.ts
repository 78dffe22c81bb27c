// `toolsmith demo --policy FILE` (the scripted turn runs under a permission
// policy) and `toolsmith demo --json` (the run as one JSON document), through
// the real command; on a pseudo-terminal an `ask` is put to the user.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { trackedMkdtemp } from '../support/temp_dirs.js'
import { CLI_COMMAND, runCli, errorLines } from './support/run_cli.js'

const exampleFile = fileURLToPath(new URL('../../examples/demo-project/src/stats.js', import.meta.url))

/** A policy file in a temporary folder. */
function policyFile(policy: unknown): string {
  const file = join(trackedMkdtemp(join(tmpdir(), 'toolsmith-demo-policy-')), 'policy.json')
  writeFileSync(file, JSON.stringify(policy))
  return file
}

const READS = { name: 'read anywhere', tool: ['read', 'grep'], decision: 'allow' }

interface DemoDoc {
  passed: boolean
  prompt: string
  project: string
  journal: string
  kept: string | null
  sandbox: { engine: string; unavailableReason: string | null; enforcement: string[] }
  policy: { file: string; approver: string } | null
  events: { type: string; [key: string]: unknown }[]
  result: { text: string; steps: number; toolCalls: { tool: string; isError: boolean; error: string | null }[] }
  testOutput: string | null
  rows: { seq: number; toolName: string; status: string; permission: Record<string, unknown> | null }[]
}

describe('toolsmith demo --policy', () => {
  it('a deny rule stops the fix: the denial is printed and journaled, the tests are not run, exit 1', async () => {
    const policy = policyFile({ rules: [READS, { name: 'no edits', tool: 'edit', decision: 'deny', reason: 'read-only review' }], default: 'allow' })
    const run = await runCli(['demo', '--policy', policy])
    expect(errorLines(run.stderr)).toEqual([])
    expect(run.code).toBe(1)
    expect(run.stdout).toContain(`policy    ${policy}  (paths relative to the copy; "ask" is denied: no terminal to ask on)`)
    expect(run.stdout).toMatch(/^ {2}✓ read allowed by rules\[0\] \("read anywhere"\)$/m)
    expect(run.stdout).toMatch(/^ {2}✗ edit DENIED by rules\[1\] \("no edits"\) \(read-only review\)$/m)
    expect(run.stdout).toMatch(/✗ #2 edit \d+ ms, TOOL_DENIED: /)
    expect(run.stdout).not.toMatch(/▶ #\d bash/)
    expect(run.stdout).toMatch(/^ {2}seq +tool +status +ms +permission +input +output$/m)
    expect(run.stdout).toMatch(/^ {2}2 +edit +error +\d+ +deny +/m)
    expect(run.stdout).toContain('The demo did not end with passing tests.')
    expect(readFileSync(exampleFile, 'utf8')).toContain('let i = 1;')
  }, 120_000)

  it('an allowing policy lets the demo pass, every call judged; --json prints the whole run as one document', async () => {
    const policy = policyFile({ rules: [READS, { name: 'fix src', tool: 'edit', match: { paths: ['src/**'] }, decision: 'allow' }, { name: 'tests', tool: 'bash', decision: 'allow' }], default: 'deny' })
    const run = await runCli(['demo', '--policy', policy, '--json'])
    expect(errorLines(run.stderr)).toEqual([])
    expect(run.code).toBe(0)
    // All of stdout is the one document.
    const doc = JSON.parse(run.stdout) as DemoDoc
    expect(doc.passed).toBe(true)
    expect(doc.policy).toEqual({ file: policy, approver: 'none' })
    expect(doc.prompt).toContain('test/stats.test.js')
    expect(doc.sandbox.engine).toBe('bubblewrap')
    expect(doc.sandbox.enforcement).toContainEqual(expect.stringMatching(/^engine +bubblewrap$/))
    const decisions = doc.events.filter((e) => e.type === 'permission-decision')
    expect(decisions.map((e) => [e.toolName, e.decision, (e.rule as { name: string }).name])).toEqual(
      expect.arrayContaining([
        ['read', 'allow', 'read anywhere'],
        ['grep', 'allow', 'read anywhere'],
        ['edit', 'allow', 'fix src'],
        ['bash', 'allow', 'tests'],
      ]),
    )
    expect(decisions).toHaveLength(4)
    expect(doc.events[0]).toMatchObject({ type: 'turn-start', attempt: 1 })
    expect(doc.events.at(-1)).toMatchObject({ type: 'turn-end', steps: 4 })
    expect(doc.result.steps).toBe(4)
    expect(doc.result.text).toMatch(/^Fixed: /)
    expect(doc.result.toolCalls.map((c) => [c.tool, c.isError, c.error])).toEqual([
      ['read', false, null],
      ['grep', false, null],
      ['edit', false, null],
      ['bash', false, null],
    ])
    expect(doc.testOutput).toMatch(/pass 3/)
    expect(doc.rows.map((r) => [r.seq, r.toolName, r.status, r.permission?.decision])).toEqual([
      [0, 'read', 'success', 'allow'],
      [1, 'grep', 'success', 'allow'],
      [2, 'edit', 'success', 'allow'],
      [3, 'bash', 'success', 'allow'],
    ])
    // Removed afterwards, as without --json.
    expect(doc.kept).toBeNull()
    expect(existsSync(doc.project)).toBe(false)
  }, 120_000)

  it('an ask with no terminal is denied (nobody to ask) and journaled so', async () => {
    const policy = policyFile({ rules: [READS], default: 'ask' })
    const run = await runCli(['demo', '--policy', policy, '--json'])
    expect(run.code).toBe(1)
    const doc = JSON.parse(run.stdout) as DemoDoc
    expect(doc.passed).toBe(false)
    expect(doc.rows.find((r) => r.toolName === 'edit')).toMatchObject({ status: 'error', permission: { decision: 'deny', policyDecision: 'ask', approver: 'none', rule: null } })
    // The denial says why nobody was asked and what to do instead.
    expect(doc.result.toolCalls.find((c) => c.tool === 'edit')?.error).toMatch(/TOOL_DENIED.*there is no terminal to ask on.*add a rule to the --policy file/)
  }, 120_000)

  it('a policy file with an error is a usage error (exit 2, one line), and nothing runs', async () => {
    const policy = policyFile({ rules: [{ tool: 'edit', decision: 'maybe' }] })
    const run = await runCli(['demo', '--policy', policy, '--json'])
    expect(run.code).toBe(2)
    expect(run.stdout).toBe('')
    expect(errorLines(run.stderr)).toEqual([expect.stringMatching(/^toolsmith: Invalid permission policy .*rules\[0\].*\(see "toolsmith demo --help"\)$/)])
  }, 60_000)
})

describe('toolsmith demo --json', () => {
  it('without a policy: one document, no decisions, --keep keeps the folder and says where in the document', async () => {
    const run = await runCli(['demo', '--json', '--keep'])
    expect(errorLines(run.stderr)).toEqual([])
    expect(run.code).toBe(0)
    const doc = JSON.parse(run.stdout) as DemoDoc
    expect(doc.passed).toBe(true)
    expect(doc.policy).toBeNull()
    expect(doc.events.some((e) => e.type === 'permission-decision')).toBe(false)
    expect(doc.rows.map((r) => r.permission)).toEqual([null, null, null, null])
    expect(doc.kept).not.toBeNull()
    try {
      expect(existsSync(doc.journal)).toBe(true)
      expect(readFileSync(join(doc.project, 'src/stats.js'), 'utf8')).toContain('let i = 0;')
    } finally {
      rmSync(doc.kept!, { recursive: true, force: true })
    }
  }, 120_000)
})

/** Run the CLI on a pseudo-terminal (util-linux `script`), answering every question with `answer` (`\x03` is Ctrl-C). */
function runOnTerminal(args: string[], answer: string): Promise<{ code: number | null; output: string; asked: number }> {
  const command = [CLI_COMMAND.command, ...CLI_COMMAND.args, ...args].map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ')
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] })
    let output = ''
    let asked = 0
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk
      const questions = output.split('[y/N]').length - 1
      for (; asked < questions; asked++) child.stdin.write(`${answer}\n`)
    })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, output, asked }))
  })
}

const hasScript = spawnSync('script', ['--version']).status === 0

describe.runIf(hasScript)('toolsmith demo --policy on a terminal', () => {
  it('puts an ask to the user; "y" lets the fix through and the demo passes', async () => {
    const policy = policyFile({ rules: [READS, { name: 'tests', tool: 'bash', decision: 'allow' }], default: 'ask' })
    const run = await runOnTerminal(['demo', '--policy', policy], 'y')
    expect(run.asked).toBe(1)
    expect(run.output).toMatch(/asks before edit "src\/stats\.js".*Allow\? \[y\/N\]/)
    expect(run.output).toContain('"ask" is put to you on the terminal')
    expect(run.output).toMatch(/✓ edit allowed: the policy's default asks, terminal approved/)
    expect(run.output).toContain('The demo passed')
    expect(run.code).toBe(0)
  }, 120_000)

  it('Ctrl-C at the question stops the demo: exit 130, and its temporary copy is removed', async () => {
    const policy = policyFile({ rules: [READS], default: 'ask' })
    const run = await runOnTerminal(['demo', '--policy', policy], '\x03')
    expect(run.asked).toBe(1)
    expect(run.code).toBe(130)
    const project = /^project {3}(\S+)/m.exec(run.output)?.[1]
    expect(project, run.output).toBeDefined()
    expect(existsSync(project as string)).toBe(false)
  }, 120_000)
})
