/**
 * `grep` and ignore files: the rules of `.gitignore`, `.ignore` and
 * `.rgignore` files inside the root apply; nothing outside the root (ancestor
 * ignore files, symlinked ignore files, `.git` links and `gitdir:` files,
 * global git excludes) is read, hides a result or shows up in a message.
 *
 * Every outside file below holds the line `guessed.txt`: if grep read it as
 * ignore rules, `guessed.txt` (which exists in the root) would vanish from
 * the results, telling a model that the outside file has that line.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTools } from '../../lib/index.js'
import { rememberRules, rememberedRules, rememberedRulesSize } from '../../lib/tools/grep_ignore.js'
import { call, failure, makeFixture, type Fixture } from './helpers.js'

let fx: Fixture
/** An outside file whose lines, read as ignore rules, would hide `guessed.txt` and `sub/guessed.txt`. */
let rules: string

const GUESSED = ['guessed.txt:1:FINDME', 'sub/guessed.txt:1:FINDME']

beforeEach(() => {
  fx = makeFixture()
  rules = path.join(fx.canary, 'rules')
  fs.writeFileSync(rules, 'SECRET-OUTSIDE-LINE\nguessed.txt\n')
  fs.mkdirSync(path.join(fx.root, 'sub'))
  fs.writeFileSync(path.join(fx.root, 'guessed.txt'), 'FINDME\n')
  fs.writeFileSync(path.join(fx.root, 'sub', 'guessed.txt'), 'FINDME\n')
})
afterEach(() => fx.cleanup())

const lines = (text: unknown): string[] => String(text).split('\n').filter(Boolean).sort()
const find = async (tools = fx.tools, where = '.'): Promise<string[]> => lines(await call(tools.grep, { pattern: 'FINDME', path: where }))

