import { trackedMkdtemp } from '../support/temp_dirs.js'
import { readdirSync, readlinkSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  E_TURN_ABORTED,
  JsonlJournal,
  Tool,
  ToolCall,
  TurnRunner,
  createTools,
  defineTool,
  scriptedModel,
  validator,
  type Message,
  type ModelRequest,
  type TurnEvent,
} from '../../lib/index.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function tempDir(): string {
  return realpathSync(trackedMkdtemp(join(tmpdir(), 'toolsmith-runner-')))
}

interface Span {
  name: string
  start: number
  end: number
}

/** A tool that sleeps, logging when it ran. */
function slowTool(name: string, spans: Span[], options: { sideEffect?: boolean; ms?: (args: { id: string; ms?: number }) => number } = {}) {
  return defineTool({
    name,
    schema: validator.object({ id: validator.string().required(), ms: validator.number() }),
    sideEffect: options.sideEffect ?? false,
    idempotent: !(options.sideEffect ?? false),
    execute: async (args: { id: string; ms?: number }, _call) => {
      const start = performance.now()
      await sleep(args.ms ?? 300)
      spans.push({ name: args.id, start, end: performance.now() })
      return `${name}:${args.id}`
    },
  })
}

function lastToolMessages(request: ModelRequest): Message[] {
  const messages = request.messages
  const lastAssistant = messages.map((m) => m.role).lastIndexOf('assistant')
  return messages.slice(lastAssistant + 1)
}

