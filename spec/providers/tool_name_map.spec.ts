import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { TOOL_NAME_RULES, ToolNameMap, toGeminiFunctionDeclarations, toMcpTools, validator } from '../../lib/index.js'

const snapshot = (name: string) => ({
  name,
  description: name,
  inputSchema: validator.object({ q: validator.string() }).describe(),
  sideEffect: false,
  idempotent: true,
})

describe('ToolNameMap', () => {
  it('keeps legal names and maps illegal ones reversibly', () => {
    const names = new ToolNameMap(TOOL_NAME_RULES.openai, ['search', 'web.search', 'web search'])
    expect(names.toProvider('search')).toBe('search')
    expect(names.toProvider('web.search')).toBe('web_search')
    expect(names.toProvider('web search')).toBe('web_search_2')
    expect(names.fromProvider('web_search_2')).toBe('web search')
    expect(names.fromProvider('nope')).toBeUndefined()
    expect(names.renamed).toEqual([
      { name: 'web.search', providerName: 'web_search' },
      { name: 'web search', providerName: 'web_search_2' },
    ])
    expect(JSON.parse(JSON.stringify(names))).toEqual({ provider: 'openai', renamed: names.renamed })
  })

  it('reserves legal names before renaming, so a legal name never changes', () => {
    const names = new ToolNameMap(TOOL_NAME_RULES.openai, ['a.b', 'a_b'])
    expect(names.toProvider('a_b')).toBe('a_b')
    expect(names.toProvider('a.b')).toBe('a_b_2')
  })

  it('applies each provider rule: Gemini names start with a letter or _, MCP allows dots, lengths are capped', () => {
    expect(new ToolNameMap(TOOL_NAME_RULES.gemini).toProvider('2fa-check')).toBe('_2fa-check')
    expect(new ToolNameMap(TOOL_NAME_RULES.openai).toProvider('2fa-check')).toBe('2fa-check')
    expect(new ToolNameMap(TOOL_NAME_RULES.mcp).toProvider('web.search')).toBe('web.search')
    expect(new ToolNameMap(TOOL_NAME_RULES.gemini).toProvider('ns:tool.v1')).toBe('ns:tool.v1')
    expect(new ToolNameMap(TOOL_NAME_RULES.anthropic).toProvider('x'.repeat(80))).toHaveLength(64)
    expect(new ToolNameMap(TOOL_NAME_RULES.gemini).toProvider('')).toBe('_')
  })

  it('always produces legal, unique, reversible names (property)', () => {
    for (const rule of Object.values(TOOL_NAME_RULES)) {
      fc.assert(
        fc.property(fc.uniqueArray(fc.string({ maxLength: 140 }), { maxLength: 12 }), (input) => {
          const names = new ToolNameMap(rule, input)
          const mapped = input.map((n) => names.toProvider(n))
          expect(new Set(mapped).size).toBe(input.length)
          for (const [i, name] of input.entries()) {
            expect(rule.pattern.test(mapped[i]!)).toBe(true)
            expect(names.fromProvider(mapped[i]!)).toBe(name)
            if (rule.pattern.test(name)) expect(mapped[i]).toBe(name)
          }
        }),
        { numRuns: 200 },
      )
    }
  })

  it('is what the collection builders report', () => {
    const { definitions, names } = toGeminiFunctionDeclarations([snapshot('1st'), snapshot('second')])
    expect(definitions.map((d) => d.name)).toEqual(['_1st', 'second'])
    expect(names.renamed).toEqual([{ name: '1st', providerName: '_1st' }])
    expect(toMcpTools([snapshot('a/b')]).names.renamed).toEqual([{ name: 'a/b', providerName: 'a_b' }])
  })
})
