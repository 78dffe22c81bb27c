// Rule cases of the permission policy, through the public barrel: real
// tools, real files in a temp root, every call through `tool.executor(ctx)`
// with a `Permissions` gate on the context.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import {
  E_INVALID_POLICY,
  E_TOOL_DENIED,
  PermissionPolicy,
  Permissions,
  TOOL_DENIED,
  createDispatchContext,
  createTools,
  defineTool,
  loadPermissionPolicy,
  parsePermissionPolicy,
  validator,
  type PermissionDecisionEvent,
  type RawPermissionPolicy,
  type Tool,
} from '../../lib/index.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'

let root: string

beforeEach(() => {
  root = fs.realpathSync(trackedMkdtemp(path.join(os.tmpdir(), 'toolsmith-perm-')))
  fs.mkdirSync(path.join(root, 'src'))
  fs.mkdirSync(path.join(root, 'test'))
  fs.writeFileSync(path.join(root, '.env'), 'TOKEN=1\n')
  fs.writeFileSync(path.join(root, 'src/a.ts'), 'export const a = 1\n')
})

/** A `bash` look-alike: same name, args and command roles as the built-in, a handler that only reports it ran (nothing is executed). */
const fakeBash = defineTool({
  name: 'bash',
  schema: validator.object({ cmd: validator.string().required(), args: validator.array().items(validator.string()).default([]) }),
  roles: { command: 'cmd', commandArgs: 'args' },
  execute: () => 'ran',
})

interface Outcome {
  decision: 'allow' | 'deny'
  code?: string
  message?: string
  rule?: number | null
  approver?: string
}

/** Run one call through the executor with the policy; report what the gate decided. */
async function run(policy: RawPermissionPolicy | PermissionPolicy, tool: Tool, args: unknown, options: Partial<ConstructorParameters<typeof Permissions>[0]> = {}): Promise<Outcome> {
  const events: PermissionDecisionEvent[] = []
  const permissions = new Permissions({ policy, root, ...options })
  const ctx = createDispatchContext({ permissions, onPermissionDecision: (e) => events.push(e) })
  try {
    await tool.executor(ctx)(args)
  } catch (error) {
    const e = error as { code?: string; message: string }
    if (e.code !== 'TOOL_DENIED') return { decision: 'allow', code: e.code, message: e.message, rule: events[0]?.rule?.index ?? null }
    expect(events).toHaveLength(1)
    expect(events[0]!.decision).toBe('deny')
    return { decision: 'deny', code: e.code, message: e.message, rule: events[0]!.rule?.index ?? null, approver: events[0]!.approver }
  }
  expect(events).toHaveLength(1)
  expect(events[0]!.decision).toBe('allow')
  return { decision: 'allow', rule: events[0]!.rule?.index ?? null, approver: events[0]!.approver }
}

const SECRETS: RawPermissionPolicy = {
  rules: [{ name: 'secrets', tool: ['read', 'write', 'edit', 'grep'], match: { paths: ['.env*', 'secrets/**'] }, decision: 'deny', reason: 'off limits' }],
}

