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

  it.each([['4755', 0o4755], ['2755', 0o2755], ['6750', 0o6750], ['664', 0o664], ['444', 0o444]] as const)('keeps mode %s exactly', async (_octal, mode) => {
    fs.chmodSync(file(), mode)
    expect(await call(fx.tools.edit, { path: 'f.txt', patch: twoHunks })).toBe('ok')
    expect(fs.statSync(file()).mode & 0o7777).toBe(mode)
  })

  it('a patch that does not apply leaves no temp file behind (the replacement was being prepared meanwhile)', async () => {
    const error = await failure(fx.tools.edit, { path: 'f.txt', patch: '@@ -2,1 +2,1 @@\n-line 99\n+x\n' })
    expect(error.code).toBe('TOOL_PATCH_FAILED')
    expect(fs.readdirSync(fx.root)).toEqual(['f.txt'])
    expect(contents()).toBe(original)
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
    [
      'a hunk header whose counts do not add up',
      '@@ -1,3 +1,3 @@\n line 1\n-line 2\n',
      /the hunk at patch line 1 \(@@ -1,3 \+1,3 @@\) says 3 old and 3 new lines, but has 2 old and 1 new \(a context line counts on both sides\); fix the counts in its @@ header/,
    ],
    [
      "a hunk header counting one line too many (the guide's old example)",
      '--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,4 @@\n line 1\n+line 1.5\n line 2\n',
      /the hunk at patch line 3 \(@@ -1,3 \+1,4 @@\) says 3 old and 4 new lines, but has 2 old and 3 new/,
    ],
    ['a hunk line with an unknown prefix', '@@ -1,2 +1,2 @@\n line 1\n*line 2\n', /the hunk at patch line 1 \(@@ -1,2 \+1,2 @@\) has the line "\*line 2", whose prefix is not/],
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
    const big = `@@ -1 +1 @@\n-line 1\n+${'x'.repeat(64)}\n`
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

describe('edit never answers "ok" without applying what the patch asked for', () => {
  beforeEach(() => fs.writeFileSync(file(), 'alpha\nbeta\ngamma\n'))

  it.each([
    ['a hunk written on its header line', '@@ -1,1 +1,1 @@ -alpha +ALPHA', /hunk 1 of 1 \(@@ -1,1 \+1,1 @@\) has no lines \(the text after the second "@@" .* is a section heading/],
    ['lines broken by bare CRs', '@@ -1,1 +1,1 @@\r-alpha\r+ALPHA\r', /has no lines \(the patch breaks its lines with a bare carriage return/],
    ['lines broken by U+2028', '@@ -1,1 +1,1 @@\u2028-alpha\u2028+ALPHA\u2028', /has no lines \(the patch breaks its lines with U\+2028/],
    ['a header and nothing else', '@@ -1 +1 @@', /hunk 1 of 1 \(@@ -1 \+1 @@\) has no lines \(the patch is a single line\)/],
    ['an empty second hunk', '@@ -1 +1 @@\n-alpha\n+ALPHA\n@@ -3,0 +3,0 @@\n', /hunk 2 of 2 \(@@ -3,0 \+3,0 @@\) has no lines/],
  ])('%s → TOOL_PATCH_FAILED saying the hunk has no lines', async (_label, patch, message) => {
    const error = await failure(fx.tools.edit, { path: 'f.txt', patch })
    expect(error.code).toBe('TOOL_PATCH_FAILED')
    expect(error.message).toMatch(message)
    expect(contents()).toBe('alpha\nbeta\ngamma\n')
  })

  it.each([
    ['a rename', 'diff --git a/f.txt b/g.txt\nsimilarity index 100%\nrename from f.txt\nrename to g.txt\n', /renames a\/f\.txt to b\/g\.txt/],
    ['a copy', 'diff --git a/f.txt b/g.txt\nsimilarity index 100%\ncopy from f.txt\ncopy to g.txt\n', /copies a\/f\.txt to b\/g\.txt/],
    ['a deletion', '--- a/f.txt\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-alpha\n-beta\n-gamma\n', /deletes the file/],
    ['a mode change', 'diff --git a/f.txt b/f.txt\nold mode 100644\nnew mode 100755\n', /changes the file mode from 100644 to 100755/],
    [
      'a mode change with a hunk',
      'diff --git a/f.txt b/f.txt\nold mode 100644\nnew mode 100755\n--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-alpha\n+ALPHA\n',
      /changes the file mode from 100644 to 100755/,
    ],
    ['a new file over one that has content', '--- /dev/null\n+++ b/f.txt\n@@ -0,0 +1 @@\n+delta\n', /creates the file .* already has content/],
  ])('%s → TOOL_PATCH_FAILED (edit changes content in place, nothing else)', async (_label, patch, message) => {
    const error = await failure(fx.tools.edit, { path: 'f.txt', patch })
    expect(error.code).toBe('TOOL_PATCH_FAILED')
    expect(error.message).toMatch(message)
    expect(contents()).toBe('alpha\nbeta\ngamma\n')
    expect(fs.readdirSync(fx.root)).toEqual(['f.txt'])
  })

  it('applies a new-file patch to an empty file', async () => {
    fs.writeFileSync(file(), '')
    expect(await call(fx.tools.edit, { path: 'f.txt', patch: '--- /dev/null\n+++ b/f.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n' })).toBe('ok')
    expect(contents()).toBe('one\ntwo\n')
  })

  it('refuses hunks out of file order instead of applying one over text already copied', async () => {
    fs.writeFileSync(file(), original)
    const patch = '@@ -9,1 +9,1 @@\n-line 9\n+line nine\n@@ -2,0 +3,1 @@\n+line 2.5\n'
    const error = await failure(fx.tools.edit, { path: 'f.txt', patch })
    expect(error.code).toBe('TOOL_PATCH_FAILED')
    expect(error.message).toMatch(/hunk 2 of 2 \(@@ -2,0 \+3,1 @@\) starts before the end of hunk 1 \(@@ -9,1 \+9,1 @@\)/)
    expect(contents()).toBe(original)
  })

  it('refuses an insertion-only hunk that an earlier hunk\'s offset pushes past the end', async () => {
    // Hunk 1 says line 1 but matches line 3 (offset +2), so hunk 2 would land at line 6 of a 3-line file.
    const patch = '@@ -1,1 +1,1 @@\n-gamma\n+GAMMA\n@@ -3,0 +4,1 @@\n+delta\n'
    const error = await failure(fx.tools.edit, { path: 'f.txt', patch })
    expect(error.code).toBe('TOOL_PATCH_FAILED')
    expect(error.message).toMatch(/moved an insertion-only hunk past the end of the file \(3 lines\)/)
    expect(contents()).toBe('alpha\nbeta\ngamma\n')
  })
})

describe('edit keeps the file\'s line endings, whatever the patch uses', () => {
  const edit = async (before: string, patch: string): Promise<string> => {
    fs.writeFileSync(file(), before)
    expect(await call(fx.tools.edit, { path: 'f.txt', patch })).toBe('ok')
    return contents()
  }

  it.each([
    ['an LF added line in a CRLF patch, CRLF file', 'x\r\na\r\ny\r\n', '@@ -1,3 +1,3 @@\n x\r\n-a\r\n+c\n y\r\n', 'x\r\nc\r\ny\r\n'],
    ['CRLF and LF added lines, LF file', 'a\nb\n', '@@ -1,2 +1,3 @@\n-a\n+c\r\n+d\n b\n', 'c\nd\nb\n'],
    ['an all-LF patch, file mostly CRLF (its LF line stays LF)', 'a\r\nb\nc\r\n', '@@ -1,2 +1,2 @@\n-a\n+A\n b\n', 'A\r\nb\nc\r\n'],
    ['an all-CRLF patch, file mostly LF (its CRLF line stays CRLF)', 'a\nb\nc\r\nd\n', '@@ -3,2 +3,3 @@\r\n c\r\n-d\r\n+D\r\n+E\r\n', 'a\nb\nc\r\nD\nE\n'],
    ['an append after a CRLF file\'s unterminated last line', 'a\r\nb', '@@ -2,0 +3,1 @@\n+c\n', 'a\r\nb\r\nc'],
    ['a newline added at the end of a CRLF file', 'a\r\nb', '@@ -2 +2 @@\n-b\n\\ No newline at end of file\n+b\n', 'a\r\nb\r\n'],
    ['a newline removed at the end of a CRLF file', 'a\r\nb\r\n', '@@ -2 +2 @@\n-b\n+b\n\\ No newline at end of file\n', 'a\r\nb'],
    ['a CRLF patch on an empty file', '', '@@ -0,0 +1,2 @@\r\n+a\r\n+b\r\n', 'a\r\nb\r\n'],
  ])('%s', async (_label, before, patch, after) => {
    expect(await edit(before, patch)).toBe(after)
  })
})
