/**
 * `write`: atomic replacement, parents created, mode kept, size checked
 * before touching the disk, content never in events.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  createDispatchContext,
  createTools,
  getDefinedToolMetadata,
  sha256Hex,
  type ToolExecutionEndEvent,
  type ToolExecutionStartEvent,
} from '../../lib/index.js'
import { call, failure, makeFixture, type Fixture } from './helpers.js'

let fx: Fixture

beforeEach(() => {
  fx = makeFixture()
})
afterEach(() => fx.cleanup())

const listRoot = (): string[] => (fs.readdirSync(fx.root, { recursive: true }) as string[]).sort()

describe('write', () => {
  it('is a side-effect, non-idempotent tool named write', () => {
    expect(getDefinedToolMetadata(fx.tools.write)).toEqual({ name: 'write', sideEffect: true, idempotent: false })
  })

  it('creates a file and its parents, returns "ok"', async () => {
    expect(await call(fx.tools.write, { path: 'a/b/c/new.txt', content: 'héllo\n' })).toBe('ok')
    expect(fs.readFileSync(path.join(fx.root, 'a/b/c/new.txt'), 'utf8')).toBe('héllo\n')
  })

  it.each(['newdir/', 'newdir/.', 'a/b/'])('refuses %s (a path that names a directory) and creates nothing', async (p) => {
    const before = fx.snapshot()
    const result = await failure(fx.tools.write, { path: p, content: 'x' })
    expect(result.code).toBe('TOOL_NOT_A_FILE')
    expect(result.message).toContain('names a directory')
    expect(listRoot()).toEqual([])
    expect(fx.snapshot()).toBe(before)
  })

  it('content "" creates an empty file', async () => {
    expect(await call(fx.tools.write, { path: 'empty.txt', content: '' })).toBe('ok')
    expect(fs.statSync(path.join(fx.root, 'empty.txt')).size).toBe(0)
  })

  // A chown after the chmod would clear set-user-ID and set-group-ID, root's
  // too; the temp file is created with the file's bits, which the umask may cut.
  it.each([
    ['4755', 0o4755],
    ['2755', 0o2755],
    ['6750', 0o6750],
    ['1644', 0o1644],
    ['664', 0o664],
    ['777', 0o777],
    ['444', 0o444],
    ['000', 0o000],
  ] as const)(
    'keeps mode %s exactly',
    async (_octal, mode) => {
      const file = path.join(fx.root, 'special')
      fs.writeFileSync(file, 'old\n')
      fs.chmodSync(file, mode)
      expect(await call(fx.tools.write, { path: 'special', content: 'new\n' })).toBe('ok')
      expect(fs.statSync(file).mode & 0o7777).toBe(mode)
    },
  )

  it('replaces an existing file atomically: new inode, mode kept, no temp file left', async () => {
    const file = path.join(fx.root, 'run.sh')
    fs.writeFileSync(file, 'old\n', { mode: 0o750 })
    fs.chmodSync(file, 0o750)
    const before = fs.statSync(file)
    expect(await call(fx.tools.write, { path: 'run.sh', content: '#!/bin/sh\necho new\n' })).toBe('ok')
    const after = fs.statSync(file)
    expect(fs.readFileSync(file, 'utf8')).toBe('#!/bin/sh\necho new\n')
    expect(after.mode & 0o7777).toBe(0o750)
    // A rename, not an in-place rewrite: a reader holding the old file never sees it half-written.
    expect(after.ino).not.toBe(before.ino)
    expect(listRoot()).toEqual(['run.sh'])
  })

  it('a reader that opened the old file keeps reading the old content', async () => {
    const file = path.join(fx.root, 'f.txt')
    fs.writeFileSync(file, 'old content\n')
    const fd = fs.openSync(file, 'r')
    try {
      await call(fx.tools.write, { path: 'f.txt', content: 'new content\n' })
      const buffer = Buffer.alloc(64)
      const n = fs.readSync(fd, buffer, 0, 64, 0)
      expect(buffer.subarray(0, n).toString()).toBe('old content\n')
    } finally {
      fs.closeSync(fd)
    }
  })

  it('content over maxOutputBytes is TOOL_CONTENT_TOO_LARGE before the disk is touched', async () => {
    const tools = createTools({ rootDir: fx.root, maxOutputBytes: 64 })
    const error = await failure(tools.write, { path: 'new/dir/big.txt', content: 'é'.repeat(33) })
    expect(error.code).toBe('TOOL_CONTENT_TOO_LARGE')
    expect(error.details).toMatchObject({ contentBytes: 66, limit: 64 })
    expect(listRoot()).toEqual([])
    expect(await call(tools.write, { path: 'ok.txt', content: 'x'.repeat(64) })).toBe('ok')
  })

  it('refuses to replace a directory, or to write the root itself', async () => {
    fs.mkdirSync(path.join(fx.root, 'dir'))
    expect((await failure(fx.tools.write, { path: 'dir', content: 'x' })).code).toBe('TOOL_NOT_A_FILE')
    expect((await failure(fx.tools.write, { path: '.', content: 'x' })).code).toBe('TOOL_NOT_A_FILE')
    fs.writeFileSync(path.join(fx.root, 'file'), '')
    expect((await failure(fx.tools.write, { path: 'file/child.txt', content: 'x' })).code).toBe('TOOL_FILE_NOT_FOUND')
  })

  it('a hard-linked file inside the root is refused too (nlink > 1)', async () => {
    fs.writeFileSync(path.join(fx.root, 'a.txt'), 'a')
    fs.linkSync(path.join(fx.root, 'a.txt'), path.join(fx.root, 'b.txt'))
    expect((await failure(fx.tools.write, { path: 'b.txt', content: 'x' })).code).toBe('TOOL_PATH_ESCAPE')
    expect(fs.readFileSync(path.join(fx.root, 'a.txt'), 'utf8')).toBe('a')
  })

  it('a permission error is TOOL_IO_ERROR, not a raw EACCES', async () => {
    fs.mkdirSync(path.join(fx.root, 'ro'), { mode: 0o500 })
    if (process.getuid?.() !== 0) {
      const error = await failure(fx.tools.write, { path: 'ro/x.txt', content: 'x' })
      expect(error.code).toBe('TOOL_IO_ERROR')
      expect(fs.readdirSync(path.join(fx.root, 'ro'))).toEqual([])
      return
    }
    // Root ignores permission bits: the same call runs in a child as an
    // unprivileged user who owns the root but may not write in ro/.
    fs.chownSync(fx.base, 65534, 65534)
    fs.chownSync(fx.root, 65534, 65534)
    fs.chownSync(path.join(fx.root, 'ro'), 65534, 65534)
    const script = `
      const kit = await import(${JSON.stringify(new URL('../../lib/index.ts', import.meta.url).href)})
      const tools = kit.createTools({ rootDir: ${JSON.stringify(fx.root)} })
      try {
        await tools.write.executor(kit.createDispatchContext())({ path: 'ro/x.txt', content: 'x' })
        process.stdout.write(JSON.stringify({ wrote: true }))
      } catch (error) {
        process.stdout.write(JSON.stringify({ code: error.cause?.code, message: error.cause?.message }))
      }
    `
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      uid: 65534,
      gid: 65534,
      encoding: 'utf8',
      env: { ...process.env, HOME: os.tmpdir() },
    })
    expect(result.status, result.stderr).toBe(0)
    const outcome = JSON.parse(result.stdout) as { code?: string; message?: string }
    expect(outcome.code).toBe('TOOL_IO_ERROR')
    expect(outcome.message).not.toMatch(/EACCES/)
    expect(fs.readdirSync(path.join(fx.root, 'ro'))).toEqual([])
  })

  it('events carry { path, contentBytes, contentHash }, never the content', async () => {
    const starts: ToolExecutionStartEvent[] = []
    const ends: ToolExecutionEndEvent[] = []
    const ctx = createDispatchContext({ onToolExecutionStart: (e) => starts.push(e), onToolExecutionEnd: (e) => ends.push(e) })
    const content = 'top secret content ✓\n'
    await call(fx.tools.write, { path: 'secret.txt', content }, ctx)
    expect(starts).toHaveLength(1)
    expect(starts[0]!.args).toEqual({ path: 'secret.txt', contentBytes: Buffer.byteLength(content), contentHash: sha256Hex(content) })
    expect(JSON.stringify([starts, ends])).not.toContain('top secret')
    expect(fx.tools.write.redact?.({ path: 'p', content: '' })).toEqual({
      path: 'p',
      contentBytes: 0,
      contentHash: sha256Hex(''),
    })
  })

  it('does not write when the context is already aborted', async () => {
    const ctx = createDispatchContext()
    ctx.abort()
    const error = await failure(fx.tools.write, { path: 'x.txt', content: 'x' }, ctx)
    expect(error.code).toBe('TOOL_ABORTED')
    expect(listRoot()).toEqual([])
  })
})