describe('path rules: matched on the resolved, root-relative path', () => {
  const tools = () => createTools({ rootDir: root, isolation: { filesystem: false } })

  it.each([
    ['.env', 'deny'],
    ['./.env', 'deny'],
    ['src/../.env', 'deny'],
    ['src/./../src/../.env', 'deny'],
    ['config/.env.local', 'deny'],
    ['.environment', 'deny'], // `.env*` is a glob: any name that starts with .env
    ['secrets/key', 'deny'],
    ['secrets/.hidden', 'deny'], // ** reaches dot-files (node's matchesGlob would not)
    ['secrets/deep/er/key', 'deny'],
    ['env', 'allow'],
    ['src/secrets.ts', 'allow'],
    ['src/secrets/key', 'allow'], // `secrets/**` has a slash: anchored at the root
  ])('write %s → %s', async (file, expected) => {
    const outcome = await run(SECRETS, tools().write, { path: file, content: 'x' })
    expect(outcome.decision).toBe(expected)
    // A denied write never touches the disk (only .env existed before).
    if (expected === 'deny' && path.normalize(file) !== '.env') expect(fs.existsSync(path.join(root, file))).toBe(false)
    if (expected === 'allow') expect(fs.readFileSync(path.join(root, file), 'utf8')).toBe('x')
  })

  it('an absolute path inside the root is judged by its relative form', async () => {
    expect((await run(SECRETS, tools().write, { path: path.join(root, '.env'), content: 'x' })).decision).toBe('deny')
    expect(fs.readFileSync(path.join(root, '.env'), 'utf8')).toBe('TOKEN=1\n')
  })

  it('a symlink to .env is .env', async () => {
    fs.symlinkSync('.env', path.join(root, 'innocent.txt'))
    const outcome = await run(SECRETS, tools().read, { path: 'innocent.txt' })
    expect(outcome).toMatchObject({ decision: 'deny', rule: 0 })
  })

  it('a directory symlink into secrets/ is secrets/', async () => {
    fs.mkdirSync(path.join(root, 'secrets'))
    fs.writeFileSync(path.join(root, 'secrets/key'), 'k')
    fs.symlinkSync('secrets', path.join(root, 'cfg'))
    expect((await run(SECRETS, tools().read, { path: 'cfg/key' })).decision).toBe('deny')
  })

  it('a symlink chain through src/ still lands on .env', async () => {
    fs.symlinkSync('../.env', path.join(root, 'src/link1'))
    fs.symlinkSync('src/link1', path.join(root, 'link2'))
    expect((await run(SECRETS, tools().edit, { path: 'link2', patch: '' })).decision).toBe('deny')
  })

  it('a path that cannot be resolved inside the root fails closed against deny rules', async () => {
    const outcome = await run(SECRETS, tools().read, { path: '../outside.txt' })
    expect(outcome.decision).toBe('deny')
    expect(outcome.message).toMatch(/rules\[0\]/)
  })

  it('the same unresolvable path is not allowed by an allow rule either (the tool refuses it)', async () => {
    const outcome = await run({ default: 'deny', rules: [{ tool: 'read', match: { paths: ['**'] }, decision: 'allow' }] }, tools().read, { path: '../outside.txt' })
    expect(outcome.decision).toBe('deny')
    expect(outcome.rule).toBeNull()
  })

  it('grep over a directory that holds denied files is denied; a narrower path is not', async () => {
    fs.mkdirSync(path.join(root, 'secrets'))
    fs.writeFileSync(path.join(root, 'secrets/key'), 'k')
    expect((await run(SECRETS, tools().grep, { pattern: 'x', path: '.' })).decision).toBe('deny')
    expect((await run(SECRETS, tools().grep, { pattern: 'x', path: 'secrets' })).decision).toBe('deny')
    expect((await run(SECRETS, tools().grep, { pattern: 'export', path: 'src' })).decision).toBe('allow')
  })

  it('grep of the root is allowed when no denied path exists below it (ripgrep skips hidden .env)', async () => {
    expect((await run(SECRETS, tools().grep, { pattern: 'TOKEN' })).decision).toBe('allow')
  })

  describe('allow-listing: write only in src/ and test/', () => {
    const ONLY_SRC: RawPermissionPolicy = { default: 'deny', rules: [{ tool: ['write', 'edit'], match: { paths: ['{src,test}/**'] }, decision: 'allow' }] }

    it.each([
      ['src/b.ts', 'allow'],
      ['test/b.test.ts', 'allow'],
      ['src/deep/new/file.ts', 'allow'],
      ['src/../b.ts', 'deny'],
      ['srcx/b.ts', 'deny'],
      ['b.ts', 'deny'],
    ])('write %s → %s', async (file, expected) => {
      expect((await run(ONLY_SRC, tools().write, { path: file, content: 'x' })).decision).toBe(expected)
    })

    it('a symlink from outside into src/ is judged where it lands', async () => {
      fs.symlinkSync('src', path.join(root, 's'))
      expect((await run(ONLY_SRC, tools().write, { path: 's/c.ts', content: 'x' })).decision).toBe('allow')
      expect(fs.readFileSync(path.join(root, 'src/c.ts'), 'utf8')).toBe('x')
    })

    it('a symlink inside src/ pointing out of it is judged where it lands', async () => {
      fs.symlinkSync('..', path.join(root, 'src/up'))
      expect((await run(ONLY_SRC, tools().write, { path: 'src/up/evil.ts', content: 'x' })).decision).toBe('deny')
      expect(fs.existsSync(path.join(root, 'evil.ts'))).toBe(false)
    })
  })
})

