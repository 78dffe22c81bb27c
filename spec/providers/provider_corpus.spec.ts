/**
 * Issue 11, item 5: for every schema of the corpus, every emitted definition
 * is a valid JSON Schema 2020-12 document (where the provider takes JSON
 * Schema) and follows the provider's published rules, or the builder refuses
 * it with a typed error when it is built.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  E_PROVIDER_SCHEMA_UNSUPPORTED,
  toAnthropicTools,
  toGeminiFunctionDeclarations,
  toMcpTool,
  toOpenAITool,
  toToolInputSchema,
  type JsonSchema,
} from '../../lib/index.js'
import { createAjv } from './support/ajv.js'
import { arbitraryFor } from './support/arbitrary.js'
import { corpus, type CorpusEntry } from './support/corpus.js'
import { anthropicViolations, geminiViolations, mcpViolations, openAIStrictViolations, openAIViolations } from './support/provider_rules.js'

const ajv = createAjv()
const entries = corpus()

/** A JSON Schema document every 2020-12 validator reads the same way. */
function metaSchemaErrors(schema: JsonSchema): string[] {
  if (!ajv.validateSchema(schema)) return [`meta-schema: ${ajv.errorsText(ajv.errors)}`]
  try {
    ajv.compile(schema)
    return []
  } catch (error) {
    return [`ajv strict: ${(error as Error).message}`]
  }
}

/** Build a definition, or the typed refusal. */
function build<T>(fn: () => T): T | E_PROVIDER_SCHEMA_UNSUPPORTED {
  try {
    return fn()
  } catch (error) {
    if (error instanceof E_PROVIDER_SCHEMA_UNSUPPORTED) return error
    throw error
  }
}

describe('the corpus', () => {
  it('has at least 30 schemas, covering every construct the issue lists', () => {
    expect(entries.length).toBeGreaterThanOrEqual(30)
    const names = entries.map((e) => e.tool.name)
    for (const name of ['nested_objects', 'array_of_objects', 'optional_only', 'nullable_scalars', 'defaults', 'string_enum', 'pattern', 'number_bounds', 'alternatives', 'nested_when', 'root_when_issue_repro']) {
      expect(names).toContain(name)
    }
  })
})

describe.each(entries.map((e) => [e.tool.name, e] as const))('%s', (_name, { tool }: CorpusEntry) => {
  const json = toToolInputSchema(tool.inputSchema)
  const rootAlternatives = Array.isArray(json.anyOf) || Array.isArray(json.oneOf)

  it('JSON Schema and MCP: a 2020-12 document with an object root', () => {
    expect(metaSchemaErrors(json)).toEqual([])
    const mcp = toMcpTool(tool).inputSchema
    expect([...metaSchemaErrors(mcp), ...mcpViolations(mcp)]).toEqual([])
  })

  it('OpenAI (non-strict and strict): valid 2020-12 and within the published rules, or refused when built', () => {
    for (const strict of [false, true]) {
      const definition = build(() => toOpenAITool(tool, { strict }))
      if (definition instanceof E_PROVIDER_SCHEMA_UNSUPPORTED) {
        expect(rootAlternatives).toBe(true)
        expect(definition.details).toMatchObject({ tool: tool.name, provider: 'openai', rule: 'root-object' })
        continue
      }
      const parameters = definition.function.parameters
      const violations = strict ? openAIStrictViolations(parameters) : openAIViolations(parameters)
      expect([...metaSchemaErrors(parameters), ...violations]).toEqual([])
    }
  })

  it('Anthropic: valid 2020-12 and within the published rules, or refused when built', () => {
    const set = build(() => toAnthropicTools([tool]))
    if (set instanceof E_PROVIDER_SCHEMA_UNSUPPORTED) {
      expect(rootAlternatives).toBe(true)
      expect(set.details).toMatchObject({ provider: 'anthropic', rule: 'root-object' })
      return
    }
    const schema = set.definitions[0]!.input_schema
    expect([...metaSchemaErrors(schema), ...anthropicViolations(schema)]).toEqual([])
  })

  it('Gemini: the OpenAPI Schema subset, or refused when built', () => {
    const set = build(() => toGeminiFunctionDeclarations([tool]))
    if (set instanceof E_PROVIDER_SCHEMA_UNSUPPORTED) {
      expect(rootAlternatives).toBe(true)
      expect(set.details).toMatchObject({ provider: 'gemini', rule: 'root-object' })
      return
    }
    expect(geminiViolations(set.definitions[0]!.parameters as Record<string, unknown> | undefined)).toEqual([])
  })
})

