/**
 * A provider definition of a live tool uses the tool's own joi schema: the
 * snapshot `tool.describe()` hands out is mapped back to it, never rebuilt
 * with `validator.build()`, and joi describes a schema once. A snapshot the
 * caller changed is rebuilt, so what it says is what the definition says.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Tool, toAnthropicTool, toJsonSchema, toOpenAITool, validator } from '../../lib/index.js'

const forecast = () =>
  new Tool({
    name: 'forecast',
    description: 'Weather for a city',
    inputSchema: validator.object({ city: validator.string().required().example('Oslo'), days: validator.number().integer().min(1).max(7) }),
    handler: () => 'sunny',
  })

afterEach(() => {
  vi.restoreAllMocks()
})

describe('provider definitions of a live tool', () => {
  it('build no schema back from its description', () => {
    const tool = forecast()
    const build = vi.spyOn(validator, 'build')
    const openai = toOpenAITool(tool)
    const anthropic = toAnthropicTool(tool)
    expect(build).not.toHaveBeenCalled()
    expect(openai.function.parameters).toMatchObject({ properties: { city: { type: 'string', examples: ['Oslo'] } }, required: ['city'] })
    expect(anthropic.input_schema).toMatchObject({ properties: { days: { type: 'integer', minimum: 1, maximum: 7 } } })
  })

  it('describe() still hands out a fresh copy each call', () => {
    const tool = forecast()
    const first = tool.describe()
    ;(first.inputSchema as { keys: Record<string, unknown> }).keys.city = 'changed'
    expect((tool.describe().inputSchema as { keys: Record<string, unknown> }).keys.city).toMatchObject({ type: 'string' })
  })

  it('a snapshot the caller changed is rebuilt, and the change shows', () => {
    const tool = forecast()
    const snapshot = tool.describe().inputSchema as { keys: Record<string, { flags?: Record<string, unknown> }> }
    snapshot.keys.city.flags = { ...snapshot.keys.city.flags, description: 'The city, in English' }
    const build = vi.spyOn(validator, 'build')
    const json = toJsonSchema(snapshot as never) as { properties: { city: { description?: string } } }
    expect(build).toHaveBeenCalledTimes(1)
    expect(json.properties.city.description).toBe('The city, in English')
    // An unchanged snapshot of the same tool maps back to the live schema.
    build.mockClear()
    expect(toJsonSchema(tool.describe().inputSchema as never)).toEqual(toJsonSchema(tool.inputSchema as never))
    expect(build).not.toHaveBeenCalled()
  })
})
