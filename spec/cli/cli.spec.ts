import { trackedMkdtemp } from '../support/temp_dirs.js'
import { existsSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { runCli, errorLines } from './support/run_cli.js'

let root: string

beforeAll(() => {
  root = realpathSync(trackedMkdtemp(join(tmpdir(), 'toolsmith-cli-')))
  writeFileSync(join(root, 'hello.txt'), 'hello from the sandbox\n')
})

/**
 * Non-empty lines of stderr, without Node's process warnings (a machine
 * without namespaces gets the sandbox's isolation warning): a failure must
 * print exactly one.
 */
describe.concurrent('toolsmith help and usage errors', () => {
  it('prints help with --help on the program (exit 0)', async () => {
    const program = await runCli(['--help'])
    expect(program.code).toBe(0)
    expect(program.stdout).toContain('Usage: toolsmith <command>')
  })

  // One process per test: five sequential spawns in one test come too close
  // to the timeout on a loaded 2-core machine.
  it.each(['mcp', 'call', 'describe', 'demo', 'doctor', 'journal'])('prints help with `%s --help` (exit 0)', async (command) => {
    const run = await runCli([command, '--help'])
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(`Usage: toolsmith ${command}`)
  })

  it('prints the version', async () => {
    const run = await runCli(['--version'])
    expect(run.code).toBe(0)
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/)
  })

  it.each([
    [[], 'Usage: toolsmith'],
    [['frobnicate'], 'Unknown command "frobnicate"'],
    [['call'], 'call needs TOOL and JSON'],
    [['call', 'read', 'not json'], 'JSON arguments do not parse'],
    [['call', 'read', '[1]'], 'must be an object'],
    [['call', 'nope', '{}'], 'Unknown tool "nope"'],
    [['describe', '--provider', 'bogus'], 'Unknown provider "bogus"'],
    [['describe', '--max-output-bytes', 'lots'], '--max-output-bytes needs a positive integer'],
    // A value that starts with "-" is not node's "argument is ambiguous", and range errors name the flag.
    [['describe', '--timeout-ms', '-5'], 'toolsmith: --timeout-ms needs a positive integer (got "-5")'],
    [['describe', '--max-output-bytes', '-1'], 'toolsmith: --max-output-bytes needs a positive integer (got "-1")'],
    [['describe', '--schema', '-x'], 'toolsmith: --schema needs a value; to give one that starts with "-", write --schema=-x'],
    [['call', 'read', '{}', '--allow-domain', 'a.com', '--allow-domain', '-x'], 'toolsmith: --allow-domain needs a value; to give one that starts with "-", write --allow-domain=-x'],
    [['journal', 'audit', '--jsonl', '--sqlite', 'x'], 'toolsmith: --jsonl needs a value ('],
    [['describe', '--max-output-bytes', '10'], 'toolsmith: --max-output-bytes must be greater than or equal to 64'],
    [['describe', '--timeout-ms', '99999999'], 'toolsmith: --timeout-ms must be less than or equal to 3600000'],
    [['call', 'read', '{"path":"x"}', '--allow-domain', 'bad_host!'], 'toolsmith: --allow-domain must be a host name'],
    [['describe', '--limit-processes', '2'], 'toolsmith: --limit-processes must be greater than or equal to 8'],
    [['describe', '--limit-processes', '-5'], 'toolsmith: --limit-processes needs a positive integer (got "-5")'],
    [['describe', '--limit-memory', 'lots'], 'toolsmith: --limit-memory needs a size (bytes, or a number with K, M, G or T) or "off" (got "lots")'],
    [['describe', '--limit-memory', '1M'], 'toolsmith: --limit-memory must be greater than or equal to 33554432'],
    [['doctor', '--limit-tmp', '1.5G'], 'toolsmith: --limit-tmp needs a size'],
    [['describe', '--bogus'], "Unknown option '--bogus'"],
    [['demo', '--provider', 'openai'], 'does not apply to "demo"'],
    [['call', 'read', '{"path":"x"}', '--root', '/definitely/not/here'], '--root /definitely/not/here does not exist'],
  ])('exits 2 on a usage error: %j', async (args, message) => {
    const run = await runCli(args)
    expect(run.code).toBe(2)
    expect(run.stdout).toBe('')
    expect(run.stderr).toContain(message)
    if (args.length > 0) expect(errorLines(run.stderr)).toHaveLength(1)
    expect(run.stderr).not.toMatch(/\n\s+at /)
  })
})

