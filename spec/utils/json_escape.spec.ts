/**
 * The SIMD JSON string escaper (lib/utils/json_escape.ts) against
 * `JSON.stringify`, and the fallback where WebAssembly is missing.
 */
import { spawnSync } from 'node:child_process'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ESCAPE_WINDOW_BYTES, jsonEscaper, type JsonEscaper } from '../../lib/utils/json_escape.js'

/** What JSON.stringify writes for each byte of a string's UTF-8: an ASCII byte is a character; every other byte is copied. */
const PER_BYTE = Array.from({ length: 256 }, (_, byte) =>
  byte < 0x80 ? Buffer.from(JSON.stringify(String.fromCharCode(byte)).slice(1, -1), 'latin1') : Buffer.of(byte),
)

function expectedBytes(bytes: Uint8Array): Buffer {
  return Buffer.concat(Array.from(bytes, (byte) => PER_BYTE[byte]!))
}

function escaped(escaper: JsonEscaper, bytes: Uint8Array): Buffer {
  escaper.input.set(bytes)
  return Buffer.from(escaper.escape(bytes.length))
}

function theEscaper(): JsonEscaper {
  const escaper = jsonEscaper()
  if (escaper === undefined) throw new Error('WebAssembly SIMD is missing from this Node: the escaper cannot be tested here')
  return escaper
}

describe('jsonEscaper', () => {
  it('escapes each of the 256 byte values as JSON.stringify escapes that character (lowercase \\u00xx)', () => {
    const escaper = theEscaper()
    for (let byte = 0; byte < 256; byte++) {
      expect(escaped(escaper, Uint8Array.of(byte)), `byte 0x${byte.toString(16)}`).toEqual(expectedBytes(Uint8Array.of(byte)))
    }
    expect(escaped(escaper, Uint8Array.of(0x1f, 0x0b, 0x7f)).toString('latin1')).toBe('\\u001f\\u000b\x7f')
  })

  it('escapes every byte value at every position of a block and across block ends', () => {
    const escaper = theEscaper()
    const wrong: string[] = []
    for (let byte = 0; byte < 256; byte++) {
      for (let at = 0; at < 34; at++) {
        const bytes = Buffer.alloc(48, 'a')
        bytes[at] = byte
        bytes[47 - (at % 16)] = byte
        for (const length of [at + 1, 33, 48]) {
          const input = bytes.subarray(0, length)
          if (!escaped(escaper, input).equals(expectedBytes(input))) wrong.push(`0x${byte.toString(16)} at ${at}, length ${length}`)
        }
      }
    }
    expect(wrong).toEqual([])
  })

  it('matches on random buffers, of every length up to a full window', () => {
    const escaper = theEscaper()
    // Biased towards the bytes that need escaping, so blocks are dirty, clean and mixed.
    const byte = fc.oneof(fc.integer({ min: 0, max: 255 }), fc.constantFrom(0x00, 0x08, 0x0a, 0x1f, 0x20, 0x22, 0x5c, 0x7f, 0x80, 0xef, 0xff))
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.array(byte, { maxLength: 300 }), (random, biased) => {
        for (const bytes of [random, Uint8Array.from(biased)]) expect(escaped(escaper, bytes)).toEqual(expectedBytes(bytes))
      }),
      { numRuns: 500 },
    )
    const random = new Uint8Array(ESCAPE_WINDOW_BYTES).map(() => (Math.random() < 0.1 ? Math.floor(Math.random() * 0x20) : Math.floor(Math.random() * 256)))
    expect(escaped(escaper, random)).toEqual(expectedBytes(random))
  })

  it('has room for the worst case: a full window of bytes that each become six', () => {
    const escaper = theEscaper()
    const zeros = new Uint8Array(ESCAPE_WINDOW_BYTES)
    const out = escaped(escaper, zeros)
    expect(out.length).toBe(6 * ESCAPE_WINDOW_BYTES)
    expect(out.toString('latin1')).toBe('\\u0000'.repeat(ESCAPE_WINDOW_BYTES))
    expect(() => escaper.escape(ESCAPE_WINDOW_BYTES + 1)).toThrow(RangeError)
  })

  it('escapes well-formed UTF-8 text exactly as JSON.stringify escapes the string', () => {
    const escaper = theEscaper()
    const unit = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u2028', '\uFFFD', '😀'))
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 30 }), (parts) => {
        const text = parts.join('')
        const bytes = Buffer.from(text)
        expect(escaped(escaper, bytes).toString('utf8')).toBe(JSON.stringify(text).slice(1, -1))
      }),
      { numRuns: 300 },
    )
  })

  it('reports a 0xEF byte (the lead byte of U+FFFD) and forgets it on the next call', () => {
    const escaper = theEscaper()
    escaped(escaper, Buffer.from('a lone \ud800 became \uFFFD'))
    expect(escaper.sawEF()).toBe(true)
    escaped(escaper, Buffer.from('x'.repeat(100)))
    expect(escaper.sawEF()).toBe(false)
  })

  it('does not report a 0xEF byte that an earlier, longer input left just past this one', () => {
    const escaper = theEscaper()
    for (const length of [0, 1, 15, 16, 17, 100, ESCAPE_WINDOW_BYTES - 1]) {
      escaper.input.fill(0xef)
      escaped(escaper, Buffer.alloc(length, 'x'))
      expect(escaper.sawEF(), `input of ${length} bytes`).toBe(false)
    }
  })

  it('is undefined under node --jitless, and the callId is the same formula', () => {
    const script = `
      const { jsonEscaper } = await import(${JSON.stringify(new URL('../../lib/utils/json_escape.ts', import.meta.url).href)})
      const lib = await import(${JSON.stringify(new URL('../../lib/index.ts', import.meta.url).href)})
      const args = { path: 'big.txt', content: 'line "one"\\\\\\n\\u0001 é 😀 \\ud800 '.repeat(4000) }
      console.log(JSON.stringify({
        wasm: typeof WebAssembly,
        escaper: jsonEscaper() === undefined ? 'undefined' : 'defined',
        same: lib.callIdOf('write', args) === lib.sha256Hex(lib.canonicalStringify({ tool: 'write', args })),
      }))
    `
    const child = spawnSync(process.execPath, ['--jitless', '--import', import.meta.resolve('tsx'), '--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    })
    // Node warns that --jitless turns WebAssembly off; nothing else may be said.
    expect(child.stderr.replace(/^Warning: disabling flag --expose_wasm due to conflicting flags\n/, '')).toBe('')
    expect(child.status).toBe(0)
    expect(JSON.parse(child.stdout)).toEqual({ wasm: 'undefined', escaper: 'undefined', same: true })
  })
})
