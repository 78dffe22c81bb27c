/**
 * `read` by line range (`offset`, `limit`, `lineNumbers`) and files over the
 * byte limit: the lines come back exactly as `sed -n` prints them, cuts say
 * where to continue, and the old refusals and safety checks still hold.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTools } from '../../lib/index.js'
import { call, failure, makeFixture, startDirectorySwapper, type Fixture } from './helpers.js'

let fx: Fixture

beforeEach(() => {
  fx = makeFixture()
})
afterEach(() => fx.cleanup())

const write = (rel: string, data: string | Buffer): string => {
  const file = path.join(fx.root, rel)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, data)
  return file
}

/** `sed -n 'A,Bp'` of a file: the reference for what a range returns. */
const sed = (file: string, first: number, last: number): string =>
  execFileSync('sed', ['-n', `${first},${last}p`, file], { maxBuffer: 64 * 2 ** 20 }).toString('utf8')

const lines = (n: number, make: (i: number) => string = (i) => `line ${i}`): string =>
  Array.from({ length: n }, (_, i) => `${make(i + 1)}\n`).join('')

const read = async (args: Record<string, unknown>, tools = fx.tools): Promise<string> => String(await call(tools.read, args))

/** Parse the `continue with offset: N` of a note. */
const nextOffset = (text: string): number | undefined => {
  const match = /continue with offset: (\d+)/.exec(text)
  return match ? Number(match[1]) : undefined
}

