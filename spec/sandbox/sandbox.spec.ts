/**
 * `Sandbox` options and defaults, `createTools`, the ready instances, and
 * `Sandbox.isolation`.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  DEFAULT_READ_ONLY_PATHS,
  DEFAULT_UNREADABLE_PATHS,
  MAX_OUTPUT_BYTES_LIMIT,
  BashTool,
  EditTool,
  GrepTool,
  InMemorySpoolStore,
  ReadTool,
  Sandbox,
  Tool,
  WriteTool,
  bash,
  createTools,
  edit,
  getDefinedToolMetadata,
  grep,
  read,
  tools,
  write,
} from '../../lib/index.js'
import { call, failure, makeFixture } from '../tools/helpers.js'

describe('Sandbox options', () => {
  it('has the defaults of the design', () => {
    const sandbox = new Sandbox()
    expect(sandbox.rootDir).toBe(process.cwd())
    expect(sandbox.maxOutputBytes).toBe(200_000)
    expect(sandbox.timeoutMs).toBe(60_000)
    expect(sandbox.allowNetwork).toBe(false)
    expect(sandbox.env).toEqual({})
    expect('spoolStore' in sandbox).toBe(false)
  })

  it('keeps what it is given (rootDir made absolute, env frozen)', () => {
    // A relative root that exists: a given root is checked when the sandbox is created.
    const relativeRoot = path.relative(process.cwd(), os.tmpdir())
    const sandbox = new Sandbox({
      rootDir: relativeRoot,
      maxOutputBytes: 1234,
      timeoutMs: 5000,
      allowNetwork: true,
      env: { FOO: 'bar' },
    })
    expect(sandbox.rootDir).toBe(path.resolve(relativeRoot))
    expect(sandbox.maxOutputBytes).toBe(1234)
    expect(sandbox.timeoutMs).toBe(5000)
    expect(sandbox.allowNetwork).toBe(true)
    expect(sandbox.env).toEqual({ FOO: 'bar' })
    expect(Object.isFrozen(sandbox.env)).toBe(true)
  })

  it('refuses spoolStore, which never had an effect, and says where it belongs (issue 12)', () => {
    const refusal = (() => {
      try {
        new Sandbox({ spoolStore: new InMemorySpoolStore() } as never)
      } catch (error) {
        return error as { code?: string; message: string }
      }
      return undefined
    })()
    expect(refusal?.code).toBe('E_INVALID_OPTIONS')
    expect(refusal?.message).toMatch(/pass spoolStore to TurnRunner/)
  })

  it('accepts maxOutputBytes up to 10 MiB, and the path policy options with their defaults', () => {
    expect(MAX_OUTPUT_BYTES_LIMIT).toBe(10 * 1024 * 1024)
    expect(new Sandbox({ maxOutputBytes: MAX_OUTPUT_BYTES_LIMIT }).maxOutputBytes).toBe(MAX_OUTPUT_BYTES_LIMIT)
    const defaults = new Sandbox().enforcement
    expect(defaults.writablePaths).toEqual([])
    expect(defaults.readOnlyPaths).toEqual([...DEFAULT_READ_ONLY_PATHS])
    expect(defaults.readOnlyPaths).toContain('**/.git')
    expect(defaults.unreadablePaths).toEqual(DEFAULT_UNREADABLE_PATHS.map((p) => (p.startsWith('~/') ? path.join(os.homedir(), p.slice(2)) : p)))
    expect(defaults).toMatchObject({ readableHost: 'all', readablePaths: [] })
    const custom = new Sandbox({ writablePaths: ['/var/cache/x/'], unreadablePaths: ['~', '/etc/secret'], readOnlyPaths: ['a/b/'], networkGuard: 'always' })
    expect(custom.enforcement).toMatchObject({ writablePaths: ['/var/cache/x'], unreadablePaths: [os.homedir(), '/etc/secret'], readOnlyPaths: ['a/b/'] })
    expect(custom.networkGuard).toBe('always')
    expect(custom.enforcement.networkGuard).toBe(true)
  })

  it.each([
    [{ maxOutputBytes: 0 }],
    [{ maxOutputBytes: 1.5 }],
    [{ maxOutputBytes: '200000' }],
    [{ maxOutputBytes: MAX_OUTPUT_BYTES_LIMIT + 1 }],
    [{ maxOutputBytes: 2 ** 31 - 1 }],
    [{ networkGuard: 'never' }],
    [{ writablePaths: ['relative/dir'] }],
    [{ writablePaths: '/abs' }],
    [{ unreadablePaths: ['.ssh'] }],
    [{ unreadablePaths: ['~user/.ssh'] }],
    [{ readOnlyPaths: ['/abs/.git'] }],
    [{ readOnlyPaths: ['../.git/hooks'] }],
    [{ readOnlyPaths: ['/'] }],
    [{ isolation: { filesystem: 'yes' } }],
    [{ timeoutMs: 0 }],
    [{ timeoutMs: 3_600_001 }],
    [{ allowNetwork: 'yes' }],
    [{ rootDir: '' }],
    [{ rootDir: 'a\0b' }],
    [{ env: { 'BAD NAME': 'x' } }],
    [{ env: { OK: 1 } }],
    [{ env: { LD_PRELOAD: '/x.so' } }],
    [{ spoolStore: {} }],
    [{ unknownOption: true }],
    [{ isolation: 'off' }],
    [{ isolation: { pid: 'no' } }],
    [{ isolation: { network: 0 } }],
    [{ isolation: { mount: false } }],
    [{ isolation: null }],
  ])('refuses %j with E_INVALID_OPTIONS', (options) => {
    let thrown: unknown
    try {
      new Sandbox(options as never)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toMatchObject({ code: 'E_INVALID_OPTIONS' })
    expect((thrown as Error).cause).toBeDefined()
  })

  it('resolve() checks a path like the tools do', async () => {
    const fx = makeFixture()
    try {
      const sandbox = new Sandbox({ rootDir: fx.root })
      expect(await sandbox.resolve('a/b.txt')).toBe(path.join(fx.root, 'a', 'b.txt'))
      await expect(sandbox.resolve('../canary')).rejects.toMatchObject({ code: 'TOOL_PATH_ESCAPE' })
      await expect(sandbox.resolve('')).rejects.toMatchObject({ code: 'TOOL_PATH_INVALID' })
    } finally {
      fx.cleanup()
    }
  })

  it('a root removed after the tools were created is TOOL_NOT_A_DIRECTORY for every tool, and works once back', async () => {
    const missing = fs.mkdtempSync(path.join(os.tmpdir(), 'toolsmith-removed-'))
    const set = createTools({ rootDir: missing })
    fs.rmdirSync(missing)
    try {
      expect((await failure(set.read, { path: 'a.txt' })).code).toBe('TOOL_NOT_A_DIRECTORY')
      expect((await failure(set.write, { path: 'a.txt', content: 'x' })).code).toBe('TOOL_NOT_A_DIRECTORY')
      expect((await failure(set.edit, { path: 'a.txt', patch: '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-x\n+y\n' })).code).toBe('TOOL_NOT_A_DIRECTORY')
      expect((await failure(set.grep, { pattern: 'x' })).code).toBe('TOOL_NOT_A_DIRECTORY')
      expect((await failure(set.bash, { cmd: 'ls' })).code).toBe('TOOL_NOT_A_DIRECTORY')
      expect(fs.existsSync(missing)).toBe(false)
      fs.mkdirSync(missing)
      expect(await call(set.write, { path: 'a.txt', content: 'x' })).toBe('ok')
    } finally {
      fs.rmSync(missing, { recursive: true, force: true })
    }
  })
})

