/**
 * The callId of args holding long strings is hashed as the strings are
 * escaped (lib/utils/long_string_hash.ts), never stringified: it must still
 * be `sha256hex(canonicalStringify({ tool, args }))`, bit for bit, for every
 * input, and refuse what canonicalStringify refuses with the same error.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  E_NOT_CANONICALIZABLE,
  callIdOf,
  canonicalStringify,
  createDispatchContext,
  createTools,
  sha256Hex,
  strictCallIdOf,
  type ToolExecutionStartEvent,
} from '../../lib/index.js'
import { LONG_STRING_CHARS } from '../../lib/utils/canonical_json.js'
import { ESCAPE_WINDOW_BYTES } from '../../lib/utils/json_escape.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** The formula, the old way: the whole canonical text, then one hash. */
const formula = (tool: string, args: unknown): string => sha256Hex(canonicalStringify({ tool, args }))

const char = (code: number): string => String.fromCharCode(code)

/** One UTF-16 unit or code point of every kind the escaper and the encoder treat differently. */
const unit = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map(char) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 0x1f }).map(char) },
  { weight: 2, arbitrary: fc.constantFrom('"', '\\', '\u007f', '\u2028', '\uFFFD', '\u00e9', '\u00ff') },
  { weight: 2, arbitrary: fc.integer({ min: 0x80, max: 0xffff }).map(char) }, // lone surrogates included
  { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map(char) },
  { weight: 2, arbitrary: fc.integer({ min: 0x10000, max: 0x10ffff }).map((c) => String.fromCodePoint(c)) },
)

/** Lengths around the threshold, around a window's worth of ASCII, and anywhere up to a few windows. */
const length = fc.oneof(
  fc.integer({ min: LONG_STRING_CHARS - 3, max: LONG_STRING_CHARS + 3 }),
  fc.integer({ min: ESCAPE_WINDOW_BYTES - 40, max: ESCAPE_WINDOW_BYTES + 40 }),
  fc.integer({ min: 0, max: 3 * ESCAPE_WINDOW_BYTES }),
)

/** A long string: a random fragment repeated to a length, with a few units dropped in anywhere. */
const longString = fc
  .record({ fragment: fc.array(unit, { minLength: 1, maxLength: 30 }), length, inserts: fc.array(fc.tuple(fc.nat(), unit), { maxLength: 4 }) })
  .map(({ fragment, length, inserts }) => {
    const piece = fragment.join('')
    let text = piece.repeat(Math.ceil(length / piece.length)).slice(0, length)
    for (const [at, extra] of inserts) {
      const i = at % (text.length + 1)
      text = text.slice(0, i) + extra + text.slice(i)
    }
    return text
  })

/** JSON-like values with long strings among ordinary ones, keys in any order. */
const { value: argsValue } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.jsonValue({ maxDepth: 1 }),
    longString,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 6 }), tie('value'), { maxKeys: 4 }),
  ),
}))

describe('callIdOf with long strings', () => {
  it('property: equals sha256hex(canonicalStringify({ tool, args })) computed the old way', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 8 }), argsValue, (tool, args) => {
        expect(callIdOf(tool, args)).toBe(formula(tool, args))
        expect(strictCallIdOf(tool, { content: args })).toBe(formula(tool, { content: args }))
      }),
      { numRuns: 400 },
    )
  })

  it('matches with a surrogate pair, a lone surrogate or U+FFFD on each side of a window boundary', () => {
    const specials = ['😀', '\ud83d', '\ude00', '\ud83d\ud83d', '\uFFFD', 'é', '漢', '\u0000']
    const mismatches: string[] = []
    for (const special of specials) {
      for (let offset = -6; offset <= 2; offset++) {
        // ASCII up to the boundary, so the special unit lands at byte ESCAPE_WINDOW_BYTES + offset.
        const content = 'a'.repeat(ESCAPE_WINDOW_BYTES + offset) + special + '"tail"'.repeat(50)
        for (const args of [{ content }, { content, path: 'b' }, [content, content.slice(3)]]) {
          if (callIdOf('write', args) !== formula('write', args)) mismatches.push(`${JSON.stringify(special)} at ${offset}`)
        }
      }
    }
    expect(mismatches).toEqual([])
  })

  it('matches for strings whose escaped form is six times longer than a window', () => {
    const content = '\u0001'.repeat(3 * ESCAPE_WINDOW_BYTES + 5)
    expect(callIdOf('write', { content })).toBe(formula('write', { content }))
    expect(strictCallIdOf('t', content)).toBe(formula('t', content))
  })

  it('matches when the args are not a plain object (a long string, an array, a toJSON)', () => {
    const long = 'x"y\\z\n'.repeat(LONG_STRING_CHARS)
    const dated = Object.assign(new Date(0), { toJSON: () => ({ text: long }) })
    for (const args of [long, [long, 1, long], dated, { nested: { deeper: [long] } }]) {
      expect(strictCallIdOf('tool', args)).toBe(formula('tool', args))
    }
  })

  it('refuses what canonicalStringify refuses, with the same error, long strings or not', () => {
    const long = 'q'.repeat(2 * LONG_STRING_CHARS)
    const cyclic: Record<string, unknown> = { content: long }
    cyclic.self = cyclic
    const deep: unknown[] = [long]
    let tip = deep
    for (let i = 0; i < 100_000; i++) tip = (tip[0] = [long]) as unknown[]
    for (const args of [{ content: long, n: NaN }, { a: long, b: [Infinity] }, cyclic, deep]) {
      let expected: unknown
      try {
        canonicalStringify({ tool: 'w', args })
      } catch (error) {
        expected = error
      }
      expect(expected).toBeInstanceOf(E_NOT_CANONICALIZABLE)
      expect(() => strictCallIdOf('w', args)).toThrow(E_NOT_CANONICALIZABLE)
      expect(() => strictCallIdOf('w', args)).toThrow((expected as Error).message)
    }
  })
})

describe('the callId of a write through the public barrel', () => {
  it("is the formula over a 1 MB content, in the start event", async () => {
    const rootDir = trackedMkdtemp(join(tmpdir(), 'toolsmith-callid-'))
    const starts: ToolExecutionStartEvent[] = []
    const ctx = createDispatchContext({ onToolExecutionStart: (e) => starts.push(e) })
    const write = createTools({ rootDir, maxOutputBytes: 2_000_000 }).write.executor(ctx)
    const content = 'line "quoted" \\ tab\there ünïcödé 😀\n'.repeat(25_000)
    await write({ path: 'big.txt', content })
    expect(starts).toHaveLength(1)
    expect(starts[0]!.callId).toBe(formula('write', { path: 'big.txt', content }))
  })
})