describe('command rules: wrappers, quotes, spaces and env prefixes do not dodge them', () => {
  const POLICY: RawPermissionPolicy = {
    rules: [
      { name: 'no push', tool: 'bash', match: { commands: ['git push'] }, decision: 'deny', reason: 'pushing is for people' },
      { name: 'publish', tool: 'bash', match: { commands: ['npm publish'] }, decision: 'ask' },
    ],
  }

  it.each<[string, string[]]>([
    ['git', ['push']],
    ['git', ['push', 'origin', 'main']],
    ['/usr/bin/git', ['push']],
    ['GIT', ['push']],
    ['git', ['-C', 'repo', 'push']],
    ['git', ['-c', 'user.name=x', 'push']],
    ['git', ['--no-pager', 'push']],
    ['env', ['A=1', 'git', 'push']],
    ['env', ['-i', 'A=1', 'git', 'push']],
    ['sh', ['-c', 'git push']],
    ['sh', ['-c', 'cd repo &&   git    push  --force']],
    ['bash', ['-lc', `'git' "push"`]],
    ['bash', ['-o', 'pipefail', '-c', 'A=1 B=2 git push | cat']],
    ['sh', ['-c', 'echo $(git push)']],
    ['sh', ['-c', 'echo `git push`']],
    ['sh', ['-c', 'eval "git push"']],
    ['sh', ['-c', 'sh -c "env X=1 git push"']],
    ['xargs', ['git', 'push']],
    ['xargs', ['-n', '1', 'git', 'push']],
    ['timeout', ['5', 'git', 'push']],
    ['nice', ['-n', '5', 'nohup', 'git', 'push']],
    ['find', ['.', '-exec', 'git', 'push', ';']],
    ['sh', ['-c', '$GIT push']],
    ['xargs', ['-I{}', '{}', 'push']],
    ['git', ['-c', 'alias.p=push', 'p']],
  ])('%s %j is denied', async (cmd, args) => {
    const outcome = await run(POLICY, fakeBash, { cmd, args })
    expect(outcome.decision).toBe('deny')
    expect(outcome.rule).toBe(0)
    expect(outcome.message).toContain('rules[0] ("no push")')
    expect(outcome.message).toContain('pushing is for people')
  })

  it.each<[string, string[]]>([
    ['git', ['status']],
    ['git', ['commit', '-m', 'push later']],
    ['git', ['log', '--grep', 'push']],
    ['echo', ['git', 'push']],
    ['sh', ['-c', 'echo "git push"']],
    ['gitk', ['push']],
    ['npm', ['test']],
  ])('%s %j is allowed', async (cmd, args) => {
    expect((await run(POLICY, fakeBash, { cmd, args })).decision).toBe('allow')
  })

  it.each<[string, string[]]>([
    ['npm', ['publish']],
    ['npm', ['--registry', 'https://r.example', 'publish']],
    ['sh', ['-c', 'npm run build && npm publish --access public']],
  ])('%s %j asks, and with nobody to ask it is denied with a message that says so', async (cmd, args) => {
    const outcome = await run(POLICY, fakeBash, { cmd, args })
    expect(outcome).toMatchObject({ decision: 'deny', rule: 1, approver: 'none' })
    expect(outcome.message).toMatch(/asks for approval.*no approver is configured/)
  })
})

