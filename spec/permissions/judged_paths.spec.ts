// Every path tool acts on exactly the file the policy judged, on every way a
// call gets allowed (outright, by an approver, by a remembered approval), and
// a file with other names (hard links) than the judged one is never read or
// changed under a policy that can refuse paths.
//
// The swaps are made where a concurrent `bash` call could make them: after
// the gate resolved the path (from the decision event, or inside the
// approver) and before the handler opens it. Each swap case fails on the
// code before this change (the handler resolved again and acted on whatever
// the path then led to).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { Permissions, createDispatchContext, createTools, type PermissionDecisionEvent, type Approver } from '../../lib/index.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'

const secretGlobs = ['.env*', 'secrets/**']

const policy = {
  rules: [
    { tool: ['read', 'write', 'edit', 'grep'], match: { paths: secretGlobs }, decision: 'deny' as const, reason: 'secrets stay secret' },
    { tool: ['read', 'write', 'edit', 'grep'], match: { paths: ['review/**'] }, decision: 'ask' as const },
  ],
}

function layout(): string {
  const root = fs.realpathSync(trackedMkdtemp(path.join(os.tmpdir(), 'toolsmith-judged-')))
  fs.mkdirSync(path.join(root, 'secrets'))
  fs.writeFileSync(path.join(root, 'secrets', 'a.txt'), 'SECRET in secrets\n')
  fs.writeFileSync(path.join(root, '.env'), 'SECRET in .env\n')
  fs.writeFileSync(path.join(root, 'notes.txt'), 'harmless\n')
  fs.mkdirSync(path.join(root, 'src'))
  fs.writeFileSync(path.join(root, 'src', 'a.txt'), 'harmless\n')
  fs.mkdirSync(path.join(root, 'review'))
  fs.writeFileSync(path.join(root, 'review', 'a.txt'), 'harmless\n')
  return root
}

type Outcome = { text: unknown } | { code?: string; cause?: string; message?: string }

async function outcomeOf(run: Promise<unknown>): Promise<Outcome> {
  return await run.then(
    (text) => ({ text }),
    (error: { code?: string; message?: string; cause?: { code?: string; message?: string } }) =>
      error.code === 'E_TOOL_DOWNSTREAM_ERROR'
        ? { code: error.code, cause: error.cause?.code, message: error.cause?.message }
        : { code: error.code, message: error.message },
  )
}

/** Snapshot of every file under the root (path → content), to show a refused call changed nothing. */
function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      const rel = path.relative(root, full)
      if (entry.isSymbolicLink()) out[rel] = `-> ${fs.readlinkSync(full)}`
      else if (entry.isDirectory()) walk(full)
      else out[rel] = fs.readFileSync(full, 'utf8')
    }
  }
  walk(root)
  return out
}

const lastComponent = (dir: string) => ({
  input: dir === '.' ? 'notes.txt' : `${dir}/a.txt`,
  swap: (root: string) => {
    const file = path.join(root, dir === '.' ? 'notes.txt' : `${dir}/a.txt`)
    fs.rmSync(file)
    fs.symlinkSync(dir === '.' ? '.env' : '../.env', file)
  },
})

const directoryComponent = (dir: string) => ({
  input: `${dir}/a.txt`,
  swap: (root: string) => {
    fs.renameSync(path.join(root, dir), path.join(root, `${dir}.old`))
    fs.symlinkSync('secrets', path.join(root, dir))
  },
})

/** Each tool's call on a file, and what it would show of a secret if the swap worked. */
const toolCalls: Record<string, (input: string) => { tool: 'read' | 'write' | 'edit' | 'grep'; args: Record<string, unknown> }> = {
  read: (input) => ({ tool: 'read', args: { path: input } }),
  'read (a range)': (input) => ({ tool: 'read', args: { path: input, offset: 1, limit: 3 } }),
  write: (input) => ({ tool: 'write', args: { path: input, content: 'PWNED\n' } }),
  // A patch that does not apply to the secret: its error would quote the secret's lines.
  edit: (input) => ({ tool: 'edit', args: { path: input, patch: '@@ -1,1 +1,1 @@\n-harmless\n+PWNED\n' } }),
  grep: (input) => ({ tool: 'grep', args: { pattern: 'SECRET', path: input } }),
  'grep (a directory)': (input) => ({ tool: 'grep', args: { pattern: 'SECRET', path: path.dirname(input) } }),
}