describe('read by line range', () => {
  it('returns lines at the start, middle and end exactly as sed -n prints them', async () => {
    const file = write('f.txt', lines(1000))
    expect(await read({ path: 'f.txt', limit: 3 })).toBe('line 1\nline 2\nline 3\n')
    expect(await read({ path: 'f.txt', offset: 500, limit: 10 })).toBe(sed(file, 500, 509))
    expect(await read({ path: 'f.txt', offset: 998 })).toBe(sed(file, 998, 1000))
    expect(await read({ path: 'f.txt', offset: 1000, limit: 1 })).toBe('line 1000\n')
    expect(await read({ path: 'f.txt', offset: 1, limit: 1000 })).toBe(fs.readFileSync(file, 'utf8'))
  })

  it('a range running past the end returns the lines up to the end; one starting past it says how many lines there are', async () => {
    write('f.txt', lines(10))
    expect(await read({ path: 'f.txt', offset: 9, limit: 50 })).toBe('line 9\nline 10\n')
    const past = await read({ path: 'f.txt', offset: 11 })
    expect(past).toMatch(/^\[… offset 11 is past the end of the file: it has 10 lines \(\d+ bytes\) …\]$/)
    write('no-eol.txt', 'a\nb')
    expect(await read({ path: 'no-eol.txt', offset: 2 })).toBe('b')
    expect(await read({ path: 'no-eol.txt', offset: 3 })).toMatch(/it has 2 lines/)
    write('empty.txt', '')
    expect(await read({ path: 'empty.txt', offset: 1, limit: 5 })).toBe('')
    expect(await read({ path: 'empty.txt', offset: 2 })).toMatch(/it has 0 lines/)
  })

  it('keeps CRLF line endings and splits on LF only', async () => {
    write('crlf.txt', 'one\r\ntwo\r\nthree\r\nfour')
    expect(await read({ path: 'crlf.txt', offset: 2, limit: 2 })).toBe('two\r\nthree\r\n')
    expect(await read({ path: 'crlf.txt', offset: 4 })).toBe('four')
    expect(await read({ path: 'crlf.txt', offset: 3, lineNumbers: true })).toBe('     3\tthree\r\n     4\tfour')
  })

  it('lineNumbers prints like cat -n, with or without a range', async () => {
    const file = write('f.txt', lines(120, (i) => `ünï ${i} ✓`))
    const catN = execFileSync('cat', ['-n', file]).toString('utf8')
    expect(await read({ path: 'f.txt', lineNumbers: true })).toBe(catN)
    const wanted = `${catN.split('\n').slice(99, 104).join('\n')}\n`
    expect(await read({ path: 'f.txt', offset: 100, limit: 5, lineNumbers: true })).toBe(wanted)
    expect(await read({ path: 'f.txt', lineNumbers: false })).toBe(fs.readFileSync(file, 'utf8'))
  })

  it('multi-byte characters across the 1 MiB read chunks and at the byte limit are never split', async () => {
    // Lines of 3-byte characters, so some character straddles every chunk boundary.
    const file = write('wide.txt', lines(40_000, (i) => `${i} ${'€'.repeat(20)}`))
    const got = await read({ path: 'wide.txt', offset: 15_000, limit: 2_000 })
    expect(got).toBe(sed(file, 15_000, 16_999))
    expect(got).not.toContain('\uFFFD')
    // A single line over the limit is cut on a character boundary.
    const tools = createTools({ rootDir: fx.root, maxOutputBytes: 1000 })
    write('long.txt', `short\n${'é'.repeat(2000)}\nafter\n`)
    const cut = await read({ path: 'long.txt', offset: 2 }, tools)
    expect(cut).not.toContain('\uFFFD')
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(1000)
    expect(cut.startsWith('éééé')).toBe(true)
    expect(cut).toMatch(/line 2 is longer than read's 1000-byte limit/)
    expect(nextOffset(cut)).toBe(3)
    expect(await read({ path: 'long.txt', offset: nextOffset(cut) }, tools)).toBe('after\n')
  })

  it('invalid UTF-8 is decoded with U+FFFD, and the replacement characters never push the result over the limit', async () => {
    write('bad.txt', Buffer.concat([Buffer.from('ok\n'), Buffer.from([0xff, 0xfe, 0x0a]), Buffer.from('end\n')]))
    expect(await read({ path: 'bad.txt', offset: 2, limit: 1 })).toBe('\uFFFD\uFFFD\n')
    // 300 lines of 3 invalid bytes: 4 bytes a line raw, 10 decoded.
    const tools = createTools({ rootDir: fx.root, maxOutputBytes: 1000 })
    write('worse.txt', Buffer.concat(Array.from({ length: 300 }, () => Buffer.from([0xc3, 0xc3, 0xc3, 0x0a]))))
    const text = await read({ path: 'worse.txt', offset: 1 }, tools)
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1000)
    const shown = text.split('\n').filter((l) => l === '\uFFFD\uFFFD\uFFFD').length
    expect(shown).toBeGreaterThan(0)
    expect(nextOffset(text)).toBe(shown + 1)
  })

  it('a range cut by the byte limit says which lines it showed and where to continue', async () => {
    const tools = createTools({ rootDir: fx.root, maxOutputBytes: 1000 })
    const file = write('f.txt', lines(500))
    const text = await read({ path: 'f.txt', offset: 100, limit: 300 }, tools)
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1000)
    const next = nextOffset(text)!
    expect(text).toContain(`lines 100–${next - 1} shown (asked for 100–399)`)
    expect(text.slice(0, text.indexOf('[…'))).toBe(sed(file, 100, next - 1))
  })

  it.each([
    [{ offset: 0 }, /"offset" must be greater than or equal to 1/],
    [{ offset: -3 }, /"offset" must be greater than or equal to 1/],
    [{ offset: 1.5 }, /"offset" must be an integer/],
    [{ offset: '3' }, /"offset" must be a number/],
    [{ limit: 0 }, /"limit" must be greater than or equal to 1/],
    [{ limit: 2.5 }, /"limit" must be an integer/],
    [{ limit: Number.MAX_SAFE_INTEGER + 2 }, /"limit" must be a safe number/],
    [{ lineNumbers: 'yes' }, /"lineNumbers" must be a boolean/],
  ])('an invalid range %j is E_INVALID_TOOL_ARGS naming the field', async (range, message) => {
    write('f.txt', lines(5))
    const error = await failure(fx.tools.read, { path: 'f.txt', ...range })
    expect(error.code).toBe('E_INVALID_TOOL_ARGS')
    expect(error.message).toMatch(message)
  })

  it('binary files stay refused through a range; a NUL after the first 8 KiB is text', async () => {
    write('bin.dat', Buffer.concat([Buffer.from('a\nb\n'), Buffer.from([0]), Buffer.from('\nc\n')]))
    expect((await failure(fx.tools.read, { path: 'bin.dat', offset: 3 })).code).toBe('TOOL_BINARY_FILE')
    write('late.txt', Buffer.concat([Buffer.from(lines(2000)), Buffer.from([0]), Buffer.from('\ntail\n')]))
    expect(await read({ path: 'late.txt', offset: 2002 })).toBe('tail\n')
  })

  it('path checks, FIFOs and symlinks out of the root hold for ranges too', async () => {
    execFileSync('mkfifo', [path.join(fx.root, 'pipe')])
    expect((await failure(fx.tools.read, { path: 'pipe', offset: 1 })).code).toBe('TOOL_NOT_A_FILE')
    fs.symlinkSync(path.join(fx.canary, 'secret.txt'), path.join(fx.root, 'link.txt'))
    expect((await failure(fx.tools.read, { path: 'link.txt', offset: 1 })).code).toBe('TOOL_PATH_ESCAPE')
    expect((await failure(fx.tools.read, { path: '../canary/secret.txt', limit: 1 })).code).toBe('TOOL_PATH_ESCAPE')
    expect((await failure(fx.tools.read, { path: 'missing.txt', offset: 1 })).code).toBe('TOOL_FILE_NOT_FOUND')
    fs.mkdirSync(path.join(fx.root, 'dir'))
    expect((await failure(fx.tools.read, { path: 'dir', limit: 1 })).code).toBe('TOOL_NOT_A_FILE')
  }, 10_000)

  it('a directory swapped for a symlink out of the root during ranged reads never yields the canary', async () => {
    const inner = path.join(fx.root, 'inner')
    fs.mkdirSync(inner)
    fs.writeFileSync(path.join(inner, 'secret.txt'), 'INSIDE\n')
    const swapper = startDirectorySwapper(fx)
    await swapper.ready
    const codes = new Set<string>()
    let ok = 0
    try {
      for (let i = 0; i < 400; i++) {
        try {
          expect(await read({ path: 'inner/secret.txt', offset: 1, limit: 5 })).toBe('INSIDE\n')
          ok++
        } catch (error) {
          const cause = (error as { cause?: { code?: string } }).cause
          if (typeof cause?.code !== 'string') throw error
          codes.add(cause.code)
        }
      }
    } finally {
      expect(await swapper.stop()).toBeGreaterThan(0)
    }
    expect(ok).toBeGreaterThan(0)
    expect([...codes].every((code) => ['TOOL_PATH_ESCAPE', 'TOOL_FILE_NOT_FOUND'].includes(code))).toBe(true)
  }, 30_000)
})

