// OpenTelemetry spans with the real SDK: a tracer provider with an in-memory
// exporter is registered globally for this file and unregistered after it.
import { spawnSync } from 'node:child_process'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { context, propagation, SpanKind, SpanStatusCode, trace, type TextMapPropagator } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  Permissions,
  Tool,
  TurnRunner,
  createDispatchContext,
  createMcpServer,
  scriptedModel,
  toAiSdkTools,
  validator,
} from '../../lib/index.js'

const exporter = new InMemorySpanExporter()
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
const contextManager = new AsyncLocalStorageContextManager()

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable())
  trace.setGlobalTracerProvider(provider)
})
afterAll(async () => {
  // Other spec files must not inherit a registered provider or context manager.
  trace.disable()
  context.disable()
  await provider.shutdown()
})
beforeEach(() => exporter.reset())

const spans = (): ReadableSpan[] => exporter.getFinishedSpans()
const toolSpans = (): ReadableSpan[] => spans().filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool')
const parentId = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId

/** A tool whose args carry a secret its `redact` drops. */
const login = new Tool({
  name: 'login',
  description: 'Log in',
  inputSchema: validator.object({ user: validator.string().required(), password: validator.string().required() }),
  redact: ({ user }: { user: string; password: string }) => ({ user, password: '[redacted]' }),
  handler: async ({ user }: { user: string }) => `welcome ${user}`,
})

const failing = new Tool({
  name: 'flaky',
  description: 'Always fails',
  inputSchema: validator.object({}),
  handler: () => {
    throw Object.assign(new Error('upstream is down'), { code: 'UPSTREAM_DOWN' })
  },
})

describe('execute_tool spans', () => {
  it('a call is one execute_tool span with the GenAI attributes, and no arguments or result unless opted in', async () => {
    const result = await login.executor(createDispatchContext())({ user: 'ada', password: 'hunter2' })
    expect(result).toBe('welcome ada')
    const [span, ...others] = spans()
    expect(others).toEqual([])
    expect(span!.name).toBe('execute_tool login')
    expect(span!.kind).toBe(SpanKind.INTERNAL)
    expect(span!.status.code).toBe(SpanStatusCode.UNSET)
    expect(span!.instrumentationScope.name).toBe('toolsmith')
    expect(span!.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'login',
      'gen_ai.tool.type': 'function',
      'toolsmith.tool.call_id': expect.stringMatching(/^[0-9a-f]{64}$/),
    })
  })

  it('with the opt-ins, arguments are the redacted ones and the result is recorded', async () => {
    const ctx = createDispatchContext({ telemetry: { recordArguments: true, recordResults: true } })
    const seen: unknown[] = []
    ctx.on('toolExecutionStart', (e) => seen.push(e.callId))
    await login.executor(ctx)({ user: 'ada', password: 'hunter2' })
    const [span] = spans()
    expect(JSON.parse(span!.attributes['gen_ai.tool.call.arguments'] as string)).toEqual({ user: 'ada', password: '[redacted]' })
    expect(JSON.stringify(span!.attributes)).not.toContain('hunter2')
    expect(span!.attributes['gen_ai.tool.call.result']).toBe('welcome ada')
    // The kit's callId on the span is the one events carry.
    expect(span!.attributes['toolsmith.tool.call_id']).toBe(seen[0])
  })

  it('a failure carries error.type, the cause type and status ERROR, and no result', async () => {
    const ctx = createDispatchContext({ telemetry: { recordResults: true } })
    await expect(failing.executor(ctx)({})).rejects.toMatchObject({ code: 'E_TOOL_DOWNSTREAM_ERROR' })
    const [span] = spans()
    expect(span!.attributes['error.type']).toBe('E_TOOL_DOWNSTREAM_ERROR')
    expect(span!.attributes['toolsmith.error.cause_type']).toBe('UPSTREAM_DOWN')
    expect(span!.status).toEqual({ code: SpanStatusCode.ERROR, message: expect.stringContaining('upstream is down') })
    expect(span!.attributes['gen_ai.tool.call.result']).toBeUndefined()
  })

  it("a denied call's span carries TOOL_DENIED and the gate's decision; an allowed one the decision", async () => {
    const permissions = new Permissions({ policy: { rules: [{ tool: 'flaky', decision: 'deny', name: 'no flaky' }, { tool: '*', decision: 'allow' }] }, root: process.cwd() })
    const ctx = createDispatchContext({ permissions })
    await expect(failing.executor(ctx)({})).rejects.toMatchObject({ code: 'TOOL_DENIED' })
    await login.executor(ctx)({ user: 'ada', password: 'x' })
    const [denied, allowed] = spans()
    expect(denied!.attributes).toMatchObject({
      'error.type': 'TOOL_DENIED',
      'toolsmith.permission.decision': 'deny',
      'toolsmith.permission.approver': 'policy',
      'toolsmith.permission.rule': 'no flaky',
    })
    expect(denied!.status.code).toBe(SpanStatusCode.ERROR)
    expect(allowed!.attributes).toMatchObject({ 'toolsmith.permission.decision': 'allow', 'toolsmith.permission.approver': 'policy' })
    expect(allowed!.attributes['error.type']).toBeUndefined()
  })

  it('the span is a child of the active span, and the handler runs inside it', async () => {
    let handlerParent: string | undefined
    const probe = new Tool({
      name: 'probe',
      description: 'Reads the active span',
      inputSchema: validator.object({}),
      handler: () => {
        handlerParent = trace.getActiveSpan()?.spanContext().spanId
        return 'ok'
      },
    })
    const tracer = trace.getTracer('spec')
    await tracer.startActiveSpan('outer', async (outer) => {
      await probe.executor(createDispatchContext())({})
      outer.end()
    })
    const tool = toolSpans()[0]!
    const outer = spans().find((s) => s.name === 'outer')!
    expect(parentId(tool)).toBe(outer.spanContext().spanId)
    expect(tool.spanContext().traceId).toBe(outer.spanContext().traceId)
    expect(handlerParent).toBe(tool.spanContext().spanId)
  })

  it('invalid args make no span (the call never reached the gate)', async () => {
    await expect(login.executor(createDispatchContext())({ user: 'ada' })).rejects.toMatchObject({ code: 'E_INVALID_TOOL_ARGS' })
    expect(spans()).toEqual([])
  })
})

