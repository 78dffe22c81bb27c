/**
 * `read`: text of regular files only, within the size limit, never hanging.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTools, getDefinedToolMetadata } from '../../lib/index.js'
import { call, failure, makeFixture, type Fixture } from './helpers.js'

let fx: Fixture

beforeEach(() => {
  fx = makeFixture()
})
afterEach(() => fx.cleanup())

const write = (rel: string, data: string | Buffer): void => {
  fs.mkdirSync(path.dirname(path.join(fx.root, rel)), { recursive: true })
  fs.writeFileSync(path.join(fx.root, rel), data)
}

describe('read', () => {
  it('is a pure, idempotent tool named read', () => {
    expect(getDefinedToolMetadata(fx.tools.read)).toEqual({ name: 'read', sideEffect: false, idempotent: true })
  })

  it('returns the UTF-8 text of a file, relative or absolute inside the root', async () => {
    write('src/a.ts', 'export const a = "ünïcødé ✓"\r\n')
    expect(await call(fx.tools.read, { path: 'src/a.ts' })).toBe('export const a = "ünïcødé ✓"\r\n')
    expect(await call(fx.tools.read, { path: './src/../src/a.ts' })).toBe('export const a = "ünïcødé ✓"\r\n')
    expect(await call(fx.tools.read, { path: path.join(fx.root, 'src/a.ts') })).toBe('export const a = "ünïcødé ✓"\r\n')
  })

  it('refuses a file path with a trailing "/" (it names a directory)', async () => {
    fs.writeFileSync(path.join(fx.root, 'a.txt'), 'text\n')
    expect((await failure(fx.tools.read, { path: 'a.txt/' })).code).toBe('TOOL_NOT_A_FILE')
  })

  it('returns "" for an empty file', async () => {
    write('empty.txt', '')
    expect(await call(fx.tools.read, { path: 'empty.txt' })).toBe('')
  })

  it('a missing file is TOOL_FILE_NOT_FOUND, with no raw ENOENT in sight', async () => {
    const error = await failure(fx.tools.read, { path: 'nope/missing.txt' })
    expect(error.code).toBe('TOOL_FILE_NOT_FOUND')
    expect(error.outer.message).not.toMatch(/ENOENT/)
    write('file.txt', 'x')
    expect((await failure(fx.tools.read, { path: 'file.txt/child' })).code).toBe('TOOL_FILE_NOT_FOUND')
  })

  it('a file over maxOutputBytes (by stat size) returns its first lines and a note, not an error; one at the limit is read whole', async () => {
    const tools = createTools({ rootDir: fx.root, maxOutputBytes: 100 })
    write('big.txt', `${'x'.repeat(30)}\n${'y'.repeat(71)}`)
    write('edge.txt', 'x'.repeat(100))
    const text = String(await call(tools.read, { path: 'big.txt' }))
    expect(text.startsWith(`${'x'.repeat(30)}\n[… lines 1–1 shown`)).toBe(true)
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(100)
    expect(await call(tools.read, { path: 'edge.txt' })).toBe('x'.repeat(100))
  })

  it('directories are TOOL_NOT_A_FILE', async () => {
    fs.mkdirSync(path.join(fx.root, 'dir'))
    expect((await failure(fx.tools.read, { path: 'dir' })).code).toBe('TOOL_NOT_A_FILE')
    expect((await failure(fx.tools.read, { path: '.' })).code).toBe('TOOL_NOT_A_FILE')
  })

  it('a FIFO with no writer is TOOL_NOT_A_FILE, without hanging', async () => {
    execFileSync('mkfifo', [path.join(fx.root, 'pipe')])
    const error = await failure(fx.tools.read, { path: 'pipe' })
    expect(error.code).toBe('TOOL_NOT_A_FILE')
    expect(error.message).toMatch(/FIFO/)
  }, 10_000)

  it('a socket is TOOL_NOT_A_FILE', async () => {
    const server = net.createServer().listen(path.join(fx.root, 'sock'))
    await new Promise((resolve) => server.once('listening', resolve))
    try {
      expect((await failure(fx.tools.read, { path: 'sock' })).code).toBe('TOOL_NOT_A_FILE')
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it.runIf(process.getuid?.() === 0)('a character device inside the root is TOOL_NOT_A_FILE', async () => {
    execFileSync('mknod', [path.join(fx.root, 'null'), 'c', '1', '3'])
    expect((await failure(fx.tools.read, { path: 'null' })).code).toBe('TOOL_NOT_A_FILE')
  })

  it('a NUL byte in the first 8 KiB is TOOL_BINARY_FILE; after it, the file is text', async () => {
    write('bin.dat', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]))
    write('late.txt', Buffer.concat([Buffer.from('a'.repeat(8192)), Buffer.from([0]), Buffer.from('tail')]))
    expect((await failure(fx.tools.read, { path: 'bin.dat' })).code).toBe('TOOL_BINARY_FILE')
    expect(String(await call(fx.tools.read, { path: 'late.txt' })).endsWith('\0tail')).toBe(true)
  })
})
