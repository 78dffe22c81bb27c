import { LineIndexBuilder } from '../../lib/entries/internal.js'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import {
  FileSpoolStore,
  InMemorySpoolStore,
  MemorySpoolReader,
  isSpoolReader,
  sha256Hex,
  type SpoolInput,
  type SpoolReader,
  type SpoolStore,
} from '../../lib/index.js'

/** The line rules, written the naive way. */
function referenceLines(text: string): string[] {
  if (text === '') return []
  const parts = text.split('\n')
  if (text.endsWith('\n')) parts.pop()
  return parts.map((p) => (p.endsWith('\r') ? p.slice(0, -1) : p))
}

async function allLines(reader: SpoolReader): Promise<string[]> {
  const out: string[] = []
  for await (const line of reader.lines!()) out.push(line.text)
  return out
}

function webStream(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!)
      else controller.close()
    },
  })
}

const tempDirs: string[] = []
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true })
})

function fileStore(): FileSpoolStore {
  const dir = mkdtempSync(join(tmpdir(), 'toolsmith-spec-spool-'))
  tempDirs.push(dir)
  return new FileSpoolStore({ dir })
}

const stores: [string, () => SpoolStore][] = [
  ['InMemorySpoolStore', () => new InMemorySpoolStore()],
  ['FileSpoolStore', fileStore],
]

describe.each(stores)('%s', (_name, makeStore) => {
  const cases: [string, string][] = [
    ['empty', ''],
    ['one newline', '\n'],
    ['trailing newline', 'a\nb\n'],
    ['no trailing newline', 'a\nb'],
    ['CRLF', 'one\r\ntwo\r\nthree'],
    ['blank lines', '\n\nx\n\n'],
    ['multi-byte', 'héllo\n€uro\n𝄞 clef'],
    ['lone CR kept inside a line', 'a\rb\nc'],
  ]

  it.each(cases)('round-trips a string: %s', async (_label, text) => {
    const reader = await makeStore().write('id', text)
    expect(await reader.readAll()).toBe(text)
    expect(await reader.byteLength()).toBe(Buffer.byteLength(text))
    const expected = referenceLines(text)
    expect(await reader.lineCount()).toBe(expected.length)
    expect(await allLines(reader)).toEqual(expected)
    for (let i = 0; i < expected.length; i++) expect(await reader.line(i)).toBe(expected[i])
    expect(await reader.line(expected.length)).toBeUndefined()
    expect(await reader.line(-1)).toBeUndefined()
  })

  it('round-trips bytes without aliasing the caller buffer', async () => {
    const bytes = new TextEncoder().encode('x\ny\n')
    const reader = await makeStore().write('id', bytes)
    bytes[0] = 0x7a // 'z'
    expect(await reader.line(0)).toBe('x')
  })

  it('round-trips a web ReadableStream with a multi-byte character split across chunks', async () => {
    const encoded = new TextEncoder().encode('a€b\n𝄞\n')
    // '€' is 3 bytes at 1..3 and '𝄞' 4 bytes at 5..8: split inside both.
    const chunks = [encoded.subarray(0, 2), encoded.subarray(2, 6), encoded.subarray(6)]
    const reader = await makeStore().write('id', webStream(chunks))
    expect(await allLines(reader)).toEqual(['a€b', '𝄞'])
    expect(await reader.readAll()).toBe('a€b\n𝄞\n')
  })

  it('splits CRLF across chunks', async () => {
    const reader = await makeStore().write('id', webStream([Buffer.from('a\r'), Buffer.from('\nb\r'), Buffer.from('\n')]))
    expect(await allLines(reader)).toEqual(['a', 'b'])
  })

  it('accepts a Node Readable and string chunks', async () => {
    const reader = await makeStore().write('id', Readable.from(['one\nt', 'wo\n', Buffer.from('three')]))
    expect(await allLines(reader)).toEqual(['one', 'two', 'three'])
  })

  it('read() returns the stored reader, write() replaces, delete() forgets', async () => {
    const store = makeStore()
    expect(store.read('id')).toBeUndefined()
    await store.write('id', 'first')
    expect(await store.read('id')!.readAll()).toBe('first')
    await store.write('id', 'second\n')
    expect(await store.read('id')!.readAll()).toBe('second\n')
    expect(await store.delete('id')).toBe(true)
    expect(await store.delete('id')).toBe(false)
    expect(store.read('id')).toBeUndefined()
  })

  it('a rewrite of the same id leaves earlier readers reading their own content', async () => {
    const store = makeStore()
    const first = await store.write('same', 'first line A\nsecond line A\n')
    const viaRead = store.read('same')!
    const second = await store.write('same', 'B\n')
    for (const old of [first, viaRead]) {
      expect(await old.lineCount()).toBe(2)
      expect(await old.byteLength()).toBe(27)
      expect(await old.line(0)).toBe('first line A')
      expect(await old.line(1)).toBe('second line A')
      expect(await old.readAll()).toBe('first line A\nsecond line A\n')
      expect(await allLines(old)).toEqual(['first line A', 'second line A'])
    }
    expect(await second.readAll()).toBe('B\n')
    expect(await store.read('same')!.readAll()).toBe('B\n')
    expect(await store.delete('same')).toBe(true)
    expect(store.read('same')).toBeUndefined()
  })

  it('cuts long lines on a character boundary when asked', async () => {
    const line = '€'.repeat(10) // 30 bytes
    const reader = await makeStore().write('id', `${line}\nshort`)
    const out = []
    for await (const l of reader.lines!(0, 2, { maxLineBytes: 8 })) out.push(l)
    expect(out[0]).toEqual({ index: 0, text: '€€', byteLength: 30, truncated: true })
    expect(out[1]).toEqual({ index: 1, text: 'short', byteLength: 5, truncated: false })
  })

  it('matches the reference line rules for any text in any chunking (property)', async () => {
    const piece = fc.constantFrom('a', 'é', '€', '𝄞', '\n', '\r', '\r\n', ' ', 'xyz')
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 60 }), fc.array(fc.nat(40), { maxLength: 8 }), async (pieces, cuts) => {
        const text = pieces.join('')
        const bytes = Buffer.from(text)
        const points = [...new Set(cuts.map((c) => Math.min(c, bytes.length)))].sort((a, b) => a - b)
        const chunks: Uint8Array[] = []
        let at = 0
        for (const p of [...points, bytes.length]) {
          chunks.push(bytes.subarray(at, p))
          at = p
        }
        const reader = await makeStore().write('p', webStream(chunks))
        expect(await allLines(reader)).toEqual(referenceLines(text))
        expect(await reader.lineCount()).toBe(referenceLines(text).length)
        expect(await reader.readAll()).toBe(text)
      }),
      { numRuns: 60 },
    )
  })
})