describe('createTools and the ready instances', () => {
  it('tells a Sandbox from another copy of the package apart, and refuses it with a message that says so', () => {
    const mine = new Sandbox({ rootDir: os.tmpdir() })
    expect(Sandbox.isSandbox(mine)).toBe(true)
    expect(Sandbox.isSandbox({ rootDir: os.tmpdir() })).toBe(false)
    expect(Sandbox.isSandbox(null)).toBe(false)
    // What another installed copy's Sandbox looks like from here: the shared brand, none of this class's private state.
    const foreign = Object.create({ [Symbol.for('toolsmith.sandbox')]: true }) as object
    expect(Sandbox.isSandbox(foreign)).toBe(true)
    let error: unknown
    try {
      createTools(foreign as Sandbox)
    } catch (e) {
      error = e
    }
    expect((error as { code?: string }).code).toBe('E_INVALID_OPTIONS')
    expect((error as Error).message).toMatch(/comes from another copy of toolsmith \(two versions are installed\)/)
  })

  it('builds the five tool classes over one sandbox', async () => {
    const fx = makeFixture({ maxOutputBytes: 100 })
    try {
      const set = fx.tools
      expect(set.read).toBeInstanceOf(ReadTool)
      expect(set.write).toBeInstanceOf(WriteTool)
      expect(set.edit).toBeInstanceOf(EditTool)
      expect(set.grep).toBeInstanceOf(GrepTool)
      expect(set.bash).toBeInstanceOf(BashTool)
      for (const tool of Object.values(set)) expect(Tool.isTool(tool)).toBe(true)
      // One sandbox: a file written by one tool is seen by the others, under the same limit.
      await call(set.write, { path: 'shared.txt', content: 'shared\n' })
      expect(await call(set.read, { path: 'shared.txt' })).toBe('shared\n')
      expect(await call(set.grep, { pattern: 'shared' })).toBe('shared.txt:1:shared\n')
      expect((await failure(set.write, { path: 'big.txt', content: 'x'.repeat(101) })).code).toBe('TOOL_CONTENT_TOO_LARGE')
    } finally {
      fx.cleanup()
    }
  })

  it('accepts a Sandbox to share', () => {
    const sandbox = new Sandbox({ rootDir: os.tmpdir() })
    const set = createTools(sandbox)
    expect(set.bash.description).toContain(String(sandbox.timeoutMs))
  })

  it('exports tools, read, write, edit, grep, bash with the flags of the design', () => {
    expect(tools).toEqual({ read, write, edit, grep, bash })
    expect(Object.keys(tools).sort()).toEqual(['bash', 'edit', 'grep', 'read', 'write'])
    expect(getDefinedToolMetadata(read)).toEqual({ name: 'read', sideEffect: false, idempotent: true })
    expect(getDefinedToolMetadata(grep)).toEqual({ name: 'grep', sideEffect: false, idempotent: true })
    expect(getDefinedToolMetadata(write)).toEqual({ name: 'write', sideEffect: true, idempotent: false })
    expect(getDefinedToolMetadata(edit)).toEqual({ name: 'edit', sideEffect: true, idempotent: false })
    expect(getDefinedToolMetadata(bash)).toEqual({ name: 'bash', sideEffect: true, idempotent: false })
  })

  it('describe() gives the input schema of the design for each tool', () => {
    const keys = (tool: Tool) => Object.keys((tool.describe().inputSchema as { keys?: object }).keys ?? {}).sort()
    // Issue 16 added line ranges to read.
    expect(keys(read)).toEqual(['limit', 'lineNumbers', 'offset', 'path'])
    expect(keys(write)).toEqual(['content', 'path'])
    expect(keys(edit)).toEqual(['patch', 'path'])
    expect(keys(grep)).toEqual(['path', 'pattern'])
    expect(keys(bash)).toEqual(['args', 'cmd', 'opts'])
  })

  it('importing the barrel spawns nothing and emits no isolation warning', () => {
    // A fresh process: importing must not probe namespaces (that happens on first use).
    const script = `
      process.on('warning', (w) => { console.log('WARNING ' + w.code) })
      const cp = require('node:child_process')
      for (const name of ['spawn', 'spawnSync', 'execFile', 'execFileSync']) {
        const original = cp[name]
        cp[name] = (...args) => { console.log('SPAWNED ' + args[0]); return original(...args) }
      }
      require('node:module').syncBuiltinESMExports()
      import(${JSON.stringify(path.resolve('lib/index.ts'))}).then((m) => console.log('LOADED ' + typeof m.createTools))
    `
    const result = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8', cwd: process.cwd() })
    expect(result.stderr).toBe('')
    expect(result.stdout.trim()).toBe('LOADED function')
  })
})

