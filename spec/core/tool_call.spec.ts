import { describe, expect, it } from 'vitest'
import {
  E_INVALID_INITIAL_TOOL_CALL_VALUE,
  SpooledArtifact,
  Tool,
  ToolCall,
  ValidationException,
  canonicalStringify,
  createDispatchContext,
  sha256Hex,
  validator,
} from '../../lib/index.js'

function invalid(raw: unknown): E_INVALID_INITIAL_TOOL_CALL_VALUE {
  try {
    new ToolCall(raw as never)
  } catch (error) {
    expect(error).toBeInstanceOf(E_INVALID_INITIAL_TOOL_CALL_VALUE)
    return error as E_INVALID_INITIAL_TOOL_CALL_VALUE
  }
  throw new Error('expected the constructor to throw')
}

describe('ToolCall', () => {
  it('records a pending call with defaults', () => {
    const before = Date.now()
    const call = new ToolCall({ id: 'call_1', tool: 'read', args: { path: 'a.txt' } })
    expect(call.id).toBe('call_1')
    expect(call.tool).toBe('read')
    expect(call.args).toEqual({ path: 'a.txt' })
    expect(call.isComplete).toBe(false)
    expect(call.isError).toBe(false)
    expect(call.results).toBeUndefined()
    expect(call.error).toBeUndefined()
    expect(call.createdAt).toBeInstanceOf(Date)
    expect(call.createdAt.getTime()).toBeGreaterThanOrEqual(before)
    expect(call.completedAt).toBeUndefined()
  })

  it('checksum equals the executor callId for the same tool and args, whatever the key order', async () => {
    let seen = ''
    const tool = new Tool({
      name: 'echo',
      description: 'echo',
      inputSchema: validator.object({ a: validator.number(), b: validator.string() }),
      handler: (args) => JSON.stringify(args),
    })
    const ctx = createDispatchContext({ onToolExecutionStart: (e) => (seen = e.callId) })
    await tool.executor(ctx)({ a: 1, b: 'x' })
    const call = new ToolCall({ id: 'p1', tool: 'echo', args: { b: 'x', a: 1 } })
    expect(call.checksum).toBe(seen)
    expect(call.checksum).toBe(sha256Hex(canonicalStringify({ tool: 'echo', args: { a: 1, b: 'x' } })))
    expect(ToolCall.checksumOf('echo', { a: 2, b: 'x' })).not.toBe(call.checksum)
  })

  it('is immutable: args are a deep-frozen copy and dates are copies', () => {
    const args = { nested: { list: [1, 2] } }
    const createdAt = new Date('2026-01-01T00:00:00Z')
    const call = new ToolCall({ id: 'c', tool: 't', args, createdAt })
    args.nested.list.push(3)
    createdAt.setFullYear(1999)
    expect(call.args).toEqual({ nested: { list: [1, 2] } })
    expect(Object.isFrozen(call.args)).toBe(true)
    expect(() => {
      ;(call.args as { nested: { list: number[] } }).nested.list.push(4)
    }).toThrow(TypeError)
    call.createdAt.setFullYear(1990)
    expect(call.createdAt.toISOString()).toBe('2026-01-01T00:00:00.000Z')
    expect(() => {
      ;(call as unknown as { id: string }).id = 'other'
    }).toThrow(TypeError)
  })

  it('complete() and fail() return new records and leave the original alone', async () => {
    const pending = new ToolCall({ id: 'c', tool: 't', args: {} })
    const artifact = await SpooledArtifact.fromResult('output')
    const done = pending.complete(artifact, new Date('2026-02-02T00:00:00Z'))
    expect(done).not.toBe(pending)
    expect(pending.isComplete).toBe(false)
    expect(done.isComplete).toBe(true)
    expect(done.isError).toBe(false)
    expect(done.results).toBe(artifact)
    expect(done.completedAt?.toISOString()).toBe('2026-02-02T00:00:00.000Z')
    expect(done.checksum).toBe(pending.checksum)
    expect(done.createdAt.getTime()).toBe(pending.createdAt.getTime())

    const cause = new Error('boom')
    const failed = pending.fail(cause)
    expect(failed.isComplete).toBe(true)
    expect(failed.isError).toBe(true)
    expect(failed.error).toBe(cause)
    expect(failed.results).toBeUndefined()
    expect(pending.isError).toBe(false)
  })

  it('refuses to complete twice', async () => {
    const done = new ToolCall({ id: 'c', tool: 't' }).complete()
    expect(() => done.complete()).toThrow(E_INVALID_INITIAL_TOOL_CALL_VALUE)
    expect(() => done.fail('x')).toThrow(E_INVALID_INITIAL_TOOL_CALL_VALUE)
  })

  it('validates the raw value and keeps the joi failure as cause', () => {
    const error = invalid({ id: '', tool: 5, extra: true })
    expect(error.cause).toBeInstanceOf(ValidationException)
    expect(error.message).toMatch(/"id"/)
    expect(error.message).toMatch(/"tool"/)
    expect(error.message).toMatch(/extra/)
  })

  it('enforces the consistency rules', async () => {
    const artifact = await SpooledArtifact.fromResult('x')
    expect(invalid({ id: 'a', tool: 't', isError: true, isComplete: false }).message).toMatch(/isError/)
    expect(invalid({ id: 'a', tool: 't', isComplete: true }).message).toMatch(/completedAt/)
    expect(invalid({ id: 'a', tool: 't', completedAt: new Date() }).message).toMatch(/completedAt/)
    expect(invalid({ id: 'a', tool: 't', results: artifact }).message).toMatch(/results/)
    expect(invalid({ id: 'a', tool: 't', results: 'text', isComplete: true, completedAt: new Date() }).message).toMatch(
      /SpooledArtifact/,
    )
    expect(invalid({ id: 'a', tool: 't', checksum: 'not-hex' }).message).toMatch(/checksum/)
    expect(invalid({ id: 'a', tool: 't', createdAt: '2026-01-01' }).message).toMatch(/createdAt/)
  })

  it('rejects args that cannot be canonicalised', () => {
    const error = invalid({ id: 'a', tool: 't', args: { n: Number.NaN } })
    expect(error.cause).toBeDefined()
  })

  it('toJSON is plain JSON with ISO dates and the error described', () => {
    const failed = new ToolCall({ id: 'a', tool: 't', args: { x: 1 }, createdAt: new Date(0) }).fail(
      Object.assign(new Error('nope'), { code: 'E_X' }),
      new Date(1000),
    )
    const json = JSON.parse(JSON.stringify(failed))
    expect(json).toEqual({
      id: 'a',
      tool: 't',
      args: { x: 1 },
      checksum: failed.checksum,
      isComplete: true,
      isError: true,
      hasResults: false,
      error: { name: 'Error', message: 'nope', code: 'E_X' },
      createdAt: '1970-01-01T00:00:00.000Z',
      completedAt: '1970-01-01T00:00:01.000Z',
    })
  })

  it('isToolCall and schema', () => {
    const call = new ToolCall({ id: 'a', tool: 't' })
    expect(ToolCall.isToolCall(call)).toBe(true)
    expect(ToolCall.isToolCall({ id: 'a', tool: 't' })).toBe(false)
    expect(ToolCall.isToolCall({ [Symbol.for('toolsmith.tool_call')]: true })).toBe(true)
    expect(validator.isSchema(ToolCall.schema)).toBe(true)
  })
})
