/**
 * `grep`: the bundled ripgrep, root-relative paths, "" for no match,
 * TOOL_GREP_FAILED with rg's message, capped output, enforced timeout.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTools, getDefinedToolMetadata } from '../../lib/index.js'
import { call, failure, makeFixture, type Fixture } from './helpers.js'

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
    fs.writeFileSync(path.join(fx.root, 'many.txt'), Array.from({ length: 5000 }, (_, i) => `match ${i}`).join('\n') + '\n')
    const tools = createTools({ rootDir: fx.root, maxOutputBytes: 2000 })
    const out = String(await call(tools.grep, { pattern: 'match', path: 'many.txt' }))
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(2000)
    expect(out).toMatch(/\n\[… \d+ bytes truncated …\]$/)
    const kept = out.slice(0, out.lastIndexOf('\n[…')).split('\n')
    kept.forEach((line, i) => expect(line).toBe(`many.txt:${i + 1}:match ${i}`))
  })

  it('enforces the timeout', async () => {
    // A FIFO with no writer blocks rg's read of it forever: only the deadline ends the search.
    execFileSync('mkfifo', [path.join(fx.root, 'stuck')])
    const tools = createTools({ rootDir: fx.root, timeoutMs: 1500 })
    const started = Date.now()
    const error = await failure(tools.grep, { pattern: 'x', path: 'stuck' })
    expect(error.code).toBe('TOOL_TIMEOUT')
    expect(Date.now() - started).toBeLessThan(30_000)
  })
})
