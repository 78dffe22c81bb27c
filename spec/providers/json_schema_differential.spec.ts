/**
 * Differential spec: joi (what the tool enforces) and ajv on our JSON Schema
 * (what a provider and a client see) must agree on accept/reject.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { dropOptionalNulls, toJsonSchema, toOpenAIStrictSchema, validator, type ObjectSchema, type Schema, type Tool } from '../../lib/index.js'
import { createAjv } from './support/ajv.js'
import { arbitraryFor } from './support/arbitrary.js'
import { allTools } from './support/catalogue.js'

const ajv = createAjv()
const RUNS = 300

function joiAccepts(schema: Schema, value: unknown): boolean {
  // Exactly how Tool.validate() runs joi.
  return schema.validate(value, { convert: false }).error === undefined
}

/**
 * The one documented gap the generators can reach: joi measures string
 * length in UTF-16 code units, JSON Schema in code points, so a string with a
 * character outside the BMP may be on different sides of a length limit.
 */
function hasAstralCharacter(value: unknown): boolean {
  return /[\u{10000}-\u{10FFFF}]/u.test(JSON.stringify(value) ?? '')
}

function ajvAccepts(schema: Schema, value: unknown): boolean {
  return ajv.validate(toJsonSchema(schema), value) as boolean
}

describe.each(allTools().map((tool) => [tool.name, tool] as const))('joi and ajv agree for %s', (_name, tool: Tool) => {
  const json = toJsonSchema(tool.inputSchema)
  const validate = ajv.compile(json)

  it(`on ${RUNS} generated inputs (both outcomes exercised)`, () => {
    const outcomes = { accepted: 0, rejected: 0 }
    fc.assert(
      fc.property(arbitraryFor(json), (value) => {
        const joi = joiAccepts(tool.inputSchema as ObjectSchema, value)
        outcomes[joi ? 'accepted' : 'rejected']++
        if (validate(value) !== joi && hasAstralCharacter(value)) return
        expect({ value, ajv: validate(value) }).toEqual({ value, ajv: joi })
      }),
      { numRuns: RUNS },
    )
    expect(outcomes.accepted + outcomes.rejected).toBeGreaterThanOrEqual(200)
    // Both sides are exercised (some tools' random inputs are mostly invalid: ≈ 8% valid for create_ticket).
    expect(outcomes.accepted).toBeGreaterThan(2)
    expect(outcomes.rejected).toBeGreaterThan(2)
  })

  it(`on ${RUNS} strict-mode inputs once optional nulls are dropped`, () => {
    const strict = ajv.compile(toOpenAIStrictSchema(json))
    let strictValid = 0
    fc.assert(
      fc.property(arbitraryFor(toOpenAIStrictSchema(json)), (value) => {
        if (strict(value)) strictValid++
        const cleaned = dropOptionalNulls(tool, value)
        if (validate(cleaned) !== joiAccepts(tool.inputSchema as ObjectSchema, cleaned) && hasAstralCharacter(cleaned)) return
        expect({ value, ajv: validate(cleaned) }).toEqual({ value, ajv: joiAccepts(tool.inputSchema as ObjectSchema, cleaned) })
      }),
      { numRuns: RUNS },
    )
    expect(strictValid).toBeGreaterThan(10)
  })
})

/**
 * The documented gaps (see toJsonSchema's TSDoc and docs/providers.md): joi
 * rules JSON Schema cannot state. Each case pins the disagreement so the
 * documentation stays true; the generators above avoid these constructs.
 */
describe('documented joi/JSON Schema disagreements (joi rejects, ajv accepts)', () => {
  const cases: [string, Schema, unknown][] = [
    ['number.unsafe: numbers beyond ±2^53', validator.object({ n: validator.number() }), { n: 2 ** 60 }],
    ['trim() under convert: false', validator.object({ s: validator.string().trim() }), { s: ' padded ' }],
    ['lowercase() under convert: false', validator.object({ s: validator.string().lowercase() }), { s: 'ABC' }],
    ['insensitive() enums match any case in joi', validator.object({ s: validator.string().valid('A').insensitive() }), null],
    ['key dependencies (or/and/xor/with)', validator.object({ a: validator.string(), b: validator.string() }).or('a', 'b'), {}],
    ['references and when() conditions', validator.object({ a: validator.number(), b: validator.number().max(validator.ref('a')) }), { a: 1, b: 2 }],
    ['formats (email, uri, ip, hex…) are not checked by JSON Schema validators by default', validator.object({ e: validator.string().email() }), { e: 'not an email' }],
    ['custom rules', validator.object({ s: validator.string().custom((v, h) => (v === 'ok' ? v : h.error('any.invalid'))) }), { s: 'no' }],
    ['forbidden() keys of an open object', validator.object({ a: validator.any().forbidden() }).unknown(true), { a: 1 }],
  ]
  it.each(cases.filter((c) => c[2] !== null))('%s', (_label, schema, value) => {
    expect(joiAccepts(schema, value)).toBe(false)
    expect(ajvAccepts(schema, value)).toBe(true)
  })

  it('string lengths: joi counts UTF-16 code units, JSON Schema counts code points', () => {
    const astral = '\u{10000}' // one code point, two code units
    expect(joiAccepts(validator.object({ s: validator.string().max(1) }), { s: astral })).toBe(false)
    expect(ajvAccepts(validator.object({ s: validator.string().max(1) }), { s: astral })).toBe(true)
    expect(joiAccepts(validator.object({ s: validator.string().min(2) }), { s: astral })).toBe(true)
    expect(ajvAccepts(validator.object({ s: validator.string().min(2) }), { s: astral })).toBe(false)
  })

  it('insensitive() enums: joi accepts another case, ajv rejects it', () => {
    const schema = validator.object({ s: validator.string().valid('A').insensitive() })
    expect(joiAccepts(schema, { s: 'a' })).toBe(true)
    expect(ajvAccepts(schema, { s: 'a' })).toBe(false)
  })
})
