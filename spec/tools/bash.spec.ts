/**
 * `bash`: no shell, limits, sandboxed cwd, closed stdin, scrubbed env,
 * bounded capture, failures, timeouts and cancellation that leave no
 * process behind.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { Sandbox, createDispatchContext, createTools, getDefinedToolMetadata } from '../../lib/index.js'
import { call, failure, makeFixture, pidsWithMarker, uniqueSleep, waitNoneWithMarker, type Fixture } from './helpers.js'

let fx: Fixture

beforeEach(() => {
  fx = makeFixture()
})
afterEach(() => fx.cleanup())


describe('bash: running programs', () => {
  it('is a side-effect, non-idempotent tool named bash', () => {
    expect(getDefinedToolMetadata(fx.tools.bash)).toEqual({ name: 'bash', sideEffect: true, idempotent: false })
  })

  it('runs cmd with args verbatim: no shell parsing, globbing or expansion', async () => {
    const out = await call(fx.tools.bash, { cmd: 'printf', args: ['%s|', 'a b', '$HOME', '*', '; ls', '"q"'] })
    expect(out).toBe('a b|$HOME|*|; ls|"q"|')
  })

  it('returns stdout and stderr combined', async () => {
    const out = await call(fx.tools.bash, { cmd: 'sh', args: ['-c', 'echo out; echo err >&2'] })
    expect(out).toContain('out\n')
    expect(out).toContain('err\n')
  })

  it('runs in the root by default and in opts.cwd inside it', async () => {
    fs.mkdirSync(path.join(fx.root, 'sub', 'dir'), { recursive: true })
    expect(await call(fx.tools.bash, { cmd: 'pwd' })).toBe(`${fx.root}\n`)
    expect(await call(fx.tools.bash, { cmd: 'pwd', opts: { cwd: 'sub/dir' } })).toBe(`${path.join(fx.root, 'sub', 'dir')}\n`)
    expect(await call(fx.tools.bash, { cmd: 'sh', args: ['-c', 'echo $PWD'], opts: { cwd: 'sub' } })).toBe(
      `${path.join(fx.root, 'sub')}\n`,
    )
  })

  it('runs a relative ./script against the working directory', async () => {
    fs.writeFileSync(path.join(fx.root, 'hello.sh'), '#!/bin/sh\necho "hello $1"\n', { mode: 0o755 })
    expect(await call(fx.tools.bash, { cmd: './hello.sh', args: ['world'] })).toBe('hello world\n')
  })

  it('accepts an absolute executable (process.execPath)', async () => {
    expect(await call(fx.tools.bash, { cmd: process.execPath, args: ['-e', 'console.log(6 * 7)'] })).toBe('42\n')
  })

  it('a missing cwd is TOOL_FILE_NOT_FOUND, a file as cwd TOOL_PATH_INVALID', async () => {
    expect((await failure(fx.tools.bash, { cmd: 'ls', opts: { cwd: 'nope' } })).code).toBe('TOOL_FILE_NOT_FOUND')
    fs.writeFileSync(path.join(fx.root, 'f.txt'), '')
    expect((await failure(fx.tools.bash, { cmd: 'ls', opts: { cwd: 'f.txt' } })).code).toBe('TOOL_PATH_INVALID')
  })

  it('a missing executable is TOOL_COMMAND_NOT_FOUND, by name or by path', async () => {
    const byName = await failure(fx.tools.bash, { cmd: 'definitely-not-a-command-xyz' })
    expect(byName.code).toBe('TOOL_COMMAND_NOT_FOUND')
    expect(byName.message).not.toMatch(/ENOENT/)
    expect((await failure(fx.tools.bash, { cmd: './missing.sh' })).code).toBe('TOOL_COMMAND_NOT_FOUND')
    fs.writeFileSync(path.join(fx.root, 'noexec.sh'), 'echo hi\n', { mode: 0o644 })
    expect((await failure(fx.tools.bash, { cmd: './noexec.sh' })).code).toBe('TOOL_COMMAND_NOT_FOUND')
  })

  it('closes stdin: a program reading it sees end-of-file at once', async () => {
    expect(await call(fx.tools.bash, { cmd: 'sh', args: ['-c', 'cat; echo "eof reached"'] })).toBe('eof reached\n')
  })
})

describe('bash: argument limits (in the schema)', () => {
  it('cmd up to 8192 characters', async () => {
    expect((await failure(fx.tools.bash, { cmd: 'x'.repeat(8193) })).code).toBe('E_INVALID_TOOL_ARGS')
    expect((await failure(fx.tools.bash, { cmd: '' })).code).toBe('E_INVALID_TOOL_ARGS')
    // 8192 is accepted by validation and fails later as an unknown program.
    expect((await failure(fx.tools.bash, { cmd: 'x'.repeat(8192) })).code).toBe('TOOL_COMMAND_NOT_FOUND')
  })

  it('at most 128 arguments of at most 8192 characters', async () => {
    expect(await call(fx.tools.bash, { cmd: 'echo', args: Array(128).fill('a') })).toBe(`${Array(128).fill('a').join(' ')}\n`)
    expect((await failure(fx.tools.bash, { cmd: 'echo', args: Array(129).fill('a') })).code).toBe('E_INVALID_TOOL_ARGS')
    expect(await call(fx.tools.bash, { cmd: 'printf', args: ['%s', 'y'.repeat(8192)] })).toBe('y'.repeat(8192))
    expect((await failure(fx.tools.bash, { cmd: 'echo', args: ['y'.repeat(8193)] })).code).toBe('E_INVALID_TOOL_ARGS')
    expect((await failure(fx.tools.bash, { cmd: 'echo', args: ['a\0b'] })).code).toBe('E_INVALID_TOOL_ARGS')
    expect((await failure(fx.tools.bash, { cmd: 'echo', args: [1] })).code).toBe('E_INVALID_TOOL_ARGS')
    expect((await failure(fx.tools.bash, { cmd: 'echo', opts: { cwd: '.', shell: true } })).code).toBe('E_INVALID_TOOL_ARGS')
  })
})

describe('bash: environment', () => {
  it('passes an allow-list plus Sandbox.env, never proxies, loader hooks or secrets', async () => {
    const saved = { ...process.env }
    Object.assign(process.env, {
      HTTPS_PROXY: 'http://proxy.invalid',
      http_proxy: 'http://proxy.invalid',
      LD_PRELOAD: '/tmp/evil.so',
      NODE_OPTIONS: '--require /tmp/evil.js',
      AWS_SECRET_ACCESS_KEY: 'hunter2',
      GITHUB_TOKEN: 'ghp_secret',
      LC_ALL: 'C',
    })
    try {
      const tools = createTools({ rootDir: fx.root, env: { PROJECT_FLAG: 'yes' } })
      const out = String(await call(tools.bash, { cmd: 'env' }))
      const names = out
        .split('\n')
        .filter(Boolean)
        .map((line) => line.slice(0, line.indexOf('=')))
      expect(names).toContain('PATH')
      expect(names).toContain('PROJECT_FLAG')
      expect(names).toContain('LC_ALL')
      for (const name of ['HTTPS_PROXY', 'http_proxy', 'LD_PRELOAD', 'NODE_OPTIONS', 'AWS_SECRET_ACCESS_KEY', 'GITHUB_TOKEN']) {
        expect(names).not.toContain(name)
      }
      expect(out).not.toContain('hunter2')
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key]
      Object.assign(process.env, saved)
    }
  })

  it('refuses dangerous names in Sandbox.env at construction', () => {
    for (const name of ['LD_PRELOAD', 'NODE_OPTIONS', 'HTTPS_PROXY', 'no_proxy', 'DYLD_INSERT_LIBRARIES']) {
      expect(() => new Sandbox({ env: { [name]: 'x' } }), name).toThrow(expect.objectContaining({ code: 'E_INVALID_OPTIONS' }))
    }
  })
})

describe('bash: failures', () => {
  it('a non-zero exit is TOOL_COMMAND_FAILED with exitCode, signal and output', async () => {
    const error = await failure(fx.tools.bash, { cmd: 'sh', args: ['-c', 'echo partial; echo oops >&2; exit 3'] })
    expect(error.code).toBe('TOOL_COMMAND_FAILED')
    expect(error.details.exitCode).toBe(3)
    expect(error.details.signal).toBeNull()
    expect(error.details.output).toContain('partial')
    expect(error.details.output).toContain('oops')
    // The model sees the output in the message too.
    expect(error.outer.message).toContain('TOOL_COMMAND_FAILED')
    expect(error.outer.message).toContain('oops')
  })

  it('a program killed by a signal reports the signal (no PID namespace: the status is the real one)', async () => {
    const tools = createTools({ rootDir: fx.root, isolation: { filesystem: false, network: false, pid: false } })
    const error = await failure(tools.bash, { cmd: 'sh', args: ['-c', 'echo before; kill -KILL $$'] })
    expect(error.code).toBe('TOOL_COMMAND_FAILED')
    expect(error.details.signal).toBe('SIGKILL')
    expect(error.details.exitCode).toBeNull()
    expect(error.details.output).toBe('before\n')
  })

  it('in the OS sandbox the program is exec\'d directly: kill -9 $$ is SIGKILL, exit codes are its own', async () => {
    const killed = await failure(fx.tools.bash, { cmd: 'sh', args: ['-c', 'echo before; kill -KILL $$'] })
    expect(killed.code).toBe('TOOL_COMMAND_FAILED')
    expect(killed.details).toMatchObject({ exitCode: null, signal: 'SIGKILL', output: 'before\n' })
    expect(killed.message).toContain('was killed by SIGKILL')
    const exited = await failure(fx.tools.bash, { cmd: 'sh', args: ['-c', 'echo err >&2; exit 3'] })
    expect(exited.details).toMatchObject({ exitCode: 3, signal: null, output: 'err\n' })
    // No wrapper shell: the command is PID 2 under bwrap's init, and sh is the program itself.
    expect(await call(fx.tools.bash, { cmd: 'sh', args: ['-c', 'echo $$; tr "\\0" " " < /proc/$$/cmdline'] })).toMatch(/^2\n(\/usr)?\/bin\/sh -c echo \$\$; tr /)
  })

  it('in the OS sandbox a shebang-less file fails as it would outside (no shell fallback)', async () => {
    fs.writeFileSync(path.join(fx.root, 'script'), 'echo ran-as-shell-script > ran.txt\n', { mode: 0o755 })
    const error = await failure(fx.tools.bash, { cmd: './script' })
    expect(error.code).toBe('TOOL_COMMAND_NOT_FOUND')
    expect(error.message).toContain('not a program')
    expect(fs.existsSync(path.join(fx.root, 'ran.txt'))).toBe(false)
  })

  it.runIf(new Sandbox({ isolation: { filesystem: false } }).isolation.pid)(
    'with unshare\'s PID namespace no signal is made up and the wrapper shell adds nothing to the output',
    async () => {
      const tools = createTools({ rootDir: fx.root, isolation: { filesystem: false } })
      // The status comes through the namespace's shell: 137 may be SIGKILL or `exit 137`.
      const killed = await failure(tools.bash, { cmd: 'sh', args: ['-c', 'echo before; kill -KILL $$'] })
      expect(killed.code).toBe('TOOL_COMMAND_FAILED')
      expect(killed.details).toMatchObject({ exitCode: 137, signal: null, output: 'before\n' })
      expect(killed.message).toContain('probably killed by SIGKILL')
      const exited = await failure(tools.bash, { cmd: 'sh', args: ['-c', 'echo err >&2; exit 130'] })
      expect(exited.details).toMatchObject({ exitCode: 130, signal: null, output: 'err\n' })
      // The wrapper's saved stderr (fd 3) is not inherited by the command.
      expect(await call(tools.bash, { cmd: 'sh', args: ['-c', 'if [ -e /proc/self/fd/3 ]; then echo open; else echo closed; fi'] })).toBe('closed\n')
    },
  )
})

describe('bash: bounded output', () => {
  it('keeps head and tail of a long output around an explicit marker, within maxOutputBytes', async () => {
    const tools = createTools({ rootDir: fx.root, maxOutputBytes: 1000 })
    const out = String(await call(tools.bash, { cmd: 'sh', args: ['-c', 'echo FIRST; seq 1 20000; echo LAST'] }))
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(1000)
    expect(out.startsWith('FIRST\n1\n')).toBe(true)
    expect(out.endsWith('20000\nLAST\n')).toBe(true)
    const omitted = Number(/\[… (\d+) bytes truncated …\]/.exec(out)?.[1])
    const total = Number(await call(fx.tools.bash, { cmd: 'sh', args: ['-c', '(echo FIRST; seq 1 20000; echo LAST) | wc -c'] }))
    const marker = `\n[… ${omitted} bytes truncated …]\n`
    expect(Buffer.byteLength(out) - Buffer.byteLength(marker) + omitted).toBe(total)
  })

  it('never cuts a UTF-8 character in half', async () => {
    const tools = createTools({ rootDir: fx.root, maxOutputBytes: 101 })
    const out = String(await call(tools.bash, { cmd: 'sh', args: ['-c', 'i=0; while [ $i -lt 300 ]; do printf "é€"; i=$((i+1)); done'] }))
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(101)
    expect(out).not.toContain('\uFFFD')
    expect(out).toMatch(/^(é€)+é?\n\[… \d+ bytes truncated …\]\n€?(é€)+$/)
  })

  it('a command printing 1 GiB is capped and marked', async () => {
    const out = String(
      await call(fx.tools.bash, { cmd: 'sh', args: ['-c', 'yes 0123456789abcdef | head -c 1073741824; echo; echo THE-END'] }),
    )
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(200_000)
    expect(out.startsWith('0123456789abcdef\n')).toBe(true)
    expect(out.endsWith('THE-END\n')).toBe(true)
    const omitted = Number(/\[… (\d+) bytes truncated …\]/.exec(out)?.[1])
    expect(omitted).toBeGreaterThan(1073741824 - 200_000)
  }, 120_000)
})

const isolations = [
  ['OS sandbox (default)', undefined],
  ['unshare namespaces', { filesystem: false }],
  ['isolation off', { filesystem: false, network: false, pid: false }],
] as const

/** `sh -c` text that records readiness in FILE, then becomes `sleep MARKER` (the marker finds it on the host). */
const readyThenSleep = (file: string, marker: string): string => `echo ready > ${file}; exec sleep ${marker}`

