import { utf8BoundaryBefore, utf8Prefix } from '../../lib/entries/internal.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'

describe('utf8Prefix', () => {
  it('keeps text that fits and cuts before a character that would be split', () => {
    expect(utf8Prefix('héllo', 10)).toBe('héllo')
    expect(utf8Prefix('héllo', 2)).toBe('h') // é is 2 bytes: 1 + 2 > 2
    expect(utf8Prefix('😀x', 3)).toBe('')
    expect(utf8Prefix('😀x', 4)).toBe('😀')
    expect(utf8Prefix('abc', 0)).toBe('')
  })

  it('property: a prefix of the text, within the budget, as long as possible', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.nat(64), (text, max) => {
        const cut = utf8Prefix(text, max)
        const bytes = Buffer.byteLength(cut, 'utf8')
        expect(bytes).toBeLessThanOrEqual(Math.max(max, 0))
        expect(Buffer.from(text, 'utf8').subarray(0, bytes).equals(Buffer.from(cut, 'utf8'))).toBe(true)
        // One more character would not fit (or there is none).
        const next = [...Buffer.from(text, 'utf8').subarray(bytes).toString('utf8')][0]
        if (next !== undefined) expect(bytes + Buffer.byteLength(next, 'utf8')).toBeGreaterThan(max)
      }),
      { numRuns: 500 },
    )
  })
})

describe('utf8BoundaryBefore', () => {
  it('never lands on a continuation byte', () => {
    const bytes = Buffer.from('aé😀b', 'utf8') // 1 + 2 + 4 + 1 bytes
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => utf8BoundaryBefore(bytes, i))).toEqual([0, 1, 1, 3, 3, 3, 3, 7, 8, 8])
  })
})