describe('Sandbox.isolation', () => {
  const probe = (): { network: boolean; pid: boolean } => {
    const ok = (flags: string[]) =>
      spawnSync('unshare', [...flags, '--', '/bin/sh', '-c', 'exit 0'], { stdio: 'ignore' }).status === 0
    return {
      network: process.platform === 'linux' && ok(['--map-root-user', '--net']),
      pid: process.platform === 'linux' && ok(['--map-root-user', '--pid', '--fork', '--kill-child']),
    }
  }

  it('matches what this machine actually allows', () => {
    const actual = probe()
    const opted = { isolation: { filesystem: false } }
    expect(new Sandbox(opted).isolation).toEqual({ filesystem: false, ...actual })
    expect(new Sandbox({ ...opted, allowNetwork: true }).isolation).toEqual({ filesystem: false, network: false, pid: actual.pid })
    // bubblewrap is a prerequisite of this project (.ci/run installs it): the OS sandbox must be on.
    const bwrap = spawnSync('bwrap', ['--unshare-all', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '--', '/bin/true'], { stdio: 'ignore' })
    expect(bwrap.status, 'bubblewrap must be installed and usable here').toBe(0)
    expect(new Sandbox().isolation).toEqual({ filesystem: true, network: true, pid: true })
  })

  it.runIf(probe().pid)('puts bash in its own PID namespace', async () => {
    const fx = makeFixture()
    try {
      // In a fresh PID namespace the sandbox's shell is PID 1 and the command its child.
      const out = String(await call(fx.tools.bash, { cmd: 'sh', args: ['-c', 'echo $$ $PPID'] }))
      const [pid, parent] = out.trim().split(' ').map(Number)
      expect(parent).toBe(1)
      expect(pid).toBeLessThan(10)
    } finally {
      fx.cleanup()
    }
  })
})