/**
 * fast-check: arguments joi accepts (through `tool.validate`, exactly as every
 * surface runs it) are accepted by ajv on the emitted schema, and vice versa
 * where no documented gap applies.
 */
describe.each(entries.filter((e) => !e.tool.name.match(/^(read|write|edit|grep|bash|create_ticket|explode)$/)).map((e) => [e.tool.name, e] as const))(
  'joi and ajv agree on %s',
  (_name, { tool, oneWay }: CorpusEntry) => {
    const json = toToolInputSchema(tool.inputSchema)
    const validate = ajv.compile(json)
    const joiAccepts = async (value: unknown): Promise<boolean> =>
      tool.validate(value).then(
        () => true,
        () => false,
      )
    // The two documented gaps generators reach: UTF-16 vs code point lengths, and joi's number.unsafe (beyond ±2^53).
    const astral = (value: unknown) => /[\u{10000}-\u{10FFFF}]/u.test(JSON.stringify(value) ?? '')
    const unsafe = (value: unknown): boolean =>
      typeof value === 'number'
        ? !Number.isSafeInteger(Math.trunc(value))
        : typeof value === 'object' && value !== null && Object.values(value).some(unsafe)

    it(`on 200 generated inputs${oneWay ? ` (joi ⇒ ajv only: ${oneWay})` : ''}`, async () => {
      const outcomes = { accepted: 0, rejected: 0 }
      await fc.assert(
        fc.asyncProperty(arbitraryFor(json), async (value) => {
          const joi = await joiAccepts(value)
          const byAjv = validate(value) as boolean
          outcomes[joi ? 'accepted' : 'rejected']++
          if (byAjv === joi || astral(value) || unsafe(value)) return
          if (oneWay && byAjv && !joi) return
          expect({ value, ajv: byAjv }).toEqual({ value, ajv: joi })
        }),
        { numRuns: 200 },
      )
      expect(outcomes.accepted).toBeGreaterThan(5)
      expect(outcomes.rejected).toBeGreaterThan(5)
    })
  },
)

describe('the encoded rules catch what the providers refused before issue 11', () => {
  it('flags a root anyOf, an array without items, an untyped Gemini schema, numeric counts and forbidden keys', () => {
    const rootAnyOf = { anyOf: [{ type: 'object' }, { type: 'object' }] }
    expect(openAIViolations(rootAnyOf)).toContain('openai: no anyOf at the top level')
    expect(anthropicViolations(rootAnyOf)).toContain('anthropic: no anyOf at the top level')
    expect(mcpViolations(rootAnyOf)).toHaveLength(1)
    expect(openAIViolations({ type: 'object', properties: { list: { type: 'array' } } })).toEqual(['openai: #/properties/list: array schema missing items'])
    expect(geminiViolations({ type: 'OBJECT', properties: { any: {}, n: { type: 'ARRAY', items: { type: 'STRING' }, maxItems: 3 } } })).toEqual([
      'gemini: #/properties/any: type must be specified',
      'gemini: #/properties/n: maxItems must be a string (int64)',
    ])
    expect(geminiViolations({ type: 'object' })).toContain('gemini: root type must be OBJECT (got "object")')
    expect(anthropicViolations({ type: 'object', properties: { 'filter[id]': {} } })).toHaveLength(1)
    expect(geminiViolations({ type: 'OBJECT', properties: { $top: { type: 'NUMBER' } } })).toHaveLength(1)
    expect(openAIStrictViolations({ type: 'object', properties: { a: { type: 'string', minLength: 1 } }, additionalProperties: false })).toEqual([
      'openai-strict: #: every property must be required',
      'openai-strict: #/properties/a: keyword minLength is not supported',
    ])
  })
})