describe('bash: timeouts and cancellation leave no process behind', () => {
  it.each(isolations)('%s: a timeout kills the whole tree, a setsid escapee included, and keeps the partial output', async (_, isolation) => {
    const tools = createTools({ rootDir: fx.root, timeoutMs: 5000, ...(isolation ? { isolation } : {}) })
    const marker = uniqueSleep()
    const script = [
      `setsid -f sh -c '${readyThenSleep('escapee.pid', marker)}'`,
      `sh -c '${readyThenSleep('child.pid', marker)}' &`,
      // Report "started" only once every process is on its way.
      'while [ ! -s escapee.pid ] || [ ! -s child.pid ]; do sleep 0.05; done',
      'echo started',
      `exec sleep ${marker}`,
    ].join('\n')
    const startedAt = Date.now()
    const pending = failure(tools.bash, { cmd: 'sh', args: ['-c', script] })
    // All three sleeps are seen on the host before the deadline falls.
    let seen = 0
    while (seen < 3 && Date.now() - startedAt < 4500) {
      seen = pidsWithMarker(marker).length
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const error = await pending
    expect(seen).toBe(3)
    expect(Date.now() - startedAt).toBeLessThan(30_000)
    expect(error.code).toBe('TOOL_TIMEOUT')
    expect(error.details.output).toContain('started')
    expect(error.outer.message).toContain('started')
    // The escapee (setsid, re-parented) is caught by the PID namespace or,
    // without one, because it still holds the command's stdout.
    expect(await waitNoneWithMarker(marker), 'a process outlived the timeout').toBe(true)
  })

  it.each(isolations)('%s: a finished command leaves no setsid escapee holding its output', async (_, isolation) => {
    const tools = createTools({ rootDir: fx.root, ...(isolation ? { isolation } : {}) })
    const marker = uniqueSleep()
    const out = await call(tools.bash, {
      cmd: 'sh',
      args: ['-c', `setsid -f sh -c '${readyThenSleep('bg.pid', marker)}'; while [ ! -s bg.pid ]; do sleep 0.05; done; echo done`],
    })
    expect(out).toBe('done\n')
    expect(await waitNoneWithMarker(marker), 'the background process outlived its command').toBe(true)
  })

  it('without a PID namespace, a setsid escapee seen in the tree is killed at exit even with its output redirected away', async () => {
    const tools = createTools({ rootDir: fx.root, isolation: { filesystem: false, network: false, pid: false } })
    const marker = uniqueSleep()
    // A background `setsid` (no fork: not a group leader) makes a new session
    // that stays a child of the command until the command exits.
    const script = [
      `setsid sh -c '${readyThenSleep('bg.pid', marker)}' >/dev/null 2>&1 &`,
      'while [ ! -s bg.pid ]; do sleep 0.05; done',
      // Long enough for the tracker (a scan about every 250 ms) to see the escapee on a loaded machine.
      'sleep 2',
      'echo done',
    ].join('\n')
    expect(await call(tools.bash, { cmd: 'sh', args: ['-c', script] })).toBe('done\n')
    expect(await waitNoneWithMarker(marker), 'escapee still running').toBe(true)
  })

  it('a command that exited is not turned into TOOL_TIMEOUT while an escapee holds its pipes', async () => {
    // Before: the deadline (1.5 s) fell while the pipes drained (up to 2 s) and the success became TOOL_TIMEOUT.
    const tools = createTools({ rootDir: fx.root, timeoutMs: 2000, isolation: { filesystem: false, network: false, pid: false } })
    const marker = uniqueSleep()
    const script = `(setsid sh -c '${readyThenSleep('esc.pid', marker)}' &); while [ ! -s esc.pid ]; do sleep 0.05; done; echo done`
    try {
      expect(await call(tools.bash, { cmd: 'sh', args: ['-c', script] })).toBe('done\n')
    } finally {
      await waitNoneWithMarker(marker)
    }
  })

  it.each(isolations)('%s: aborting the context kills the tree and fails with TOOL_ABORTED', async (_, isolation) => {
    const tools = createTools({ rootDir: fx.root, ...(isolation ? { isolation } : {}) })
    const ctx = createDispatchContext()
    const marker = uniqueSleep()
    const pending = failure(tools.bash, { cmd: 'sh', args: ['-c', `echo running; exec sleep ${marker}`] }, ctx)
    const deadline = Date.now() + 20_000
    while (pidsWithMarker(marker).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(pidsWithMarker(marker)).toHaveLength(1)
    ctx.abort(new Error('user pressed stop'))
    const error = await pending
    expect(error.code).toBe('TOOL_ABORTED')
    expect(error.details.output).toContain('running')
    expect(await waitNoneWithMarker(marker)).toBe(true)
  })

  it('a timeout holds when the process-group kill fails: the leader is killed directly', async () => {
    const tools = createTools({ rootDir: fx.root, timeoutMs: 1000 })
    const marker = uniqueSleep()
    const realKill = process.kill.bind(process)
    const refused: number[] = []
    const spy = vi.spyOn(process, 'kill').mockImplementation((pid: number, signal?: string | number) => {
      if (pid < 0) {
        refused.push(pid)
        throw Object.assign(new Error('kill EPERM'), { code: 'EPERM' })
      }
      return realKill(pid, signal)
    })
    try {
      const startedAt = Date.now()
      const error = await failure(tools.bash, { cmd: 'sh', args: ['-c', `exec sleep ${marker}`] })
      expect(error.code).toBe('TOOL_TIMEOUT')
      expect(Date.now() - startedAt).toBeLessThan(10_000)
      expect(refused.length).toBeGreaterThan(0)
    } finally {
      spy.mockRestore()
    }
    expect(await waitNoneWithMarker(marker)).toBe(true)
  })

  it('an already aborted context runs nothing', async () => {
    const ctx = createDispatchContext()
    ctx.abort()
    const error = await failure(fx.tools.bash, { cmd: 'sh', args: ['-c', 'echo ran > ran.txt'] }, ctx)
    expect(error.code).toBe('TOOL_ABORTED')
    expect(fs.existsSync(path.join(fx.root, 'ran.txt'))).toBe(false)
  })

  it('timeoutMs is capped at one hour', () => {
    expect(new Sandbox({ timeoutMs: 3_600_000 }).timeoutMs).toBe(3_600_000)
    expect(() => new Sandbox({ timeoutMs: 3_600_001 })).toThrow(expect.objectContaining({ code: 'E_INVALID_OPTIONS' }))
  })
})
