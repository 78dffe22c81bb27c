import { describe, expect, it, vi } from 'vitest'
import { createDispatchContext, type ToolExecutionEndEvent } from '../../lib/index.js'

const end: ToolExecutionEndEvent = {
  toolName: 't',
  turnId: 'x',
  callId: 'c',
  startedAt: 0,
  endedAt: 1,
  durationMs: 1,
  isError: false,
}

describe('createDispatchContext', () => {
  it('has a uuid id by default and takes one when given', () => {
    expect(createDispatchContext().id).toMatch(/^[0-9a-f-]{36}$/)
    expect(createDispatchContext({ id: 'turn-1' }).id).toBe('turn-1')
    expect(createDispatchContext().id).not.toBe(createDispatchContext().id)
  })

  it('on/off add and remove listeners', () => {
    const ctx = createDispatchContext()
    const listener = vi.fn()
    ctx.on('toolExecutionEnd', listener)
    ctx.emitToolExecutionEnd(end)
    ctx.off('toolExecutionEnd', listener)
    ctx.emitToolExecutionEnd(end)
    expect(listener).toHaveBeenCalledTimes(1)
    expect(listener).toHaveBeenCalledWith(end)
  })

  it('takes initial listeners from options', () => {
    const onEnd = vi.fn()
    createDispatchContext({ onToolExecutionEnd: onEnd }).emitToolExecutionEnd(end)
    expect(onEnd).toHaveBeenCalledOnce()
  })

  it('abort(reason) aborts the signal with that reason', () => {
    const ctx = createDispatchContext()
    expect(ctx.abortSignal.aborted).toBe(false)
    const reason = new Error('stop')
    ctx.abort(reason)
    expect(ctx.abortSignal.aborted).toBe(true)
    expect(ctx.abortSignal.reason).toBe(reason)
  })

  it('follows an outer signal, already aborted or aborted later', () => {
    const outer = new AbortController()
    const ctx = createDispatchContext({ signal: outer.signal })
    outer.abort('later')
    expect(ctx.abortSignal.aborted).toBe(true)
    expect(ctx.abortSignal.reason).toBe('later')
    expect(createDispatchContext({ signal: AbortSignal.abort('now') }).abortSignal.reason).toBe('now')
  })

  it('keeps the idempotency scope', () => {
    expect(createDispatchContext({ idempotencyScope: 'run/node/0' }).idempotencyScope).toBe('run/node/0')
  })
})