describe('read of a file over the byte limit, without a range', () => {
  it('returns the first whole lines that fit and a note with the line count and the offset to continue from', async () => {
    const tools = createTools({ rootDir: fx.root, maxOutputBytes: 1000 })
    const file = write('big.txt', lines(300))
    const text = await read({ path: 'big.txt' }, tools)
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1000)
    const next = nextOffset(text)!
    expect(next).toBeGreaterThan(10)
    expect(text).toMatch(new RegExp(`lines 1–${next - 1} shown: read returns at most 1000 bytes and the file has 300 lines \\(${fs.statSync(file).size} bytes\\)`))
    expect(text.slice(0, text.indexOf('[…'))).toBe(sed(file, 1, next - 1))
  })

  it('following the notes page by page rebuilds the file exactly', async () => {
    const tools = createTools({ rootDir: fx.root, maxOutputBytes: 2000 })
    const content = lines(700, (i) => `${i} ${'x'.repeat(i % 37)} ✓\r`)
    write('big.txt', content)
    let rebuilt = ''
    let offset: number | undefined = 1
    let pages = 0
    while (offset !== undefined) {
      const text = await read({ path: 'big.txt', offset, limit: 10_000 }, tools)
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(2000)
      offset = nextOffset(text)
      rebuilt += offset === undefined ? text : text.slice(0, text.indexOf('[…'))
      pages++
    }
    expect(pages).toBeGreaterThan(10)
    expect(rebuilt).toBe(content)
  })

  it('with a small limit the note gets shorter but keeps the offset, so paging still rebuilds the file (64 is the smallest limit)', async () => {
    const content = lines(60, (i) => `${i} ${'y'.repeat(i % 7)}`)
    write('small.txt', content)
    for (const cap of [64, 100, 200, 330]) {
      const tools = createTools({ rootDir: fx.root, maxOutputBytes: cap })
      let rebuilt = ''
      let offset: number | undefined = 1
      let pages = 0
      while (offset !== undefined && pages < 1_000) {
        const text = await read({ path: 'small.txt', ...(offset === 1 ? {} : { offset }) }, tools)
        expect(Buffer.byteLength(text), `limit ${cap}`).toBeLessThanOrEqual(cap)
        expect(text, `limit ${cap}`).not.toContain('bytes truncated')
        const next = nextOffset(text)
        if (next !== undefined) expect(next, `limit ${cap}`).toBeGreaterThan(offset)
        rebuilt += next === undefined ? text : text.slice(0, text.indexOf('[…'))
        offset = next
        pages++
      }
      expect(rebuilt, `limit ${cap}`).toBe(content)
    }
  })

  it('a file at the limit is still returned whole, with no note', async () => {
    const tools = createTools({ rootDir: fx.root, maxOutputBytes: 100 })
    write('edge.txt', `${'x'.repeat(99)}\n`)
    expect(await read({ path: 'edge.txt' }, tools)).toBe(`${'x'.repeat(99)}\n`)
  })

  it('a generated file of tens of MB: a range in the middle matches sed, and the note counts lines exactly up to 32 MiB and gives a bound past it', async () => {
    const line = 'INFO 2026-01-01T00:00:00.000Z worker-3 processed item 123456 in 42 ms status=ok\n'
    const width = Buffer.byteLength(line) // 80
    const block = Buffer.from(line.repeat(10_000))
    const bigFile = path.join(fx.root, 'big.log')
    const fd = fs.openSync(bigFile, 'w')
    for (let i = 0; i < 50; i++) fs.writeSync(fd, block) // 40 MB, 500,000 lines
    fs.closeSync(fd)
    fs.appendFileSync(bigFile, 'LAST LINE')
    const middle = await read({ path: 'big.log', offset: 250_000, limit: 101 })
    expect(middle).toBe(sed(bigFile, 250_000, 250_100))
    expect(await read({ path: 'big.log', offset: 500_001 })).toBe('LAST LINE')
    expect(await read({ path: 'big.log', offset: 500_002 })).toMatch(/it has 500001 lines/)

    const head = await read({ path: 'big.log' })
    expect(Buffer.byteLength(head)).toBeLessThanOrEqual(200_000)
    const bound = /has at least (\d+) \(counted in the first (\d+) bytes; about (\d+) in all\) lines/.exec(head)
    expect(bound).not.toBeNull()
    const [atLeast, scanned, about] = bound!.slice(1).map(Number) as [number, number, number]
    expect(atLeast).toBe(Math.floor(scanned / width))
    expect(scanned).toBeGreaterThanOrEqual(32 * 2 ** 20)
    expect(scanned).toBeLessThan(50 * block.length)
    expect(Math.abs(about - 500_001)).toBeLessThan(5)

    fs.truncateSync(bigFile, 20 * block.length) // 16 MB: counted to the end
    const exact = await read({ path: 'big.log' })
    expect(exact).toContain(`the file has 200000 lines (${20 * block.length} bytes)`)
  }, 60_000)
})
