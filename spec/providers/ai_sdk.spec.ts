import { trackedMkdtemp } from '../support/temp_dirs.js'
import { execFile } from 'node:child_process'
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult, LanguageModelV3StreamPart } from '@ai-sdk/provider'
import { asSchema, generateText, jsonSchema, stepCountIs, streamText, type ModelMessage, type ToolSet } from 'ai'
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test'
import { describe, expect, it, vi } from 'vitest'
import { getEventListeners } from 'node:events'
import {
  Permissions,
  Tool,
  createDispatchContext,
  createTools,
  toAiSdkTools,
  toJsonSchema,
  validator,
  type ProviderCallContext,
  type ToolExecutionEndEvent,
} from '../../lib/index.js'
import { createFailingTool, createTicketTool } from './support/custom_tools.js'

const LIB = resolve(dirname(fileURLToPath(import.meta.url)), '../../lib')

type Call = { toolCallId: string; toolName: string; input: unknown }

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
}

function callsStep(...calls: Call[]): LanguageModelV3GenerateResult {
  return {
    content: calls.map((c) => ({ type: 'tool-call' as const, toolCallId: c.toolCallId, toolName: c.toolName, input: JSON.stringify(c.input) })),
    finishReason: { unified: 'tool-calls', raw: undefined },
    usage,
    warnings: [],
  }
}

function textStep(text: string): LanguageModelV3GenerateResult {
  return { content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] }
}

/** A mock model (the SDK's own) that replays `steps` and records every prompt it was sent. */
function scriptedModel(steps: LanguageModelV3GenerateResult[]) {
  const calls: LanguageModelV3CallOptions[] = []
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      calls.push(options)
      const step = steps[calls.length - 1]
      if (!step) throw new Error(`model called ${calls.length} times, only ${steps.length} steps scripted`)
      return step
    },
  })
  return { model, calls }
}

/** The tool results (or errors) the model received in one prompt, by call id. */
function toolOutputs(options: LanguageModelV3CallOptions): Record<string, { type: string; value: unknown }> {
  const outputs: Record<string, { type: string; value: unknown }> = {}
  for (const message of options.prompt) {
    if (message.role !== 'tool') continue
    for (const part of message.content) {
      if (part.type === 'tool-result') outputs[part.toolCallId] = part.output as { type: string; value: unknown }
    }
  }
  return outputs
}

