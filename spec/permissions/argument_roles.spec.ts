// Tools declare which arguments the permission gate judges (`roles`): a custom
// tool with a `file` argument gets path rules by declaring it, a custom
// command runner gets command rules, and the built-ins declare theirs the
// same way. Through the public barrel, with real files in a temp dir.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  Permissions,
  Tool,
  createDispatchContext,
  createTools,
  defineTool,
  validator,
  type ArgumentRoles,
  type GateVerdict,
  type RawPermissionPolicy,
} from '../../lib/index.js'
import { BASH_ROLES, PATH_ROLES, SEARCH_ROLES } from '../support/builtin_roles.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'

function layout(): string {
  const root = fs.realpathSync(trackedMkdtemp(path.join(os.tmpdir(), 'toolsmith-roles-')))
  fs.mkdirSync(path.join(root, 'secrets'))
  fs.writeFileSync(path.join(root, 'secrets', 'x'), 'SECRET\n')
  fs.mkdirSync(path.join(root, 'notes'))
  fs.writeFileSync(path.join(root, 'notes', 'x'), 'harmless\n')
  fs.symlinkSync('secrets', path.join(root, 'hidden'))
  return root
}

/** A custom upload tool: its path argument is `file`. Its handler reports what the gate handed it. */
function uploadTool(roles?: ArgumentRoles): Tool {
  return new Tool({
    name: 'upload',
    description: 'Upload one file of the project',
    inputSchema: validator.object({ file: validator.string().required(), bucket: validator.string().default('b') }),
    ...(roles === undefined ? {} : { roles }),
    handler: (args: { file: string }, _ctx, _meta, call) => `uploaded ${args.file}; judged: ${[...(call.verdict?.judged?.keys() ?? [])].join(',') || 'nothing'}`,
  })
}

const DENY_SECRETS: RawPermissionPolicy = { rules: [{ tool: '*', match: { paths: ['secrets/**'] }, decision: 'deny', reason: 'secrets stay secret' }] }

async function outcome(tool: Tool, policy: RawPermissionPolicy, root: string, args: unknown): Promise<{ text?: unknown; code?: string; message?: string; verdict?: GateVerdict['decision'] }> {
  const decisions: GateVerdict['decision'][] = []
  const ctx = createDispatchContext({ permissions: new Permissions({ policy, root }), onPermissionDecision: (e) => decisions.push(e) })
  return await tool.executor(ctx)(args).then(
    (text) => ({ text, verdict: decisions[0] }),
    (error: { code?: string; message?: string }) => ({ code: error.code, message: error.message, verdict: decisions[0] }),
  )
}

describe('a custom tool that declares its path argument gets path rules', () => {
  it('is denied for secrets/x (and through a symlink to it), allowed elsewhere, and hands the judged path over by argument name', async () => {
    const root = layout()
    const tool = uploadTool({ path: 'file' })
    const denied = await outcome(tool, DENY_SECRETS, root, { file: 'secrets/x' })
    expect(denied.code).toBe('TOOL_DENIED')
    expect(denied.message).toContain('"secrets/x"')
    expect(denied.message).toContain('secrets stay secret')
    expect((await outcome(tool, DENY_SECRETS, root, { file: 'hidden/x' })).code).toBe('TOOL_DENIED')
    expect((await outcome(tool, DENY_SECRETS, root, { file: 'notes/../secrets/x' })).code).toBe('TOOL_DENIED')
    const allowed = await outcome(tool, DENY_SECRETS, root, { file: 'notes/x' })
    expect(allowed.text).toBe('uploaded notes/x; judged: file')
    expect(allowed.verdict).toMatchObject({ decision: 'allow', toolName: 'upload' })
  })

  it('without the declaration, a rule for every tool does not concern it (it has no path the gate knows of)', async () => {
    const root = layout()
    const allowed = await outcome(uploadTool(), DENY_SECRETS, root, { file: 'secrets/x' })
    expect(allowed.text).toBe('uploaded secrets/x; judged: nothing')
  })

  it('without the declaration, a path rule that names the tool fails closed, and says why', async () => {
    const root = layout()
    const policy: RawPermissionPolicy = { rules: [{ tool: 'upload', match: { paths: ['secrets/**'] }, decision: 'deny' }] }
    for (const file of ['secrets/x', 'notes/x']) {
      const denied = await outcome(uploadTool(), policy, root, { file })
      expect(denied.code).toBe('TOOL_DENIED')
      expect(denied.message).toContain('declares no path argument (its roles.path)')
    }
    // An allow rule that names it grants nothing: the default applies.
    const allowOnly: RawPermissionPolicy = { default: 'deny', rules: [{ tool: 'upload', match: { paths: ['notes/**'] }, decision: 'allow' }] }
    expect((await outcome(uploadTool(), allowOnly, root, { file: 'notes/x' })).code).toBe('TOOL_DENIED')
    expect((await outcome(uploadTool({ path: 'file' }), allowOnly, root, { file: 'notes/x' })).text).toBe('uploaded notes/x; judged: file')
  })
})