describe('an AI SDK tool call', () => {
  it("is an execute_tool span with the AI SDK's toolCallId", async () => {
    const { login: aiLogin } = toAiSdkTools([login], createDispatchContext())
    const execute = aiLogin!.execute as (input: unknown, options: { toolCallId: string; messages: [] }) => Promise<unknown>
    await execute({ user: 'ada', password: 'x' }, { toolCallId: 'call_ai_1', messages: [] })
    const [span] = toolSpans()
    expect(span!.name).toBe('execute_tool login')
    expect(span!.attributes['gen_ai.tool.call.id']).toBe('call_ai_1')
  })
})

describe('a TurnRunner turn', () => {
  it('nests the model calls and the tool calls under the invoke_agent span, itself under the active span', async () => {
    const script = scriptedModel([
      { toolCalls: [{ id: 'call_1', name: 'login', args: { user: 'ada', password: 'hunter2' } }, { id: 'call_2', name: 'flaky', args: {} }] },
      { text: 'done' },
    ])
    // What the model callback sees as the active span: a provider client's HTTP span would be its child.
    const activeInModel: (string | undefined)[] = []
    const runner = new TurnRunner({
      model: (request) => {
        activeInModel.push(trace.getActiveSpan()?.spanContext().spanId)
        return script(request)
      },
      tools: [login, failing],
      identity: { runId: 'run-7', nodeId: 'auth', iteration: 0, attempt: 1 },
      telemetry: { agentName: 'helper', providerName: 'openai', model: 'gpt-test', recordArguments: true },
    })
    const result = await trace.getTracer('spec').startActiveSpan('request', async (request) => {
      try {
        return await runner.run('log in')
      } finally {
        request.end()
      }
    })
    expect(result.text).toBe('done')
    const turn = spans().find((s) => s.attributes['gen_ai.operation.name'] === 'invoke_agent')!
    expect(parentId(turn)).toBe(spans().find((s) => s.name === 'request')!.spanContext().spanId)
    expect(turn.name).toBe('invoke_agent helper')
    expect(turn.attributes).toMatchObject({
      'gen_ai.agent.name': 'helper',
      'gen_ai.provider.name': 'openai',
      'toolsmith.run.id': 'run-7',
      'toolsmith.node.id': 'auth',
      'toolsmith.attempt': 1,
    })
    const turnId = turn.spanContext().spanId
    const models = spans().filter((s) => s.attributes['gen_ai.operation.name'] === 'chat')
    expect(models.map((s) => [s.name, s.kind, s.attributes['toolsmith.turn.step'], parentId(s)])).toEqual([
      ['chat gpt-test', SpanKind.CLIENT, 0, turnId],
      ['chat gpt-test', SpanKind.CLIENT, 1, turnId],
    ])
    expect(activeInModel).toEqual(models.map((s) => s.spanContext().spanId))
    // The two read-only calls run in parallel: sorted by the provider's id.
    const tools = toolSpans().sort((a, b) => String(a.attributes['gen_ai.tool.call.id']).localeCompare(String(b.attributes['gen_ai.tool.call.id'])))
    expect(tools.map((s) => [s.name, s.attributes['gen_ai.tool.call.id'], parentId(s), s.attributes['error.type']])).toEqual([
      ['execute_tool login', 'call_1', turnId, undefined],
      ['execute_tool flaky', 'call_2', turnId, 'E_TOOL_DOWNSTREAM_ERROR'],
    ])
    expect(JSON.parse(tools[0]!.attributes['gen_ai.tool.call.arguments'] as string)).toEqual({ user: 'ada', password: '[redacted]' })
    for (const span of [...models, ...tools]) expect(span.spanContext().traceId).toBe(turn.spanContext().traceId)
    // The tool failure went back to the model: the turn itself succeeded.
    expect(turn.status.code).toBe(SpanStatusCode.UNSET)
  })

  it("a failing model call fails its chat span and the turn's span", async () => {
    const runner = new TurnRunner({
      model: () => {
        throw Object.assign(new Error('rate limited'), { code: 'RATE_LIMITED' })
      },
      tools: [login],
    })
    await expect(runner.run('hi')).rejects.toThrow('rate limited')
    const byOperation = Object.fromEntries(spans().map((s) => [s.attributes['gen_ai.operation.name'], s]))
    expect(byOperation.chat!.name).toBe('chat')
    expect(byOperation.chat!.attributes['error.type']).toBe('RATE_LIMITED')
    expect(byOperation.invoke_agent!.name).toBe('invoke_agent')
    expect(byOperation.invoke_agent!.attributes['error.type']).toBe('RATE_LIMITED')
    expect(byOperation.invoke_agent!.status.code).toBe(SpanStatusCode.ERROR)
  })
})