describe('toAiSdkTools with generateText and the SDK mock model', () => {
  it('sends our definitions, runs custom tools, and returns results and errors to the model', async () => {
    const ticket = createTicketTool()
    const ends: ToolExecutionEndEvent[] = []
    const ctx = createDispatchContext({ onToolExecutionEnd: (e) => ends.push(e) })
    const tools = toAiSdkTools([ticket, createFailingTool()], ctx)
    const { model, calls } = scriptedModel([
      // Strict-style arguments: nulls for optional fields are dropped before joi sees them.
      callsStep({ toolCallId: 'c1', toolName: 'create_ticket', input: { title: 'Crash', priority: null, labels: null } }),
      callsStep(
        { toolCallId: 'c2', toolName: 'create_ticket', input: { title: 'no' } },
        { toolCallId: 'c3', toolName: 'explode', input: { reason: 'why' } },
      ),
      textStep('done'),
    ])

    const result = await generateText({ model, tools, prompt: 'file a ticket', stopWhen: stepCountIs(5) })

    expect(result.text).toBe('done')
    expect(calls).toHaveLength(3)
    const offered = calls[0]!.tools!.map((t) => (t.type === 'function' ? { name: t.name, description: t.description, inputSchema: t.inputSchema } : t))
    expect(offered).toEqual([
      { name: 'create_ticket', description: ticket.description, inputSchema: toJsonSchema(ticket.inputSchema) },
      { name: 'explode', description: 'Always fails.', inputSchema: toJsonSchema(createFailingTool().inputSchema) },
    ])
    expect(toolOutputs(calls[1]!)).toEqual({ c1: { type: 'text', value: 'TICKET-1 Crash (normal)' } })
    const second = toolOutputs(calls[2]!)
    expect(second.c2).toEqual({ type: 'error-text', value: expect.stringMatching(/^E_INVALID_TOOL_ARGS: .*"title" length must be at least 3/) })
    expect(second.c3).toEqual({ type: 'error-text', value: 'BOOM: exploded: why [explode failed; E_TOOL_DOWNSTREAM_ERROR]' })
    // Errors are tool errors in the step's content, with our exception (class, code, cause) attached.
    const errors = result.steps[1]!.content.filter((p) => p.type === 'tool-error')
    expect(errors.map((e) => (e as { error: { code: string } }).error.code)).toEqual(['E_INVALID_TOOL_ARGS', 'E_TOOL_DOWNSTREAM_ERROR'])
    expect((errors[1] as { error: Error }).error.cause).toMatchObject({ code: 'BOOM' })
    // ai@6 sends the model `error.message`, ai@7 `String(error)`: both are the one failure text, nothing in front.
    expect(errors.map((e) => String((e as { error: Error }).error))).toEqual(errors.map((e) => (e as { error: Error }).error.message))
    // Executed calls went through tool.executor(ctx); invalid args emit no events.
    expect(ends.map((e) => `${e.toolName}:${e.isError}`)).toEqual(['create_ticket:false', 'explode:true'])
  })

  it('read → edit (failing, then fixed) → bash on a temp project with the built-ins', async () => {
    const root = trackedMkdtemp(join(tmpdir(), 'toolsmith-ai-sdk-'))
    mkdirSync(join(root, 'src'))
    writeFileSync(join(root, 'src/math.js'), 'export const add = (a, b) => a - b\n')
    writeFileSync(join(root, 'check.mjs'), "import { add } from './src/math.js'\nconsole.log(add(2, 3) === 5 ? 'PASS' : 'FAIL')\n")
    const builtins = createTools({ rootDir: root })
    const ctx = createDispatchContext()
    const wrongPatch = '--- a/src/math.js\n+++ b/src/math.js\n@@ -1 +1 @@\n-export const add = (a, b) => a * b\n+export const add = (a, b) => a + b\n'
    const patch = '--- a/src/math.js\n+++ b/src/math.js\n@@ -1 +1 @@\n-export const add = (a, b) => a - b\n+export const add = (a, b) => a + b\n'
    const { model, calls } = scriptedModel([
      callsStep({ toolCallId: 'read-1', toolName: 'read', input: { path: 'src/math.js' } }),
      callsStep({ toolCallId: 'edit-1', toolName: 'edit', input: { path: 'src/math.js', patch: wrongPatch } }),
      callsStep({ toolCallId: 'edit-2', toolName: 'edit', input: { path: 'src/math.js', patch } }),
      callsStep({ toolCallId: 'bash-1', toolName: 'bash', input: { cmd: process.execPath, args: ['check.mjs'] } }),
      textStep('fixed'),
    ])

    const result = await generateText({ model, tools: toAiSdkTools(Object.values(builtins), ctx), prompt: 'fix add()', stopWhen: stepCountIs(10) })

    expect(result.text).toBe('fixed')
    expect(calls[0]!.tools!.map((t) => t.name).sort()).toEqual(['bash', 'edit', 'grep', 'read', 'write'])
    for (const offered of calls[0]!.tools!) {
      const tool = builtins[offered.name as keyof typeof builtins]
      expect(offered).toMatchObject({ type: 'function', description: tool.description, inputSchema: toJsonSchema(tool.inputSchema) })
    }
    expect(toolOutputs(calls[1]!)['read-1']).toEqual({ type: 'text', value: 'export const add = (a, b) => a - b\n' })
    expect(toolOutputs(calls[2]!)['edit-1']).toEqual({
      type: 'error-text',
      value: expect.stringMatching(/^TOOL_PATCH_FAILED: [^\n]* \[edit failed; E_TOOL_DOWNSTREAM_ERROR\]$/),
    })
    expect(toolOutputs(calls[3]!)['edit-2']).toEqual({ type: 'text', value: 'ok' })
    expect(toolOutputs(calls[4]!)['bash-1']).toEqual({ type: 'text', value: 'PASS\n' })
    expect(readFileSync(join(root, 'src/math.js'), 'utf8')).toBe('export const add = (a, b) => a + b\n')
  })

  it("hands the SDK's toolCallId and abortSignal to the handler through a per-call context", async () => {
    let seen: { toolCallId: string } | undefined
    let aborted = false
    const controller = new AbortController()
    const probe = new Tool({
      name: 'probe',
      description: 'Reports what it sees, then waits for cancellation',
      inputSchema: validator.object({ wait: validator.boolean().default(false) }),
      handler: async ({ wait }, callCtx, _meta, call) => {
        seen = { toolCallId: (callCtx as ProviderCallContext).toolCallId }
        if (!wait) return 'seen'
        controller.abort(new Error('user cancelled'))
        await new Promise((r) => setTimeout(r, 10))
        aborted = call.signal.aborted
        return 'stopped'
      },
    })
    const ctx = createDispatchContext()
    const tools = toAiSdkTools({ probe }, ctx)
    const first = scriptedModel([callsStep({ toolCallId: 'sdk-call-7', toolName: 'probe', input: {} }), textStep('ok')])
    await generateText({ model: first.model, tools, prompt: 'go', stopWhen: stepCountIs(3) })
    expect(seen).toEqual({ toolCallId: 'sdk-call-7' })

    const second = scriptedModel([callsStep({ toolCallId: 'sdk-call-8', toolName: 'probe', input: { wait: true } }), textStep('ok')])
    await generateText({ model: second.model, tools, prompt: 'go', stopWhen: stepCountIs(3), abortSignal: controller.signal }).catch(() => undefined)
    expect(seen?.toolCallId).toBe('sdk-call-8')
    expect(aborted).toBe(true)
    expect(ctx.abortSignal.aborted).toBe(false)
  })

  it('links the turn context to each call only while it runs: finished calls leave no listener, aborting the turn aborts a running call', async () => {
    let release: () => void = () => undefined
    let signalSeen: AbortSignal | undefined
    let waiting = false
    const waiter = new Tool({
      name: 'waiter',
      description: 'Waits until released or cancelled',
      inputSchema: validator.object({ wait: validator.boolean().required() }),
      handler: async ({ wait }, _ctx, _meta, call) => {
        signalSeen = call.signal
        if (!wait) return 'done'
        waiting = true
        await new Promise<void>((resolve) => {
          release = resolve
          call.signal.addEventListener('abort', () => resolve(), { once: true })
        })
        return call.signal.aborted ? 'cancelled' : 'released'
      },
    })
    const ctx = createDispatchContext()
    const tools = toAiSdkTools({ waiter }, ctx)
    const controller = new AbortController()
    for (let i = 0; i < 5; i++) {
      const model = scriptedModel([callsStep({ toolCallId: `quick-${i}`, toolName: 'waiter', input: { wait: false } }), textStep('ok')])
      await generateText({ model: model.model, tools, prompt: 'go', stopWhen: stepCountIs(3), abortSignal: controller.signal })
    }
    expect(getEventListeners(ctx.abortSignal, 'abort')).toHaveLength(0)
    expect(getEventListeners(controller.signal, 'abort').length).toBeLessThanOrEqual(1)

    const model = scriptedModel([callsStep({ toolCallId: 'slow', toolName: 'waiter', input: { wait: true } }), textStep('ok')])
    const running = generateText({ model: model.model, tools, prompt: 'go', stopWhen: stepCountIs(3), abortSignal: controller.signal })
    await vi.waitFor(() => expect(waiting).toBe(true), { timeout: 10_000 })
    expect(signalSeen?.aborted).toBe(false)
    expect(getEventListeners(ctx.abortSignal, 'abort')).toHaveLength(1)
    ctx.abort(new Error('turn over'))
    await running.catch(() => undefined)
    expect(signalSeen?.aborted).toBe(true)
    expect(getEventListeners(ctx.abortSignal, 'abort')).toHaveLength(0)
    release()
  })

  it("produces schemas the SDK's asSchema recognises as ready JSON Schema, like its own jsonSchema()", async () => {
    const ticket = createTicketTool()
    const ours = toAiSdkTools([ticket], createDispatchContext()).create_ticket!.inputSchema
    const theirs = jsonSchema(toJsonSchema(ticket.inputSchema))
    expect(await asSchema(ours as never).jsonSchema).toEqual(await asSchema(theirs).jsonSchema)
    // Standard Schema validation is available too (used only if the SDK ever takes that path).
    expect(await ours['~standard'].validate({ title: 'Valid title', priority: null })).toMatchObject({ value: { title: 'Valid title', priority: 'normal' } })
    expect(await ours['~standard'].validate({})).toMatchObject({ issues: [{ message: expect.stringContaining('E_INVALID_TOOL_ARGS') }] })
    // And the record type-checks as a ToolSet without casts.
    const set: ToolSet = toAiSdkTools([ticket], createDispatchContext())
    expect(Object.keys(set)).toEqual(['create_ticket'])
  })

  it('works in a process where `ai` cannot be resolved at all', async () => {
    // A module hook makes every `ai` / `@ai-sdk/*` import fail, as if the peer were not installed.
    const block =
      'export async function resolve(s,c,n){if(s===%22ai%22||s.startsWith(%22ai/%22)||s.startsWith(%22@ai-sdk/%22))throw new Error(%22ai is not installed%22);return n(s,c)}'
    const hook = `data:text/javascript,import{register}from'node:module';register('data:text/javascript,${block}')`
    const script = [
      "import { toAiSdkTools, createDispatchContext, defineTool, validator } from './lib/index.ts'",
      "const t = defineTool({ name: 'w', schema: validator.object({ a: validator.string() }), execute: ({ a }) => 'got ' + a })",
      "console.log(await toAiSdkTools([t], createDispatchContext()).w.execute({ a: 'x' }, { toolCallId: '1' }))",
      "await import('ai').then(() => console.log('ai loaded'), (e) => console.log(e.message))",
    ].join('\n')
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--import', hook, '--input-type=module', '-e', script],
      { cwd: resolve(LIB, '..'), timeout: 60_000 },
    )
    expect(stdout.trim().split('\n')).toEqual(['got x', 'ai is not installed'])
  })

  it('keeps ai an optional peer: nothing in lib/ imports it', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]))
    const importsAi = /^\s*(import|export)\b[^\n]*\bfrom\s+['"](ai|@ai-sdk\/[^'"]+)(\/[^'"]*)?['"]|\bimport\(\s*['"](ai|@ai-sdk\/[^'"]+)['"]/m
    const importers = files(LIB).filter((f) => importsAi.test(readFileSync(f, 'utf8')))
    expect(importers).toEqual([])
  })
})