describe('grep never reads ignore rules from outside the root', () => {
  it('in-root ignore files still hide what they name (the control for every spec below)', async () => {
    fs.mkdirSync(path.join(fx.root, '.git'))
    fs.writeFileSync(path.join(fx.root, '.gitignore'), 'guessed.txt\n')
    expect(await find()).toEqual([])
    fs.rmSync(path.join(fx.root, '.gitignore'))
    fs.writeFileSync(path.join(fx.root, 'sub', '.ignore'), 'guessed.txt\n')
    expect(await find()).toEqual(['guessed.txt:1:FINDME'])
  })

  it.each(['.gitignore', '.ignore', '.rgignore'])('does not follow a symlinked %s (in the root or below it)', async (name) => {
    fs.mkdirSync(path.join(fx.root, '.git'))
    fs.symlinkSync(rules, path.join(fx.root, name))
    expect(await find()).toEqual(GUESSED)
    fs.rmSync(path.join(fx.root, name))
    fs.symlinkSync(rules, path.join(fx.root, 'sub', name))
    expect(await find()).toEqual(GUESSED)
    expect(await find(fx.tools, 'sub')).toEqual(['sub/guessed.txt:1:FINDME'])
  })

  it('does not read the exclude file of a .git symlink pointing outside', async () => {
    const gitDir = path.join(fx.canary, 'gitdir')
    fs.mkdirSync(path.join(gitDir, 'info'), { recursive: true })
    fs.writeFileSync(path.join(gitDir, 'info', 'exclude'), 'guessed.txt\n')
    fs.symlinkSync(gitDir, path.join(fx.root, '.git'))
    expect(await find()).toEqual(GUESSED)
  })

  it('does not follow a .git file whose gitdir: points outside (a bash command can create one)', async () => {
    const gitDir = path.join(fx.canary, 'worktree')
    fs.mkdirSync(path.join(gitDir, 'info'), { recursive: true })
    fs.writeFileSync(path.join(gitDir, 'commondir'), '.\n')
    fs.writeFileSync(path.join(gitDir, 'info', 'exclude'), 'guessed.txt\n')
    // write refuses a .git (readOnlyPaths); a command may still create one.
    fs.writeFileSync(path.join(fx.root, '.git'), `gitdir: ${gitDir}\n`)
    expect(await find()).toEqual(GUESSED)
  })

  it('does not read the ignore files of the directories above the root', async () => {
    // The root sits inside a git repository whose top (outside the root) ignores guessed.txt everywhere.
    fs.mkdirSync(path.join(fx.base, '.git'))
    for (const name of ['.gitignore', '.ignore', '.rgignore']) fs.copyFileSync(rules, path.join(fx.base, name))
    expect(await find()).toEqual(GUESSED)
    expect(await find(fx.tools, 'sub')).toEqual(['sub/guessed.txt:1:FINDME'])
  })

  it.each([
    ['$XDG_CONFIG_HOME/git/ignore', 'XDG_CONFIG_HOME'],
    ['core.excludesFile in ~/.gitconfig', 'HOME'],
  ])('does not read global git excludes: %s', async (_label, variable) => {
    fs.mkdirSync(path.join(fx.root, '.git'))
    const config = `[core]\n\texcludesFile = ${rules}\n`
    const value = path.join(fx.canary, 'config')
    if (variable === 'XDG_CONFIG_HOME') {
      fs.mkdirSync(path.join(value, 'git'), { recursive: true })
      fs.copyFileSync(rules, path.join(value, 'git', 'ignore'))
    } else {
      fs.mkdirSync(value)
      fs.writeFileSync(path.join(value, '.gitconfig'), config)
    }
    expect(await find(createTools({ rootDir: fx.root, env: { [variable]: value } }))).toEqual(GUESSED)
    // Control: ripgrep itself, given the same variable, does apply the outside rules (the route is real).
    const { rgPath } = await import('@vscode/ripgrep')
    const direct = spawnSync(rgPath, ['--no-config', '-n', 'FINDME', '.'], {
      cwd: fx.root,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/', [variable]: value },
    })
    expect(direct.stdout).not.toContain('guessed.txt')
  })

  it('an ignore file that is a FIFO is skipped, never waited on', async () => {
    execFileSync('mkfifo', [path.join(fx.root, '.ignore')])
    const tools = createTools({ rootDir: fx.root, timeoutMs: 10_000 })
    expect(await find(tools)).toEqual(GUESSED)
  })

  it('never echoes an outside line or a host path, even when outside files hold bad globs', async () => {
    const bad = path.join(fx.canary, 'bad-rules')
    fs.writeFileSync(bad, 'SECRET-OUTSIDE-LINE[z-a]\n')
    fs.mkdirSync(path.join(fx.base, '.git'))
    fs.copyFileSync(bad, path.join(fx.base, '.gitignore'))
    fs.copyFileSync(bad, path.join(fx.base, '.ignore'))
    fs.symlinkSync(bad, path.join(fx.root, '.rgignore'))
    fs.symlinkSync(bad, path.join(fx.root, 'sub', '.gitignore'))
    // The search itself works: the outside globs are never parsed.
    expect(await find()).toEqual(GUESSED)
    // A bad regex fails with rg's message about the regex only.
    const error = await failure(fx.tools.grep, { pattern: 'unclosed(' })
    expect(error.code).toBe('TOOL_GREP_FAILED')
    expect(error.message).toMatch(/regex parse error/)
    const told = JSON.stringify({ message: error.message, details: error.details })
    expect(told).not.toContain('SECRET')
    expect(told).not.toContain(fx.base)
  })
})

