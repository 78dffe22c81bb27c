/**
 * Protected paths (`readOnlyPaths`) hold for every tool: the chain that
 * plants a `core.fsmonitor` (or a hook) for the user's next `git status`
 * fails at every step — `write` and `edit` refuse `.git` at any depth, by
 * its real path; `bash` cannot change an existing nested repository; a
 * `bash` command that creates one is named in its result and its event.
 * Ordinary writes still work, `read` and `grep` are unaffected.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { beforeEach, describe, expect, it, onTestFinished } from 'vitest'
import {
  DEFAULT_READ_ONLY_PATHS,
  Sandbox,
  TurnRunner,
  createDispatchContext,
  createTools,
  scriptedModel,
  type BuiltinTools,
  type ProtectedPathCreatedEvent,
  type SandboxOptions,
  type TurnEvent,
} from '../../lib/index.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'

const FSMONITOR = '[core]\n\tfsmonitor = "touch PWNED; false"\n'
const gitEnv = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x' }
const osSandbox = new Sandbox().isolation.filesystem

let root: string

function make(options: SandboxOptions = {}): BuiltinTools {
  return createTools({ rootDir: root, timeoutMs: 30_000, ...options })
}

/** Run a call; never throws: the result, or the cause's code, message and details. */
async function call(tool: BuiltinTools[keyof BuiltinTools], args: object, ctx = createDispatchContext()) {
  try {
    return { ok: true as const, text: String(await (tool.executor(ctx) as (a: object) => Promise<unknown>)(args)) }
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string; details?: Record<string, unknown> } }).cause
    return { ok: false as const, code: cause?.code, text: `${cause?.message ?? ''}`, details: cause?.details ?? {} }
  }
}

function gitInit(dir: string, ...extra: string[]): void {
  const result = spawnSync('git', ['init', '-q', ...extra, dir], { encoding: 'utf8' })
  expect(result.status, result.stderr).toBe(0)
}

/** The user's next git command in `dir`, outside any sandbox: did a planted command run? */
function hostGitRunsPlantedCode(dir: string): boolean {
  spawnSync('git', ['status'], { cwd: dir, env: { ...process.env, ...gitEnv }, stdio: 'ignore' })
  return fs.existsSync(path.join(dir, 'PWNED'))
}

beforeEach(() => {
  root = fs.realpathSync(trackedMkdtemp(path.join(os.tmpdir(), 'toolsmith-protected-')))
  fs.mkdirSync(path.join(root, 'src'))
  fs.writeFileSync(path.join(root, 'src', 'app.ts'), 'export const a = 1\n')
})