describe('outright allow: a path swapped between the decision and the open is refused by every path tool', () => {
  for (const [toolName, makeCall] of Object.entries(toolCalls)) {
    const swaps = toolName === 'grep (a directory)' ? { 'a directory becomes a symlink to secrets/': directoryComponent('src') } : {
      'the file becomes a symlink to .env': lastComponent('.'),
      'a directory on the path becomes a symlink to secrets/': directoryComponent('src'),
    }
    for (const [name, { input, swap }] of Object.entries(swaps)) {
      it(`${toolName}: ${name}`, async () => {
        const root = layout()
        const tools = createTools({ rootDir: root, isolation: { filesystem: false } })
        const { tool, args } = makeCall(input)
        let swapped = false
        let before: Record<string, string> = {}
        const onDecision = (event: PermissionDecisionEvent): void => {
          if (event.decision === 'allow' && !swapped) {
            swapped = true
            swap(root)
            before = tree(root)
          }
        }
        const ctx = createDispatchContext({ permissions: new Permissions({ policy, root, onDecision }) })
        const outcome = await outcomeOf(tools[tool].executor(ctx)(args as never))
        expect(swapped).toBe(true)
        expect(outcome).toMatchObject({ code: 'E_TOOL_DOWNSTREAM_ERROR', cause: 'TOOL_PATH_ESCAPE' })
        expect((outcome as { message: string }).message).toContain('changed while it was being opened')
        expect(JSON.stringify(outcome)).not.toContain('SECRET')
        // Nothing written anywhere: no secret overwritten, no temp file left.
        expect(tree(root)).toEqual(before)
        // The control: the same call on the swapped layout is denied by the policy itself.
        const control = createDispatchContext({ permissions: new Permissions({ policy, root }) })
        expect(await outcomeOf(tools[tool].executor(control)(args as never))).toMatchObject({ code: 'TOOL_DENIED' })
      })
    }
  }

  it('without a swap every tool does its work (the control for the cases above)', async () => {
    const root = layout()
    const tools = createTools({ rootDir: root, isolation: { filesystem: false } })
    const ctx = createDispatchContext({ permissions: new Permissions({ policy, root }) })
    expect(await tools.read.executor(ctx)({ path: 'src/a.txt' })).toBe('harmless\n')
    expect(await tools.grep.executor(ctx)({ pattern: 'harm', path: 'src' })).toBe('src/a.txt:1:harmless\n')
    expect(await tools.edit.executor(ctx)({ path: 'src/a.txt', patch: '@@ -1,1 +1,1 @@\n-harmless\n+edited\n' })).toBe('ok')
    expect(await tools.write.executor(ctx)({ path: 'src/new/b.txt', content: 'new\n' })).toBe('ok')
    expect(fs.readFileSync(path.join(root, 'src', 'a.txt'), 'utf8')).toBe('edited\n')
    expect(fs.readFileSync(path.join(root, 'src', 'new', 'b.txt'), 'utf8')).toBe('new\n')
  })

  it('a missing path that becomes a symlink to secrets/ after the decision is not written through', async () => {
    const root = layout()
    const { write } = createTools({ rootDir: root, isolation: { filesystem: false } })
    let swapped = false
    const onDecision = (): void => {
      if (swapped) return
      swapped = true
      fs.symlinkSync('secrets', path.join(root, 'fresh'))
    }
    const ctx = createDispatchContext({ permissions: new Permissions({ policy, root, onDecision }) })
    expect(await outcomeOf(write.executor(ctx)({ path: 'fresh/a.txt', content: 'PWNED\n' }))).toMatchObject({ cause: 'TOOL_PATH_ESCAPE' })
    expect(fs.readFileSync(path.join(root, 'secrets', 'a.txt'), 'utf8')).toBe('SECRET in secrets\n')
  })
})