describe('TurnRunner loop', () => {
  it('runs read-only calls in parallel: their execution intervals overlap', async () => {
    const spans: Span[] = []
    const runner = new TurnRunner({
      model: scriptedModel([
        {
          toolCalls: [
            { id: 'a', name: 'slow_read', args: { id: 'a', ms: 400 } },
            { id: 'b', name: 'slow_read', args: { id: 'b', ms: 400 } },
          ],
        },
        { text: 'done' },
      ]),
      tools: [slowTool('slow_read', spans)],
    })
    const result = await runner.run('go')
    expect(result.text).toBe('done')
    expect(result.steps).toBe(2)
    const [a, b] = ['a', 'b'].map((id) => spans.find((s) => s.name === id)!)
    expect(a!.start < b!.end && b!.start < a!.end).toBe(true)
    expect(result.toolCalls.map((c) => c.id)).toEqual(['a', 'b'])
    expect(result.toolCalls.every((c) => ToolCall.isToolCall(c) && c.isComplete && !c.isError)).toBe(true)
  })

  it('never runs more read-only calls at once than the concurrency limit', async () => {
    let inFlight = 0
    let peak = 0
    const probe = defineTool({
      name: 'probe',
      schema: validator.object({ i: validator.number().required() }),
      execute: async ({ i }: { i: number }) => {
        inFlight++
        peak = Math.max(peak, inFlight)
        await sleep(100)
        inFlight--
        return String(i)
      },
    })
    const calls = Array.from({ length: 7 }, (_, i) => ({ id: `c${i}`, name: 'probe', args: { i } }))
    const runner = new TurnRunner({ model: scriptedModel([{ toolCalls: calls }]), tools: [probe], concurrency: 2 })
    const result = await runner.run('go')
    expect(peak).toBe(2)
    // Tool messages keep the model's order whatever order the calls finished in.
    expect(result.messages.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual(calls.map((c) => String(c.args.i)))
  })

  it('gives repeated or missing tool-call ids fresh unique ones, across steps', async () => {
    const echo = new Tool({
      name: 'echo',
      description: '',
      inputSchema: validator.object({ v: validator.number().required() }),
      handler: async ({ v }: { v: number }) => String(v),
    })
    const runner = new TurnRunner({
      model: scriptedModel([
        { toolCalls: [{ id: 'dup', name: 'echo', args: { v: 1 } }, { id: 'dup', name: 'echo', args: { v: 2 } }] },
        { toolCalls: [{ id: 'dup', name: 'echo', args: { v: 3 } }, { id: '', name: 'echo', args: { v: 4 } }] },
        { text: 'done' },
      ]),
      tools: [echo],
    })
    const result = await runner.run('go')
    const toolMessages = result.messages.filter((m) => m.role === 'tool')
    const ids = toolMessages.map((m) => m.toolCallId)
    expect(new Set(ids).size).toBe(4)
    expect(ids.slice(0, 3)).toEqual(['dup', 'dup_2', 'dup_3'])
    expect(toolMessages.map((m) => m.content)).toEqual(['1', '2', '3', '4'])
    const asked = result.messages.flatMap((m) => m.toolCalls ?? []).map((c) => c.id)
    expect(asked).toEqual(ids)
  })

  it('runs side-effect calls one at a time, in the order the model gave', async () => {
    const spans: Span[] = []
    const runner = new TurnRunner({
      model: scriptedModel([
        {
          toolCalls: [
            { id: '1', name: 'slow_write', args: { id: 'first', ms: 300 } },
            { id: '2', name: 'slow_write', args: { id: 'second', ms: 10 } },
            { id: '3', name: 'slow_write', args: { id: 'third', ms: 150 } },
          ],
        },
      ]),
      tools: [slowTool('slow_write', spans, { sideEffect: true })],
    })
    await runner.run('go')
    expect(spans.map((s) => s.name)).toEqual(['first', 'second', 'third'])
    for (let i = 1; i < spans.length; i++) expect(spans[i]!.start).toBeGreaterThanOrEqual(spans[i - 1]!.end)
  })

  it('keeps reads after a write behind it (the model order is a barrier)', async () => {
    const spans: Span[] = []
    const runner = new TurnRunner({
      model: scriptedModel([
        {
          toolCalls: [
            { id: '1', name: 'r', args: { id: 'read-before', ms: 50 } },
            { id: '2', name: 'w', args: { id: 'write', ms: 200 } },
            { id: '3', name: 'r', args: { id: 'read-after', ms: 10 } },
          ],
        },
      ]),
      tools: [slowTool('r', spans), slowTool('w', spans, { sideEffect: true })],
    })
    await runner.run('go')
    expect(spans.map((s) => s.name)).toEqual(['read-before', 'write', 'read-after'])
  })

  it('returns errors to the model as isError tool messages and keeps going', async () => {
    const failing = defineTool({
      name: 'explode',
      schema: validator.object({}),
      execute: async () => {
        throw Object.assign(new Error('kaboom'), { code: 'E_BOOM' })
      },
    })
    const seen: Message[][] = []
    const runner = new TurnRunner({
      model: scriptedModel([
        {
          toolCalls: [
            { id: 'x', name: 'explode', args: {} },
            { id: 'y', name: 'no_such_tool', args: {} },
            { id: 'z', name: 'explode', args: { unexpected: 1 } },
          ],
        },
        (request) => {
          seen.push(lastToolMessages(request))
          return { text: 'recovered' }
        },
      ]),
      tools: [failing],
    })
    const result = await runner.run('go')
    expect(result.text).toBe('recovered')
    const [boom, unknown, invalid] = seen[0]!
    expect(boom).toMatchObject({ role: 'tool', toolCallId: 'x', isError: true })
    expect(boom!.content).toContain('E_BOOM: kaboom')
    expect(unknown).toMatchObject({ toolCallId: 'y', isError: true })
    expect(unknown!.content).toContain('Unknown tool "no_such_tool"')
    expect(unknown!.content).toContain('explode')
    expect(invalid).toMatchObject({ toolCallId: 'z', isError: true })
    expect(invalid!.content).toContain('E_INVALID_TOOL_ARGS')
    expect(result.toolCalls.map((c) => c.isError)).toEqual([true, true, true])
  })

  it('offers only allowed tools and refuses the others', async () => {
    const spans: Span[] = []
    let offered: string[] = []
    const runner = new TurnRunner({
      model: scriptedModel([
        (request) => {
          offered = request.tools.map((t) => t.name)
          return { toolCalls: [{ id: '1', name: 'hidden', args: { id: 'x' } }] }
        },
      ]),
      tools: { visible: slowTool('visible', spans), hidden: slowTool('hidden', spans) },
      allowTools: ['visible'],
    })
    const result = await runner.run('go')
    expect(offered).toEqual(['visible'])
    expect(result.toolCalls[0]!.isError).toBe(true)
    expect(spans).toEqual([])
  })

  it('describes tools with their JSON Schema and flags', async () => {
    let request: ModelRequest | undefined
    const runner = new TurnRunner({
      model: (r) => {
        request = r
        return { text: 'ok' }
      },
      tools: [slowTool('w', [], { sideEffect: true })],
    })
    await runner.run('go')
    expect(request!.tools[0]).toMatchObject({
      name: 'w',
      sideEffect: true,
      idempotent: false,
      jsonSchema: { type: 'object', required: ['id'] },
    })
    expect(request!.messages).toEqual([{ role: 'user', content: 'go' }])
  })

  it('stops after maxSteps', async () => {
    const spans: Span[] = []
    const runner = new TurnRunner({
      model: () => ({ text: 'again', toolCalls: [{ id: '', name: 'r', args: { id: 'x', ms: 1 } }] }),
      tools: [slowTool('r', spans)],
      maxSteps: 3,
    })
    const result = await runner.run('loop forever')
    expect(result.steps).toBe(3)
    expect(spans.length).toBe(3)
    // Missing ids are made up, so tool messages still pair with their calls.
    expect(result.messages.filter((m) => m.role === 'tool').every((m) => m.toolCallId!.length > 0)).toBe(true)
  })

  it('forks from an earlier result without changing it', async () => {
    const spans: Span[] = []
    const runner = new TurnRunner({
      model: scriptedModel([
        { toolCalls: [{ id: '1', name: 'r', args: { id: 'x', ms: 1 } }] },
        { text: 'first' },
        { text: 'second' },
        { text: 'third' },
      ]),
      tools: [slowTool('r', spans)],
    })
    const first = await runner.run('plan')
    const snapshot = structuredClone(first.messages)
    const second = await runner.run('implement', { fork: first })
    const third = await runner.run('alternative', { fork: first })
    expect(first.messages).toEqual(snapshot)
    expect(second.messages.slice(0, snapshot.length)).toEqual(snapshot)
    expect(second.messages.slice(snapshot.length)).toEqual([
      { role: 'user', content: 'implement' },
      { role: 'assistant', content: 'second' },
    ])
    expect(third.messages.at(-2)).toEqual({ role: 'user', content: 'alternative' })
    expect(third.messages.length).toBe(second.messages.length)
    second.messages[0]!.content = 'mutated'
    expect(first.messages[0]!.content).toBe('plan')
  })

  it('reports events for each step and call', async () => {
    const events: TurnEvent[] = []
    const runner = new TurnRunner({
      model: scriptedModel([{ toolCalls: [{ id: '1', name: 'r', args: { id: 'x', ms: 5 } }] }, { text: 'done' }]),
      tools: [slowTool('r', [])],
      onEvent: (e) => events.push(e),
    })
    await runner.run('go')
    expect(events.map((e) => e.type)).toEqual([
      'turn-start',
      'model-start',
      'model-end',
      'tool-start',
      'tool-end',
      'model-start',
      'model-end',
      'turn-end',
    ])
    const end = events.find((e) => e.type === 'tool-end')!
    expect(end).toMatchObject({ toolName: 'r', isError: false, spooled: false, seq: 0 })
  })
})

describe('TurnRunner spooling', () => {
  it('spools a large result and lets the model page through it with artifact tools', async () => {
    const lines = Array.from({ length: 5_000 }, (_, i) => `line ${i + 1}: ${'x'.repeat(20)}`)
    const bigLog = defineTool({
      name: 'big_log',
      schema: validator.object({}),
      execute: async () => lines.join('\n'),
    })
    let preview = ''
    let offered: string[] = []
    let page = ''
    let callId = ''
    const journal = new JsonlJournal(join(tempDir(), 'journal.jsonl'), { maxOutputBytes: 10_000 })
    const runner = new TurnRunner({
      model: scriptedModel([
        { toolCalls: [{ id: 'log', name: 'big_log', args: {} }] },
        (request) => {
          preview = request.messages.at(-1)!.content
          offered = request.tools.map((t) => t.name)
          callId = /callId: ([^\]\s]+)\]/.exec(preview)![1]!
          return { toolCalls: [{ id: 'page', name: 'artifact_cat', args: { callId, start: 2500, end: 2502 } }] }
        },
        (request) => {
          page = request.messages.at(-1)!.content
          return { text: 'paged' }
        },
      ]),
      tools: [bigLog],
      journal,
    })
    const result = await runner.run('read the log')
    expect(result.text).toBe('paged')
    expect(Buffer.byteLength(preview)).toBeLessThan(4_000)
    expect(preview).toContain('line 1:')
    expect(preview).not.toContain('line 2500:')
    expect(offered).toEqual(expect.arrayContaining(['big_log', 'artifact_head', 'artifact_tail', 'artifact_grep', 'artifact_cat']))
    expect(page).toContain('line 2500:')
    expect(page).toContain('line 2502:')
    expect(page).not.toContain('line 2503:')
    const spooled = result.toolCalls[0]!
    expect(callId).toBe('log') // the provider id: unique, unlike the checksum
    expect(spooled.id).toBe(callId)
    expect(await spooled.results!.lineCount()).toBe(5_000)

    const rows = await journal.list()
    expect(rows.map((r) => r.toolName)).toEqual(['big_log', 'artifact_cat'])
    expect(JSON.parse(rows[0]!.outputJson!)).toMatchObject({ truncated: true, bytes: Buffer.byteLength(lines.join('\n')) })
  })

  it('keeps artifact tools of a forked turn available', async () => {
    const bigLog = defineTool({ name: 'big', schema: validator.object({}), execute: async () => 'y\n'.repeat(20_000) })
    let offered: string[] = []
    const runner = new TurnRunner({
      model: scriptedModel([
        { toolCalls: [{ id: 'b', name: 'big', args: {} }] },
        { text: 'ok' },
        (request) => {
          offered = request.tools.map((t) => t.name)
          return { text: 'forked' }
        },
      ]),
      tools: [bigLog],
    })
    const first = await runner.run('one')
    await runner.run('two', { fork: first })
    expect(offered).toContain('artifact_tail')
  })
})