describe('write and edit refuse protected paths', () => {
  it('write .git/config (the fsmonitor plant) is refused; the repository is unchanged and git runs nothing', async () => {
    gitInit(root)
    const config = fs.readFileSync(path.join(root, '.git', 'config'), 'utf8')
    const result = await call(make().write, { path: '.git/config', content: config + FSMONITOR })
    expect(result).toMatchObject({
      ok: false,
      code: 'TOOL_PATH_PROTECTED',
      details: { path: '.git/config', reason: 'executes-on-host', rule: '**/.git' },
    })
    expect(result.text).toMatch(/runs code on the host/)
    expect(result.text).toMatch(/readOnlyPaths/)
    expect(fs.readFileSync(path.join(root, '.git', 'config'), 'utf8')).toBe(config)
    expect(hostGitRunsPlantedCode(root)).toBe(false)
  })

  it('edit .git/config is refused and the file is unchanged', async () => {
    gitInit(root)
    const file = path.join(root, '.git', 'config')
    const config = fs.readFileSync(file, 'utf8')
    const first = config.split('\n')[0]
    const patch = `--- a/.git/config\n+++ b/.git/config\n@@ -1,1 +1,3 @@\n ${first}\n+\tfsmonitor = "touch PWNED; false"\n+\thooksPath = /tmp\n`
    const result = await call(make().edit, { path: '.git/config', patch })
    expect(result).toMatchObject({ ok: false, code: 'TOOL_PATH_PROTECTED', details: { reason: 'executes-on-host', rule: '**/.git' } })
    expect(fs.readFileSync(file, 'utf8')).toBe(config)
  })

  it('a nested repository: src/.git/config is refused whether or not src/.git exists, and nothing is created', async () => {
    const tools = make()
    const before = await call(tools.write, { path: 'src/.git/config', content: FSMONITOR })
    expect(before).toMatchObject({ ok: false, code: 'TOOL_PATH_PROTECTED', details: { path: 'src/.git/config', rule: '**/.git', protected: 'src/.git' } })
    expect(fs.existsSync(path.join(root, 'src', '.git'))).toBe(false)
    gitInit(path.join(root, 'src'))
    for (const target of ['src/.git/config', 'src/.git/hooks/pre-commit', 'src/.git/HEAD']) {
      expect(await call(tools.write, { path: target, content: FSMONITOR }), target).toMatchObject({ ok: false, code: 'TOOL_PATH_PROTECTED' })
    }
    expect(hostGitRunsPlantedCode(path.join(root, 'src'))).toBe(false)
  })

  it('a symlinked folder does not hide the real path: x -> .git, then x/config; y -> src, then y/.git/config', async () => {
    gitInit(root)
    gitInit(path.join(root, 'src'))
    fs.symlinkSync('.git', path.join(root, 'x'))
    fs.symlinkSync('src', path.join(root, 'y'))
    fs.symlinkSync('.git/hooks', path.join(root, 'h'))
    const tools = make()
    expect(await call(tools.write, { path: 'x/config', content: FSMONITOR })).toMatchObject({ ok: false, code: 'TOOL_PATH_PROTECTED', details: { path: 'x/config', protected: '.git' } })
    expect(await call(tools.write, { path: 'y/.git/config', content: FSMONITOR })).toMatchObject({ ok: false, code: 'TOOL_PATH_PROTECTED', details: { protected: 'src/.git' } })
    expect(await call(tools.write, { path: 'h/post-checkout', content: '#!/bin/sh\ntouch PWNED\n' })).toMatchObject({ ok: false, code: 'TOOL_PATH_PROTECTED' })
    expect(await call(tools.write, { path: path.join(root, 'x', 'config'), content: FSMONITOR })).toMatchObject({ ok: false, code: 'TOOL_PATH_PROTECTED' })
    // A symlink named .vscode that points at an ordinary folder: the editor reads through the name.
    fs.mkdirSync(path.join(root, 'shared'))
    fs.symlinkSync('shared', path.join(root, '.vscode'))
    expect(await call(tools.write, { path: '.vscode/tasks.json', content: '{}' })).toMatchObject({ ok: false, code: 'TOOL_PATH_PROTECTED', details: { protected: '.vscode' } })
    expect(fs.readdirSync(path.join(root, 'shared'))).toEqual([])
    expect(hostGitRunsPlantedCode(root)).toBe(false)
  })

  it.each([
    ['.vscode/tasks.json', '**/.vscode'],
    ['.idea/workspace.xml', '**/.idea'],
    ['.bashrc', '**/.bashrc'],
    ['sub/.zshenv', '**/.zshenv'],
    ['.envrc', '**/.envrc'],
    ['.mcp.json', '**/.mcp.json'],
    ['.claude/settings.json', '**/.claude'],
    ['.gitmodules', '**/.gitmodules'],
    ['packages/a/.gitconfig', '**/.gitconfig'],
    ['.config/git/config', '.config/git'],
    ['.GIT/config', '**/.git'],
    ['.g\u200Cit/config', '**/.git'],
    ['.VSCode/settings.json', '**/.vscode'],
  ])('write %s is refused (rule %s)', async (target, rule) => {
    const result = await call(make().write, { path: target, content: '{}\n' })
    expect(result).toMatchObject({ ok: false, code: 'TOOL_PATH_PROTECTED', details: { reason: 'executes-on-host', rule } })
    expect(fs.existsSync(path.join(root, target))).toBe(false)
  })

  it('a folder shaped like a git directory (a bare repository, whatever its name) is protected by **/.git', async () => {
    gitInit(path.join(root, 'vendor', 'lib.git'), '--bare')
    const result = await call(make().write, { path: 'vendor/lib.git/config', content: FSMONITOR })
    expect(result).toMatchObject({ ok: false, code: 'TOOL_PATH_PROTECTED', details: { rule: '**/.git', protected: 'vendor/lib.git' } })
  })

  it('ordinary files still work, and read and grep are unaffected', async () => {
    gitInit(root)
    const tools = make()
    for (const target of ['src/git.ts', '.github/workflows/ci.yml', '.gitignore', '.gitattributes', 'docs/git/notes.md', 'src/.gitkeep', 'bashrc.example']) {
      expect(await call(tools.write, { path: target, content: 'x\n' }), target).toEqual({ ok: true, text: 'ok' })
    }
    expect(await call(tools.edit, { path: 'src/git.ts', patch: '@@ -1 +1 @@\n-x\n+y\n' })).toEqual({ ok: true, text: 'ok' })
    expect((await call(tools.read, { path: '.git/HEAD' })).text).toContain('ref: refs/heads/')
    expect((await call(tools.grep, { pattern: 'repositoryformatversion', path: '.git/config' })).text).toContain('repositoryformatversion')
  })

  it('readOnlyPaths replaces the default: [] allows .git; plain paths and patterns of the user\'s own are refused', async () => {
    gitInit(root)
    expect(await call(make({ readOnlyPaths: [] }).write, { path: '.git/description', content: 'mine\n' })).toEqual({ ok: true, text: 'ok' })
    const own = make({ readOnlyPaths: ['tools/run.sh', 'deploy/**/*.yml'] })
    expect(await call(own.write, { path: 'tools/run.sh', content: 'x' })).toMatchObject({ ok: false, details: { rule: 'tools/run.sh' } })
    expect(await call(own.write, { path: 'deploy/a/b/prod.yml', content: 'x' })).toMatchObject({ ok: false, details: { rule: 'deploy/**/*.yml' } })
    expect(await call(own.write, { path: 'sub/tools/run.sh', content: 'x' })).toEqual({ ok: true, text: 'ok' })
    expect(await call(own.write, { path: '.vscode/tasks.json', content: '{}' })).toEqual({ ok: true, text: 'ok' })
    expect(await call(make({ readOnlyPaths: ['build/**'] }).write, { path: 'build/x/y', content: 'x' })).toMatchObject({ ok: false, details: { rule: 'build/**', protected: 'build' } })
    const extended = make({ readOnlyPaths: [...DEFAULT_READ_ONLY_PATHS, '**/.husky'] })
    expect(await call(extended.write, { path: 'web/.husky/pre-commit', content: 'x' })).toMatchObject({ ok: false, details: { rule: '**/.husky' } })
  })

  it('entries that would protect the root itself, or leave it, are refused as options', () => {
    for (const readOnlyPaths of [['**'], ['.'], ['**/'], ['../x'], ['/abs/.git']]) {
      expect(() => new Sandbox({ readOnlyPaths }), JSON.stringify(readOnlyPaths)).toThrow(/readOnlyPaths/)
    }
  })
})

