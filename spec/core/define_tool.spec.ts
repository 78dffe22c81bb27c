import { describe, expect, it, vi } from 'vitest'
import {
  Tool,
  createDispatchContext,
  defineTool,
  getDefinedToolMetadata,
  validator,
  type ToolCallInfo,
} from '../../lib/index.js'

const schema = validator.object({ sku: validator.string().required() })

describe('defineTool', () => {
  it('returns a Tool with description defaulting to the name and idempotent to !sideEffect', () => {
    const lookup = defineTool({ name: 'lookup', schema, execute: async ({ sku }) => `found ${sku}` })
    expect(Tool.isTool(lookup)).toBe(true)
    expect(lookup.description).toBe('lookup')
    expect(getDefinedToolMetadata(lookup)).toEqual({ name: 'lookup', sideEffect: false, idempotent: true })

    const order = defineTool({
      name: 'order',
      description: 'Place an order',
      schema,
      sideEffect: true,
      execute: async (_args, _call) => 'ok',
    })
    expect(order.description).toBe('Place an order')
    expect(getDefinedToolMetadata(order)).toEqual({ name: 'order', sideEffect: true, idempotent: false })

    const upsert = defineTool({ name: 'upsert', schema, sideEffect: true, idempotent: true, execute: async () => 'ok' })
    expect(getDefinedToolMetadata(upsert)).toEqual({ name: 'upsert', sideEffect: true, idempotent: true })
  })

  it('passes validated args and the call info (with idempotency key) to execute', async () => {
    let seen: { args: unknown; call: ToolCallInfo } | undefined
    const order = defineTool({
      name: 'order2',
      schema,
      sideEffect: true,
      idempotent: false,
      execute: async (args, call) => {
        seen = { args, call }
        return `ordered ${args.sku} with ${call.idempotencyKey.slice(0, 8)}`
      },
    })
    const result = await order.executor(createDispatchContext({ idempotencyScope: 's' }))({ sku: 'A1' })
    expect(seen!.args).toEqual({ sku: 'A1' })
    expect(seen!.call.toolName).toBe('order2')
    expect(result).toBe(`ordered A1 with ${seen!.call.idempotencyKey.slice(0, 8)}`)
    expect(seen!.call.idempotencyKey).toMatch(/^[0-9a-f]{64}$/)
  })

  it('takes redact (events record it) and reconcile (the Tool carries it), like new Tool', async () => {
    const reconcile = async () => ({ applied: false as const })
    const order = defineTool({
      name: 'order3',
      schema,
      sideEffect: true,
      idempotent: false,
      redact: ({ sku }) => ({ sku: `${sku.slice(0, 1)}…` }),
      reconcile,
      execute: async (args, call) => `ordered ${args.sku} ${call.callId.length}`,
    })
    expect(order.reconcile).toBe(reconcile)
    const ctx = createDispatchContext()
    const logged: unknown[] = []
    ctx.on('toolExecutionStart', (event) => logged.push(event.args))
    expect(await order.executor(ctx)({ sku: 'A1' })).toBe('ordered A1 64')
    expect(logged).toEqual([{ sku: 'A…' }])
    expect(defineTool({ name: 'plain', schema, execute: async () => 'ok' }).reconcile).toBeUndefined()
  })

  it('warns once when a non-idempotent side-effect execute omits the call parameter', () => {
    const spy = vi.spyOn(process, 'emitWarning').mockImplementation(() => {})
    try {
      const name = `send_email_${Math.random().toString(36).slice(2)}`
      defineTool({ name, schema, sideEffect: true, idempotent: false, execute: async () => 'sent' })
      defineTool({ name, schema, sideEffect: true, idempotent: false, execute: async () => 'sent' })
      expect(spy.mock.calls.filter((c) => String(c[0]).includes(name))).toHaveLength(1)
      const ok = `send_ok_${Math.random().toString(36).slice(2)}`
      defineTool({ name: ok, schema, sideEffect: true, idempotent: false, execute: async (_a, _call) => 'sent' })
      defineTool({ name: `${ok}_ro`, schema, execute: async () => 'read' })
      expect(spy.mock.calls.filter((c) => String(c[0]).includes(ok))).toHaveLength(0)
    } finally {
      spy.mockRestore()
    }
  })
})

describe('getDefinedToolMetadata', () => {
  it('returns null for non-tools and non-objects', () => {
    for (const value of [null, undefined, 1, 'read', {}, [], () => {}, { name: 'x' }]) {
      expect(getDefinedToolMetadata(value)).toBeNull()
    }
  })

  it('reads the metadata symbol on foreign objects', () => {
    const foreign = { [Symbol.for('toolsmith.tool.metadata')]: { name: 'x', sideEffect: true, idempotent: false } }
    expect(getDefinedToolMetadata(foreign)).toEqual({ name: 'x', sideEffect: true, idempotent: false })
  })
})
