/**
 * `edit`: unified diffs applied exactly, CRLF kept, and TOOL_PATCH_FAILED
 * (naming the hunk) for everything that is not one clean single-file patch.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  createDispatchContext,
  createTools,
  getDefinedToolMetadata,
  sha256Hex,
  type ToolExecutionStartEvent,
} from '../../lib/index.js'
import { call, failure, makeFixture, type Fixture } from './helpers.js'

let fx: Fixture

beforeEach(() => {
  fx = makeFixture()
})
afterEach(() => fx.cleanup())

const original = ['line 1', 'line 2', 'line 3', 'line 4', 'line 5', 'line 6', 'line 7', 'line 8', 'line 9', 'line 10', ''].join('\n')
const file = (): string => path.join(fx.root, 'f.txt')
const contents = (): string => fs.readFileSync(file(), 'utf8')

const twoHunks = [
  '--- a/f.txt',
  '+++ b/f.txt',
  '@@ -1,3 +1,3 @@',
  ' line 1',
  '-line 2',
  '+line two',
  ' line 3',
  '@@ -8,3 +8,4 @@',
  ' line 8',
  ' line 9',
  '+line 9.5',
  ' line 10',
  '',
].join('\n')

describe('edit', () => {
  beforeEach(() => {
    fs.writeFileSync(file(), original, { mode: 0o640 })
    fs.chmodSync(file(), 0o640)
  })

  it('is a side-effect, non-idempotent tool named edit', () => {
    expect(getDefinedToolMetadata(fx.tools.edit)).toEqual({ name: 'edit', sideEffect: true, idempotent: false })
  })

  it('applies a multi-hunk unified diff, keeps the mode, returns "ok"', async () => {
    expect(await call(fx.tools.edit, { path: 'f.txt', patch: twoHunks })).toBe('ok')
    expect(contents()).toBe(original.replace('line 2', 'line two').replace('line 9\n', 'line 9\nline 9.5\n'))
    expect(fs.statSync(file()).mode & 0o7777).toBe(0o640)
  })

  it('refuses a path with a trailing "/" even when the file exists, and leaves it unchanged', async () => {
    fs.writeFileSync(path.join(fx.root, 'f.txt'), 'line 5\n')
    const result = await failure(fx.tools.edit, { path: 'f.txt/', patch: '@@ -1,1 +1,1 @@\n-line 5\n+line five\n' })
    expect(result.code).toBe('TOOL_NOT_A_FILE')
    expect(fs.readFileSync(path.join(fx.root, 'f.txt'), 'utf8')).toBe('line 5\n')
  })

  it('accepts a hunk-only patch without file headers', async () => {
    expect(await call(fx.tools.edit, { path: 'f.txt', patch: '@@ -5,1 +5,1 @@\n-line 5\n+line five\n' })).toBe('ok')
    expect(contents()).toContain('line five\n')
  })

  it('keeps a CRLF file CRLF when the patch uses LF', async () => {
    fs.writeFileSync(file(), original.replaceAll('\n', '\r\n'))
    expect(await call(fx.tools.edit, { path: 'f.txt', patch: twoHunks })).toBe('ok')
    const text = contents()
    expect(text).toContain('line two\r\n')
    expect(text).toContain('line 9.5\r\n')
    expect(text.replaceAll('\r\n', '')).not.toContain('\n')
  })

  it.each([
    ['a hunk whose context does not match', '@@ -2,2 +2,2 @@\n line 2\n-line 99\n+line x\n', /hunk 1 of 1 \(@@ -2,2 \+2,2 @@\)/],
    ['an empty patch', '', /no hunks/],
    ['whitespace only', '\n\n  \n', /no hunks/],
    ['garbage', 'please change line 2 to say hello', /no hunks/],
    ['headers without hunks', '--- a/f.txt\n+++ b/f.txt\n', /no hunks/],
    ['a malformed hunk', '@@ -1,3 +1,3 @@\n line 1\n-line 2\n', /not a valid unified diff/],
    [
      'a multi-file patch',
      '--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-line 1\n+one\n--- a/g.txt\n+++ b/g.txt\n@@ -1 +1 @@\n-x\n+y\n',
      /2 files/,
    ],
  ])('%s → TOOL_PATCH_FAILED, file untouched', async (_label, patch, message) => {
    const error = await failure(fx.tools.edit, { path: 'f.txt', patch })
    expect(error.code).toBe('TOOL_PATCH_FAILED')
    expect(error.message).toMatch(message)
    expect(contents()).toBe(original)
  })

  it('names the first failing hunk when an earlier one matches', async () => {
    const patch = twoHunks.replace(' line 9\n+line 9.5', ' line nine\n+line 9.5')
    const error = await failure(fx.tools.edit, { path: 'f.txt', patch })
    expect(error.code).toBe('TOOL_PATCH_FAILED')
    expect(error.message).toMatch(/hunk 2 of 2 \(@@ -8,3 \+8,4 @@\)/)
    expect(error.details).toMatchObject({ hunk: 2, hunks: 2 })
    expect(contents()).toBe(original)
  })

  it('the file must exist: TOOL_FILE_NOT_FOUND, nothing created', async () => {
    const error = await failure(fx.tools.edit, { path: 'missing.txt', patch: '@@ -0,0 +1 @@\n+new\n' })
    expect(error.code).toBe('TOOL_FILE_NOT_FOUND')
    expect(fs.existsSync(path.join(fx.root, 'missing.txt'))).toBe(false)
  })

  it('a patch over maxOutputBytes is TOOL_PATCH_TOO_LARGE; a file over it TOOL_FILE_TOO_LARGE', async () => {
    const tools = createTools({ rootDir: fx.root, maxOutputBytes: 64 })
    const big = '@@ -1 +1 @@\n-line 1\n+' + 'x'.repeat(64) + '\n'
    expect((await failure(tools.edit, { path: 'f.txt', patch: big })).code).toBe('TOOL_PATCH_TOO_LARGE')
    expect((await failure(tools.edit, { path: 'f.txt', patch: '@@ -1 +1 @@\n-line 1\n+one\n' })).code).toBe(
      'TOOL_FILE_TOO_LARGE',
    )
    expect(contents()).toBe(original)
  })

  it('refuses binary and non-UTF-8 files instead of corrupting them', async () => {
    fs.writeFileSync(path.join(fx.root, 'bin'), Buffer.from([0x61, 0x00, 0x0a]))
    fs.writeFileSync(path.join(fx.root, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x78, 0x0a]))
    expect((await failure(fx.tools.edit, { path: 'bin', patch: '@@ -1 +1 @@\n-a\n+b\n' })).code).toBe('TOOL_BINARY_FILE')
    expect((await failure(fx.tools.edit, { path: 'latin1.txt', patch: '@@ -2 +2 @@\n-x\n+y\n' })).code).toBe('TOOL_BINARY_FILE')
    expect(fs.readFileSync(path.join(fx.root, 'latin1.txt'))).toEqual(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x78, 0x0a]))
  })

  it('events carry { path, patchBytes, patchHash }, never the patch', async () => {
    const starts: ToolExecutionStartEvent[] = []
    const ctx = createDispatchContext({ onToolExecutionStart: (e) => starts.push(e) })
    await call(fx.tools.edit, { path: 'f.txt', patch: twoHunks }, ctx)
    expect(starts[0]!.args).toEqual({ path: 'f.txt', patchBytes: Buffer.byteLength(twoHunks), patchHash: sha256Hex(twoHunks) })
    expect(JSON.stringify(starts)).not.toContain('line two')
  })
})
