// The policy's fast paths (issue 15's ≤ 10 µs budget) must not change a
// single decision: globs refused by their literal text, command prefixes
// indexed by executable and second word, the script splitter, a gate that
// answers without a promise, and a `read` that takes the gate's resolution
// of its path. Through the public barrel, real files in a temp root.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import {
  PathGlob,
  PermissionPolicy,
  Permissions,
  commandSubject,
  createDispatchContext,
  createTools,
  type PermissionDecisionEvent,
} from '../../lib/index.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'
import { BASH_ROLES, PATH_ROLES, SEARCH_ROLES, builtinRoles } from '../support/builtin_roles.js'

let root: string

beforeEach(() => {
  root = fs.realpathSync(trackedMkdtemp(path.join(os.tmpdir(), 'toolsmith-perm-fast-')))
})

describe('PathGlob: the literal-text shortcut refuses only what the pattern cannot match', () => {
  it.each<[string, string, boolean]>([
    ['*.secret1', 'a/b/x.secret1', true],
    ['*.secret1', 'a/x.secret1/inner.txt', true],
    ['*.secret1', 'a/x.secret12', false],
    ['*.secret1', 'a/x.secret', false],
    ['generated/1/**', 'generated/1/a/b.ts', true],
    ['generated/1/**', 'generated/1', true],
    ['generated/1/**', 'src/generated/1/a.ts', false],
    ['{src,test}/*.ts', 'test/a.ts', true],
    ['{src,test}/*.ts', 'lib/a.ts', false],
    ['{*.pem,id_rsa}', 'keys/id_rsa', true],
    ['{*.pem,id_rsa}', 'keys/server.pem', true],
    ['{*.pem,id_rsa}', 'keys/id_rsa.pub', false],
    ['\\*literal', '*literal', true],
    ['\\*literal', 'xliteral', false],
    ['[ab]c.txt', 'dir/bc.txt', true],
    ['[ab]c.txt', 'dir/cc.txt', false],
    ['[!ab]c.txt', 'dir/cc.txt', true],
    ['**', 'anything/at/all', true],
    ['**', '.', true],
    ['secrets', 'secrets/a/b', true],
    ['secrets', '.', false],
    ['/build', 'build/out.js', true],
    ['/build', 'src/build/out.js', false],
    ['a?c/**', 'abc/x', true],
    ['a?c/**', 'ac/x', false],
    ['src/**/x.md', 'src/a/b/x.md', true],
    ['src/**/x.md', 'src/x.md', true],
    ['src/**/x.md', 'src/a/b/y.md', false],
  ])('%s against %s → %s', (pattern, relative, expected) => {
    expect(new PathGlob(pattern).matches(relative)).toBe(expected)
  })
})

describe("a tool's globs screened at once by their literal texts", () => {
  const policy = new PermissionPolicy({
    rules: [
      { tool: ['read', 'grep'], match: { paths: ['*.pem', 'id_rsa*'] }, decision: 'deny' },
      { tool: ['read', 'grep'], match: { paths: ['{docs,notes}/**'] }, decision: 'ask' },
      // No literal text at all: never screened out.
      { tool: ['read', 'grep'], match: { paths: ['*/*/*/*/**'] }, decision: 'ask' },
      { tool: ['read', 'grep'], match: { paths: ['secrets/**'] }, decision: 'deny' },
      { tool: ['read', 'grep'], match: { paths: ['src/**'] }, decision: 'allow' },
    ],
    default: 'ask',
  })
  const existing = new Set(['secrets'])
  const resolverFor = (relative: string, isDirectory: boolean) => ({
    resolve: async () => ({ relative, isDirectory }),
    exists: async (p: string) => existing.has(p),
  })

  it.each<[string, string, boolean, 'allow' | 'ask' | 'deny', number | undefined]>([
    ['read', 'src/a.ts', false, 'allow', 4],
    ['read', 'src/keys/server.pem', false, 'deny', 0],
    ['read', 'src/.ssh/id_rsa.pub', false, 'deny', 0],
    ['read', 'docs/a.md', false, 'ask', 1],
    ['read', 'src/a/b/c/d.ts', false, 'ask', 2],
    ['read', 'lib/a.ts', false, 'ask', undefined],
    ['read', 'secrets/k', false, 'deny', 3],
    // A directory search reaches below: the screen does not apply, `*.pem` could match any depth.
    ['grep', '.', true, 'deny', 0],
    ['grep', 'src', true, 'deny', 0],
  ])('%s %s → %s (rule %s)', async (toolName, relative, isDirectory, decision, index) => {
    const verdict = await policy.decide({ toolName, roles: builtinRoles(toolName), callId: 'c', args: { path: relative } }, resolverFor(relative, isDirectory))
    expect(verdict.decision).toBe(decision)
    expect(verdict.rule?.index).toBe(index)
  })
})

