import { getEventListeners } from 'node:events'
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

  it('links a long-lived turn signal with one listener, however many calls, and still aborts an in-flight call', () => {
    const ctx = createDispatchContext()
    expect(getEventListeners(ctx.abortSignal, 'abort')).toHaveLength(0)
    // Many finished calls: each had its own signal, none was aborted.
    let abortedEarly = 0
    for (let i = 0; i < 1_000; i++) {
      if (createCallContext(ctx, { toolCallId: `c${i}`, signal: new AbortController().signal }).abortSignal.aborted) abortedEarly++
    }
    expect(abortedEarly).toBe(0)
    // A link by hand that is never undone would leave 1,000 listeners here. (What Node 20's
    // AbortSignal.any retains instead, a WeakRef per call, is measured by the mcp-soak bench figure.)
    expect(getEventListeners(ctx.abortSignal, 'abort').length).toBeLessThanOrEqual(1)
    const inFlight = createCallContext(ctx, { toolCallId: 'live', signal: new AbortController().signal })
    const reasons: unknown[] = []
    inFlight.abortSignal.addEventListener('abort', () => reasons.push(inFlight.abortSignal.reason))
    ctx.abort('server shutting down')
    expect(inFlight.abortSignal.aborted).toBe(true)
    expect(reasons).toEqual(['server shutting down'])
    // After the turn is aborted a new call context starts aborted, with the same reason.
    const late = createCallContext(ctx, { toolCallId: 'late', signal: new AbortController().signal })
    expect(late.abortSignal.aborted).toBe(true)
    expect(late.abortSignal.reason).toBe('server shutting down')
  })

  it('a call aborted by its own signal leaves the turn and the other calls running', () => {
    const ctx = createDispatchContext()
    const first = new AbortController()
    const a = createCallContext(ctx, { toolCallId: 'a', signal: first.signal })
    const b = createCallContext(ctx, { toolCallId: 'b', signal: new AbortController().signal })
    first.abort('client cancelled')
    expect(a.abortSignal.reason).toBe('client cancelled')
    expect(b.abortSignal.aborted).toBe(false)
    expect(ctx.abortSignal.aborted).toBe(false)
    // The call's own signal carries one listener too, and it is gone once it fired.
    expect(getEventListeners(first.signal, 'abort')).toHaveLength(0)
  })

  it('turns strings, bytes and artifacts into text', async () => {
    expect(await toolResultToText('x')).toBe('x')
    expect(await toolResultToText(new TextEncoder().encode('héllo'))).toBe('héllo')
    expect(await toolResultToText({ asString: async () => 'from artifact' } as never)).toBe('from artifact')
  })
})
