/**
 * The "did you mean" helper (lib/utils/did_you_mean.ts) the CLI uses for
 * tool names and flags.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { didYouMean, editDistance } from '../../lib/utils/did_you_mean.js'

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and adjacent swaps as one edit each', () => {
    expect(editDistance('read', 'read')).toBe(0)
    expect(editDistance('reed', 'read')).toBe(1)
    expect(editDistance('raed', 'read')).toBe(1)
    expect(editDistance('rea', 'read')).toBe(1)
    expect(editDistance('reads', 'read')).toBe(1)
    expect(editDistance('', 'grep')).toBe(4)
    expect(editDistance('kitten', 'sitting')).toBe(3)
  })

  it('is symmetric and zero only for equal strings', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (a, b) => {
        const d = editDistance(a, b)
        expect(editDistance(b, a)).toBe(d)
        expect(d === 0).toBe(a === b)
        expect(d).toBeLessThanOrEqual(Math.max(a.length, b.length))
      }),
    )
  })
})

describe('didYouMean', () => {
  const tools = ['read', 'write', 'edit', 'grep', 'bash']

  it('suggests the closest name within two edits', () => {
    expect(didYouMean('reed', tools)).toBe('read')
    expect(didYouMean('wirte', tools)).toBe('write')
    expect(didYouMean('grpe', tools)).toBe('grep')
    expect(didYouMean('BASH', tools)).toBe('bash')
    expect(didYouMean('bsh', tools)).toBe('bash')
  })

  it('suggests a name the input is the unambiguous start of', () => {
    expect(didYouMean('--pol', ['--policy', '--json', '--root'])).toBe('--policy')
    expect(didYouMean('--', ['--policy', '--json'])).toBeUndefined()
  })

  it('suggests nothing when no name is close', () => {
    expect(didYouMean('deploy', tools)).toBeUndefined()
    expect(didYouMean('ls', ['cd', 'mv'])).toBeUndefined()
    expect(didYouMean('x', tools)).toBeUndefined()
    expect(didYouMean('read', [])).toBeUndefined()
  })

  it('prefers the smaller distance, then the earlier candidate', () => {
    expect(didYouMean('rea', ['reads', 'read'])).toBe('read')
    expect(didYouMean('cat', ['bat', 'hat'])).toBe('bat')
  })
})
