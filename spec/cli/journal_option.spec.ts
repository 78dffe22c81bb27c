// `--journal SPEC` and `--idempotency-key KEY` of `toolsmith call` and
// `toolsmith mcp`: what they accept, what they refuse (one line, exit 2), and
// that a JSONL journal named by its file records the call.
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { JsonlJournal } from '../../lib/index.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'
import { CLI_COMMAND, runCli } from './support/run_cli.js'

const APPEND = JSON.stringify({ path: 'log.txt', patch: '@@ -1 +1,2 @@\n log\n+ran\n' })

describe('toolsmith call --journal / --idempotency-key', () => {
  let dir: string
  let root: string

  beforeAll(() => {
    dir = trackedMkdtemp(join(tmpdir(), 'toolsmith-journal-option-'))
    root = join(dir, 'root')
    mkdirSync(root)
    writeFileSync(join(root, 'log.txt'), 'log\n')
  })

  it.each([
    ['--idempotency-key without --journal', ['--idempotency-key', 'k1'], /--idempotency-key needs --journal/],
    ['an empty key', ['--journal', 'j.jsonl', '--idempotency-key='], /--idempotency-key must not be empty/],
    ['a key of 257 characters', ['--journal', 'j.jsonl', '--idempotency-key', 'k'.repeat(257)], /--idempotency-key must be at most 256 characters, got 257/],
    ['a key with a newline', ['--journal', 'j.jsonl', '--idempotency-key', 'a\nb'], /--idempotency-key must not contain control characters/],
    ['an empty --journal', ['--journal='], /--journal needs a journal/],
    ['a directory as the journal', ['--journal', tmpdir()], /--journal .* is a directory, not a journal file/],
    ['a URL of another database', ['--journal', 'mysql://db/x'], /--journal takes FILE.jsonl, FILE.sqlite or a postgres:\/\/ URL, not mysql:\/\/…/],
    ['--schema without PostgreSQL', ['--journal', 'j.jsonl', '--schema', 's'], /--schema applies only to a PostgreSQL journal/],
    ['"postgres" without TOOLSMITH_JOURNAL_URL', ['--journal', 'postgres'], /reads the URL from TOOLSMITH_JOURNAL_URL, which is not set/],
  ])('refuses %s: one line, exit 2, nothing run', async (_label, flags, message) => {
    // A relative journal file would be made in the spec's working directory: none of these gets that far.
    const run = await runCli(['call', 'edit', APPEND, '--root', root, ...flags], { env: { TOOLSMITH_JOURNAL_URL: '' } })
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(message)
    expect(run.stderr.trim().split('\n')).toHaveLength(1)
    expect(readFileSync(join(root, 'log.txt'), 'utf8')).toBe('log\n')
  })

  it('mcp takes --journal but not --idempotency-key (a request carries its own key)', async () => {
    const run = await runCli(['mcp', '--journal', join(dir, 'j.jsonl'), '--idempotency-key', 'k1'])
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/Option "--idempotency-key" does not apply to "mcp"/)
  })

  it('records the call in a JSONL journal named by its file, and replays it under the same key', async () => {
    const journalFile = join(dir, 'calls.jsonl')
    const args = ['call', 'edit', APPEND, '--root', root, '--journal', journalFile, '--idempotency-key', 'jsonl-1']
    const first = await runCli(args)
    const second = await runCli(args)
    expect([first.code, first.stdout, second.code, second.stdout]).toEqual([0, 'ok\n', 0, 'ok\n'])
    expect(readFileSync(join(root, 'log.txt'), 'utf8')).toBe('log\nran\n')
    const journal = new JsonlJournal(journalFile)
    const rows = await journal.list()
    await journal.close()
    expect(rows.map((row) => [row.toolName, row.status, row.replayed])).toEqual([
      ['edit', 'success', false],
      ['edit', 'success', true],
    ])
  })

  it('a call whose process was killed while it ran: the same key again is TOOL_OUTCOME_UNKNOWN, not a second run', async () => {
    const journalFile = join(dir, 'killed.sqlite')
    const script = JSON.stringify({ cmd: 'sh', args: ['-c', 'echo started >> runs.txt; sleep 60'] })
    const args = [...CLI_COMMAND.args, 'call', 'bash', script, '--root', root, '--journal', journalFile, '--idempotency-key', 'killed-1']
    const first = spawn(CLI_COMMAND.command, args, { stdio: 'ignore' })
    const exited = new Promise((resolve) => first.once('exit', resolve))
    const deadline = Date.now() + 45_000
    while (!existsSync(join(root, 'runs.txt')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    expect(existsSync(join(root, 'runs.txt'))).toBe(true)
    first.kill('SIGKILL')
    await exited
    const again = await runCli(args.slice(CLI_COMMAND.args.length))
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/TOOL_OUTCOME_UNKNOWN/)
    expect(readFileSync(join(root, 'runs.txt'), 'utf8')).toBe('started\n')
  })
})