describe.concurrent('toolsmith call', () => {
  it('prints the result of a successful call (exit 0)', async () => {
    const run = await runCli(['call', 'read', '{"path":"hello.txt"}', '--root', root])
    expect(run).toMatchObject({ code: 0, stdout: 'hello from the sandbox\n' })
  })

  it('reads JSON arguments from stdin with "-"', async () => {
    const run = await runCli(['call', 'grep', '-', '--root', root], { input: '{"pattern":"sandbox"}' })
    expect(run.code).toBe(0)
    expect(run.stdout).toBe('hello.txt:1:hello from the sandbox\n')
  })

  it('writes inside the root and runs commands there', async () => {
    const write = await runCli(['call', 'write', '{"path":"out/new.txt","content":"made by call"}', '--root', root])
    expect(write).toMatchObject({ code: 0, stdout: 'ok\n' })
    expect(readFileSync(join(root, 'out/new.txt'), 'utf8')).toBe('made by call')
    const bash = await runCli(['call', 'bash', JSON.stringify({ cmd: 'ls', args: ['out'] }), '--root', root])
    expect(bash).toMatchObject({ code: 0, stdout: 'new.txt\n' })
  })

  it.each([
    [['read', '{"path":"missing.txt"}'], /^TOOL_FILE_NOT_FOUND: /],
    [['read', '{"path":"../../etc/passwd"}'], /^TOOL_PATH_ESCAPE: /],
    [['read', '{"wrong":1}'], /^E_INVALID_TOOL_ARGS: /],
    [['bash', '{"cmd":"false"}'], /^TOOL_COMMAND_FAILED: /],
    [['bash', '{"cmd":"no-such-program-here"}'], /^TOOL_COMMAND_NOT_FOUND: /],
    [['bash', '{"cmd":"sleep","args":["30"]}', '--timeout-ms', '300'], /^TOOL_TIMEOUT: /],
  ])('prints one line CODE: message and exits 1 when the call fails: %j', async (args, pattern) => {
    const [tool, json, ...options] = args
    const run = await runCli(['call', tool!, json!, '--root', root, ...options])
    expect(run.code).toBe(1)
    expect(run.stdout).toBe('')
    const lines = errorLines(run.stderr)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(pattern)
  })
})

describe('toolsmith call, failing command', () => {
  it("prints a failed command's output on stdout and the error line on stderr", async () => {
    const script = 'echo compiling; echo "error: bad thing" >&2; exit 3'
    const run = await runCli(['call', 'bash', JSON.stringify({ cmd: 'sh', args: ['-c', script] }), '--root', root])
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('compiling')
    expect(run.stdout).toContain('error: bad thing')
    expect(errorLines(run.stderr)).toEqual([expect.stringMatching(/^TOOL_COMMAND_FAILED: .*code 3/)])
  })
})

describe.concurrent('toolsmith describe', () => {
  it('prints a JSON array of JSON Schema definitions by default', async () => {
    const run = await runCli(['describe'])
    expect(run.code).toBe(0)
    const definitions = JSON.parse(run.stdout)
    expect(definitions.map((d: { name: string }) => d.name)).toEqual(['read', 'write', 'edit', 'grep', 'bash'])
    const read = definitions[0]
    expect(read).toMatchObject({ sideEffect: false, idempotent: true, inputSchema: { type: 'object', required: ['path'] } })
    expect(definitions[1]).toMatchObject({ name: 'write', sideEffect: true, idempotent: false })
  })

  // Each provider's shape of the first definition (read), and the paths that must be absent from it.
  it.each<[string, Record<string, unknown>, string[]]>([
    ['openai', { type: 'function', function: { name: 'read', parameters: { type: 'object' } } }, []],
    ['openai-responses', { type: 'function', name: 'read', parameters: { type: 'object' } }, []],
    ['anthropic', { name: 'read', input_schema: { type: 'object' } }, []],
    ['gemini', { name: 'read', parameters: { type: 'OBJECT' } }, ['parameters.additionalProperties']],
    ['mcp', { name: 'read', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }, []],
  ])('prints the %s shape with --provider', async (provider, shape, absent) => {
    const run = await runCli(['describe', '--provider', provider])
    expect(run.code).toBe(0)
    const definitions = JSON.parse(run.stdout)
    expect(definitions).toHaveLength(5)
    expect(definitions[0]).toMatchObject(shape)
    for (const path of absent) expect(definitions[0]).not.toHaveProperty(path)
  })
})