describe('predicates over validated args', () => {
  const deploy = defineTool({
    name: 'deploy',
    schema: validator.object({ env: validator.string().valid('staging', 'prod').required(), force: validator.boolean().default(false) }),
    execute: () => 'deployed',
  })

  it('a predicate sees the validated args (defaults applied)', async () => {
    const seen: unknown[] = []
    const when = (args: { env: string; force: boolean }) => {
      seen.push(args)
      return args.env === 'prod'
    }
    const policy = new PermissionPolicy({
      rules: [{ tool: 'deploy', match: { when }, decision: 'deny', reason: 'prod is frozen' }],
    })
    expect((await run(policy, deploy, { env: 'prod' })).decision).toBe('deny')
    expect((await run(policy, deploy, { env: 'staging' })).decision).toBe('allow')
    expect(seen).toEqual([{ env: 'prod', force: false }, { env: 'staging', force: false }])
  })

  it('invalid args never reach the policy: the call fails validation first', async () => {
    const when = vi.fn(() => true)
    const outcome = await run(new PermissionPolicy({ rules: [{ tool: 'deploy', match: { when }, decision: 'deny' }] }), deploy, { env: 'moon' })
    expect(outcome.code).toBe('E_INVALID_TOOL_ARGS')
    expect(when).not.toHaveBeenCalled()
  })

  it('a predicate that throws matches a deny rule (fail closed) and not an allow rule', async () => {
    const boom = (): boolean => {
      throw new Error('boom')
    }
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined)
    try {
      expect((await run(new PermissionPolicy({ rules: [{ tool: 'deploy', match: { when: boom }, decision: 'deny' }] }), deploy, { env: 'staging' })).decision).toBe('deny')
      expect((await run(new PermissionPolicy({ default: 'deny', rules: [{ tool: 'deploy', match: { when: boom }, decision: 'allow' }] }), deploy, { env: 'staging' })).decision).toBe('deny')
    } finally {
      warn.mockRestore()
    }
  })
})

describe('precedence: deny over ask over allow, then the default', () => {
  const t = () => createTools({ rootDir: root, isolation: { filesystem: false } })

  it('deny wins over an earlier allow', async () => {
    const outcome = await run({ rules: [{ tool: 'read', decision: 'allow' }, { tool: 'read', match: { paths: ['src/**'] }, decision: 'deny' }] }, t().read, { path: 'src/a.ts' })
    expect(outcome).toMatchObject({ decision: 'deny', rule: 1 })
  })

  it('ask wins over allow', async () => {
    const outcome = await run({ rules: [{ tool: '*', decision: 'allow' }, { tool: 'read', decision: 'ask' }] }, t().read, { path: 'src/a.ts' })
    expect(outcome).toMatchObject({ decision: 'deny', rule: 1, approver: 'none' })
  })

  it('among rules of the winning decision the first is reported', async () => {
    const outcome = await run({ rules: [{ name: 'first', tool: 'read', decision: 'deny' }, { name: 'second', tool: '*', decision: 'deny' }] }, t().read, { path: 'src/a.ts' })
    expect(outcome.message).toContain('rules[0] ("first")')
  })

  it('no match → the default: allow unless set', async () => {
    expect(await run({ rules: [{ tool: 'bash', decision: 'deny' }] }, t().read, { path: 'src/a.ts' })).toMatchObject({ decision: 'allow', rule: null, approver: 'policy' })
    const denied = await run({ default: 'deny', rules: [] }, t().read, { path: 'src/a.ts' })
    expect(denied).toMatchObject({ decision: 'deny', rule: null })
    expect(denied.message).toContain("the policy's default")
  })

  it('a rule without match applies to every call of its tools; "*" to every tool', async () => {
    expect((await run({ rules: [{ tool: ['read', 'grep'], decision: 'deny' }] }, t().grep, { pattern: 'x', path: 'src' })).decision).toBe('deny')
    expect((await run({ rules: [{ tool: '*', decision: 'deny' }] }, fakeBash, { cmd: 'true' })).decision).toBe('deny')
  })
})

