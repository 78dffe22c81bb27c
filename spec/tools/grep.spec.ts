/**
 * `grep`: the bundled ripgrep, root-relative paths, "" for no match,
 * TOOL_GREP_FAILED with rg's message, capped output, enforced timeout.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTools, getDefinedToolMetadata } from '../../lib/index.js'
import { call, failure, makeFixture, startDirectorySwapper, type Fixture } from './helpers.js'

let fx: Fixture

beforeEach(() => {
  fx = makeFixture()
  fs.mkdirSync(path.join(fx.root, 'src', 'lib'), { recursive: true })
  fs.writeFileSync(path.join(fx.root, 'src', 'a.ts'), 'const token = 1\n// no match here\nvalidateToken(token)\n')
  fs.writeFileSync(path.join(fx.root, 'src', 'lib', 'b.ts'), 'export function validateToken() {}\n-v is a flag\n')
  fs.writeFileSync(path.join(fx.root, 'notes.md'), '# Notes\n--help me\n')
})
afterEach(() => fx.cleanup())

const lines = (text: unknown): string[] => String(text).split('\n').filter(Boolean).sort()

describe('grep', () => {
  it('is a pure, idempotent tool named grep', () => {
    expect(getDefinedToolMetadata(fx.tools.grep)).toEqual({ name: 'grep', sideEffect: false, idempotent: true })
  })

  it('prints file:line:text with paths relative to the root', async () => {
    expect(lines(await call(fx.tools.grep, { pattern: 'validateToken' }))).toEqual([
      'src/a.ts:3:validateToken(token)',
      'src/lib/b.ts:1:export function validateToken() {}',
    ])
    expect(lines(await call(fx.tools.grep, { pattern: 'token', path: 'src' }))).toEqual([
      'src/a.ts:1:const token = 1',
      'src/a.ts:3:validateToken(token)',
    ])
    expect(lines(await call(fx.tools.grep, { pattern: 'token', path: 'src/a.ts' }))).toEqual([
      'src/a.ts:1:const token = 1',
      'src/a.ts:3:validateToken(token)',
    ])
    expect(lines(await call(fx.tools.grep, { pattern: 'Notes', path: path.join(fx.root, 'notes.md') }))).toEqual([
      'notes.md:1:# Notes',
    ])
  })

  it('returns "" when nothing matches', async () => {
    expect(await call(fx.tools.grep, { pattern: 'zebra-unicorn' })).toBe('')
  })

  it('searches a pattern that starts with "-" as text, not as an option', async () => {
    expect(lines(await call(fx.tools.grep, { pattern: '-v' }))).toEqual(['src/lib/b.ts:2:-v is a flag'])
    expect(lines(await call(fx.tools.grep, { pattern: '--help' }))).toEqual(['notes.md:2:--help me'])
    expect(lines(await call(fx.tools.grep, { pattern: '--pre=sh' }))).toEqual([])
  })

  it('a bad regex is TOOL_GREP_FAILED carrying rg\'s own message', async () => {
    const error = await failure(fx.tools.grep, { pattern: 'unclosed(' })
    expect(error.code).toBe('TOOL_GREP_FAILED')
    expect(error.message).toMatch(/regex parse error/)
    expect(error.details.exitCode).toBe(2)
  })

  it('a missing path is TOOL_FILE_NOT_FOUND', async () => {
    expect((await failure(fx.tools.grep, { pattern: 'x', path: 'nope' })).code).toBe('TOOL_FILE_NOT_FOUND')
  })

  it('works with no rg on PATH (uses the binary bundled by @vscode/ripgrep)', async () => {
    const saved = process.env.PATH
    process.env.PATH = '/nonexistent'
    try {
      expect(lines(await call(fx.tools.grep, { pattern: 'Notes' }))).toEqual(['notes.md:1:# Notes'])
    } finally {
      process.env.PATH = saved
    }
  })

  it('ignores a ripgrep config file named by the environment (--no-config)', async () => {
    const config = path.join(fx.base, 'rgrc')
    fs.writeFileSync(config, '--files-with-matches\n')
    const tools = createTools({ rootDir: fx.root, env: { RIPGREP_CONFIG_PATH: config } })
    expect(lines(await call(tools.grep, { pattern: 'Notes' }))).toEqual(['notes.md:1:# Notes'])
  })

  it('caps output at maxOutputBytes, cut at a line end, with the marker', async () => {
    fs.writeFileSync(path.join(fx.root, 'many.txt'), `${Array.from({ length: 5000 }, (_, i) => `match ${i}`).join('\n')}\n`)
    const tools = createTools({ rootDir: fx.root, maxOutputBytes: 2000 })
    const out = String(await call(tools.grep, { pattern: 'match', path: 'many.txt' }))
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(2000)
    expect(out).toMatch(/\n\[… \d+ bytes truncated …\]$/)
    const kept = out.slice(0, out.lastIndexOf('\n[…')).split('\n')
    for (const [i, line] of kept.entries()) expect(line).toBe(`many.txt:${i + 1}:match ${i}`)
  })

  it('enforces the timeout', async () => {
    // Every line matches: rg spends far longer than 5 ms writing 20 MB of matches to the pipe.
    fs.writeFileSync(path.join(fx.root, 'big.txt'), 'match this line\n'.repeat(1_300_000))
    const tools = createTools({ rootDir: fx.root, timeoutMs: 5 })
    const started = Date.now()
    const error = await failure(tools.grep, { pattern: 'match', path: 'big.txt' })
    expect(error.code).toBe('TOOL_TIMEOUT')
    expect(Date.now() - started).toBeLessThan(30_000)
  })

  it('refuses a FIFO, socket or device with TOOL_NOT_A_FILE before starting rg (never waits for a writer)', async () => {
    execFileSync('mkfifo', [path.join(fx.root, 'stuck')])
    const tools = createTools({ rootDir: fx.root, timeoutMs: 20_000 })
    const started = Date.now()
    const error = await failure(tools.grep, { pattern: 'x', path: 'stuck' })
    expect(error.code).toBe('TOOL_NOT_A_FILE')
    expect(error.message).toMatch(/FIFO/)
    expect(Date.now() - started).toBeLessThan(10_000)
    // A FIFO met during a directory walk is skipped by rg, as before.
    expect(lines(await call(tools.grep, { pattern: 'Notes' }))).toEqual(['notes.md:1:# Notes'])
  })

  it('keeps paths root-relative for a nested directory or file, and output within maxOutputBytes', async () => {
    const deep = path.join(fx.root, 'a-rather-long-directory-name', 'and-another-long-one')
    fs.mkdirSync(deep, { recursive: true })
    fs.writeFileSync(path.join(deep, 'x.txt'), `${Array.from({ length: 3000 }, (_, i) => `hit ${i}`).join('\n')}\n`)
    const rel = 'a-rather-long-directory-name/and-another-long-one'
    expect(lines(await call(fx.tools.grep, { pattern: '^hit 7$', path: rel }))).toEqual([`${rel}/x.txt:8:hit 7`])
    expect(lines(await call(fx.tools.grep, { pattern: '^hit 7$', path: `${rel}/x.txt` }))).toEqual([`${rel}/x.txt:8:hit 7`])
    expect(lines(await call(fx.tools.grep, { pattern: '^hit 7$', path: path.join(deep, 'x.txt') }))).toEqual([`${rel}/x.txt:8:hit 7`])
    const tools = createTools({ rootDir: fx.root, maxOutputBytes: 4000 })
    for (const target of [rel, `${rel}/x.txt`]) {
      const out = String(await call(tools.grep, { pattern: 'hit', path: target }))
      expect(Buffer.byteLength(out)).toBeLessThanOrEqual(4000)
      expect(out).toMatch(/\n\[… \d+ bytes truncated …\]$/)
      const kept = out.slice(0, out.lastIndexOf('\n[…')).split('\n')
      expect(kept.length).toBeGreaterThan(10)
      for (const [i, line] of kept.entries()) expect(line).toBe(`${rel}/x.txt:${i + 1}:hit ${i}`)
    }
  })

  it('the marker counts the bytes left out as they would have been shown (paths rewritten), for the root, a subdirectory and a file', async () => {
    const deep = path.join(fx.root, 'sub', 'deeper')
    fs.mkdirSync(deep, { recursive: true })
    for (let i = 0; i < 150; i++) fs.writeFileSync(path.join(deep, `file${i}.txt`), `needle ${i}\n`)
    fs.writeFileSync(path.join(fx.root, 'one.txt'), `${Array.from({ length: 300 }, (_, i) => `needle line ${i}`).join('\n')}\n`)
    const whole = createTools({ rootDir: fx.root, maxOutputBytes: 1_000_000 })
    const capped = createTools({ rootDir: fx.root, maxOutputBytes: 1000 })
    for (const target of ['.', 'sub', 'sub/deeper', 'one.txt']) {
      const full = String(await call(whole.grep, { pattern: 'needle', path: target }))
      const out = String(await call(capped.grep, { pattern: 'needle', path: target }))
      expect(Buffer.byteLength(out), target).toBeLessThanOrEqual(1000)
      const marker = /\n\[… (\d+) bytes truncated …\]$/.exec(out)
      expect(marker, target).not.toBeNull()
      // What is kept is whole lines of the full answer (rg's order varies between runs in a directory)…
      const kept = out.slice(0, marker!.index)
      const fullLines = new Set(full.trimEnd().split('\n'))
      for (const line of kept.split('\n')) expect(fullLines.has(line), `${target}: ${line}`).toBe(true)
      // …and the count is the rest of the full answer, from the line break after the last kept line.
      expect(Number(marker![1]), target).toBe(Buffer.byteLength(full) - Buffer.byteLength(kept))
      // The cap is used: the kept text plus the next line would not have fitted.
      expect(Buffer.byteLength(out), target).toBeGreaterThan(1000 - 80)
    }
  })

  it('a match line longer than the limit shows its start (cut on a character), not only the marker', async () => {
    fs.mkdirSync(path.join(fx.root, 'dist'))
    fs.writeFileSync(path.join(fx.root, 'dist', 'a.min.js'), `var needle="${'é'.repeat(2500)}";\nneedle short\n`)
    const tools = createTools({ rootDir: fx.root, maxOutputBytes: 1000 })
    for (const [target, shownPath] of [['.', 'dist/a.min.js'], ['dist', 'dist/a.min.js'], ['dist/a.min.js', 'dist/a.min.js']] as const) {
      const out = String(await call(tools.grep, { pattern: 'needle', path: target }))
      expect(Buffer.byteLength(out), target).toBeLessThanOrEqual(1000)
      expect(out, target).toMatch(/\n\[… \d+ bytes truncated …\]$/)
      expect(out.startsWith(`${shownPath}:1:var needle="éé`), target).toBe(true)
      expect(Buffer.byteLength(out), target).toBeGreaterThan(900)
      expect(out, target).not.toContain('\ufffd')
    }
  })

  it('never searches outside the root when a directory is swapped for a symlink between check and use', async () => {
    // A separate process flips root/inner between a real directory and a
    // symlink to the canary while grep is called on the directory and on a
    // file inside it. rg follows a symlink given as its search root, so only
    // searching the checked descriptor keeps the canary out.
    const inner = path.join(fx.root, 'inner')
    fs.mkdirSync(inner)
    fs.writeFileSync(path.join(inner, 'secret.txt'), 'INSIDE\n')
    const swapper = startDirectorySwapper(fx)
    await swapper.ready
    let flips = 0

    const outcomes = { found: 0, refused: 0 }
    const leaks: string[] = []
    const deadline = Date.now() + 8_000
    try {
      for (let i = 0; i < 1500 && Date.now() < deadline; i++) {
        const attempts = ['inner', 'inner/secret.txt', 'inner', 'inner/secret.txt'].map((target) =>
          call(fx.tools.grep, { pattern: 'CANARY|INSIDE', path: target }).then((text) => {
            if (String(text).includes('CANARY')) leaks.push(String(text))
            else if (String(text).includes('INSIDE')) outcomes.found++
          }),
        )
        for (const settled of await Promise.allSettled(attempts)) {
          if (settled.status === 'fulfilled') continue
          const cause = (settled.reason as { cause?: { code?: string } }).cause
          if (typeof cause?.code !== 'string' || !cause.code.startsWith('TOOL_')) throw settled.reason
          outcomes.refused++
        }
      }
    } finally {
      flips = await swapper.stop()
    }
    expect(leaks.slice(0, 3)).toEqual([])
    expect(flips).toBeGreaterThan(0)
    expect(outcomes.found).toBeGreaterThan(0)
    expect(outcomes.refused).toBeGreaterThan(0)
  }, 60_000)
})
