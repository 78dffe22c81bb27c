/**
 * Windows paths on POSIX: a drive-letter or backslash-rooted path is refused
 * with TOOL_PATH_INVALID instead of being taken as one file name in the root
 * (`write({ path: 'C:\\Users\\me\\notes.md' })` created a file of that name).
 */
import fs from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Sandbox } from '../../lib/index.js'
import { call, failure, makeFixture, type Fixture } from '../tools/helpers.js'

let fx: Fixture
beforeEach(() => {
  fx = makeFixture()
  fs.writeFileSync(`${fx.root}/notes.md`, 'x\n')
})
afterEach(() => fx.cleanup())

const windowsPaths: [string, RegExp][] = [
  ['C:\\Users\\me\\notes.md', /starts with a drive letter/],
  ['c:\\notes.md', /starts with a drive letter/],
  ['C:/Users/me/notes.md', /starts with a drive letter/],
  ['D:', /starts with a drive letter/],
  ['\\Users\\me\\notes.md', /starts with a backslash/],
  ['\\\\server\\share\\notes.md', /starts with a backslash/],
]

describe.runIf(process.platform !== 'win32')('Windows paths on POSIX', () => {
  it.each(windowsPaths)('write(%j) is TOOL_PATH_INVALID and creates nothing', async (path, why) => {
    const error = await failure(fx.tools.write, { path, content: 'x' })
    expect(error.code).toBe('TOOL_PATH_INVALID')
    expect(error.message).toContain(`The path ${JSON.stringify(path)} is a Windows path`)
    expect(error.message).toMatch(why)
    expect(error.message).toMatch(/relative to the sandbox root with "\/" separators/)
    expect(fs.readdirSync(fx.root)).toEqual(['notes.md'])
  })

  it.each(windowsPaths)('read, edit and grep refuse %j the same way', async (path) => {
    expect((await failure(fx.tools.read, { path })).code).toBe('TOOL_PATH_INVALID')
    expect((await failure(fx.tools.edit, { path, patch: '@@ -1 +1 @@\n-x\n+y\n' })).code).toBe('TOOL_PATH_INVALID')
    expect((await failure(fx.tools.grep, { pattern: 'x', path })).code).toBe('TOOL_PATH_INVALID')
    await expect(new Sandbox({ rootDir: fx.root }).resolve(path)).rejects.toMatchObject({ code: 'TOOL_PATH_INVALID' })
  })

  it('still accepts POSIX names that merely contain a colon or a backslash', async () => {
    for (const path of ['C:notes.md', 'a:b.txt', 'notes\\draft.md', 'dir/C:/x.md']) {
      expect(await call(fx.tools.write, { path, content: 'x' }), path).toBe('ok')
    }
    expect(fs.readdirSync(fx.root).sort()).toEqual(['C:notes.md', 'a:b.txt', 'dir', 'notes.md', 'notes\\draft.md'])
  })
})