describe('a custom command runner that declares its command roles gets command rules', () => {
  const runner = (roles?: ArgumentRoles): Tool =>
    defineTool({
      name: 'run_script',
      schema: validator.object({ program: validator.string().required(), argv: validator.array().items(validator.string()).default([]), dir: validator.string() }),
      ...(roles === undefined ? {} : { roles }),
      execute: ({ program, argv }: { program: string; argv: string[] }) => `would run ${[program, ...argv].join(' ')}`,
    })
  const policy: RawPermissionPolicy = {
    rules: [
      { tool: '*', match: { commands: ['git push'] }, decision: 'deny', reason: 'no pushing' },
      { tool: 'run_script', match: { commands: ['bin/build'] }, decision: 'allow' },
    ],
    default: 'ask',
  }

  it('judges program and argv as a command line (shell scripts looked through)', async () => {
    const root = layout()
    const tool = runner({ command: 'program', commandArgs: 'argv', workingDirectory: 'dir' })
    expect((await outcome(tool, policy, root, { program: 'git', argv: ['push', 'origin'] })).code).toBe('TOOL_DENIED')
    const viaShell = await outcome(tool, policy, root, { program: 'sh', argv: ['-c', 'git status && git push'] })
    expect(viaShell.code).toBe('TOOL_DENIED')
    expect(viaShell.message).toContain('no pushing')
    expect((await outcome(tool, policy, root, { program: 'bin/build', argv: ['--fast'] })).text).toBe('would run bin/build --fast')
    // The working directory role: an allow rule for a root-relative program does not cover it run elsewhere.
    const elsewhere = await outcome(tool, policy, root, { program: 'bin/build', argv: [], dir: 'notes' })
    expect(elsewhere.code).toBe('TOOL_DENIED')
    expect(elsewhere.verdict).toMatchObject({ policyDecision: 'ask', approver: 'none' })
  })

  it('without the declaration: rules for every tool do not concern it, rules that name it fail closed', async () => {
    const root = layout()
    const open: RawPermissionPolicy = { rules: [{ tool: '*', match: { commands: ['git push'] }, decision: 'deny' }] }
    expect((await outcome(runner(), open, root, { program: 'git', argv: ['push'] })).text).toBe('would run git push')
    const naming: RawPermissionPolicy = { rules: [{ tool: 'run_script', match: { commands: ['git push'] }, decision: 'deny' }] }
    const named = await outcome(runner(), naming, root, { program: 'ls', argv: [] })
    expect(named.code).toBe('TOOL_DENIED')
    expect(named.message).toContain('declares no command argument (its roles.command)')
    // An allow rule that names it covers nothing: the default (ask, nobody to ask) applies.
    expect((await outcome(runner(), policy, root, { program: 'bin/build', argv: [] })).verdict).toMatchObject({ decision: 'deny', policyDecision: 'ask' })
  })
})

describe('roles are checked when the tool is made', () => {
  const schema = validator.object({ file: validator.string(), n: validator.number(), list: validator.array().items(validator.string()), opts: validator.object({ cwd: validator.string() }) })
  const make = (roles: unknown) => () => new Tool({ name: 't', description: '', inputSchema: schema, roles: roles as ArgumentRoles, handler: () => 'ok' })

  it.each<[string, unknown, string]>([
    ['an argument the schema does not have', { path: 'path' }, '"path" names the argument "path", which the input schema does not have (its arguments: file, n, list, opts)'],
    ['a nested argument the schema does not have', { command: 'file', workingDirectory: 'opts.dir' }, '"workingDirectory" names the argument "opts.dir", which the input schema does not have'],
    ['an argument of the wrong type', { path: 'n' }, '"path" names "n", a number argument; the path role needs a string argument'],
    ['command arguments that are not an array', { command: 'file', commandArgs: 'file' }, 'the commandArgs role needs an array (of strings) argument'],
    ['both path and searchRoot', { path: 'file', searchRoot: 'file' }, 'give "path" or "searchRoot", not both'],
    ['commandArgs without command', { commandArgs: 'list' }, '"commandArgs" needs "command"'],
    ['an unknown role', { file: 'file' }, '"roles.file" is not allowed'],
    ['a value that is not an argument name', { path: 'a b' }, 'must name an argument of the input schema'],
  ])('refuses %s (E_INVALID_INITIAL_TOOL_VALUE)', (_what, roles, message) => {
    expect(make(roles)).toThrow(expect.objectContaining({ code: 'E_INVALID_INITIAL_TOOL_VALUE', message: expect.stringContaining(message) }))
  })

  it('accepts a dotted name into an object argument, and exposes the roles frozen', () => {
    const tool = make({ command: 'file', commandArgs: 'list', workingDirectory: 'opts.cwd' })()
    expect(tool.roles).toEqual({ command: 'file', commandArgs: 'list', workingDirectory: 'opts.cwd' })
    expect(Object.isFrozen(tool.roles)).toBe(true)
    expect(new Tool({ name: 'u', description: '', inputSchema: schema, handler: () => 'ok' }).roles).toBeUndefined()
  })
})

describe('the built-ins declare their roles like any custom tool', () => {
  it('read, write, edit: path; grep: searchRoot; bash: command, commandArgs, workingDirectory', () => {
    const tools = createTools({ rootDir: layout() })
    expect(tools.read.roles).toEqual(PATH_ROLES)
    expect(tools.write.roles).toEqual(PATH_ROLES)
    expect(tools.edit.roles).toEqual(PATH_ROLES)
    expect(tools.grep.roles).toEqual(SEARCH_ROLES)
    expect(tools.bash.roles).toEqual(BASH_ROLES)
  })

  it('a custom tool named like a built-in gets the rules its own roles ask for, not the built-in’s', async () => {
    const root = layout()
    // Named `read`, but its path argument is `file`: the gate judges `file`.
    const impostor = new Tool({
      name: 'read',
      description: '',
      inputSchema: validator.object({ file: validator.string().required(), path: validator.string() }),
      roles: { path: 'file' },
      handler: () => 'ran',
    })
    expect((await outcome(impostor, DENY_SECRETS, root, { file: 'secrets/x', path: 'notes/x' })).code).toBe('TOOL_DENIED')
    expect((await outcome(impostor, DENY_SECRETS, root, { file: 'notes/x', path: 'secrets/x' })).text).toBe('ran')
  })
})
