/**
 * `--json` on `call`, `describe` and `doctor`: exactly one JSON document on
 * stdout, success or failure, usage errors included, with the exit codes of
 * the text mode; and "did you mean" for mistyped tool and provider names.
 */
import { realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { trackedMkdtemp } from '../support/temp_dirs.js'
import { runCli, type CliRun } from './support/run_cli.js'

let root: string

beforeAll(() => {
  root = realpathSync(trackedMkdtemp(join(tmpdir(), 'toolsmith-json-')))
  writeFileSync(join(root, 'hello.txt'), 'hello\n')
})

/** The one document on stdout: a single line that parses. */
function document(run: CliRun): Record<string, unknown> {
  const lines = run.stdout.split('\n')
  expect(lines, run.stdout).toHaveLength(2)
  expect(lines[1]).toBe('')
  return JSON.parse(lines[0]!) as Record<string, unknown>
}

/** stderr without Node's process warnings: nothing else may be there in --json mode. */
function stderrLines(run: CliRun): string[] {
  return run.stderr.split('\n').filter((line) => line.trim() !== '' && !/^\((node:\d+|Use `node)/.test(line))
}

describe.concurrent('toolsmith call --json', { timeout: 120_000 }, () => {
  it('a result: ok, tool, result, exitCode 0', async () => {
    const run = await runCli(['call', 'read', '{"path":"hello.txt"}', '--root', root, '--json'])
    expect(run.code).toBe(0)
    expect(document(run)).toEqual({ ok: true, tool: 'read', result: 'hello\n', exitCode: 0 })
    expect(stderrLines(run)).toEqual([])
  })

  it("a failed command: the tool's code, the message without the output, details with exitCode and output; exit 1", async () => {
    const script = 'echo compiling; echo "error: bad" >&2; exit 3'
    const run = await runCli(['call', 'bash', JSON.stringify({ cmd: 'sh', args: ['-c', script] }), '--root', root, '--json'])
    expect(run.code).toBe(1)
    expect(document(run)).toEqual({
      ok: false,
      tool: 'bash',
      error: {
        code: 'TOOL_COMMAND_FAILED',
        message: '`sh` exited with code 3.',
        details: { exitCode: 3, signal: null, output: 'compiling\nerror: bad\n' },
      },
      exitCode: 1,
    })
    expect(stderrLines(run)).toEqual([])
  })

  it.each([
    [['read', '{"path":"missing.txt"}'], 'TOOL_FILE_NOT_FOUND'],
    [['read', '{"wrong":1}'], 'E_INVALID_TOOL_ARGS'],
    [['bash', '{"cmd":"sleep","args":["30"]}', '--timeout-ms', '300'], 'TOOL_TIMEOUT'],
  ])('a failed call %j: ok false with the code, exit 1', async (args, code) => {
    const [tool, json, ...options] = args
    const run = await runCli(['call', tool!, json!, '--root', root, '--json', ...options])
    expect(run.code).toBe(1)
    const doc = document(run)
    expect(doc).toMatchObject({ ok: false, tool, error: { code, message: expect.any(String) }, exitCode: 1 })
    expect((doc.error as { message: string }).message).not.toMatch(/Output( so far)?:/)
  })

  it.each([
    [['call', 'reed', '{}'], 'Unknown tool "reed" — did you mean "read"?', 'read'],
    [['call', 'nope', '{}'], 'Unknown tool "nope"; expected read, write, edit, grep, bash', undefined],
    [['call', 'read', 'not json'], 'JSON arguments do not parse', undefined],
    [['call', 'read', '{}', '--bogus'], "Unknown option '--bogus'", undefined],
    [['call', 'read', '{}', '--root', '/definitely/not/here'], '--root /definitely/not/here does not exist', undefined],
    [['describe', '--provider', 'opnai'], 'Unknown provider "opnai" — did you mean "openai"?', 'openai'],
    [['doctor', 'extra'], 'Unexpected argument "extra"', undefined],
  ])('a usage error %j is a document too: E_CLI_USAGE, exit 2', async (args, message, suggestion) => {
    const run = await runCli([...args, '--json'])
    expect(run.code).toBe(2)
    expect(document(run)).toEqual({
      ok: false,
      error: { code: 'E_CLI_USAGE', message: expect.stringContaining(message), ...(suggestion === undefined ? {} : { suggestion }) },
      exitCode: 2,
    })
    expect(stderrLines(run)).toEqual([])
  })
})

describe.concurrent('did you mean, without --json', { timeout: 120_000 }, () => {
  it.each([
    [['call', 'reed', '{}'], 'toolsmith: Unknown tool "reed" — did you mean "read"? (see "toolsmith call --help")'],
    [['call', 'bsh', '{}'], 'did you mean "bash"?'],
    [['call', 'GREP', '{}'], 'did you mean "grep"?'],
    [['describe', '--provider', 'antropic'], 'toolsmith: Unknown provider "antropic" — did you mean "anthropic"?'],
  ])('%j suggests the closest name on stderr, exit 2 as before', async (args, message) => {
    const run = await runCli(args)
    expect(run.code).toBe(2)
    expect(run.stdout).toBe('')
    expect(run.stderr).toContain(message)
  })
})

describe.concurrent('toolsmith describe --json and doctor --json', { timeout: 120_000 }, () => {
  it('describe: ok, provider and the definitions describe prints without --json', async () => {
    const [json, plain] = await Promise.all([
      runCli(['describe', '--provider', 'anthropic', '--root', root, '--json']),
      runCli(['describe', '--provider', 'anthropic', '--root', root]),
    ])
    expect(json.code).toBe(0)
    const doc = document(json)
    expect(doc).toMatchObject({ ok: true, provider: 'anthropic', exitCode: 0 })
    expect(doc.definitions).toEqual(JSON.parse(plain.stdout))
    expect((doc.definitions as Array<{ name: string }>).map((d) => d.name)).toEqual(['read', 'write', 'edit', 'grep', 'bash'])
  })

  it('doctor: every layer as a check with ok and detail, the sandbox report, exit 0 where the OS sandbox runs', async () => {
    const run = await runCli(['doctor', '--root', root, '--json', '--limit-file-size', 'off'])
    expect(run.code).toBe(0)
    const doc = document(run) as { ok: boolean; root: string; exitCode: number; checks: Array<{ name: string; ok: boolean; detail: string }>; enforcement: { engine: string } }
    expect(doc).toMatchObject({ ok: true, root, exitCode: 0, platform: { os: process.platform, arch: process.arch, node: process.version } })
    expect(doc.enforcement.engine).toBe('bubblewrap')
    expect(doc.checks.map((check) => check.name)).toEqual([
      'engine', 'filesystem', 'secrets', 'host-view', 'read-only', 'sockets', 'kernel', 'network', 'processes', 'seccomp',
      'limits.processes', 'limits.memory', 'limits.tmp', 'limits.file-size',
    ])
    const check = (name: string) => doc.checks.find((c) => c.name === name)!
    expect(check('engine')).toEqual({ name: 'engine', ok: true, detail: 'bubblewrap' })
    expect(check('filesystem')).toEqual({ name: 'filesystem', ok: true, detail: `enforced by the kernel: host read-only; writable: ${root}, a private /tmp` })
    expect(check('seccomp').detail).toMatch(/^on \((x86_64|aarch64)\): \d+ system calls fail with EPERM/)
    expect(check('limits.file-size')).toEqual({ name: 'limits.file-size', ok: false, detail: 'file size: off' })
    expect(check('limits.memory').ok).toBe(true)
  })

  it('doctor: the layers an opt-out turns off are ok false', async () => {
    const doc = document(await runCli(['doctor', '--root', root, '--json', '--no-os-sandbox', '--allow-network'])) as { checks: Array<{ name: string; ok: boolean; detail: string }> }
    const ok = Object.fromEntries(doc.checks.map((c) => [c.name, c.ok]))
    expect(ok).toMatchObject({ filesystem: false, network: false, seccomp: false })
    expect(doc.checks.find((c) => c.name === 'network')!.detail).toBe('NOT cut by the kernel (allowNetwork)')
  })

  it('doctor without bubblewrap: ok false, the engine check names the reason and bash the fix, exit 1', async () => {
    const run = await runCli(['doctor', '--root', root, '--json'], { env: { TOOLSMITH_BWRAP: '/nonexistent/bwrap' } })
    expect(run.code).toBe(1)
    expect(document(run)).toMatchObject({
      ok: false,
      exitCode: 1,
      checks: [
        { name: 'engine', ok: false, detail: 'unavailable: TOOLSMITH_BWRAP=/nonexistent/bwrap is not an executable' },
        { name: 'bash', ok: false, detail: expect.stringContaining('REFUSES every command'), fix: expect.stringContaining('apt-get install bubblewrap') },
      ],
    })
  })
})