describe('allowed by an approver or a remembered approval: the same holds', () => {
  for (const [toolName, makeCall] of Object.entries(toolCalls)) {
    if (toolName === 'grep (a directory)') continue
    it(`${toolName}: a directory swapped while the approver was being asked`, async () => {
      const root = layout()
      const tools = createTools({ rootDir: root, isolation: { filesystem: false } })
      const { tool, args } = makeCall('review/a.txt')
      const approve: Approver = () => {
        // The user takes a while; meanwhile the model's bash swaps the folder.
        fs.renameSync(path.join(root, 'review'), path.join(root, 'review.old'))
        fs.symlinkSync('secrets', path.join(root, 'review'))
        return { decision: 'allow', remember: true }
      }
      const ctx = createDispatchContext({ permissions: new Permissions({ policy, root, approve }) })
      const outcome = await outcomeOf(tools[tool].executor(ctx)(args as never))
      expect(outcome).toMatchObject({ code: 'E_TOOL_DOWNSTREAM_ERROR', cause: 'TOOL_PATH_ESCAPE' })
      expect(JSON.stringify(outcome)).not.toContain('SECRET')
      expect(fs.readFileSync(path.join(root, 'secrets', 'a.txt'), 'utf8')).toBe('SECRET in secrets\n')
    })
  }

  it('read: a file swapped for a symlink after a remembered approval is refused', async () => {
    const root = layout()
    fs.writeFileSync(path.join(root, 'review', 'b.txt'), 'harmless too\n')
    const { read } = createTools({ rootDir: root, isolation: { filesystem: false } })
    let asked = 0
    let swapOnNext = false
    const onDecision = (event: PermissionDecisionEvent): void => {
      if (swapOnNext && event.approver === 'remembered') {
        fs.rmSync(path.join(root, 'review', 'b.txt'))
        fs.symlinkSync('../.env', path.join(root, 'review', 'b.txt'))
      }
    }
    const approve: Approver = () => {
      asked++
      return { decision: 'allow', remember: true }
    }
    const ctx = createDispatchContext({ permissions: new Permissions({ policy, root, approve, onDecision }) })
    expect(await read.executor(ctx)({ path: 'review/a.txt' })).toBe('harmless\n')
    swapOnNext = true
    const outcome = await outcomeOf(read.executor(ctx)({ path: 'review/b.txt' }))
    expect(asked).toBe(1)
    expect(outcome).toMatchObject({ cause: 'TOOL_PATH_ESCAPE' })
    expect(JSON.stringify(outcome)).not.toContain('SECRET')
  })
})