describe('bash without the OS sandbox', () => {
  it('nothing is read-only, but what a command creates is still reported', async () => {
    const result = await call(make({ isolation: { filesystem: false } }).bash, { cmd: 'sh', args: ['-c', 'echo "export X=1" > .envrc'] })
    expect(result.ok).toBe(true)
    expect(result.text).toMatch(/^\[toolsmith\] This command created \.envrc \(direnv runs \.envrc/)
  })
})

describe.runIf(osSandbox)('bash: protected paths at any depth are read-only, and new ones are reported', () => {
  it('an existing nested repository cannot be changed: append to src/.git/config, git config, a hook', async () => {
    gitInit(path.join(root, 'src'))
    const config = fs.readFileSync(path.join(root, 'src', '.git', 'config'), 'utf8')
    const bash = make().bash
    for (const script of [
      `printf '${FSMONITOR.replace(/\n/g, '\\n').replace(/\t/g, '\\t')}' >> src/.git/config`,
      'git -C src config core.fsmonitor "touch PWNED; false"',
      'printf "#!/bin/sh\\ntouch PWNED\\n" > src/.git/hooks/pre-commit',
      'mv src/.git src/.git-old',
    ]) {
      const result = await call(bash, { cmd: 'sh', args: ['-c', script] })
      expect(result.ok, script).toBe(false)
    }
    expect(fs.readFileSync(path.join(root, 'src', '.git', 'config'), 'utf8')).toBe(config)
    expect(fs.existsSync(path.join(root, 'src', '.git', 'hooks', 'pre-commit'))).toBe(false)
    expect(hostGitRunsPlantedCode(path.join(root, 'src'))).toBe(false)
    // Reading still works.
    expect((await call(bash, { cmd: 'git', args: ['-C', 'src', 'status', '--short'] })).ok).toBe(true)
  })

  it('deep and late folders count too: node_modules/pkg/.git and a/b/c/d/.vscode', async () => {
    gitInit(path.join(root, 'node_modules', 'pkg'))
    fs.mkdirSync(path.join(root, 'a', 'b', 'c', 'd', '.vscode'), { recursive: true })
    const result = await call(make().bash, {
      cmd: 'sh',
      args: ['-c', 'echo x >> node_modules/pkg/.git/config; echo x > a/b/c/d/.vscode/tasks.json; echo done'],
    })
    expect(result.text).toMatch(/node_modules\/pkg\/\.git\/config: Read-only file system/)
    expect(result.text).toMatch(/\.vscode\/tasks\.json: Read-only file system/)
    expect(fs.existsSync(path.join(root, 'a', 'b', 'c', 'd', '.vscode', 'tasks.json'))).toBe(false)
  })

  it('a command that creates new/.git/config: the result and the event name it, and it is read-only afterwards', async () => {
    const events: ProtectedPathCreatedEvent[] = []
    const ctx = createDispatchContext({ onProtectedPathCreated: (event) => events.push(event) })
    const bash = make().bash
    const result = await call(bash, { cmd: 'sh', args: ['-c', `mkdir -p new/.git && printf '${FSMONITOR.replace(/\n/g, '\\n').replace(/\t/g, '\\t')}' > new/.git/config && echo made`] }, ctx)
    expect(result.ok).toBe(true)
    expect(result.text).toMatch(/^made\n\[toolsmith\] This command created new\/\.git \(git runs hooks/)
    expect(result.text).toMatch(/run code on the host later/)
    expect(events).toEqual([
      expect.objectContaining({ toolName: 'bash', turnId: ctx.id, paths: [{ path: 'new/.git', rule: '**/.git' }] }),
    ])
    // From now on it is protected like any other.
    expect(await call(make().write, { path: 'new/.git/config', content: 'x' })).toMatchObject({ ok: false, code: 'TOOL_PATH_PROTECTED' })
    expect((await call(bash, { cmd: 'sh', args: ['-c', 'echo y >> new/.git/config'] })).ok).toBe(false)
    // A command that creates nothing protected says nothing.
    expect(await call(bash, { cmd: 'sh', args: ['-c', 'mkdir -p other && echo ok > other/f'] }, ctx)).toEqual({ ok: true, text: '' })
    expect(events).toHaveLength(1)
  })

  it('TurnRunner reports protected-path-created, and the note reaches the model', async () => {
    const events: TurnEvent[] = []
    const runner = new TurnRunner({
      model: scriptedModel([
        { toolCalls: [{ id: 'c1', name: 'bash', args: { cmd: 'git', args: ['init', '-q', 'lib/vendored'] } }] },
        { text: 'done' },
      ]),
      tools: [make().bash],
      onEvent: (event) => events.push(event),
    })
    const turn = await runner.run('vendor it')
    expect(events.filter((e) => e.type === 'protected-path-created')).toEqual([
      expect.objectContaining({ type: 'protected-path-created', toolName: 'bash', paths: [{ path: 'lib/vendored/.git', rule: '**/.git' }] }),
    ])
    expect(JSON.stringify(turn.messages)).toContain('This command created lib/vendored/.git')
  })

  it('a failed command that created some: the error names them in its output and details', async () => {
    const result = await call(make().bash, { cmd: 'sh', args: ['-c', 'git init -q deep/er/repo && touch .envrc && exit 3'] })
    expect(result).toMatchObject({
      ok: false,
      code: 'TOOL_COMMAND_FAILED',
      details: {
        exitCode: 3,
        protectedPathsCreated: expect.arrayContaining([
          { path: '.envrc', rule: '**/.envrc' },
          { path: 'deep/er/repo/.git', rule: '**/.git' },
        ]),
      },
    })
    expect(result.text).toMatch(/This command created .*\.envrc/)
  })

  it('a command stopped by its deadline still has its creations reported in the event', async () => {
    const events: ProtectedPathCreatedEvent[] = []
    const ctx = createDispatchContext({ onProtectedPathCreated: (event) => events.push(event) })
    const result = await call(make({ timeoutMs: 3_000 }).bash, { cmd: 'sh', args: ['-c', 'mkdir -p slow/.idea && sleep 60'] }, ctx)
    expect(result).toMatchObject({ ok: false, code: 'TOOL_TIMEOUT' })
    expect(events).toEqual([expect.objectContaining({ paths: [{ path: 'slow/.idea', rule: '**/.idea' }] })])
  })

  it('commands in quick succession: each new .git is reported by the command that made it', async () => {
    const bash = make().bash
    const ctx = createDispatchContext()
    for (let i = 0; i < 5; i++) {
      expect((await call(bash, { cmd: 'mkdir', args: [`d${i}`] }, ctx)).text).toBe('')
      expect((await call(bash, { cmd: 'mkdir', args: [`d${i}/.git`] }, ctx)).text).toContain(`created d${i}/.git`)
    }
  })
})

describe.runIf(osSandbox)('bash: a concurrent command swapping a pinned folder cannot mount a host folder', () => {
  beforeEach(() => {
    root = trackedMkdtemp('protected-race-')
  })

  // A protected file in `x` makes the next command pin `x` (a bind of the
  // folder onto itself). bwrap resolves a bind's source in the host's
  // namespace, so a command that keeps swapping `x` with a symlink to a
  // host folder (renameat2 RENAME_EXCHANGE) could get that folder bound
  // read-write into a concurrent command. The kit binds such sources from a
  // descriptor it checked: the swap now fails the setup (or binds the real
  // folder), never the host's.
  it('0 writes reach the host folder while another command swaps the folder', async () => {
    // Outside the private /tmp, so the folder exists at the same path inside (the host's, read-only).
    const outside = fs.mkdtempSync('/var/tmp/toolsmith-race-outside-')
    onTestFinished(() => fs.rmSync(outside, { recursive: true, force: true }))
    const link = path.relative(root, outside)
    const bash = make({ timeoutMs: 60_000 }).bash
    const ctx = createDispatchContext()
    const swapper = call(
      bash,
      {
        cmd: 'sh',
        args: [
          '-c',
          `mkdir x && echo hi > x/.bashrc && ln -s ${JSON.stringify(link)} xl && echo ready > swapping && ` +
            `perl -e '$a="x"; $b="xl"; my $end = time + 25; while (time < $end) { syscall(316, -100, $a, -100, $b, 2) for 1..10000 }'`,
        ],
      },
      ctx,
    )
    // The swapper runs once its marker is there.
    for (let i = 0; i < 200 && !fs.existsSync(path.join(root, 'swapping')); i++) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(fs.existsSync(path.join(root, 'swapping'))).toBe(true)
    let attempts = 0
    const started = Date.now()
    while (Date.now() - started < 15_000 && attempts < 60) {
      attempts++
      await call(bash, { cmd: 'sh', args: ['-c', `touch ${JSON.stringify(path.join(outside, 'PWNED'))}`] }, ctx)
    }
    await swapper
    expect(attempts).toBeGreaterThan(5)
    expect(fs.readdirSync(outside)).toEqual([])
  })
})

describe.runIf(osSandbox)('bash: bind sources inside the root come from checked descriptors', () => {
  beforeEach(() => {
    root = trackedMkdtemp('protected-fd-')
  })

  // The deterministic half of the race above: whatever the timing, no path
  // inside the root (other than the root itself) is handed to bwrap as a
  // bind source by name, where a swap could redirect it.
  it('pins and read-only binds inside the root are --bind-fd / --ro-bind-fd, each fd open on the path itself', async () => {
    const { selectEngine } = await import('../../lib/sandbox/os/engine.js')
    fs.mkdirSync(path.join(root, 'a/b'), { recursive: true })
    fs.writeFileSync(path.join(root, 'a/b/.bashrc'), 'echo hi\n')
    const real = fs.realpathSync(root)
    const engine = selectEngine({
      allowNetwork: false,
      wanted: { filesystem: true, network: true, pid: true },
      writable: [],
      readOnly: [],
      unreadable: [],
      explicitEnv: {},
    })
    const plan = engine.launch({
      file: '/bin/true',
      args: [],
      root: real,
      cwd: real,
      hostCwd: real,
      env: {},
      readOnly: [path.join(real, 'a/b/.bashrc')],
    })
    try {
      const byName = plan.args.flatMap((arg, i) =>
        (arg === '--bind' || arg === '--ro-bind') && plan.args[i + 1]!.startsWith(`${real}/`) ? [plan.args[i + 1]] : [],
      )
      expect(byName).toEqual([])
      const fds = plan.args.flatMap((arg, i) => (arg === '--bind-fd' || arg === '--ro-bind-fd' ? [[plan.args[i + 1], plan.args[i + 2]]] : []))
      expect(fds.map(([, target]) => target)).toEqual([path.join(real, 'a'), path.join(real, 'a/b'), path.join(real, 'a/b/.bashrc')])
      for (const { childFd, hostFd } of plan.descriptors ?? []) {
        const target = fds.find(([fd]) => fd === String(childFd))?.[1]
        expect(fs.readlinkSync(`/proc/self/fd/${hostFd}`)).toBe(target)
      }
      expect(plan.descriptors).toHaveLength(3)
    } finally {
      for (const { hostFd } of plan.descriptors ?? []) fs.closeSync(hostFd)
    }
  })
})