describe('a directory search and anchored globs, screened', () => {
  const policy = new PermissionPolicy([
    { tool: 'grep', match: { paths: ['secrets/**'] }, decision: 'deny' },
    { tool: 'grep', match: { paths: ['vendor/cache'] }, decision: 'ask' },
  ])
  it.each<[string, string[], 'allow' | 'ask' | 'deny']>([
    ['.', ['secrets'], 'deny'],
    ['.', ['vendor'], 'ask'],
    ['.', [], 'allow'],
    ['src', ['secrets'], 'allow'],
    ['vendor', ['vendor/cache'], 'ask'],
  ])('grep %s with %j existing → %s', async (relative, existing, decision) => {
    const paths = { resolve: async () => ({ relative, isDirectory: true }), exists: async (p: string) => existing.includes(p) }
    expect((await policy.decide({ toolName: 'grep', roles: SEARCH_ROLES, callId: 'c', args: { path: relative } }, paths)).decision).toBe(decision)
  })
})

describe('command prefixes indexed by executable and second word', () => {
  const policy = new PermissionPolicy({
    rules: [
      { name: 'no rm', tool: 'bash', match: { commands: ['rm'] }, decision: 'ask' },
      { name: 'no force push', tool: 'bash', match: { commands: ['git push --force', 'git push -f'] }, decision: 'deny' },
      { name: 'no push', tool: 'bash', match: { commands: ['git push'] }, decision: 'ask' },
      { name: 'tags', tool: 'bash', match: { commands: ['git tag -d', 'npm publish'] }, decision: 'deny' },
    ],
  })
  const paths = { resolve: async () => undefined, exists: async () => false }
  const decide = (cmd: string, args: string[]) => policy.decide({ toolName: 'bash', roles: BASH_ROLES, callId: 'c', args: { cmd, args } }, paths)

  it.each<[string, string[], 'allow' | 'ask' | 'deny', number | undefined]>([
    ['rm', ['-rf', 'x'], 'ask', 0],
    ['/bin/RM', ['x'], 'ask', 0],
    ['git', ['push', '--force'], 'deny', 1],
    ['git', ['-C', 'repo', 'push', '--force', 'origin'], 'deny', 1],
    ['git', ['push', '-f'], 'deny', 1],
    ['git', ['push', 'origin'], 'ask', 2],
    ['git', ['-c', 'x=y', 'push'], 'ask', 2],
    // The second word appears twice: once where it cannot match, then where it does.
    ['git', ['--git-dir', 'push', 'push'], 'ask', 2],
    ['git', ['tag', '-d', 'v1'], 'deny', 3],
    ['git', ['tag', 'v1'], 'allow', undefined],
    ['git', ['status'], 'allow', undefined],
    ['git', ['log', '--grep', 'push'], 'allow', undefined],
    ['sh', ['-c', 'npm run build && npm publish'], 'deny', 3],
    ['sh', ['-c', 'git status; rm -f x; git push'], 'ask', 0],
    ['sh', ['-c', '$X push'], 'deny', 1],
  ])('%s %j → %s (rule %s)', async (cmd, args, decision, index) => {
    const verdict = await decide(cmd, args)
    expect(verdict.decision).toBe(decision)
    expect(verdict.rule?.index).toBe(index)
    expect(verdict.subject).toBe([cmd, ...args].join(' '))
  })
})