describe('an MCP request', () => {
  async function connected(): Promise<{ client: Client; close: () => Promise<void> }> {
    const server = createMcpServer([login], { name: 'spec', version: '1.0.0' })
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
    await server.connect(serverTransport)
    const client = new Client({ name: 'spec-client', version: '1.0.0' })
    await client.connect(clientTransport)
    return { client, close: () => client.close() }
  }

  it("with _meta.traceparent puts the call's span in the client's trace, under the client's span", async () => {
    const { client, close } = await connected()
    try {
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736'
      const spanId = '00f067aa0ba902b7'
      const result = await client.callTool({
        name: 'login',
        arguments: { user: 'ada', password: 'x' },
        _meta: { traceparent: `00-${traceId}-${spanId}-01`, tracestate: 'rojo=00f067aa0ba902b7' },
      })
      expect(result.isError).toBeFalsy()
      const [span, ...others] = toolSpans()
      expect(others).toEqual([])
      expect(span!.spanContext().traceId).toBe(traceId)
      expect(parentId(span!)).toBe(spanId)
      expect(span!.parentSpanContext?.isRemote).toBe(true)
      expect(span!.spanContext().traceState?.get('rojo')).toBe('00f067aa0ba902b7')
      // MCP's JSON-RPC request id is the provider's id of the call.
      expect(span!.attributes['gen_ai.tool.call.id']).toEqual(expect.any(String))
    } finally {
      await close()
    }
  })

  it('a registered propagator reads _meta in its own format', async () => {
    // A made-up format, `_meta.parent` = `traceId/spanId`: the application's propagator, not the kit, knows it.
    const custom: TextMapPropagator = {
      inject: () => undefined,
      fields: () => ['parent'],
      extract: (ctx, carrier, getter) => {
        const [traceId, spanId] = String(getter.get(carrier, 'parent') ?? '').split('/')
        return traceId && spanId ? trace.setSpanContext(ctx, { traceId, spanId, traceFlags: 1, isRemote: true }) : ctx
      },
    }
    propagation.setGlobalPropagator(custom)
    const { client, close } = await connected()
    try {
      await client.callTool({ name: 'login', arguments: { user: 'ada', password: 'x' }, _meta: { parent: 'aaaabbbbccccddddaaaabbbbccccdddd/1111222233334444' } })
      const [span] = toolSpans()
      expect(span!.spanContext().traceId).toBe('aaaabbbbccccddddaaaabbbbccccdddd')
      expect(parentId(span!)).toBe('1111222233334444')
    } finally {
      propagation.disable()
      await close()
    }
  })

  it('without a valid traceparent starts a trace of its own', async () => {
    const { client, close } = await connected()
    try {
      await client.callTool({ name: 'login', arguments: { user: 'ada', password: 'x' }, _meta: { traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01' } })
      await client.callTool({ name: 'login', arguments: { user: 'ada', password: 'x' } })
      const made = toolSpans()
      expect(made).toHaveLength(2)
      for (const span of made) {
        expect(span.parentSpanContext).toBeUndefined()
        expect(span.spanContext().traceId).not.toBe('00000000000000000000000000000000')
      }
    } finally {
      await close()
    }
  })
})

describe('with no tracer provider registered', () => {
  it('no span is made', async () => {
    trace.disable()
    try {
      await login.executor(createDispatchContext())({ user: 'ada', password: 'x' })
      await new TurnRunner({ model: scriptedModel([{ toolCalls: [{ id: 'c', name: 'login', args: { user: 'a', password: 'b' } }] }]), tools: [login] }).run('go')
    } finally {
      trace.setGlobalTracerProvider(provider)
    }
    expect(spans()).toEqual([])
    // Registered again, the next call is traced: the tracer lookup is not stuck on "none".
    await login.executor(createDispatchContext())({ user: 'ada', password: 'x' })
    expect(toolSpans()).toHaveLength(1)
  })

  it('importing the kit and calling tools never loads @opentelemetry/api', () => {
    const script = `
      import { createRequire } from 'node:module'
      const kit = await import(${JSON.stringify(new URL('../../lib/index.ts', import.meta.url).href)})
      const tool = new kit.Tool({ name: 'echo', description: '', inputSchema: kit.validator.object({}), handler: () => 'ok' })
      await tool.executor(kit.createDispatchContext())({})
      await new kit.TurnRunner({ model: kit.scriptedModel([{ toolCalls: [{ id: 'c', name: 'echo', args: {} }] }]), tools: [tool] }).run('go')
      const otel = () => Object.keys(createRequire(import.meta.url).cache).filter((file) => file.includes('/@opentelemetry/'))
      const before = otel()
      // The control: once something is registered with the API's global registry, the next call looks the API up.
      globalThis[Symbol.for('opentelemetry.js.api.1')] = { version: '1.9.1', trace: {} }
      const after = await tool.executor(kit.createDispatchContext())({}).then(otel)
      process.stdout.write(JSON.stringify({ before, after: after.length }))
    `
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', cwd: process.cwd() })
    expect(result.status, result.stderr).toBe(0)
    const { before, after } = JSON.parse(result.stdout) as { before: string[]; after: number }
    expect(before).toEqual([])
    expect(after).toBeGreaterThan(0)
  })
})
