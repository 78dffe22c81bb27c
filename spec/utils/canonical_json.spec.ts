import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { E_NOT_CANONICALIZABLE, canonicalStringify, sha256Hex } from '../../lib/index.js'

/** Rebuild an object with its keys inserted in a different order, recursively. */
function shuffleKeys(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((v, i) => shuffleKeys(v, seed + i))
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value)
    const rotated = keys.length ? [...keys.slice(seed % keys.length), ...keys.slice(0, seed % keys.length)].reverse() : keys
    const out: Record<string, unknown> = {}
    // defineProperty, not assignment: a "__proto__" key must stay an own key.
    for (const k of rotated) {
      Object.defineProperty(out, k, {
        value: shuffleKeys((value as Record<string, unknown>)[k], seed + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      })
    }
    return out
  }
  return value
}

const jsonValue = fc.jsonValue()

describe('canonicalStringify', () => {
  it('sorts keys by UTF-16 code units and drops undefined members', () => {
    expect(canonicalStringify({ b: 1, a: 2, B: 3, é: 4, '\u{1F600}': 5, '\uFFFF': 6 })).toBe(
      '{"B":3,"a":2,"b":1,"é":4,"\u{1F600}":5,"\uFFFF":6}',
    )
    expect(canonicalStringify({ a: undefined, b: () => 1, c: 1 })).toBe('{"c":1}')
  })

  it('keeps an own "__proto__" key (as JSON.parse creates it)', () => {
    expect(canonicalStringify(JSON.parse('{"b":1,"__proto__":{"x":1}}'))).toBe('{"__proto__":{"x":1},"b":1}')
  })

  it('writes undefined, functions and symbols in arrays as null', () => {
    expect(canonicalStringify([undefined, () => 1, Symbol('s'), 1])).toBe('[null,null,null,1]')
  })

  it('honours toJSON (Dates become ISO strings)', () => {
    const date = new Date('2026-01-02T03:04:05.678Z')
    expect(canonicalStringify({ when: date })).toBe('{"when":"2026-01-02T03:04:05.678Z"}')
    expect(canonicalStringify({ x: { toJSON: () => ({ z: 1, y: 2 }) } })).toBe('{"x":{"y":2,"z":1}}')
  })

  it('encodes bytes as {"$bytes": base64}, Buffers included', () => {
    expect(canonicalStringify(new Uint8Array([0, 1, 255]))).toBe('{"$bytes":"AAH/"}')
    expect(canonicalStringify({ b: Buffer.from('hi') })).toBe('{"b":{"$bytes":"aGk="}}')
    const view = new Uint8Array(new Uint8Array([9, 9, 1, 2, 9]).buffer, 2, 2)
    expect(canonicalStringify(view)).toBe('{"$bytes":"AQI="}')
  })

  it('writes BigInt as a decimal string', () => {
    expect(canonicalStringify({ n: 12345678901234567890n, m: -1n })).toBe('{"m":"-1","n":"12345678901234567890"}')
  })

  it('formats numbers as ECMAScript does (RFC 8785)', () => {
    expect(canonicalStringify([1e21, 1e-7, -0, 0.1 + 0.2, 100])).toBe('[1e+21,1e-7,0,0.30000000000000004,100]')
  })

  it.each([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])('rejects %s', (n) => {
    expect(() => canonicalStringify({ deep: [{ n }] })).toThrow(E_NOT_CANONICALIZABLE)
  })

  it('rejects cycles without overflowing the stack', () => {
    const a: Record<string, unknown> = { x: 1 }
    a.self = a
    expect(() => canonicalStringify(a)).toThrow(E_NOT_CANONICALIZABLE)
    const arr: unknown[] = []
    arr.push({ inner: arr })
    expect(() => canonicalStringify(arr)).toThrow(E_NOT_CANONICALIZABLE)
  })

  it('accepts shared references that are not cycles', () => {
    const shared = { v: 1 }
    expect(canonicalStringify({ a: shared, b: [shared, shared] })).toBe('{"a":{"v":1},"b":[{"v":1},{"v":1}]}')
  })

  it('turns nesting too deep for the stack into E_NOT_CANONICALIZABLE', () => {
    let deep: unknown = 0
    for (let i = 0; i < 200_000; i++) deep = [deep]
    expect(() => canonicalStringify(deep)).toThrow(E_NOT_CANONICALIZABLE)
  })

  it('rejects a top-level undefined', () => {
    expect(() => canonicalStringify(undefined)).toThrow(E_NOT_CANONICALIZABLE)
  })

  it('property: key order never changes the output', () => {
    fc.assert(
      fc.property(jsonValue, fc.nat(), (value, seed) => {
        expect(canonicalStringify(shuffleKeys(value, seed))).toBe(canonicalStringify(value))
      }),
      { numRuns: 500 },
    )
  })

  it('property: output parses as JSON back to an equal value', () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        const text = canonicalStringify(value)
        // JSON has no -0; canonical form writes it as 0 just like JSON.stringify.
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)))
      }),
      { numRuns: 500 },
    )
  })

  it('property: canonical output is a fixed point (re-canonicalising the parse gives the same text)', () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        const text = canonicalStringify(value)
        expect(canonicalStringify(JSON.parse(text))).toBe(text)
      }),
      { numRuns: 300 },
    )
  })

  it('property: any NaN or Infinity anywhere is rejected', () => {
    fc.assert(
      fc.property(
        jsonValue,
        fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
        (value, bad) => {
          expect(() => canonicalStringify({ value, nested: [{ bad }] })).toThrow(E_NOT_CANONICALIZABLE)
        },
      ),
      { numRuns: 100 },
    )
  })
})

describe('sha256Hex', () => {
  it('matches known vectors for text and bytes', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
    expect(sha256Hex(new Uint8Array([0x61, 0x62, 0x63]))).toBe(sha256Hex('abc'))
  })
})