describe('toAiSdkTools with streamText (the stream parts of ai@6 and ai@7)', () => {
  /** A mock model that streams `steps` one per call and records every prompt. */
  function streamingModel(steps: LanguageModelV3StreamPart[][]) {
    const calls: LanguageModelV3CallOptions[] = []
    const model = new MockLanguageModelV3({
      doStream: async (options) => {
        calls.push(options)
        const step = steps[calls.length - 1]
        if (!step) throw new Error(`model called ${calls.length} times, only ${steps.length} steps scripted`)
        return { stream: convertArrayToReadableStream(step) }
      },
    })
    return { model, calls }
  }
  const finish = (unified: 'tool-calls' | 'stop'): LanguageModelV3StreamPart => ({ type: 'finish', finishReason: { unified, raw: undefined }, usage })
  const call = (toolCallId: string, toolName: string, input: object): LanguageModelV3StreamPart => ({ type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) })
  /** Every part of the full stream: ai@7 names it `stream` (keeping `fullStream` as a deprecated alias), ai@6 `fullStream`. */
  async function partsOf(result: { fullStream: AsyncIterable<unknown> }): Promise<{ type: string; [key: string]: unknown }[]> {
    const parts: { type: string; [key: string]: unknown }[] = []
    for await (const part of (result as { stream?: AsyncIterable<unknown> }).stream ?? result.fullStream) parts.push(part as { type: string })
    return parts
  }

  it('asks through tool-approval-request parts, then streams the approved calls\' results and errors', async () => {
    const ran: string[] = []
    const ticket = new Tool({
      name: 'create_ticket',
      description: 'Open a ticket.',
      inputSchema: validator.object({ title: validator.string().min(3).required() }),
      handler: ({ title }: { title: string }) => {
        ran.push(title)
        return `TICKET-1 ${title}`
      },
    })
    const ctx = createDispatchContext({ permissions: new Permissions({ policy: { default: 'ask', rules: [] } }) })
    const tools = toAiSdkTools([ticket, createFailingTool()], ctx)
    const { model, calls } = streamingModel([
      [{ type: 'stream-start', warnings: [] }, call('s1', 'create_ticket', { title: 'Crash' }), call('s2', 'explode', { reason: 'why' }), finish('tool-calls')],
      [{ type: 'stream-start', warnings: [] }, { type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'done' }, { type: 'text-end', id: 't' }, finish('stop')],
    ])

    const first = streamText({ model, tools, prompt: 'file a ticket', stopWhen: stepCountIs(3) })
    const requests = (await partsOf(first)).filter((p) => p.type === 'tool-approval-request') as unknown as { approvalId: string; toolCall: { toolCallId: string } }[]
    expect(requests.map((r) => r.toolCall.toolCallId)).toEqual(['s1', 's2'])
    expect(ran).toEqual([])

    const messages: ModelMessage[] = [
      { role: 'user', content: 'file a ticket' },
      ...(await first.response).messages,
      { role: 'tool', content: requests.map((r) => ({ type: 'tool-approval-response' as const, approvalId: r.approvalId, approved: true })) },
    ]
    const second = streamText({ model, tools, messages, stopWhen: stepCountIs(3) })
    const parts = await partsOf(second)
    expect(ran).toEqual(['Crash'])
    expect(parts.filter((p) => p.type === 'tool-result').map((p) => [p.toolCallId, p.output])).toEqual([['s1', 'TICKET-1 Crash']])
    const errors = parts.filter((p) => p.type === 'tool-error') as unknown as { toolCallId: string; error: Error & { code: string } }[]
    expect(errors.map((e) => [e.toolCallId, e.error.code, String(e.error)])).toEqual([
      ['s2', 'E_TOOL_DOWNSTREAM_ERROR', 'BOOM: exploded: why [explode failed; E_TOOL_DOWNSTREAM_ERROR]'],
    ])
    expect(await second.text).toBe('done')
    // The model's next prompt carries both outcomes as text, the error with its root cause first.
    expect(toolOutputs(calls[1]!)).toEqual({
      s1: { type: 'text', value: 'TICKET-1 Crash' },
      s2: { type: 'error-text', value: 'BOOM: exploded: why [explode failed; E_TOOL_DOWNSTREAM_ERROR]' },
    })
  })
})
