import { toolLikeList } from '../../lib/entries/internal.js'
import { describe, expect, it } from 'vitest'
import {
  ToolRegistry,
  createDispatchContext,
  createCallContext,
  isToolDescription,
  toToolDescription,
  toolInputSchema,
  toolResultToText,
  toOpenAITools,
  validator,
} from '../../lib/index.js'
import { createFailingTool, createTicketTool } from './support/custom_tools.js'

describe('ToolLike inputs', () => {
  it('accepts arrays, records, iterables and registries, mixing tools and snapshots', () => {
    const ticket = createTicketTool()
    const explode = createFailingTool()
    const registry = new ToolRegistry([ticket, explode]).hide('explode')
    expect(toolLikeList(registry)).toEqual([ticket])
    expect(toolLikeList({ a: ticket, b: explode.describe() }).map((t) => t.name)).toEqual(['create_ticket', 'explode'])
    expect(toolLikeList(new Set([ticket])).map((t) => t.name)).toEqual(['create_ticket'])
    expect(toOpenAITools(registry).definitions.map((d) => d.function.name)).toEqual(['create_ticket'])
    expect(() => toolLikeList([ticket, { name: 'nope' }] as never)).toThrow(expect.objectContaining({ code: 'E_NOT_A_TOOL' }))
  })

  it('normalises snapshots and rebuilds their joi schema', () => {
    const described = createTicketTool().describe()
    expect(isToolDescription(described)).toBe(true)
    expect(isToolDescription({ ...described, inputSchema: validator.string().describe() })).toBe(false)
    const { sideEffect: _s, idempotent: _i, description: _d, ...bare } = described
    expect(toToolDescription(bare as never)).toMatchObject({ description: '', sideEffect: false, idempotent: true })
    expect(toolInputSchema(described).validate({ title: 'ok title' }).value).toMatchObject({ priority: 'normal' })
  })
})

describe('createCallContext and toolResultToText', () => {
  it('combines the turn signal with the call signal without aborting the turn', () => {
    const ctx = createDispatchContext({ id: 'turn', idempotencyScope: 'scope' })
    const call = new AbortController()
    const callCtx = createCallContext(ctx, { toolCallId: 'c1', signal: call.signal })
    expect(callCtx).toMatchObject({ id: 'turn', idempotencyScope: 'scope', toolCallId: 'c1' })
    call.abort()
    expect(callCtx.abortSignal.aborted).toBe(true)
    expect(ctx.abortSignal.aborted).toBe(false)
    const other = createCallContext(ctx, { toolCallId: 'c2', signal: new AbortController().signal })
    ctx.abort('stop')
    expect(other.abortSignal.aborted).toBe(true)
  })

  it('turns strings, bytes and artifacts into text', async () => {
    expect(await toolResultToText('x')).toBe('x')
    expect(await toolResultToText(new TextEncoder().encode('héllo'))).toBe('héllo')
    expect(await toolResultToText({ asString: async () => 'from artifact' } as never)).toBe('from artifact')
  })
})