describe('commandSubject: scripts split as before', () => {
  it.each<[string, string[][]]>([
    ['npm run build && git status', [['npm', 'run', 'build'], ['git', 'status']]],
    [`A=1 B='x y' git   push`, [['git', 'push']]],
    [`'git' "pu"sh`, [['git', 'push']]],
    [`echo "a \\"b\\" c" 'd\\e'`, [['echo', 'a "b" c', 'd\\e']]],
    ['echo "$(git push)" `npm publish`', [['echo', '$(git push)', '`npm publish`'], ['git', 'push'], ['npm', 'publish']]],
    [`echo 'unclosed quote; git push`, [['echo', 'unclosed quote; git push']]],
    ['echo "unclosed $(git push', [['echo', 'unclosed $(git push'], ['git', 'push']]],
    // `{` and `}` group only as words of their own; `{g}` is a word (bash runs a command named `{g}`).
    // Redirection targets (`<h`, `>i`) are paths, not commands; `{g}<h` is a named descriptor (bash's `{var}<file`).
    ['a|b;c&d\ne(f){g}<h>i', [['a'], ['b'], ['c'], ['d'], ['e'], ['f']]],
    ['e {g} <h', [['e', '{g}']]],
    ['npm test 2>&1 | tee -a log; git push &> /dev/null', [['npm', 'test'], ['tee', '-a', 'log'], ['git', 'push']]],
    ['{ a; b;}; {c,d} e', [['a'], ['b'], ['{c,d}', 'e']]],
    // A backslash-newline is removed, `$'…'` decoded; what the shell expands is kept as written.
    ["git p\\\nush $'\\x2d-force' pus? \"$X\"", [['git', 'push', '--force', 'pus?', '$X']]],
    ['echo \\; git push', [['echo', ';', 'git', 'push']]],
    ['echo $HOME é\tdone', [['echo', '$HOME', 'é', 'done']]],
    ['X=1', []],
  ])('sh -c %j', (script, expected) => {
    const subject = commandSubject('sh', ['-c', script])
    expect(subject.commands.slice(1)).toEqual(expected)
  })
})

describe('the gate answers without a promise when the policy allows at once', () => {
  it('returns undefined for an allowed call, a rejected promise (never a throw) for a denied one', async () => {
    const events: PermissionDecisionEvent[] = []
    const permissions = new Permissions({ policy: [{ tool: 'x', match: { when: (args: { n: number }) => args.n > 1 }, decision: 'deny' }], root })
    const ctx = createDispatchContext({ onPermissionDecision: (e) => events.push(e) })
    expect(permissions.authorize({ toolName: 'x', callId: 'a', args: { n: 1 }, loggedArgs: {} }, ctx)).toBeUndefined()
    const denied = permissions.authorize({ toolName: 'x', callId: 'b', args: { n: 2 }, loggedArgs: {} }, ctx)
    expect(denied).toBeInstanceOf(Promise)
    await expect(denied).rejects.toMatchObject({ code: 'TOOL_DENIED' })
    expect(events.map((e) => e.decision)).toEqual(['allow', 'deny'])
  })
})

describe('path calls are judged without a promise once the root is known', () => {
  const policy = [
    { tool: 'read', match: { paths: ['.env*', 'secrets/**'] }, decision: 'deny' as const },
    { tool: 'read', match: { paths: ['review/**'] }, decision: 'ask' as const },
  ]

  it('answers an allowed path at once, and gives the same decisions as the resolution through symlinks', async () => {
    fs.mkdirSync(path.join(root, 'src', 'deep'), { recursive: true })
    fs.mkdirSync(path.join(root, 'secrets'))
    fs.mkdirSync(path.join(root, 'review'))
    fs.writeFileSync(path.join(root, '.env'), 'x')
    fs.writeFileSync(path.join(root, 'secrets', 'k'), 'x')
    fs.writeFileSync(path.join(root, 'src', 'deep', 'a.ts'), 'x')
    fs.symlinkSync('../secrets', path.join(root, 'src', 'keys'))
    fs.symlinkSync('.env', path.join(root, 'env-link'))
    const permissions = new Permissions({ policy, root })
    const ctx = createDispatchContext()
    const decide = async (input: string, callId: string): Promise<{ sync: boolean; decision: string }> => {
      const answer = permissions.authorize({ toolName: 'read', roles: PATH_ROLES, callId, args: { path: input }, loggedArgs: {} }, ctx)
      const sync = answer === undefined
      const decision = await Promise.resolve(answer).then(
        () => 'allow',
        (error: { details?: { policyDecision?: string } }) => `refused (${error.details?.policyDecision})`,
      )
      return { sync, decision }
    }
    // The first call learns the real root (a promise); later ones need none.
    expect((await decide('src/deep/a.ts', 'first')).decision).toBe('allow')
    const cases: [string, string, boolean][] = [
      ['src/deep/a.ts', 'allow', true],
      ['src/deep/missing.ts', 'allow', true],
      ['src/../src/deep/a.ts', 'allow', true],
      [`${root}/src/deep/a.ts`, 'allow', true],
      ['.env', 'refused (deny)', false],
      ['src/../.env', 'refused (deny)', false],
      ['secrets/k', 'refused (deny)', false],
      ['review/new.md', 'refused (ask)', false],
      // Through a symlink: resolved with realpath (a promise), judged by where it leads.
      ['src/keys/k', 'refused (deny)', false],
      ['env-link', 'refused (deny)', false],
      ['../outside', 'refused (deny)', false],
    ]
    for (const [input, decision, sync] of cases) {
      expect(await decide(input, input), input).toEqual({ sync, decision })
    }
  })
})