describe('TOOL_DENIED', () => {
  it('is thrown as is (not wrapped), names the rule and its reason, and nothing ran', async () => {
    const { write } = createTools({ rootDir: root, isolation: { filesystem: false } })
    const started = vi.fn()
    const ctx = createDispatchContext({ permissions: new Permissions({ policy: SECRETS, root }), onToolExecutionStart: started })
    const error = await write.executor(ctx)({ path: '.env', content: 'stolen' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(E_TOOL_DENIED)
    expect(error).toBeInstanceOf(TOOL_DENIED)
    expect(error).toMatchObject({
      code: 'TOOL_DENIED',
      status: 403,
      details: { toolName: 'write', rule: { index: 0, name: 'secrets' }, reason: 'off limits', approver: 'policy', policyDecision: 'deny' },
    })
    expect((error as Error).message).toContain('rules[0] ("secrets") denies it: off limits')
    expect(started).not.toHaveBeenCalled()
    expect(fs.readFileSync(path.join(root, '.env'), 'utf8')).toBe('TOKEN=1\n')
  })
})

describe('policies as data: loading and one-line errors naming the rule', () => {
  const write = (text: string): string => {
    const file = path.join(root, 'policy.json')
    fs.writeFileSync(file, text)
    return file
  }

  it('loads a valid file', async () => {
    const policy = await loadPermissionPolicy(path.resolve('examples/policy.json'))
    expect(policy.defaultDecision).toBe('ask')
    expect(policy.rules.length).toBeGreaterThan(3)
  })

  it.each([
    ['{"rules":[{"tool":"read","decision":"allow"},{"tool":"read","decision":"maybe"}]}', /rules\[1\]: "decision" must be one of \[allow, ask, deny\]/],
    ['{"rules":[{"tool":"read","match":{"paths":["[abc"]},"decision":"deny"}]}', /rules\[0\]: .*unclosed "\["/],
    ['{"rules":[{"tool":"read","match":{"paths":["a"],"commands":["b"]},"decision":"deny"}]}', /rules\[0\]: .*only one of "paths", "commands" or "when"/],
    ['{"rules":[{"tool":"read","match":{},"decision":"deny"}]}', /rules\[0\]: .*needs one of "paths", "commands" or "when"/],
    ['{"rules":[{"name":"x","tool":"read","decision":"deny","colour":"red"}]}', /rules\[0\] \("x"\): "colour" is not allowed/],
    ['{"rules":[{"tool":"bash","match":{"commands":["git push; rm -rf /"]},"decision":"deny"}]}', /rules\[0\]: .*one simple command/],
    ['{"rules":[{"tool":"read","match":{"paths":["../x"]},"decision":"deny"}]}', /rules\[0\]: .*contains "\.\."/],
    ['{"rules":[{"tool":"no spaces","decision":"deny"}]}', /rules\[0\]: .*tool name/],
    ['{"default":"sometimes","rules":[]}', /"default" must be one of/],
    ['{"rules":[{"tool":"read"}]}', /rules\[0\]: "decision" is required/],
    ['{"rules": [', /not JSON/],
  ])('refuses %s', async (text, message) => {
    const file = write(text)
    const error = await loadPermissionPolicy(file).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(E_INVALID_POLICY)
    expect((error as Error).message).toMatch(message)
    expect((error as Error).message).toContain(file)
    expect((error as Error).message).not.toContain('\n')
  })

  it('a missing file is E_INVALID_POLICY, not a raw ENOENT', async () => {
    const error = await loadPermissionPolicy(path.join(root, 'nope.json')).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'E_INVALID_POLICY', message: expect.stringContaining('does not exist') })
  })

  it('an array of rules is a policy with the default default', () => {
    expect(parsePermissionPolicy('[{"tool":"read","decision":"deny"}]').defaultDecision).toBe('allow')
  })
})