describe('grep and the ignore files inside the root', () => {
  it('applies .gitignore files whether or not there is a git repository', async () => {
    fs.writeFileSync(path.join(fx.root, '.gitignore'), 'guessed.txt\n')
    expect(await find()).toEqual([])
  })

  it('skips a glob rg cannot parse and applies the other lines; messages name no scratch file; nothing is left behind', async () => {
    const scratch = path.join(fx.base, 'tmp')
    fs.mkdirSync(scratch)
    const saved = process.env.TMPDIR
    process.env.TMPDIR = scratch
    fs.writeFileSync(path.join(fx.root, '.gitignore'), 'bad[z-a]\nsub/\n')
    try {
      expect(await find()).toEqual(['guessed.txt:1:FINDME'])
      // A directory named as path is searched even though a rule ignores it, as rg does.
      expect(await find(fx.tools, 'sub')).toEqual(['sub/guessed.txt:1:FINDME'])
    } finally {
      if (saved === undefined) delete process.env.TMPDIR
      else process.env.TMPDIR = saved
    }
    expect(fs.readdirSync(scratch)).toEqual([])
    const error = await failure(fx.tools.grep, { pattern: 'unclosed(' })
    expect(error.code).toBe('TOOL_GREP_FAILED')
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toMatch(/toolsmith-grep-|\/proc\/|bad\[/)
    const error2 = await failure(fx.tools.grep, { pattern: 'unclosed(', path: 'sub' })
    expect(JSON.stringify({ message: error2.message, details: error2.details })).not.toMatch(/toolsmith-grep-|\/proc\//)
  })
})

describe('grep applies the ignore files inside the root as ripgrep does', () => {
  it('nested files, anchored and directory patterns, negation, and .rgignore > .ignore > .gitignore', async () => {
    const write = (rel: string, text: string): void => {
      fs.mkdirSync(path.dirname(path.join(fx.root, rel)), { recursive: true })
      fs.writeFileSync(path.join(fx.root, rel), text)
    }
    write('.gitignore', 'node_modules/\n/top.txt\n*.log\n!keep.log\n')
    write('node_modules/pkg/index.js', 'FINDME\n')
    write('top.txt', 'FINDME\n')
    write('sub/top.txt', 'FINDME\n')
    write('a.log', 'FINDME\n')
    write('sub/deep/keep.log', 'FINDME\n')
    write('sub/deep/other.log', 'FINDME\n')
    write('sub/.gitignore', 'deep/*.txt\n')
    write('sub/deep/x.txt', 'FINDME\n')
    write('sub/y/deep/x.txt', 'FINDME\n')
    write('lib/.ignore', '!*.log\n')
    write('lib/z.log', 'FINDME\n')
    write('lib/.rgignore', 'guessed.txt\n')
    write('lib/guessed.txt', 'FINDME\n')
    write('lib/.gitignore', '!guessed.txt\n')
    write('weird [dir]/.gitignore', 'hidden.txt\n')
    write('weird [dir]/hidden.txt', 'FINDME\n')
    write('weird [dir]/shown.txt', 'FINDME\n')
    const expected = [
      'guessed.txt:1:FINDME',
      'lib/z.log:1:FINDME',
      'sub/deep/keep.log:1:FINDME',
      'sub/guessed.txt:1:FINDME',
      'sub/top.txt:1:FINDME',
      'sub/y/deep/x.txt:1:FINDME',
      'weird [dir]/shown.txt:1:FINDME',
    ]
    expect(await find()).toEqual(expected)
    // Searching a subdirectory applies the ignore files of its ancestors inside the root.
    expect(await find(fx.tools, 'sub')).toEqual(expected.filter((line) => line.startsWith('sub/')))
    expect(await find(fx.tools, 'sub/deep')).toEqual(['sub/deep/keep.log:1:FINDME'])
    // A file named explicitly is searched whatever the rules say, as rg does.
    expect(await find(fx.tools, 'a.log')).toEqual(['a.log:1:FINDME'])
  })
})

describe('grep ignore rules against ripgrep itself', () => {
  // rg reading the ignore files on its own, with git detection, excludes and
  // global files off, gives what grep must give: the tree has no ignore file
  // above it (checked), and its only hidden directory is not walked by either.
  const NATIVE = ['--no-config', '--no-require-git', '--no-ignore-exclude', '--no-ignore-global', '-n', '-H', '--no-heading', '-e', 'HIT', '--']
  const DIRS = ['', 'a', 'a/b', 'a/b/c', 'd', 'd/a', 'n', 'x y', 'br[1]', 'br[1]/a', '.hid']
  const FILES = ['f.txt', 'g.log', 'keep.log', 'e', '.dot']
  const LINES = [
    'f.txt', '*.log', '!keep.log', '/a', 'a/', 'b/', 'a/b', '**/c', 'c/**', '!a', '\\!a', '#f.txt', 'g.*', '*.txt  ',
    'f.txt\\ ', '/d/a', 'n/', '[fg].txt', '!*.txt', 'x y/', 'br\\[1\\]/', '**', '/**', 'b/**/f.txt', '!/a/', '!.dot',
    '\uFEFFg.log', 'e\r', '!c/', '*', '!f.txt', 'a/**/c', '/*', '!b', 'e', '!e', '/e', 'a/e',
  ]
  const NAMES = ['.gitignore', '.ignore', '.rgignore']

  it('gives the lines rg gives for random trees of nested ignore files', async () => {
    for (let dir = path.dirname(fx.root); ; dir = path.dirname(dir)) {
      for (const name of NAMES) expect(fs.existsSync(path.join(dir, name)), `${dir}/${name}`).toBe(false)
      if (dir === path.dirname(dir)) break
    }
    const { rgPath } = await import('@vscode/ripgrep')
    const ignoreFile = fc.record({
      dir: fc.constantFrom(...DIRS),
      name: fc.constantFrom(...NAMES),
      lines: fc.array(fc.constantFrom(...LINES), { minLength: 1, maxLength: 5 }),
    })
    await fc.assert(
      fc.asyncProperty(fc.array(ignoreFile, { maxLength: 6 }), fc.constantFrom('.', 'a', 'a/b', 'br[1]', 'x y'), async (files, where) => {
        fs.rmSync(fx.root, { recursive: true, force: true })
        for (const dir of DIRS) {
          fs.mkdirSync(path.join(fx.root, dir), { recursive: true })
          for (const file of FILES) fs.writeFileSync(path.join(fx.root, dir, file), 'HIT\n')
        }
        for (const file of files) fs.appendFileSync(path.join(fx.root, file.dir, file.name), `${file.lines.join('\n')}\n`)
        const native = spawnSync(rgPath, [...NATIVE, where], { cwd: fx.root, encoding: 'utf8' })
        expect(native.status, native.stderr).not.toBe(2)
        const expected = lines(native.stdout.replace(/^\.\//gm, ''))
        expect(lines(await call(fx.tools.grep, { pattern: 'HIT', path: where }))).toEqual(expected)
      }),
      { numRuns: Number(process.env.GREP_IGNORE_RUNS ?? 60) },
    )
  }, 120_000)
})

describe('grep remembers directory listings only while they hold', () => {
  it('sees an ignore file added after an earlier call, even with the directory mtime set back', async () => {
    // A whole second, so that setting it back restores it exactly.
    const sub = path.join(fx.root, 'sub')
    const second = Math.floor(Date.now() / 1000) - 60
    fs.utimesSync(sub, second, second)
    // Listings are remembered only for directories unchanged (ctime included) for 2 s.
    await new Promise((resolve) => setTimeout(resolve, 2_200))
    expect(await find()).toEqual(GUESSED)
    fs.writeFileSync(path.join(sub, '.ignore'), 'guessed.txt\n')
    fs.utimesSync(sub, second, second)
    expect(fs.statSync(sub, { bigint: true }).mtimeNs).toBe(BigInt(second) * 1_000_000_000n)
    expect(await find()).toEqual(['guessed.txt:1:FINDME'])
    fs.mkdirSync(path.join(fx.root, 'new', 'deeper'), { recursive: true })
    fs.writeFileSync(path.join(fx.root, 'new', 'deeper', 'guessed.txt'), 'FINDME\n')
    fs.writeFileSync(path.join(fx.root, 'new', '.gitignore'), 'deeper/\n')
    expect(await find()).toEqual(['guessed.txt:1:FINDME'])
  })
})

describe('grep starts rg with the rules of the last search while it reads them again', () => {
  /** Children of this process that are ripgrep, by /proc (a stale search left running would show here). */
  const rgChildren = (): number[] =>
    fs
      .readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .filter((pid) => {
        try {
          const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
          const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
          return Number(fields[1]) === process.pid && stat.includes('(rg)')
        } catch {
          return false
        }
      })
      .map(Number)

  it('answers with the rules as they are now when they changed since the last search, and leaves no rg behind', async () => {
    // Enough files that the stale search is still running when the scan disagrees with it.
    for (let i = 0; i < 400; i++) fs.writeFileSync(path.join(fx.root, 'sub', `bulk${i}.txt`), 'FINDME\n'.repeat(5))
    const bulk = (await find()).filter((line) => line.includes('bulk')).length
    expect(bulk).toBe(400 * 5)
    // The rules change: the guess (no rules) is wrong and must not be what comes back.
    fs.writeFileSync(path.join(fx.root, 'sub', '.ignore'), 'bulk*.txt\n')
    expect(await find()).toEqual(GUESSED)
    expect(rgChildren()).toEqual([])
    // And back: the guess (bulk ignored) is wrong again.
    fs.rmSync(path.join(fx.root, 'sub', '.ignore'))
    expect((await find()).filter((line) => line.includes('bulk')).length).toBe(bulk)
    expect(rgChildren()).toEqual([])
    // Unchanged: the guess holds and its run is the answer.
    expect((await find()).length).toBe(bulk + GUESSED.length)
  })

  it('a subdirectory search through the scratch tree gives the same lines with a right or a wrong guess', async () => {
    fs.mkdirSync(path.join(fx.root, 'sub', 'deep'))
    fs.writeFileSync(path.join(fx.root, 'sub', 'deep', 'a.txt'), 'FINDME\n')
    fs.writeFileSync(path.join(fx.root, 'sub', 'deep', 'b.log'), 'FINDME\n')
    fs.writeFileSync(path.join(fx.root, '.gitignore'), '*.log\n')
    const first = await find(fx.tools, 'sub')
    expect(first).toEqual(['sub/deep/a.txt:1:FINDME', 'sub/guessed.txt:1:FINDME'])
    expect(await find(fx.tools, 'sub')).toEqual(first)
    fs.writeFileSync(path.join(fx.root, '.gitignore'), '*.txt\n')
    expect(await find(fx.tools, 'sub')).toEqual(['sub/deep/b.log:1:FINDME'])
    expect(rgChildren()).toEqual([])
  })

  it('keeps at most 4 Mi characters of remembered rules, however many large rule sets it sees', () => {
    const large = 'x'.repeat(512 * 1024)
    for (let i = 0; i < 100; i++) {
      rememberRules(`/root\0big${i}`, large + i)
      // The newest guess is always there, and the whole stays within the bound.
      expect(rememberedRules(`/root\0big${i}`)).toBe(large + i)
      expect(rememberedRulesSize().chars).toBeLessThanOrEqual(4 * 1024 * 1024)
    }
    // Remembering a key again replaces its rules instead of counting them twice.
    const before = rememberedRulesSize()
    rememberRules('/root\0big99', large + 99)
    expect(rememberedRulesSize()).toEqual(before)
    // A rules file past 1 Mi characters is not kept, and forgets the stale guess for its key.
    rememberRules('/root\0big99', 'y'.repeat(1024 * 1024 + 1))
    expect(rememberedRules('/root\0big99')).toBeUndefined()
    expect(rememberedRulesSize().chars).toBe(before.chars - (large + 99).length - '/root\0big99'.length)
  })
})