describe('FileSpoolStore', () => {
  it('creates a fresh temp folder by default and keeps bytes on disk', async () => {
    const store = new FileSpoolStore()
    try {
      expect(existsSync(store.dir)).toBe(true)
      expect(store.dir.startsWith(tmpdir())).toBe(true)
      const reader = (await store.write('../../escape?', 'payload\n')) as SpoolReader & { path: string }
      expect(reader.path.startsWith(store.dir)).toBe(true)
      expect(statSync(reader.path).size).toBe(8)
    } finally {
      await store.clear()
    }
    expect(existsSync(store.dir)).toBe(false)
  })

  it('reads a spool another store (another worker) wrote in the same folder, without owning it', async () => {
    const writer = fileStore()
    const other = new FileSpoolStore({ dir: writer.dir })
    const text = `${Array.from({ length: 50_000 }, (_, i) => `line ${i} ${'x'.repeat(i % 40)}`).join('\n')}\nlast`
    await writer.write('call-1', 'first version\n')
    await new Promise((r) => setTimeout(r, 20)) // a later mtime for the second version
    await writer.write('call-1', text)
    expect(other.read('missing')).toBeUndefined()
    const reader = other.read('call-1')!
    expect(reader).toBeDefined()
    expect(await reader.lineCount()).toBe(referenceLines(text).length)
    expect(await reader.byteLength()).toBe(Buffer.byteLength(text))
    expect(await reader.line(49_999)).toBe(`line 49999 ${'x'.repeat(49_999 % 40)}`)
    expect(await reader.line(50_000)).toBe('last')
    expect(await allLines(reader)).toEqual(referenceLines(text))
    expect(await reader.readAll()).toBe(text)
    // Forgetting it in the reading store leaves the writer's file alone.
    expect(await other.delete('call-1')).toBe(true)
    expect(await writer.read('call-1')!.readAll()).toBe(text)
    // A write still in progress (a .tmp file) is not a spool yet.
    const late = new FileSpoolStore({ dir: writer.dir })
    writeFileSync(join(writer.dir, `${sha256Hex('half')}-abcd-1.spool.123.tmp`), 'partial')
    expect(late.read('half')).toBeUndefined()
  })

  it('reading another store\'s spool never follows a planted symlink and never waits on a FIFO', async () => {
    const writer = fileStore()
    const outside = join(writer.dir, '..', `outside-${process.pid}.txt`)
    writeFileSync(outside, 'SECRET=1\n')
    try {
      // A symlink named exactly like a spool file is not a spool.
      symlinkSync(outside, join(writer.dir, `${sha256Hex('planted')}-0123abcd-1.spool`))
      expect(new FileSpoolStore({ dir: writer.dir }).read('planted')).toBeUndefined()

      // A genuine spool, chosen, then swapped for a symlink or a FIFO before it is read.
      const real = (await writer.write('swapped', 'genuine\n')) as SpoolReader & { path: string }
      const viaSymlink = new FileSpoolStore({ dir: writer.dir }).read('swapped')!
      rmSync(real.path)
      symlinkSync(outside, real.path)
      await expect(viaSymlink.readAll()).rejects.toMatchObject({ code: 'E_ARTIFACT_QUERY_FAILED' })
      await expect(allLines(viaSymlink)).rejects.toMatchObject({ code: 'E_ARTIFACT_QUERY_FAILED' })
      rmSync(real.path)
      execFileSync('mkfifo', [real.path])
      const viaFifo = new FileSpoolStore({ dir: writer.dir }).read('swapped')
      // The FIFO is not even a candidate now; a reader chosen before the swap refuses it.
      expect(viaFifo).toBeUndefined()
      await expect(viaSymlink.readAll()).rejects.toMatchObject({ code: 'E_ARTIFACT_QUERY_FAILED' })
    } finally {
      rmSync(outside, { force: true })
    }
  })

  it('a deleted spool fails cleanly when read', async () => {
    const store = fileStore()
    const reader = await store.write('x', 'a\nb')
    await store.delete('x')
    await expect(reader.line(0)).rejects.toMatchObject({ code: 'E_ARTIFACT_QUERY_FAILED', message: expect.stringMatching(/no longer exists \(ENOENT\)/) })
  })

  it('a spool whose folder was replaced by a file fails cleanly when read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolsmith-spec-spool-'))
    tempDirs.push(dir)
    const store = new FileSpoolStore({ dir: join(dir, 'spool') })
    const reader = await store.write('x', 'a\nb')
    rmSync(join(dir, 'spool'), { recursive: true })
    writeFileSync(join(dir, 'spool'), 'not a folder')
    await expect(reader.line(0)).rejects.toMatchObject({ code: 'E_ARTIFACT_QUERY_FAILED', message: expect.stringMatching(/no longer exists \(ENOTDIR\)/) })
  })

  it('delete() and clear() remove every version written under an id', async () => {
    const store = fileStore()
    const a = (await store.write('x', 'one\n')) as SpoolReader & { path: string }
    const b = (await store.write('x', 'two\n')) as SpoolReader & { path: string }
    const c = (await store.write('y', 'three\n')) as SpoolReader & { path: string }
    const d = (await store.write('y', 'four\n')) as SpoolReader & { path: string }
    expect(new Set([a.path, b.path, c.path, d.path]).size).toBe(4)
    expect(await store.delete('x')).toBe(true)
    expect(existsSync(a.path) || existsSync(b.path)).toBe(false)
    expect(existsSync(c.path) && existsSync(d.path)).toBe(true)
    await store.clear()
    expect(existsSync(c.path) || existsSync(d.path)).toBe(false)
  })

  it('removes the temp file when the input stream fails', async () => {
    const store = fileStore()
    const failing = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(Buffer.from('partial'))
        controller.error(new Error('producer died'))
      },
    })
    await expect(store.write('x', failing)).rejects.toThrow('producer died')
    expect(store.read('x')).toBeUndefined()
    const { readdirSync } = await import('node:fs')
    expect(readdirSync(store.dir)).toEqual([])
  })

  it('stores a large generated stream (~80 MB, 1M lines) and reads lines from the middle and the end', async () => {
    const total = 1_000_000
    const lineText = (i: number): string => `${i}:${'é'.repeat(i % 7)}${'x'.repeat(40 + (i % 50))}`
    let next = 0
    let expectedBytes = 0
    let produced = 0
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (next >= total) {
          controller.close()
          return
        }
        const parts: string[] = []
        for (let n = 0; n < 8_000 && next < total; n++, next++) parts.push(`${lineText(next)}\n`)
        const bytes = Buffer.from(parts.join(''))
        expectedBytes += bytes.length
        // Split at an odd offset so chunk boundaries fall inside lines (and some inside 'é').
        const cut = 1 + (produced++ * 7919) % (bytes.length - 1)
        controller.enqueue(bytes.subarray(0, cut))
        controller.enqueue(bytes.subarray(cut))
      },
    })
    const store = fileStore()
    const reader = (await store.write('big', stream)) as SpoolReader & { path: string }
    expect(await reader.lineCount()).toBe(total)
    expect(await reader.byteLength()).toBe(expectedBytes)
    expect(statSync(reader.path).size).toBe(expectedBytes)
    expect(expectedBytes).toBeGreaterThan(50 * 1024 * 1024)
    for (const i of [0, 1, 1023, 1024, 1025, 499_999, 500_000, 777_777, total - 2, total - 1]) {
      expect(await reader.line(i)).toBe(lineText(i))
    }
    expect(await reader.line(total)).toBeUndefined()
    const window: string[] = []
    for await (const line of reader.lines!(654_320, 654_325)) window.push(line.text)
    expect(window).toEqual([654_320, 654_321, 654_322, 654_323, 654_324].map(lineText))
  })
})