describe('hard links: a file with another name is not read or changed under a policy that can refuse paths', () => {
  const linked = (root: string): void => {
    fs.linkSync(path.join(root, '.env'), path.join(root, 'notes2.txt'))
    fs.linkSync(path.join(root, 'secrets', 'a.txt'), path.join(root, 'src', 'b.txt'))
  }

  for (const [toolName, makeCall] of Object.entries(toolCalls)) {
    if (toolName === 'grep (a directory)') continue
    for (const input of ['notes2.txt', 'src/b.txt']) {
      it(`${toolName} ${input} (a hard link to a denied file) is denied by the policy, naming the reason`, async () => {
        const root = layout()
        linked(root)
        const tools = createTools({ rootDir: root, isolation: { filesystem: false } })
        const { tool, args } = makeCall(input)
        const before = tree(root)
        const ctx = createDispatchContext({ permissions: new Permissions({ policy, root }) })
        const outcome = await outcomeOf(tools[tool].executor(ctx)(args as never))
        expect(outcome).toMatchObject({ code: 'TOOL_DENIED' })
        expect((outcome as { message: string }).message).toContain('2 names (hard links)')
        expect(JSON.stringify(outcome)).not.toContain('SECRET')
        expect(tree(root)).toEqual(before)
      })
    }
  }

  it('grep over a directory leaves out the matches of files with other names, and says so', async () => {
    const root = layout()
    linked(root)
    fs.writeFileSync(path.join(root, 'src', 'c.txt'), 'SECRET-looking but harmless\n')
    fs.mkdirSync(path.join(root, 'src', 'deep'))
    fs.linkSync(path.join(root, '.env'), path.join(root, 'src', 'deep', 'env.txt'))
    const { grep } = createTools({ rootDir: root, isolation: { filesystem: false } })
    const permissions = new Permissions({ policy, root })
    // Twice: rg searching the directory's descriptor, then (with ignore rules to pass) through the scratch tree.
    for (const ignoreRules of [false, true]) {
      if (ignoreRules) fs.writeFileSync(path.join(root, '.gitignore'), '*.log\n')
      const out = await grep.executor(createDispatchContext({ permissions }))({ pattern: 'SECRET', path: 'src' })
      expect(out).toContain('src/c.txt:1:SECRET-looking but harmless')
      expect(out).not.toContain('SECRET in')
      expect(out).toContain('matches in 2 files left out: more than one name (hard links)')
    }
    // Without a policy (the control) rg shows them all.
    const open = await grep.executor(createDispatchContext())({ pattern: 'SECRET', path: 'src' })
    expect(open).toContain('src/b.txt:1:SECRET in secrets')
    expect(open).toContain('src/deep/env.txt:1:SECRET in .env')
  })

  it('grep over a directory: a line feed in a hard link\'s name does not smuggle its lines past the filter', async () => {
    const root = layout()
    // "src/x\ny" is a second name of .env; "src/y" is an ordinary file the broken parser would have checked instead.
    fs.linkSync(path.join(root, '.env'), path.join(root, 'src', 'x\ny'))
    fs.writeFileSync(path.join(root, 'src', 'y'), 'nothing\n')
    fs.mkdirSync(path.join(root, 'src', 'w\n.'))
    fs.linkSync(path.join(root, '.env'), path.join(root, 'src', 'w\n.', 'v'))
    fs.writeFileSync(path.join(root, 'src', 'v'), 'nothing\n')
    const { grep } = createTools({ rootDir: root, isolation: { filesystem: false } })
    for (const where of ['src', '.']) {
      const lenient = new Permissions({ policy: { rules: [{ tool: 'grep', match: { paths: ['nothing-here/**'] }, decision: 'deny' }] }, root })
      const out = await grep.executor(createDispatchContext({ permissions: lenient }))({ pattern: 'SECRET', path: where })
      expect(out, where).not.toContain('SECRET in .env')
      expect(out, where).toContain('matches in 2 files left out')
    }
  })

  it('grep over a directory: filtered output still fills the limit and keeps its note when cut', async () => {
    const root = layout()
    const line = 'needle '.repeat(10)
    // 20 files × 3 lines ≈ 4.6 KB: over the limit, within what is captured (twice the limit), whatever order rg prints in.
    for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(root, 'src', `m${String(i).padStart(2, '0')}.txt`), `${line}\n`.repeat(3))
    for (const i of ['05', '15']) {
      fs.rmSync(path.join(root, 'src', `m${i}.txt`))
      fs.writeFileSync(path.join(root, `shared${i}.txt`), `${line}\n`.repeat(3))
      fs.linkSync(path.join(root, `shared${i}.txt`), path.join(root, 'src', `m${i}.txt`))
    }
    const limit = 4096
    const { grep } = createTools({ rootDir: root, isolation: { filesystem: false }, maxOutputBytes: limit })
    const out = String(await grep.executor(createDispatchContext({ permissions: new Permissions({ policy, root }) }))({ pattern: 'needle', path: 'src' }))
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(limit)
    expect(Buffer.byteLength(out)).toBeGreaterThan(limit * 0.75)
    expect(out).toMatch(/bytes truncated/)
    expect(out).toMatch(/matches in \d+ files? left out/)
    expect(out).not.toContain('src/m05.txt')
    expect(out).not.toContain('src/m15.txt')
  })

  it('a hard link made after the decision (the file replaced by one) is refused by the handler', async () => {
    for (const tool of ['read', 'edit', 'grep'] as const) {
      const root = layout()
      const tools = createTools({ rootDir: root, isolation: { filesystem: false } })
      let swapped = false
      const onDecision = (event: PermissionDecisionEvent): void => {
        if (event.decision !== 'allow' || swapped) return
        swapped = true
        fs.rmSync(path.join(root, 'notes.txt'))
        fs.linkSync(path.join(root, '.env'), path.join(root, 'notes.txt'))
      }
      const ctx = createDispatchContext({ permissions: new Permissions({ policy, root, onDecision }) })
      const args = tool === 'read' ? { path: 'notes.txt' } : tool === 'edit' ? { path: 'notes.txt', patch: '@@ -1,1 +1,1 @@\n-harmless\n+x\n' } : { pattern: 'SECRET', path: 'notes.txt' }
      const outcome = await outcomeOf(tools[tool].executor(ctx)(args as never))
      expect(swapped, tool).toBe(true)
      expect(outcome, tool).toMatchObject({ cause: 'TOOL_PATH_ESCAPE' })
      expect((outcome as { message: string }).message, tool).toContain('names (hard links)')
      expect(JSON.stringify(outcome), tool).not.toContain('SECRET')
      expect(fs.readFileSync(path.join(root, '.env'), 'utf8')).toBe('SECRET in .env\n')
    }
  })

  it('under a default of deny, an allow rule does not open a hard link inside the allowed folder', async () => {
    const root = layout()
    linked(root)
    const { read } = createTools({ rootDir: root, isolation: { filesystem: false } })
    const strict = new Permissions({ policy: { default: 'deny', rules: [{ tool: 'read', match: { paths: ['src/**'] }, decision: 'allow' }] }, root })
    const ctx = createDispatchContext({ permissions: strict })
    expect(await read.executor(ctx)({ path: 'src/a.txt' })).toBe('harmless\n')
    const outcome = await outcomeOf(read.executor(ctx)({ path: 'src/b.txt' }))
    expect(outcome).toMatchObject({ code: 'TOOL_DENIED' })
    // The model learns why src/b.txt is refused when src/** is allowed.
    expect((outcome as { message: string }).message).toContain("(the file has 2 names (hard links), and a path rule cannot see the others")
    expect((outcome as { message: string }).message).toContain("the policy's default denies it")
  })

  it('an ask rule asks about a hard-linked file (saying so), ignores remembered approvals for it, and an allow reads that very file', async () => {
    const root = layout()
    fs.writeFileSync(path.join(root, 'shared.txt'), 'shared\n')
    fs.linkSync(path.join(root, 'shared.txt'), path.join(root, 'src', 'shared.txt'))
    const { read } = createTools({ rootDir: root, isolation: { filesystem: false } })
    const asked: { subject: unknown; hardLinks: unknown }[] = []
    const askOnly = new Permissions({
      policy: { rules: [{ tool: 'read', match: { paths: ['review/**'] }, decision: 'ask' }] },
      root,
      approve: ({ subject, hardLinks }) => {
        asked.push({ subject, hardLinks })
        return { decision: 'allow', remember: true }
      },
    })
    const ctx = createDispatchContext({ permissions: askOnly })
    // An ordinary file under the rule: asked once, then remembered.
    expect(await read.executor(ctx)({ path: 'review/a.txt' })).toBe('harmless\n')
    expect(await read.executor(ctx)({ path: 'review/a.txt' })).toBe('harmless\n')
    expect(asked).toEqual([{ subject: 'review/a.txt', hardLinks: undefined }])
    // The hard-linked file: the remembered approval does not cover it; the approver is told.
    expect(await read.executor(ctx)({ path: 'src/shared.txt' })).toBe('shared\n')
    expect(asked[1]).toEqual({ subject: 'src/shared.txt', hardLinks: 2 })
  })

  it('a hard-linked file approved by name and then replaced by another file is refused', async () => {
    const root = layout()
    fs.writeFileSync(path.join(root, 'shared.txt'), 'shared\n')
    fs.linkSync(path.join(root, 'shared.txt'), path.join(root, 'src', 'shared.txt'))
    const { read } = createTools({ rootDir: root, isolation: { filesystem: false } })
    const askOnly = new Permissions({
      policy: { rules: [{ tool: 'read', match: { paths: ['review/**'] }, decision: 'ask' }] },
      root,
      approve: () => {
        // Replaced, under the same name, by a second name of a file under review/.
        fs.rmSync(path.join(root, 'src', 'shared.txt'))
        fs.writeFileSync(path.join(root, 'review', 'private.txt'), 'PRIVATE\n')
        fs.linkSync(path.join(root, 'review', 'private.txt'), path.join(root, 'src', 'shared.txt'))
        return true
      },
    })
    const outcome = await outcomeOf(read.executor(createDispatchContext({ permissions: askOnly }))({ path: 'src/shared.txt' }))
    expect(outcome).toMatchObject({ cause: 'TOOL_PATH_ESCAPE' })
    expect(JSON.stringify(outcome)).not.toContain('PRIVATE')
  })

  it('without strict path rules (no policy, or allow-only rules under a default of allow) a hard-linked file reads as before', async () => {
    const root = layout()
    linked(root)
    const { read } = createTools({ rootDir: root, isolation: { filesystem: false } })
    expect(await read.executor(createDispatchContext())({ path: 'src/b.txt' })).toBe('SECRET in secrets\n')
    const lenient = new Permissions({ policy: { rules: [{ tool: 'read', match: { paths: ['src/**'] }, decision: 'allow' }] }, root })
    expect(await read.executor(createDispatchContext({ permissions: lenient }))({ path: 'src/b.txt' })).toBe('SECRET in secrets\n')
  })
})