describe('TurnRunner abort', () => {
  it('kills a running `sleep 60` bash call promptly and leaves no process behind', async () => {
    const root = tempDir()
    const { bash } = createTools({ rootDir: root })
    const controller = new AbortController()
    let runningBeforeAbort: number[] = []
    let abortedAt = 0
    const runner = new TurnRunner({
      model: scriptedModel([{ toolCalls: [{ id: 's', name: 'bash', args: { cmd: 'sleep', args: ['60'] } }] }]),
      tools: [bash],
      onEvent: (event) => {
        if (event.type !== 'tool-start') return
        const abortOnceRunning = async (): Promise<void> => {
          const deadline = Date.now() + 10_000
          while ((runningBeforeAbort = processesIn(root)).length === 0 && Date.now() < deadline) await sleep(50)
          abortedAt = Date.now()
          controller.abort(new Error('user pressed stop'))
        }
        void abortOnceRunning()
      },
    })
    const error = await runner.run('wait', { signal: controller.signal }).catch((e) => e)
    const rejectedAt = Date.now()
    expect(runningBeforeAbort.length).toBeGreaterThan(0)
    expect(error).toBeInstanceOf(E_TURN_ABORTED)
    expect(error.code).toBe('E_TURN_ABORTED')
    expect(rejectedAt - abortedAt).toBeLessThan(5_000)
    // No process may still be working in the sandbox root.
    const deadline = Date.now() + 5_000
    let survivors = processesIn(root)
    while (survivors.length > 0 && Date.now() < deadline) {
      await sleep(100)
      survivors = processesIn(root)
    }
    expect(survivors).toEqual([])
  })

  it('never calls the model again once aborted, even when the running tool settles right after the abort', async () => {
    // The tool stops as soon as it sees the abort (as bash does when it kills
    // its process), so its outcome settles before the runner's abort path.
    const waitForStop = defineTool({
      name: 'wait_for_stop',
      schema: validator.object({}),
      execute: async (_args: Record<string, never>, call) => {
        await new Promise<void>((resolve) => call.signal.addEventListener('abort', () => resolve(), { once: true }))
        throw new Error('stopped by the abort')
      },
    })
    const controller = new AbortController()
    const modelCalls: { step: number; aborted: boolean }[] = []
    const events: TurnEvent[] = []
    let abortedAt = 0
    const runner = new TurnRunner({
      model: ({ step, signal }) => {
        modelCalls.push({ step, aborted: signal.aborted })
        return step === 0 ? { toolCalls: [{ id: 'w', name: 'wait_for_stop', args: {} }] } : { text: 'should never be asked' }
      },
      tools: [waitForStop],
      onEvent: (event) => {
        events.push(event)
        if (event.type === 'tool-start') {
          setTimeout(() => {
            abortedAt = Date.now()
            controller.abort(new Error('user pressed stop'))
          }, 50)
        }
      },
    })
    const error = await runner.run('wait', { signal: controller.signal }).catch((e) => e)
    expect(error).toBeInstanceOf(E_TURN_ABORTED)
    expect(Date.now() - abortedAt).toBeLessThan(2_000)
    expect(modelCalls).toEqual([{ step: 0, aborted: false }])
    const afterStop = events.slice(events.findIndex((e) => e.type === 'tool-end') + 1).map((e) => e.type)
    expect(afterStop).toEqual([])
  })

  it('runs nothing the model asked for when the abort comes with its answer', async () => {
    const started: string[] = []
    const quick = defineTool({
      name: 'quick',
      schema: validator.object({ id: validator.string().required() }),
      execute: async ({ id }: { id: string }) => {
        started.push(id)
        return 'done'
      },
    })
    const stopWhileAnswering = new AbortController()
    const events: TurnEvent[] = []
    const answering = new TurnRunner({
      model: () => {
        stopWhileAnswering.abort()
        return { toolCalls: [{ id: 'a', name: 'quick', args: { id: 'a' } }] }
      },
      tools: [quick],
      onEvent: (event) => events.push(event),
    })
    await expect(answering.run('x', { signal: stopWhileAnswering.signal })).rejects.toBeInstanceOf(E_TURN_ABORTED)
    expect(events.map((e) => e.type)).toEqual(['turn-start', 'model-start'])
    expect(started).toEqual([])
  })

  it('starts no queued read-only call after the abort', async () => {
    // concurrency 1: the first call stops on the abort; the two queued behind it never start.
    const started: string[] = []
    const waitForStop = defineTool({
      name: 'wait_for_stop',
      schema: validator.object({ id: validator.string().required() }),
      execute: async ({ id }: { id: string }, call) => {
        started.push(id)
        await new Promise<void>((resolve) => call.signal.addEventListener('abort', () => resolve(), { once: true }))
        return 'stopped'
      },
    })
    const queued = new AbortController()
    const toolStarts: string[] = []
    const runner = new TurnRunner({
      model: scriptedModel([
        { toolCalls: ['1', '2', '3'].map((id) => ({ id, name: 'wait_for_stop', args: { id } })) },
        { text: 'never' },
      ]),
      tools: [waitForStop],
      concurrency: 1,
      onEvent: (event) => {
        if (event.type !== 'tool-start') return
        toolStarts.push(event.toolCallId)
        setTimeout(() => queued.abort(), 50)
      },
    })
    await expect(runner.run('x', { signal: queued.signal })).rejects.toBeInstanceOf(E_TURN_ABORTED)
    expect(toolStarts).toEqual(['1'])
    expect(started).toEqual(['1'])
  })

  it('rejects at once when the signal is already aborted, and stops a slow model', async () => {
    const controller = new AbortController()
    controller.abort()
    const runner = new TurnRunner({ model: () => ({ text: 'never' }), tools: [] })
    await expect(runner.run('x', { signal: controller.signal })).rejects.toBeInstanceOf(E_TURN_ABORTED)

    const slow = new AbortController()
    const hanging = new TurnRunner({ model: () => new Promise(() => undefined), tools: [] })
    setTimeout(() => slow.abort(), 100)
    await expect(hanging.run('x', { signal: slow.signal })).rejects.toBeInstanceOf(E_TURN_ABORTED)
  })
})