describe('toolsmith demo', () => {
  it('runs a scripted turn that fixes the demo project and prints events, calls and the journal', async () => {
    const run = await runCli(['demo'])
    expect(errorLines(run.stderr)).toEqual([])
    expect(run.code).toBe(0)
    const out = run.stdout
    for (const tool of ['read', 'grep', 'edit', 'bash']) expect(out).toMatch(new RegExp(`✓ #\\d ${tool} \\d+ ms`))
    expect(out).toMatch(/step 4 +model/)
    expect(out).toContain('pass 3')
    expect(out).toContain('journal (4 rows')
    expect(out).toMatch(/^\s+3\s+bash\s+success/m)
    expect(out).toContain('The demo passed')
    // It says what bash enforces.
    expect(out).toMatch(/^ +engine +bubblewrap$/m)
    expect(out).toMatch(/^ +network +cut by the kernel/m)
    // The temporary copy is removed, and the example itself is never touched.
    const project = /^project +(\S+)/m.exec(out)![1]!
    expect(existsSync(project)).toBe(false)
    expect(readFileSync(join(exampleDir, 'src/stats.js'), 'utf8')).toContain('let i = 1;')
  })
})

/** A machine without bubblewrap, as far as the kit can tell. */
const NO_BWRAP = { TOOLSMITH_BWRAP: '/nonexistent/bwrap' }