describe('read: the gate resolves the path once and hands it to the handler', () => {
  const policy = { rules: [{ tool: 'read', match: { paths: ['secrets/**', '.env*'] }, decision: 'deny' as const }] }

  it('reads through a symlink inside the root the policy allowed (the handler opens its target)', async () => {
    fs.mkdirSync(path.join(root, 'docs'))
    fs.writeFileSync(path.join(root, 'docs/real.md'), 'real\n')
    fs.symlinkSync('docs/real.md', path.join(root, 'link.md'))
    const { read } = createTools({ rootDir: root, isolation: { filesystem: false } })
    const ctx = createDispatchContext({ permissions: new Permissions({ policy, root }) })
    expect(await read.executor(ctx)({ path: 'link.md' })).toBe('real\n')
  })

  it('a gate with another root: the handler resolves in its own root and reads its own file', async () => {
    // The gate judges <root>/src/a.txt; the sandbox is <root>/inner, where src/a.txt is another file.
    fs.mkdirSync(path.join(root, 'src'))
    fs.mkdirSync(path.join(root, 'inner/src'), { recursive: true })
    fs.writeFileSync(path.join(root, 'src/a.txt'), 'outer\n')
    fs.writeFileSync(path.join(root, 'inner/src/a.txt'), 'inner\n')
    const { read } = createTools({ rootDir: path.join(root, 'inner'), isolation: { filesystem: false } })
    const ctx = createDispatchContext({ permissions: new Permissions({ policy, root }) })
    expect(await read.executor(ctx)({ path: 'src/a.txt' })).toBe('inner\n')
  })

  it('a file swapped for a symlink out of the root after the gate allowed it is still refused', async () => {
    const outside = trackedMkdtemp(path.join(os.tmpdir(), 'toolsmith-perm-outside-'))
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'outside\n')
    fs.writeFileSync(path.join(root, 'a.txt'), 'inside\n')
    const { read } = createTools({ rootDir: root, isolation: { filesystem: false } })
    // The decision listener runs after the gate resolved the path and before the handler opens it.
    const swap = (): void => {
      fs.rmSync(path.join(root, 'a.txt'))
      fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'a.txt'))
    }
    const ctx = createDispatchContext({ permissions: new Permissions({ policy, root, onDecision: swap }) })
    await expect(read.executor(ctx)({ path: 'a.txt' })).rejects.toMatchObject({ code: 'E_TOOL_DOWNSTREAM_ERROR', cause: { code: 'TOOL_PATH_ESCAPE' } })
  })

  it('a directory swapped for a symlink out of the root after the gate allowed it is still refused', async () => {
    const outside = trackedMkdtemp(path.join(os.tmpdir(), 'toolsmith-perm-outside-'))
    fs.writeFileSync(path.join(outside, 'a.txt'), 'outside\n')
    fs.mkdirSync(path.join(root, 'src'))
    fs.writeFileSync(path.join(root, 'src/a.txt'), 'inside\n')
    const { read } = createTools({ rootDir: root, isolation: { filesystem: false } })
    const swap = (): void => {
      fs.rmSync(path.join(root, 'src'), { recursive: true })
      fs.symlinkSync(outside, path.join(root, 'src'))
    }
    const ctx = createDispatchContext({ permissions: new Permissions({ policy, root, onDecision: swap }) })
    // The open follows the new `src` link; the check of where the descriptor really is refuses it.
    await expect(read.executor(ctx)({ path: 'src/a.txt' })).rejects.toMatchObject({ code: 'E_TOOL_DOWNSTREAM_ERROR', cause: { code: 'TOOL_PATH_ESCAPE' } })
  })
})