describe('TurnRunner retries and journal', () => {
  it('warns a retried attempt about non-idempotent side effects, with stable idempotency keys', async () => {
    const dir = tempDir()
    const journal = new JsonlJournal(join(dir, 'journal.jsonl'))
    const keys: string[] = []
    const sendEmail = defineTool({
      name: 'send_email',
      schema: validator.object({ to: validator.string().required() }),
      sideEffect: true,
      idempotent: false,
      execute: async ({ to }: { to: string }, call) => {
        keys.push(call.idempotencyKey)
        return `sent to ${to}`
      },
    })
    const lookup = defineTool({ name: 'lookup', schema: validator.object({}), execute: async () => 'found' })
    const identity = { runId: 'run-7', nodeId: 'notify', iteration: 0 }
    const callEmail = { toolCalls: [{ id: 'e', name: 'send_email', args: { to: 'ops@example.com' } }, { id: 'l', name: 'lookup', args: {} }] }

    const first = new TurnRunner({
      model: scriptedModel([callEmail, { text: 'crashed later' }]),
      tools: [sendEmail, lookup],
      journal,
      identity: { ...identity, attempt: 1 },
    })
    const firstResult = await first.run('notify ops')
    expect(firstResult.messages.some((m) => m.content.includes('attempt'))).toBe(false)

    let firstRequest: ModelRequest | undefined
    const events: TurnEvent[] = []
    const second = new TurnRunner({
      model: scriptedModel([(request) => {
        firstRequest = request
        return callEmail
      }, { text: 'done' }]),
      tools: [sendEmail, lookup],
      journal,
      identity: { ...identity, attempt: 2 },
      onEvent: (e) => events.push(e),
    })
    await second.run('notify ops')
    const warning = firstRequest!.messages[0]!
    expect(warning.role).toBe('user')
    expect(warning.content).toContain('attempt 2')
    expect(warning.content).toContain('send_email')
    expect(warning.content).toContain('ops@example.com')
    expect(warning.content).toMatch(/\d{4}-\d{2}-\d{2}T/)
    expect(warning.content).not.toContain('lookup')
    expect(firstRequest!.messages[1]).toEqual({ role: 'user', content: 'notify ops' })
    expect(events.some((e) => e.type === 'retry-warning')).toBe(true)
    // A claiming journal replays the same call: the warning says so instead of "not safe to repeat".
    expect(warning.content).toContain('exactly the same arguments does not repeat it')
    expect(warning.content).not.toContain('not safe to repeat')
    // The journal claims non-idempotent calls: attempt 2 replays the email
    // attempt 1 sent instead of sending it again (the handler ran once).
    expect(keys).toHaveLength(1)
    const replayedEnd = events.find((e) => e.type === 'tool-end' && e.toolName === 'send_email')
    expect(replayedEnd).toMatchObject({ replayed: true, isError: false })

    const rows = await journal.list({ runId: 'run-7' })
    expect(rows.map((r) => [r.attempt, r.seq, r.toolName, r.status, r.replayed])).toEqual([
      [1, 0, 'send_email', 'success', false],
      [1, 1, 'lookup', 'success', false],
      [2, 0, 'send_email', 'success', true],
      [2, 1, 'lookup', 'success', false],
    ])
    expect(rows[0]!.idempotencyKey).toBe(rows[2]!.idempotencyKey)
    expect(rows[0]!.inputJson).toBe('{"to":"ops@example.com"}')
  })

  it('journals built-in write calls without their content', async () => {
    const root = tempDir()
    writeFileSync(join(root, 'a.txt'), 'old\n')
    const { write, read } = createTools({ rootDir: root })
    const journal = new JsonlJournal(join(tempDir(), 'j.jsonl'))
    const secret = 'TOP SECRET CONTENT'
    const runner = new TurnRunner({
      model: scriptedModel([
        { toolCalls: [{ id: 'w', name: 'write', args: { path: 'a.txt', content: secret } }] },
        { toolCalls: [{ id: 'r', name: 'read', args: { path: 'missing.txt' } }] },
      ]),
      tools: [write, read],
      journal,
      identity: { runId: 'r', nodeId: 'n', iteration: 0, attempt: 1 },
    })
    await runner.run('write it')
    const [w, r] = await journal.list()
    expect(w!.inputJson).not.toContain(secret)
    expect(JSON.parse(w!.inputJson)).toMatchObject({ path: 'a.txt', contentBytes: secret.length })
    expect(w).toMatchObject({ status: 'success', outputJson: '"ok"', errorJson: null })
    expect(w!.finishedAtMs).toBeGreaterThanOrEqual(w!.startedAtMs)
    expect(r).toMatchObject({ status: 'error', outputJson: null })
    expect(r!.errorJson).toContain('TOOL_FILE_NOT_FOUND')
    expect(await journal.sideEffectsFor({ runId: 'r', nodeId: 'n', iteration: 0 })).toHaveLength(1)
  })
})

/** Pids of processes whose working directory is `dir` or inside it. */
function processesIn(dir: string): number[] {
  const pids: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const cwd = readlinkSync(`/proc/${entry}/cwd`)
      if (cwd === dir || cwd.startsWith(`${dir}/`)) pids.push(Number(entry))
    } catch {
      // Gone already, or not ours to inspect.
    }
  }
  return pids
}