describe('toolsmith doctor and machines without bubblewrap', () => {
  it('doctor prints every layer and exits 0 where the OS sandbox runs', async () => {
    const run = await runCli(['doctor', '--root', root])
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^engine +bubblewrap$/m)
    expect(run.stdout).toMatch(new RegExp(`^filesystem +enforced by the kernel: host read-only; writable: ${root}, a private /tmp$`, 'm'))
    expect(run.stdout).toMatch(/^network +cut by the kernel/m)
    expect(run.stdout).toMatch(/^processes +own PID namespace/m)
    expect(run.stdout).toMatch(/^kernel +\/proc\/sys, .* read-only; \/proc\/keys, .* masked/m)
    expect(run.stdout).toMatch(/^seccomp +on \((x86_64|aarch64)\): \d+ system calls fail with EPERM \(add_key, .*nested user namespaces refused/m)
    const optedOut = await runCli(['doctor', '--root', root, '--no-os-sandbox'])
    expect(optedOut.stdout).toMatch(/^seccomp +OFF: only the OS sandbox \(bubblewrap\) installs the seccomp filter$/m)
    const open = await runCli(['doctor', '--root', root, '--allow-network'])
    expect(open.stdout).toMatch(/^network +NOT cut by the kernel \(allowNetwork\)$/m)
  })

  it('doctor shows each resource limit and what enforces it; the --limit-* flags set them, "off" switches one off', async () => {
    const defaults = await runCli(['doctor', '--root', root])
    expect(defaults.stdout).toMatch(/^limits +processes: 1024 at once, by (cgroup v[12]|rlimit) \(.+\)$/m)
    expect(defaults.stdout).toMatch(/^ +memory: 4 GiB, by (cgroup v[12]|rlimit) \(.+\)$/m)
    expect(defaults.stdout).toMatch(/^ +\/tmp and \/run: 1 GiB each, by tmpfs \(.+\)$/m)
    expect(defaults.stdout).toMatch(/^ +file size: 4 GiB, by rlimit \(RLIMIT_FSIZE.+\)$/m)
    const set = await runCli(['doctor', '--root', root, '--limit-processes', '256', '--limit-memory', '512M', '--limit-tmp', '64MiB', '--limit-file-size', 'off'])
    expect(set.code).toBe(0)
    expect(set.stdout).toMatch(/^limits +processes: 256 at once, /m)
    expect(set.stdout).toMatch(/^ +memory: 512 MiB, /m)
    expect(set.stdout).toMatch(/^ +\/tmp and \/run: 64 MiB each, /m)
    expect(set.stdout).toMatch(/^ +file size: off$/m)
  })

  it('call: a command over --limit-file-size fails with TOOL_LIMIT_EXCEEDED naming the flag', async () => {
    const run = await runCli(['call', 'bash', '{"cmd":"dd","args":["if=/dev/zero","of=big.bin","bs=1M","count=4"]}', '--root', root, '--limit-file-size', '1M'])
    expect(run.code).toBe(1)
    expect(errorLines(run.stderr)).toEqual([expect.stringMatching(/^TOOL_LIMIT_EXCEEDED: `dd` was killed by SIGXFSZ: .*file size limit of 1 MiB.*--limit-file-size/)])
  })

  it('without bubblewrap, doctor names the fix and exits 1; bash refuses and runs nothing; --no-os-sandbox runs', async () => {
    const doctor = await runCli(['doctor', '--root', root], { env: NO_BWRAP })
    expect(doctor.code).toBe(1)
    expect(doctor.stdout).toMatch(/^engine +unavailable: TOOLSMITH_BWRAP=\/nonexistent\/bwrap is not an executable$/m)
    expect(doctor.stdout).toContain('apt-get install bubblewrap')
    const refused = await runCli(['call', 'bash', '{"cmd":"touch","args":["ran.txt"]}', '--root', root], { env: NO_BWRAP })
    expect(refused.code).toBe(1)
    expect(errorLines(refused.stderr)).toEqual([expect.stringMatching(/^TOOL_SANDBOX_UNAVAILABLE: .*install bubblewrap.*isolation: \{ filesystem: false \}/)])
    expect(existsSync(join(root, 'ran.txt'))).toBe(false)
    const optedOut = await runCli(['call', 'bash', '{"cmd":"touch","args":["ran.txt"]}', '--root', root, '--no-os-sandbox'], { env: NO_BWRAP })
    expect(optedOut.code).toBe(0)
    expect(existsSync(join(root, 'ran.txt'))).toBe(true)
  })

  it('the demo still works without bubblewrap, and prints that it runs without the OS sandbox', async () => {
    const run = await runCli(['demo'], { env: NO_BWRAP })
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/OS sandbox unavailable \(TOOLSMITH_BWRAP=.*\): the demo runs without it/)
    expect(run.stdout).toMatch(/^ +filesystem +NOT enforced/m)
    expect(run.stdout).toContain('The demo passed')
  })
})

const exampleDir = fileURLToPath(new URL('../../examples/demo-project/', import.meta.url))

describe('demo project', () => {
  it('has a failing test suite until the bug is fixed', async () => {
    expect(readFileSync(join(exampleDir, 'src/stats.js'), 'utf8')).toContain('for (let i = 1;')
  })

  it('is embedded in the CLI word for word, for installs without examples/', () => {
    const embedded = readFileSync(fileURLToPath(new URL('../../lib/cli/demo_project.ts', import.meta.url)), 'utf8')
    const files = listFiles(exampleDir)
    expect(files.length).toBeGreaterThanOrEqual(3)
    for (const file of files) {
      const path = relative(exampleDir, file)
      expect(embedded).toContain(`${JSON.stringify(path)}: ${JSON.stringify(readFileSync(file, 'utf8'))}`)
    }
    expect(embedded.match(/^ {2}"[^"]+": "/gm)).toHaveLength(files.length)
  })
})

function listFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? listFiles(path) : [path]
  })
}
