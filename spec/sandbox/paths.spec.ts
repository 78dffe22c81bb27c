/**
 * Adversarial paths: nothing outside the root may be read, created or
 * changed. Each spec snapshots the canary directory (and the look-alike
 * sibling `root-evil`) beside the root before and after.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Sandbox, createTools } from '../../lib/index.js'
// Internal on purpose: the shortcut specs swap a path *between* the resolution and the open, which no public call can pause at.
import { readUncheckedTarget } from '../../lib/sandbox/files/read_file.js'
import { resolveInRoot } from '../../lib/sandbox/files/paths.js'
import { CANARY_TEXT, call, failure, makeFixture, startDirectorySwapper, type Fixture } from '../tools/helpers.js'

let fx: Fixture
let before: string

beforeEach(() => {
  fx = makeFixture()
  fs.writeFileSync(path.join(fx.root, 'inside.txt'), 'inside\n')
  before = fx.snapshot()
})

afterEach(() => {
  // The heart of every spec here: the world beside the root is untouched.
  expect(fx.snapshot()).toBe(before)
  fx.cleanup()
})

describe('".." traversal', () => {
  it.each([
    ['read', { path: '../canary/secret.txt' }],
    ['read', { path: 'a/../../canary/secret.txt' }],
    ['read', { path: './../canary/deep/secret.txt' }],
    ['write', { path: '../canary/new.txt', content: 'x' }],
    ['write', { path: '../canary/secret.txt', content: 'pwned' }],
    ['write', { path: 'new/../../canary/made.txt', content: 'x' }],
    ['edit', { path: '../canary/secret.txt', patch: '@@ -1 +1 @@\n-CANARY\n+pwned\n' }],
    ['grep', { pattern: 'CANARY', path: '..' }],
    ['grep', { pattern: 'CANARY', path: '../canary' }],
    ['bash', { cmd: 'ls', opts: { cwd: '..' } }],
    ['bash', { cmd: 'ls', opts: { cwd: '../canary' } }],
  ] as const)('%s %j → TOOL_PATH_ESCAPE', async (name, args) => {
    const error = await failure(fx.tools[name], args)
    expect(error.code).toBe('TOOL_PATH_ESCAPE')
  })
})

describe('absolute paths', () => {
  it('outside the root are refused by every tool', async () => {
    const secret = path.join(fx.canary, 'secret.txt')
    expect((await failure(fx.tools.read, { path: secret })).code).toBe('TOOL_PATH_ESCAPE')
    expect((await failure(fx.tools.write, { path: path.join(fx.canary, 'n.txt'), content: 'x' })).code).toBe('TOOL_PATH_ESCAPE')
    expect((await failure(fx.tools.edit, { path: secret, patch: '@@ -1 +1 @@\n-a\n+b\n' })).code).toBe('TOOL_PATH_ESCAPE')
    expect((await failure(fx.tools.grep, { pattern: 'CANARY', path: fx.canary })).code).toBe('TOOL_PATH_ESCAPE')
    expect((await failure(fx.tools.bash, { cmd: 'ls', opts: { cwd: fx.canary } })).code).toBe('TOOL_PATH_ESCAPE')
    expect((await failure(fx.tools.read, { path: '/etc/passwd' })).code).toBe('TOOL_PATH_ESCAPE')
  })

  it('inside the root are accepted', async () => {
    expect(await call(fx.tools.read, { path: path.join(fx.root, 'inside.txt') })).toBe('inside\n')
    expect(await call(fx.tools.write, { path: path.join(fx.root, 'abs.txt'), content: 'abs' })).toBe('ok')
    expect(fs.readFileSync(path.join(fx.root, 'abs.txt'), 'utf8')).toBe('abs')
  })

  it('a sibling whose name starts with the root name is outside (compared by components)', async () => {
    const evilSecret = path.join(fx.evil, 'secret.txt')
    expect((await failure(fx.tools.read, { path: evilSecret })).code).toBe('TOOL_PATH_ESCAPE')
    expect((await failure(fx.tools.write, { path: path.join(fx.evil, 'x.txt'), content: 'x' })).code).toBe('TOOL_PATH_ESCAPE')
    expect((await failure(fx.tools.write, { path: '../root-evil/x.txt', content: 'x' })).code).toBe('TOOL_PATH_ESCAPE')
    expect((await failure(fx.tools.bash, { cmd: 'ls', opts: { cwd: fx.evil } })).code).toBe('TOOL_PATH_ESCAPE')
    expect((await failure(fx.tools.grep, { pattern: 'CANARY', path: fx.evil })).code).toBe('TOOL_PATH_ESCAPE')
  })

  it('/proc/self/root and /proc/self/cwd aliases are refused', async () => {
    const viaProcRoot = `/proc/self/root${fx.canary}/secret.txt`
    expect((await failure(fx.tools.read, { path: viaProcRoot })).code).toBe('TOOL_PATH_ESCAPE')
    expect((await failure(fx.tools.write, { path: `/proc/self/root${fx.canary}/new.txt`, content: 'x' })).code).toBe(
      'TOOL_PATH_ESCAPE',
    )
    // Even an alias of a file inside the root is refused: it is not under the root by name.
    expect((await failure(fx.tools.read, { path: `/proc/self/root${fx.root}/inside.txt` })).code).toBe('TOOL_PATH_ESCAPE')
    expect((await failure(fx.tools.read, { path: '/proc/self/cwd/package.json' })).code).toBe('TOOL_PATH_ESCAPE')
  })

  it('a symlink inside the root pointing at /proc/self/root is refused', async () => {
    fs.symlinkSync('/proc/self/root', path.join(fx.root, 'procroot'))
    const error = await failure(fx.tools.read, { path: `procroot${fx.canary}/secret.txt` })
    expect(error.code).toBe('TOOL_PATH_ESCAPE')
    expect((await failure(fx.tools.write, { path: `procroot${fx.canary}/x.txt`, content: 'x' })).code).toBe('TOOL_PATH_ESCAPE')
  })
})

describe('symlinks pointing outside', () => {
  it('a symlinked file is refused for read, write, edit and grep', async () => {
    fs.symlinkSync(path.join(fx.canary, 'secret.txt'), path.join(fx.root, 'link.txt'))
    expect((await failure(fx.tools.read, { path: 'link.txt' })).code).toBe('TOOL_PATH_ESCAPE')
    expect((await failure(fx.tools.write, { path: 'link.txt', content: 'pwned' })).code).toBe('TOOL_PATH_ESCAPE')
    expect((await failure(fx.tools.edit, { path: 'link.txt', patch: `@@ -1 +1 @@\n-${CANARY_TEXT}+pwned\n` })).code).toBe(
      'TOOL_PATH_ESCAPE',
    )
    expect((await failure(fx.tools.grep, { pattern: 'CANARY', path: 'link.txt' })).code).toBe('TOOL_PATH_ESCAPE')
    // Searching the whole root does not follow it either.
    expect(await call(fx.tools.grep, { pattern: 'CANARY' })).toBe('')
  })

  it.each([1, 2, 4])('a symlinked directory at depth %i is refused', async (depth) => {
    const parents = Array.from({ length: depth - 1 }, (_, i) => `d${i}`)
    fs.mkdirSync(path.join(fx.root, ...parents), { recursive: true })
    fs.symlinkSync(fx.canary, path.join(fx.root, ...parents, 'out'))
    const rel = [...parents, 'out'].join('/')
    expect((await failure(fx.tools.read, { path: `${rel}/secret.txt` })).code).toBe('TOOL_PATH_ESCAPE')
    expect((await failure(fx.tools.read, { path: `${rel}/deep/secret.txt` })).code).toBe('TOOL_PATH_ESCAPE')
    expect((await failure(fx.tools.write, { path: `${rel}/new.txt`, content: 'x' })).code).toBe('TOOL_PATH_ESCAPE')
    expect((await failure(fx.tools.write, { path: `${rel}/deep/newdir/new.txt`, content: 'x' })).code).toBe('TOOL_PATH_ESCAPE')
    expect((await failure(fx.tools.edit, { path: `${rel}/secret.txt`, patch: '@@ -1 +1 @@\n-a\n+b\n' })).code).toBe(
      'TOOL_PATH_ESCAPE',
    )
    expect((await failure(fx.tools.grep, { pattern: 'CANARY', path: rel })).code).toBe('TOOL_PATH_ESCAPE')
    expect((await failure(fx.tools.bash, { cmd: 'ls', opts: { cwd: rel } })).code).toBe('TOOL_PATH_ESCAPE')
    expect(await call(fx.tools.grep, { pattern: 'CANARY' })).toBe('')
  })

  it('a relative symlink climbing out with ".." is refused', async () => {
    fs.mkdirSync(path.join(fx.root, 'sub'))
    fs.symlinkSync('../../canary', path.join(fx.root, 'sub', 'up'))
    fs.symlinkSync('../canary/secret.txt', path.join(fx.root, 'up-file'))
    expect((await failure(fx.tools.read, { path: 'sub/up/secret.txt' })).code).toBe('TOOL_PATH_ESCAPE')
    expect((await failure(fx.tools.read, { path: 'up-file' })).code).toBe('TOOL_PATH_ESCAPE')
    expect((await failure(fx.tools.write, { path: 'sub/up/made.txt', content: 'x' })).code).toBe('TOOL_PATH_ESCAPE')
    expect((await failure(fx.tools.write, { path: 'up-file', content: 'x' })).code).toBe('TOOL_PATH_ESCAPE')
  })

  it('symlinks that stay inside the root are followed', async () => {
    fs.mkdirSync(path.join(fx.root, 'real'))
    fs.writeFileSync(path.join(fx.root, 'real', 'f.txt'), 'real\n')
    fs.symlinkSync('real', path.join(fx.root, 'alias'))
    fs.symlinkSync('real/f.txt', path.join(fx.root, 'f-link'))
    expect(await call(fx.tools.read, { path: 'alias/f.txt' })).toBe('real\n')
    expect(await call(fx.tools.write, { path: 'f-link', content: 'changed\n' })).toBe('ok')
    // The link survives; its target changed.
    expect(fs.lstatSync(path.join(fx.root, 'f-link')).isSymbolicLink()).toBe(true)
    expect(fs.readFileSync(path.join(fx.root, 'real', 'f.txt'), 'utf8')).toBe('changed\n')
  })
})

describe('dangling symlinks', () => {
  it('pointing outside: write never creates the target, read refuses', async () => {
    const target = path.join(fx.canary, 'created-by-attack.txt')
    fs.symlinkSync(target, path.join(fx.root, 'dangle'))
    fs.symlinkSync(path.join(fx.base, 'nowhere', 'dir'), path.join(fx.root, 'dangle-dir'))
    expect((await failure(fx.tools.write, { path: 'dangle', content: 'x' })).code).toBe('TOOL_PATH_ESCAPE')
    expect((await failure(fx.tools.write, { path: 'dangle-dir/f.txt', content: 'x' })).code).toBe('TOOL_PATH_ESCAPE')
    expect((await failure(fx.tools.read, { path: 'dangle' })).code).toBe('TOOL_PATH_ESCAPE')
    expect(fs.existsSync(target)).toBe(false)
    expect(fs.existsSync(path.join(fx.base, 'nowhere'))).toBe(false)
  })

  it('pointing inside: write refuses to go through it, read reports it missing', async () => {
    fs.symlinkSync('missing.txt', path.join(fx.root, 'dangle-in'))
    const error = await failure(fx.tools.write, { path: 'dangle-in', content: 'x' })
    expect(error.code).toBe('TOOL_PATH_INVALID')
    expect(error.message).toMatch(/dangling/)
    expect(fs.existsSync(path.join(fx.root, 'missing.txt'))).toBe(false)
    expect((await failure(fx.tools.read, { path: 'dangle-in' })).code).toBe('TOOL_FILE_NOT_FOUND')
  })
})

describe('hard links', () => {
  it('a hard link to a file outside is never written or edited', async () => {
    fs.linkSync(path.join(fx.canary, 'secret.txt'), path.join(fx.root, 'hard.txt'))
    before = fx.snapshot()
    const written = await failure(fx.tools.write, { path: 'hard.txt', content: 'pwned' })
    expect(written.code).toBe('TOOL_PATH_ESCAPE')
    expect(written.message).toMatch(/hard link/)
    const edited = await failure(fx.tools.edit, {
      path: 'hard.txt',
      patch: `@@ -1 +1 @@\n-${CANARY_TEXT}+pwned\n`,
    })
    expect(edited.code).toBe('TOOL_PATH_ESCAPE')
    expect(fs.readFileSync(path.join(fx.canary, 'secret.txt'), 'utf8')).toBe(CANARY_TEXT)
  })
})

describe('invalid paths', () => {
  it.each([
    ['empty', ''],
    ['blank', '   '],
    ['NUL byte', 'a\0b.txt'],
    ['NUL byte hiding an escape', 'inside.txt\0/../../canary/secret.txt'],
    ['over-long path', `${'a/'.repeat(2100)}f.txt`],
    ['over-long component', 'x'.repeat(300)],
  ])('%s → TOOL_PATH_INVALID for every tool', async (_label, bad) => {
    expect((await failure(fx.tools.read, { path: bad })).code).toBe('TOOL_PATH_INVALID')
    expect((await failure(fx.tools.write, { path: bad, content: 'x' })).code).toBe('TOOL_PATH_INVALID')
    expect((await failure(fx.tools.edit, { path: bad, patch: '@@ -1 +1 @@\n-a\n+b\n' })).code).toBe('TOOL_PATH_INVALID')
    expect((await failure(fx.tools.grep, { pattern: 'x', path: bad })).code).toBe('TOOL_PATH_INVALID')
    if (bad.trim() !== '') {
      expect((await failure(fx.tools.bash, { cmd: 'ls', opts: { cwd: bad } })).code).toBe('TOOL_PATH_INVALID')
    }
  })
})

describe('a root reached through a symlink', () => {
  it('works inside and still refuses the outside', async () => {
    const link = path.join(fx.base, 'root-link')
    fs.symlinkSync(fx.root, link)
    before = fx.snapshot()
    const tools = createTools({ rootDir: link })
    expect(await call(tools.read, { path: 'inside.txt' })).toBe('inside\n')
    expect(await call(tools.read, { path: path.join(link, 'inside.txt') })).toBe('inside\n')
    expect(await call(tools.write, { path: 'w/x.txt', content: 'x' })).toBe('ok')
    expect(fs.readFileSync(path.join(fx.root, 'w', 'x.txt'), 'utf8')).toBe('x')
    expect(await call(tools.bash, { cmd: 'pwd', opts: { cwd: 'w' } })).toBe(`${path.join(fx.root, 'w')}\n`)
    expect((await failure(tools.read, { path: '../canary/secret.txt' })).code).toBe('TOOL_PATH_ESCAPE')
    expect((await failure(tools.read, { path: `${link}/../canary/secret.txt` })).code).toBe('TOOL_PATH_ESCAPE')
    expect((await failure(tools.write, { path: `${link}/../canary/x.txt`, content: 'x' })).code).toBe('TOOL_PATH_ESCAPE')
    expect(await new Sandbox({ rootDir: link }).resolve('a/b')).toBe(path.join(fx.root, 'a', 'b'))
  })
})

describe('a directory swapped for a symlink between check and use', () => {
  it('never lets a read return, or a write or an edit touch, anything outside', async () => {
    // A separate process flips root/inner between a real directory and a
    // symlink to the canary as fast as it can while the tools hammer it.
    const inner = path.join(fx.root, 'inner')
    fs.mkdirSync(inner)
    fs.writeFileSync(path.join(inner, 'secret.txt'), 'INSIDE\n')
    const swapper = startDirectorySwapper(fx)
    await swapper.ready
    let flips = 0

    const outcomes = { ok: 0, refused: 0 }
    const codes = new Set<string>()
    try {
      for (let i = 0; i < 500; i++) {
        const attempts: Promise<void>[] = [
          call(fx.tools.read, { path: 'inner/secret.txt' }).then((text) => {
            expect(text).toBe('INSIDE\n')
            outcomes.ok++
          }),
          call(fx.tools.write, { path: 'inner/secret.txt', content: 'INSIDE\n' }).then(() => {
            outcomes.ok++
          }),
          call(fx.tools.write, { path: `inner/new-${i}/made.txt`, content: 'x' }).then(() => {
            outcomes.ok++
          }),
          // edit prepares its temp file while it reads: the directory it opens for that is checked too.
          call(fx.tools.edit, { path: 'inner/secret.txt', patch: '@@ -1 +1 @@\n-INSIDE\n+INSIDE\n' }).then(() => {
            outcomes.ok++
          }),
        ]
        for (const settled of await Promise.allSettled(attempts)) {
          if (settled.status === 'fulfilled') continue
          const cause = (settled.reason as { cause?: { code?: string } }).cause
          // An assertion failure above (say, canary text read) has no E_TOOL_* cause: rethrow it.
          if (typeof cause?.code !== 'string' || !cause.code.startsWith('TOOL_')) throw settled.reason
          codes.add(cause!.code!)
          outcomes.refused++
        }
      }
    } finally {
      flips = await swapper.stop()
    }
    expect(flips).toBeGreaterThan(0)
    expect(outcomes.refused).toBeGreaterThan(0)
    expect([...codes].every((code) => ['TOOL_PATH_ESCAPE', 'TOOL_FILE_NOT_FOUND', 'TOOL_PATH_INVALID'].includes(code))).toBe(true)
    // Whatever the interleaving, the canary (checked in afterEach) is untouched,
    // and no temp file was left behind inside the root.
    const leftovers = fs.readdirSync(fx.root, { recursive: true }).filter((name) => String(name).includes('toolsmith-tmp'))
    expect(leftovers).toEqual([])
  })
})

describe("read's shortcut: the target left to the O_NOFOLLOW open, no lstat (issue 17)", () => {
  it('a directory swapped for a symlink after the resolution: the open reaches outside, the re-check refuses it', async () => {
    const sandbox = new Sandbox({ rootDir: fx.root })
    fs.mkdirSync(path.join(fx.root, 'inner'))
    fs.writeFileSync(path.join(fx.root, 'inner', 'secret.txt'), 'INSIDE\n')
    const resolved = await resolveInRoot(sandbox, 'inner/secret.txt', { target: 'open' })
    expect(resolved.targetUnchecked).toBe(true)
    fs.renameSync(path.join(fx.root, 'inner'), path.join(fx.root, 'inner-moved'))
    fs.symlinkSync(fx.canary, path.join(fx.root, 'inner'))
    const error = await readUncheckedTarget(resolved, 1_000).catch((e: unknown) => e as { code?: string })
    expect(error).toMatchObject({ code: 'TOOL_PATH_ESCAPE' })
    fs.unlinkSync(path.join(fx.root, 'inner'))
  })

  it('a symlink put in place of the target after the resolution is not followed: the checked path takes over', async () => {
    const sandbox = new Sandbox({ rootDir: fx.root })
    fs.writeFileSync(path.join(fx.root, 'a.txt'), 'inside a\n')
    const resolved = await resolveInRoot(sandbox, 'a.txt', { target: 'open' })
    fs.unlinkSync(path.join(fx.root, 'a.txt'))
    fs.symlinkSync(path.join(fx.canary, 'secret.txt'), path.join(fx.root, 'a.txt'))
    expect(await readUncheckedTarget(resolved, 1_000)).toBeUndefined()
    // And the tool, which then resolves with the lstat, refuses the link to the outside.
    expect((await failure(fx.tools.read, { path: 'a.txt' })).code).toBe('TOOL_PATH_ESCAPE')
    fs.unlinkSync(path.join(fx.root, 'a.txt'))
  })

  it('a FIFO, a directory and a file over the limit are left to the checked path (never blocking on the FIFO)', async () => {
    const sandbox = new Sandbox({ rootDir: fx.root })
    execFileSync('mkfifo', [path.join(fx.root, 'pipe')])
    fs.mkdirSync(path.join(fx.root, 'dir'))
    fs.writeFileSync(path.join(fx.root, 'big.txt'), 'x'.repeat(2_000))
    for (const name of ['pipe', 'dir', 'big.txt']) {
      expect(await readUncheckedTarget(await resolveInRoot(sandbox, name, { target: 'open' }), 1_000)).toBeUndefined()
    }
    expect((await failure(fx.tools.read, { path: 'pipe' })).code).toBe('TOOL_NOT_A_FILE')
    fs.unlinkSync(path.join(fx.root, 'pipe'))
    fs.rmdirSync(path.join(fx.root, 'dir'))
    fs.unlinkSync(path.join(fx.root, 'big.txt'))
  })
})