describe('MemorySpoolReader and LineIndexBuilder', () => {
  it('MemorySpoolReader.from works on strings and is a spool reader', async () => {
    const reader = MemorySpoolReader.from('a\nb')
    expect(isSpoolReader(reader)).toBe(true)
    expect(isSpoolReader({ line() {} })).toBe(false)
    expect(await reader.line(1)).toBe('b')
  })

  it('keeps the index sparse: about one checkpoint per 1024 lines', () => {
    const builder = new LineIndexBuilder()
    for (let i = 0; i < 100; i++) builder.push(Buffer.from('x\n'.repeat(1000)))
    const index = builder.finish()
    expect(index.lineCount).toBe(100_000)
    expect(index.checkpointLines.length).toBeLessThanOrEqual(100_000 / 1024 + 2)
    expect(index.checkpointLines[0]).toBe(0)
    expect(index.checkpointOffsets[1]).toBe(index.checkpointLines[1]! * 2)
  })

  it('the bulk (SIMD) scan builds exactly the index of the line-by-line scan, whatever the lines and the chunking (issue 17)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 90_000 })), { maxLength: 300 }),
        fc.array(fc.integer({ min: 1, max: 200_000 }), { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        (lineLengths, cuts, terminated) => {
          const text = lineLengths.map((n, i) => 'abcdefghij'[i % 10]!.repeat(n)).join('\n') + (terminated ? '\n' : '')
          const bytes = Buffer.from(text)
          const bulk = new LineIndexBuilder()
          const byLine = LineIndexBuilder.lineByLine()
          let at = 0
          for (let i = 0; at < bytes.length; i++) {
            const end = Math.min(bytes.length, at + cuts[i % cuts.length]!)
            bulk.push(bytes.subarray(at, end))
            byLine.push(bytes.subarray(at, end))
            at = end
          }
          expect(bulk.finish()).toEqual(byLine.finish())
        },
      ),
      { numRuns: 150 },
    )
  })

  it('the bulk scan on a 64 KiB window boundary and on many short lines', () => {
    for (const text of ['\n'.repeat(200_000), `${'x'.repeat(65_535)}\n${'y'.repeat(65_536)}\n`, (`${'ab\n'.repeat(30_000) + 'z'.repeat(70_000)}\n`).repeat(3)]) {
      const bulk = new LineIndexBuilder()
      const byLine = LineIndexBuilder.lineByLine()
      bulk.push(Buffer.from(text))
      byLine.push(Buffer.from(text))
      expect(bulk.finish()).toEqual(byLine.finish())
    }
  })

  it('adds checkpoints every 64 KiB for long lines', () => {
    const builder = new LineIndexBuilder()
    const line = `${'y'.repeat(10_000)}\n`
    builder.push(Buffer.from(line.repeat(100)))
    const index = builder.finish()
    expect(index.checkpointLines.length).toBeGreaterThan(10)
    for (let k = 0; k < index.checkpointLines.length; k++) {
      expect(index.checkpointOffsets[k]).toBe(index.checkpointLines[k]! * 10_001)
    }
  })
})

// Inputs of every accepted kind type-check as SpoolInput.
const _inputs: SpoolInput[] = ['s', new Uint8Array(), webStream([]), Readable.from([]), [Buffer.from('x')]]
void _inputs
