import { spawnSync } from 'node:child_process'
import util from 'node:util'
import { describe, expect, it, vi } from 'vitest'
import fc from 'fast-check'
import {
  REDACTION_FAILED,
  SpooledArtifact,
  SpooledJsonArtifact,
  E_INVALID_INITIAL_TOOL_VALUE,
  E_INVALID_TOOL_ARGS,
  E_TOOL_DOWNSTREAM_ERROR,
  Registry,
  Tool,
  ValidationException,
  canonicalStringify,
  createDispatchContext,
  createTools,
  defineTool,
  sha256Hex,
  validator,
  type ToolCallInfo,
  type ToolExecutionEndEvent,
  type ToolExecutionStartEvent,
} from '../../lib/index.js'
import { EAGER_HASH_CHARS } from '../../lib/core/call_identity.js'

const inputSchema = validator.object({
  city: validator.string().required().description('City name'),
  days: validator.number().integer().min(1).max(14).default(3),
  units: validator.string().valid('metric', 'imperial'),
})

function weatherTool(handler = async (args: { city: string; days: number }) => `${args.city}:${args.days}`) {
  return new Tool({ name: 'weather', description: 'Forecast', inputSchema, handler })
}

/** A tool taking one string, `content`, and answering 'ok': the subject of the pending-callId specs. */
function contentStore() {
  return new Tool({
    name: 'store',
    description: '',
    inputSchema: validator.object({ content: validator.string().required() }),
    handler: async () => 'ok',
  })
}

function recordingContext(options: Parameters<typeof createDispatchContext>[0] = {}) {
  const ctx = createDispatchContext(options)
  const starts: ToolExecutionStartEvent[] = []
  const ends: ToolExecutionEndEvent[] = []
  ctx.on('toolExecutionStart', (e) => starts.push(e))
  ctx.on('toolExecutionEnd', (e) => ends.push(e))
  return { ctx, starts, ends }
}

describe('Tool construction: settings checked up front (issue 12)', () => {
  const base = { name: 't', description: 'd', inputSchema: validator.object({}), handler: () => 'ok' }

  it('refuses trusted, which never had an effect, by name', () => {
    expect(() => new Tool({ ...base, trusted: false } as never)).toThrow(/"trusted" was removed: it never had an effect/)
  })

  it('refuses an artifact class given where the thunk belongs, saying what to pass', () => {
    class ReportArtifact extends SpooledArtifact {}
    expect(() => new Tool({ ...base, artifactConstructor: ReportArtifact as never })).toThrow(
      /"artifactConstructor" must be a thunk returning the artifact class: pass \(\) => ReportArtifact, not ReportArtifact itself/,
    )
    expect(() => new Tool({ ...base, artifactConstructor: SpooledJsonArtifact as never })).toThrow(E_INVALID_INITIAL_TOOL_VALUE)
  })

  it('control: the thunk is accepted and resolves to the class', () => {
    class ReportArtifact extends SpooledArtifact {}
    const tool = new Tool({ ...base, artifactConstructor: () => ReportArtifact })
    expect(tool.artifactConstructor?.()).toBe(ReportArtifact)
  })
})

describe('Tool construction', () => {
  it('keeps the raw fields and applies defaults', () => {
    const tool = weatherTool()
    expect(tool.name).toBe('weather')
    expect(tool.description).toBe('Forecast')
    expect(tool.inputSchema).toBe(inputSchema)
    expect(tool.ephemeral).toBe(false)
    expect('trusted' in tool).toBe(false)
    expect(tool.onCollision).toBe('throw')
    expect(tool.sideEffect).toBe(false)
    expect(tool.idempotent).toBe(true)
    expect(Registry.isRegistry(tool.meta)).toBe(true)
  })

  it('defaults idempotent to !sideEffect', () => {
    const tool = new Tool({
      name: 'upsert',
      description: '',
      inputSchema,
      sideEffect: true,
      handler: async (_a, _c, _m, _call) => 'ok',
    })
    expect(tool.idempotent).toBe(false)
  })

  it.each([
    ['a name with a dot', { name: 'a.b' }],
    ['a name longer than 64 characters', { name: 'x'.repeat(65) }],
    ['an empty name', { name: '' }],
    ['a non-object schema', { inputSchema: validator.string() }],
    ['a plain object as schema', { inputSchema: { type: 'object' } }],
    ['a missing handler', { handler: undefined }],
    ['an unknown collision policy', { onCollision: 'merge' }],
    ['an unknown field', { colour: 'red' }],
  ])('rejects %s with E_INVALID_INITIAL_TOOL_VALUE', (_label, patch) => {
    const raw = { name: 'ok', description: 'd', inputSchema, handler: async () => 'x', ...patch }
    let thrown: unknown
    try {
      new Tool(raw as never)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(E_INVALID_INITIAL_TOOL_VALUE)
    expect((thrown as E_INVALID_INITIAL_TOOL_VALUE).code).toBe('E_INVALID_INITIAL_TOOL_VALUE')
    expect((thrown as Error).cause).toBeInstanceOf(ValidationException)
  })

  it('accepts a plain object as meta and turns it into a Registry', () => {
    const tool = new Tool({ name: 't', description: '', inputSchema, handler: async () => '', meta: { owner: 'infra' } })
    expect(tool.meta.get('owner')).toBe('infra')
  })

  it('warns once per name when a non-idempotent side-effect handler cannot see the idempotency key', () => {
    const spy = vi.spyOn(process, 'emitWarning').mockImplementation(() => {})
    try {
      const name = `charge_${Math.random().toString(36).slice(2)}`
      const make = () =>
        new Tool({ name, description: '', inputSchema, sideEffect: true, idempotent: false, handler: async () => 'ok' })
      make()
      make()
      const warnings = spy.mock.calls.filter((c) => String(c[0]).includes(name))
      expect(warnings).toHaveLength(1)

      const fourParams = `charge4_${Math.random().toString(36).slice(2)}`
      new Tool({
        name: fourParams,
        description: '',
        inputSchema,
        sideEffect: true,
        idempotent: false,
        handler: async (_a, _c, _m, _call) => 'ok',
      })
      expect(spy.mock.calls.filter((c) => String(c[0]).includes(fourParams))).toHaveLength(0)
    } finally {
      spy.mockRestore()
    }
  })
})

describe('Tool.executor callId', () => {
  it('is identical for args that differ only in key order', async () => {
    const { ctx, starts } = recordingContext()
    const run = weatherTool().executor(ctx)
    await run({ city: 'Oslo', days: 2, units: 'metric' })
    await run({ units: 'metric', days: 2, city: 'Oslo' })
    expect(starts).toHaveLength(2)
    expect(starts[0]!.callId).toBe(starts[1]!.callId)
  })

  it('differs when a value differs', async () => {
    const { ctx, starts } = recordingContext()
    const run = weatherTool().executor(ctx)
    await run({ city: 'Oslo', days: 2 })
    await run({ city: 'Oslo', days: 3 })
    expect(starts[0]!.callId).not.toBe(starts[1]!.callId)
  })

  it('is the sha256 of the canonical { tool, args } over the raw (pre-default) args', async () => {
    const { ctx, starts } = recordingContext()
    await weatherTool().executor(ctx)({ city: 'Oslo' })
    expect(starts[0]!.callId).toBe(sha256Hex(canonicalStringify({ tool: 'weather', args: { city: 'Oslo' } })))
    // the event's args are the validated ones, defaults applied
    expect(starts[0]!.args).toEqual({ city: 'Oslo', days: 3 })
  })

  it('property: is sha256(canonicalStringify({ tool, args })) for any args and name, valid or not', async () => {
    const anything = validator.object().unknown(true)
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 12 }), fc.jsonValue(), async (suffix, args) => {
        const name = `t${suffix.replace(/[^A-Za-z0-9_-]/g, '_')}`
        const tool = new Tool({ name, description: '', inputSchema: anything, handler: () => '' })
        const prepared = await tool.prepare(args, { id: 'ctx' })
        expect(prepared.callId).toBe(sha256Hex(canonicalStringify({ tool: name, args })))
      }),
      { numRuns: 300 },
    )
    // toJSON on the args themselves is honoured, including one that returns undefined (args dropped).
    const tool = new Tool({ name: 'x', description: '', inputSchema: anything, handler: () => '' })
    const dated = new Date(0)
    expect((await tool.prepare(dated, { id: 'c' })).callId).toBe(sha256Hex(canonicalStringify({ tool: 'x', args: dated })))
    const vanishing = { toJSON: () => undefined }
    expect((await tool.prepare(vanishing, { id: 'c' })).callId).toBe(sha256Hex(canonicalStringify({ tool: 'x' })))
  })

  it('differs between tools given the same args', async () => {
    const { ctx, starts } = recordingContext()
    const a = weatherTool()
    const b = new Tool({ name: 'other', description: '', inputSchema, handler: async () => '' })
    await a.executor(ctx)({ city: 'Oslo' })
    await b.executor(ctx)({ city: 'Oslo' })
    expect(starts[0]!.callId).not.toBe(starts[1]!.callId)
  })
})

describe('Tool.executor validation', () => {
  it('throws E_INVALID_TOOL_ARGS naming every failing field and emits no event', async () => {
    const handler = vi.fn(async () => 'never')
    const tool = new Tool({ name: 'weather', description: '', inputSchema, handler })
    const { ctx, starts, ends } = recordingContext()
    const error = await tool
      .executor(ctx)({ days: 99, units: 'kelvin', extra: true })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(E_INVALID_TOOL_ARGS)
    const e = error as E_INVALID_TOOL_ARGS
    expect(e.status).toBe(422)
    expect(e.code).toBe('E_INVALID_TOOL_ARGS')
    for (const field of ['city', 'days', 'units', 'extra']) expect(e.message).toContain(`"${field}"`)
    expect(e.cause).toBeInstanceOf(ValidationException)
    expect((e.cause as ValidationException).paths.sort()).toEqual(['city', 'days', 'extra', 'units'])
    expect(starts).toHaveLength(0)
    expect(ends).toHaveLength(0)
    expect(handler).not.toHaveBeenCalled()
  })

  it('does not convert types (a numeric string is not a number)', async () => {
    const { ctx } = recordingContext()
    await expect(weatherTool().executor(ctx)({ city: 'Oslo', days: '2' })).rejects.toBeInstanceOf(E_INVALID_TOOL_ARGS)
  })

  it('rejects args that cannot be canonicalised (NaN) as invalid, with no event', async () => {
    const { ctx, starts } = recordingContext()
    await expect(weatherTool().executor(ctx)({ city: 'Oslo', days: Number.NaN })).rejects.toBeInstanceOf(
      E_INVALID_TOOL_ARGS,
    )
    expect(starts).toHaveLength(0)
  })

  describe('args that are not an object', () => {
    // Every tool, built-in or not: the check belongs to Tool, not to each handler.
    const tools = () => ({
      ...createTools({ rootDir: process.cwd() }),
      weather: weatherTool(),
      noArgs: new Tool({ name: 'no_args', description: '', inputSchema: validator.object({}), handler: () => 'ran' }),
      defined: defineTool({ name: 'defined', description: '', schema: validator.object({}), execute: async () => 'ran' }),
    })

    it.each([
      ['undefined', undefined],
      ['null', null],
      ['a string', '{"path":"a"}'],
      ['an array', [{ path: 'a' }]],
    ])('%s is E_INVALID_TOOL_ARGS with no event and no warning, for every tool', async (_label, args) => {
      const warnings: Error[] = []
      const onWarning = (warning: Error): number => warnings.push(warning)
      process.on('warning', onWarning)
      try {
        for (const [name, tool] of Object.entries(tools())) {
          const { ctx, starts, ends } = recordingContext()
          const error = await tool.executor(ctx)(args).catch((e: unknown) => e)
          expect(error, name).toBeInstanceOf(E_INVALID_TOOL_ARGS)
          expect((error as E_INVALID_TOOL_ARGS).message, name).toMatch(/"args" (is required|must be of type object)/)
          expect((error as E_INVALID_TOOL_ARGS).cause, name).toBeInstanceOf(ValidationException)
          expect([starts.length, ends.length], name).toEqual([0, 0])
        }
        // process warnings are emitted on the next tick
        await new Promise((resolve) => setImmediate(resolve))
        expect(warnings.map((w) => w.message)).toEqual([])
      } finally {
        process.off('warning', onWarning)
      }
    })

    it('validate(undefined) rejects the same way', async () => {
      await expect(weatherTool().validate(undefined)).rejects.toThrow(/Invalid arguments for tool "weather": "args" is required/)
    })
  })

  it('validate() applies defaults and returns the validated value', async () => {
    await expect(weatherTool().validate({ city: 'Rome' })).resolves.toEqual({ city: 'Rome', days: 3 })
  })
})

describe('Tool.executor events and results', () => {
  it('emits start then end with the same callId, turnId === ctx.id, and returns the result unchanged', async () => {
    const bytes = new Uint8Array([1, 2, 3])
    const tool = new Tool({ name: 'bytes', description: '', inputSchema: validator.object({}), handler: () => bytes })
    const order: string[] = []
    const ctx = createDispatchContext({ id: 'turn-42' })
    let start: ToolExecutionStartEvent | undefined
    let end: ToolExecutionEndEvent | undefined
    ctx.on('toolExecutionStart', (e) => {
      order.push('start')
      start = e
    })
    ctx.on('toolExecutionEnd', (e) => {
      order.push('end')
      end = e
    })
    const result = await tool.executor(ctx)({})
    expect(result).toBe(bytes)
    expect(order).toEqual(['start', 'end'])
    expect(start!.turnId).toBe('turn-42')
    expect(end!.turnId).toBe('turn-42')
    expect(end!.callId).toBe(start!.callId)
    expect(end!.isError).toBe(false)
    expect(end!.error).toBeUndefined()
    expect(end!.startedAt).toBe(start!.startedAt)
    expect(end!.endedAt).toBeGreaterThanOrEqual(end!.startedAt)
    expect(end!.durationMs).toBeGreaterThanOrEqual(0)
  })

  it('wraps a handler error in E_TOOL_DOWNSTREAM_ERROR with the original cause and its code in the message', async () => {
    class E_CUSTOM extends Error {
      code = 'TOOL_PATH_ESCAPE'
    }
    const original = new E_CUSTOM('path "../x" escapes the root')
    const tool = new Tool({
      name: 'read',
      description: '',
      inputSchema: validator.object({}),
      handler: () => {
        throw original
      },
    })
    const { ctx, ends } = recordingContext()
    const error = (await tool.executor(ctx)({}).catch((e: unknown) => e)) as E_TOOL_DOWNSTREAM_ERROR
    expect(error).toBeInstanceOf(E_TOOL_DOWNSTREAM_ERROR)
    expect(error.code).toBe('E_TOOL_DOWNSTREAM_ERROR')
    expect(error.cause).toBe(original)
    expect(error.message).toBe('read failed: TOOL_PATH_ESCAPE: path "../x" escapes the root')
    expect(ends).toHaveLength(1)
    expect(ends[0]!.isError).toBe(true)
    expect(ends[0]!.error).toBe(error)
  })

  it('keeps a thrown string as the cause (never lost)', async () => {
    const tool = new Tool({
      name: 'flaky',
      description: '',
      inputSchema: validator.object({}),
      handler: async () => {
        throw 'disk on fire'
      },
    })
    const { ctx, ends } = recordingContext()
    const error = (await tool.executor(ctx)({}).catch((e: unknown) => e)) as E_TOOL_DOWNSTREAM_ERROR
    expect(error).toBeInstanceOf(E_TOOL_DOWNSTREAM_ERROR)
    expect(error.cause).toBe('disk on fire')
    expect(error.message).toContain('disk on fire')
    expect(ends[0]!.isError).toBe(true)
  })

  it('carries the code and message of a thrown plain object', async () => {
    const tool = new Tool({
      name: 'legacy',
      description: '',
      inputSchema: validator.object({}),
      handler: async () => {
        throw { code: 'EQUOTA', message: 'quota exceeded' }
      },
    })
    const error = (await tool.executor(createDispatchContext())({}).catch((e: unknown) => e)) as Error
    expect(error.message).toBe('legacy failed: EQUOTA: quota exceeded')
  })

  it('a redact() that throws records a placeholder, never the raw args, and the call still runs', async () => {
    const spy = vi.spyOn(process, 'emitWarning').mockImplementation(() => {})
    try {
      const tool = new Tool({
        name: 'save2',
        description: '',
        inputSchema: validator.object({ secret: validator.string().required() }),
        redact: () => {
          throw new Error('redact bug')
        },
        handler: async () => 'saved',
      })
      const { ctx, starts, ends } = recordingContext()
      await expect(tool.executor(ctx)({ secret: 'hunter2' })).resolves.toBe('saved')
      expect(starts).toHaveLength(1)
      expect(starts[0]!.args).toBe(REDACTION_FAILED)
      expect(ends).toHaveLength(1)
      expect(JSON.stringify(starts)).not.toContain('hunter2')
      expect(spy.mock.calls.some((c) => JSON.stringify(c).includes('TOOLSMITH_REDACT_ERROR'))).toBe(true)
    } finally {
      spy.mockRestore()
    }
  })

  it('a listener that throws never breaks the call', async () => {
    const spy = vi.spyOn(process, 'emitWarning').mockImplementation(() => {})
    try {
      const ctx = createDispatchContext()
      const seen: string[] = []
      ctx.on('toolExecutionStart', () => {
        throw new Error('listener bug')
      })
      ctx.on('toolExecutionStart', () => seen.push('second listener still ran'))
      ctx.on('toolExecutionEnd', () => {
        throw new Error('listener bug')
      })
      await expect(weatherTool().executor(ctx)({ city: 'Oslo' })).resolves.toBe('Oslo:3')
      expect(seen).toEqual(['second listener still ran'])
    } finally {
      spy.mockRestore()
    }
  })

  it('a duck-typed context whose emit functions throw still runs the call', async () => {
    const spy = vi.spyOn(process, 'emitWarning').mockImplementation(() => {})
    try {
      const ctx = {
        id: 'mine',
        abortSignal: new AbortController().signal,
        emitToolExecutionStart: () => {
          throw new Error('boom')
        },
        emitToolExecutionEnd: () => {
          throw new Error('boom')
        },
      }
      await expect(weatherTool().executor(ctx)({ city: 'Oslo' })).resolves.toBe('Oslo:3')
    } finally {
      spy.mockRestore()
    }
  })

  it('records redacted args in events when redact is set; the handler still gets the real args', async () => {
    let received: unknown
    const tool = new Tool({
      name: 'save',
      description: '',
      inputSchema: validator.object({ secret: validator.string().required() }),
      redact: (args: { secret: string }) => ({ secretBytes: args.secret.length }),
      handler: async (args) => {
        received = args
        return 'ok'
      },
    })
    const { ctx, starts } = recordingContext()
    await tool.executor(ctx)({ secret: 'hunter2' })
    expect(starts[0]!.args).toEqual({ secretBytes: 7 })
    expect(JSON.stringify(starts)).not.toContain('hunter2')
    expect(received).toEqual({ secret: 'hunter2' })
  })

  it('runs redact only when something reads the logged args, and then once (issue 17)', async () => {
    let redactions = 0
    const tool = new Tool({
      name: 'store',
      description: '',
      inputSchema: validator.object({ content: validator.string().required() }),
      redact: (args: { content: string }) => {
        redactions++
        return { contentBytes: args.content.length }
      },
      handler: async () => 'ok',
    })
    // Nobody listens: the redaction (a hash of the whole content for write) is never computed.
    await tool.executor(createDispatchContext())({ content: 'secret text' })
    expect(redactions).toBe(0)
    // Two listeners, a spread, JSON and a prepared call's loggedArgs: computed once, the same value everywhere.
    const seen: unknown[] = []
    const ctx = createDispatchContext()
    ctx.on('toolExecutionStart', (event) => seen.push({ ...event }.args))
    ctx.on('toolExecutionStart', (event) => seen.push(JSON.parse(JSON.stringify(event)).args))
    await tool.executor(ctx)({ content: 'secret text' })
    expect(seen).toEqual([{ contentBytes: 11 }, { contentBytes: 11 }])
    expect(redactions).toBe(1)
    const prepared = await tool.executor(ctx).prepare({ content: 'more' })
    expect(redactions).toBe(1)
    expect(prepared.loggedArgs).toEqual({ contentBytes: 4 })
    expect(prepared.loggedArgs).toBe(prepared.loggedArgs)
    expect(redactions).toBe(2)
  })

  it('hashes a long string for the callId only when something reads it, and gives the formula of the args as they were (issue 17)', async () => {
    const infos: ToolCallInfo[] = []
    const tool = new Tool({
      name: 'store',
      description: '',
      inputSchema: validator.object({ path: validator.string().required(), content: validator.string().required() }),
      redact: (args: { content: string }) => ({ contentBytes: args.content.length }),
      handler: async (_args, _ctx, _meta, call) => {
        infos.push(call)
        return 'ok'
      },
    })
    const content = `${'line of text \u00e9 "quoted" \\ \n'.repeat(4_000)}\ud83d\ude00`
    const args = { path: 'a.txt', content }
    const expected = sha256Hex(canonicalStringify({ tool: 'store', args: { path: 'a.txt', content } }))
    const ctx = createDispatchContext()
    const prepared = await tool.executor(ctx).prepare(args)
    // Not hashed yet: the callId is an accessor until its first read.
    expect(typeof Object.getOwnPropertyDescriptor(prepared, 'callId')?.get).toBe('function')
    // The args object changing afterwards does not change the id: the strings were kept as they were.
    args.content = 'something else'
    expect(prepared.callId).toBe(expected)
    expect(Object.getOwnPropertyDescriptor(prepared, 'callId')?.value).toBe(expected)
    expect(prepared.idempotencyKey).toBe(sha256Hex(canonicalStringify({ scope: ctx.id, callId: expected })))

    // Through the executor, with listeners: events and the call info read it like a field.
    const { ctx: observed, starts, ends } = recordingContext()
    await tool.executor(observed)({ path: 'a.txt', content })
    expect(starts.map((event) => event.callId)).toEqual([expected])
    expect(ends.map((event) => event.callId)).toEqual([expected])
    expect(JSON.parse(JSON.stringify(starts[0])).callId).toBe(expected)
    expect({ ...ends[0] }.callId).toBe(expected)
    expect(structuredClone({ ...starts[0], args: undefined }).callId).toBe(expected)
    expect(starts[0]!.args).toEqual({ contentBytes: content.length })
    expect(infos.at(-1)!.callId).toBe(expected)
    expect({ ...infos.at(-1)! }.callId).toBe(expected)
    expect(JSON.parse(JSON.stringify(infos.at(-1))).callId).toBe(expected)
    // A short call is hashed at once, as before.
    const small = await tool.executor(ctx).prepare({ path: 'a.txt', content: 'short' })
    expect(Object.getOwnPropertyDescriptor(small, 'callId')?.value).toBe(sha256Hex(canonicalStringify({ tool: 'store', args: { path: 'a.txt', content: 'short' } })))
  })

  it('a pending callId works on a frozen prepared call, becomes a plain field once read, and can be assigned on an event', async () => {
    const tool = contentStore()
    const content = 'x'.repeat(5_000)
    const expected = sha256Hex(canonicalStringify({ tool: 'store', args: { content } }))
    const executor = tool.executor(createDispatchContext())
    const frozen = Object.freeze(await executor.prepare({ content }))
    expect(frozen.callId).toBe(expected)
    expect(frozen.callId).toBe(expected)
    expect(await executor.run(frozen)).toBe('ok')

    const { ctx, starts, ends } = recordingContext()
    ctx.on('toolExecutionEnd', (event) => {
      // Strict mode: assigning a read-only accessor would throw.
      event.callId = `${event.callId}!`
    })
    await tool.executor(ctx)({ content })
    expect(ends[0]!.callId).toBe(`${expected}!`)
    // Read once, the start event's accessor is a plain field: util.inspect shows the id, not [Getter].
    expect(starts[0]!.callId).toBe(expected)
    expect(Object.getOwnPropertyDescriptor(starts[0], 'callId')?.value).toBe(expected)
    expect(util.inspect(starts[0])).toContain(expected)
  })

  it("an event kept by a listener does not keep the call's args alive through its pending callId", () => {
    const script = `
      const { Tool, createDispatchContext, validator } = await import(${JSON.stringify(new URL('../../lib/index.ts', import.meta.url).href)})
      const refs = []
      const tool = new Tool({
        name: 'store', description: '',
        inputSchema: validator.object({ content: validator.string().required() }),
        handler: async (args) => { refs.push(new WeakRef(args)); return 'ok' },
      })
      const ctx = createDispatchContext()
      const kept = []
      ctx.on('toolExecutionEnd', (event) => kept.push(event))
      for (let i = 0; i < 3; i++) await tool.executor(ctx)({ content: String(i).repeat(100_000) })
      const unread = [...refs]
      for (const event of kept) void event.callId
      await new Promise((resolve) => setTimeout(resolve, 10))
      globalThis.gc()
      process.stdout.write(JSON.stringify({ events: kept.length, alive: unread.filter((ref) => ref.deref() !== undefined).length, ids: kept.map((event) => event.callId.length) }))
    `
    const result = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' })
    expect(result.status, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({ events: 3, alive: 0, ids: [64, 64, 64] })
  })

  it('hashes a string too long to escape safely later in prepare, as before', async () => {
    const tool = contentStore()
    const prepared = await tool.executor(createDispatchContext()).prepare({ content: 'x'.repeat(EAGER_HASH_CHARS + 1) })
    expect(Object.getOwnPropertyDescriptor(prepared, 'callId')?.value).toMatch(/^[0-9a-f]{64}$/)
  })

  it('passes the call info: callId, toolName, ctx.abortSignal, and a scoped idempotency key', async () => {
    const calls: ToolCallInfo[] = []
    const tool = new Tool({
      name: 'charge',
      description: '',
      inputSchema: validator.object({ cents: validator.number().required() }),
      sideEffect: true,
      idempotent: false,
      handler: async (_args, _ctx, _meta, call) => {
        calls.push({ ...call, idempotencyKey: call.idempotencyKey })
        return 'ok'
      },
    })
    const first = createDispatchContext({ idempotencyScope: 'run-1/node-a/0' })
    const retry = createDispatchContext({ idempotencyScope: 'run-1/node-a/0' })
    const other = createDispatchContext({ idempotencyScope: 'run-1/node-a/1' })
    const unscoped = createDispatchContext()
    for (const ctx of [first, retry, other, unscoped]) await tool.executor(ctx)({ cents: 500 })
    expect(calls[0]!.toolName).toBe('charge')
    expect(calls[0]!.signal).toBe(first.abortSignal)
    expect(calls[0]!.callId).toBe(sha256Hex(canonicalStringify({ tool: 'charge', args: { cents: 500 } })))
    expect(calls[0]!.idempotencyKey).toBe(
      sha256Hex(canonicalStringify({ scope: 'run-1/node-a/0', callId: calls[0]!.callId })),
    )
    expect(calls[1]!.idempotencyKey).toBe(calls[0]!.idempotencyKey)
    expect(calls[2]!.idempotencyKey).not.toBe(calls[0]!.idempotencyKey)
    expect(calls[3]!.idempotencyKey).toBe(sha256Hex(canonicalStringify({ scope: unscoped.id, callId: calls[3]!.callId })))
  })

  it('the call info serialises with its idempotency key (JSON.stringify of call)', async () => {
    let logged = ''
    const tool = new Tool({
      name: 'charge',
      description: '',
      inputSchema: validator.object({ cents: validator.number().required() }),
      handler: (_args, _ctx, _meta, call) => {
        logged = JSON.stringify(call)
        return 'ok'
      },
    })
    const ctx = createDispatchContext({ idempotencyScope: 'run-1' })
    await tool.executor(ctx)({ cents: 5 })
    const callId = sha256Hex(canonicalStringify({ tool: 'charge', args: { cents: 5 } }))
    expect(JSON.parse(logged)).toEqual({
      callId,
      toolName: 'charge',
      idempotencyKey: sha256Hex(canonicalStringify({ scope: 'run-1', callId })),
    })
  })

  it('run(prepared) runs its own prepared call and refuses a look-alike or another tool\'s call', async () => {
    const ran: unknown[] = []
    const make = (name: string) =>
      new Tool({
        name,
        description: '',
        inputSchema: validator.object({ n: validator.number().required() }),
        handler: (args: { n: number }) => {
          ran.push(args)
          return `${name}:${args.n}`
        },
      })
    const ctx = createDispatchContext()
    const a = make('a').executor(ctx)
    const b = make('b').executor(ctx)
    const prepared = await a.prepare({ n: 1 })
    expect(await a.run(prepared)).toBe('a:1')
    const lookAlike = { ...prepared, ok: true, args: { n: 'not validated' } }
    await expect(a.run(lookAlike as typeof prepared)).rejects.toMatchObject({ code: 'E_INVALID_TOOL_ARGS' })
    await expect(b.run(prepared)).rejects.toMatchObject({ code: 'E_INVALID_TOOL_ARGS' })
    expect(ran).toEqual([{ n: 1 }])
  })

  it('an aborted context fails the call with TOOL_ABORTED and never runs the handler', async () => {
    const handler = vi.fn(async () => 'ran')
    const tool = new Tool({ name: 'slow', description: '', inputSchema: validator.object({}), handler })
    const ctx = createDispatchContext()
    ctx.abort(new Error('user pressed stop'))
    const error = (await tool.executor(ctx)({}).catch((e: unknown) => e)) as E_TOOL_DOWNSTREAM_ERROR
    expect(error).toBeInstanceOf(E_TOOL_DOWNSTREAM_ERROR)
    expect((error.cause as { code: string }).code).toBe('TOOL_ABORTED')
    expect(handler).not.toHaveBeenCalled()
  })

  it('gives the handler the tool meta registry', async () => {
    const tool = new Tool({
      name: 'm',
      description: '',
      inputSchema: validator.object({}),
      meta: { region: 'eu' },
      handler: (_a, _c, meta) => String(meta.get('region')),
    })
    await expect(tool.executor(createDispatchContext())({})).resolves.toBe('eu')
  })
})

describe('Tool.describe', () => {
  it('is JSON-serialisable and validator.build() of it validates the same', async () => {
    const tool = weatherTool()
    const described = tool.describe()
    const roundTripped = JSON.parse(JSON.stringify(described))
    expect(roundTripped).toEqual(described)
    expect(described).toMatchObject({ name: 'weather', description: 'Forecast', sideEffect: false, idempotent: true })
    const rebuilt = validator.build(roundTripped.inputSchema)
    const samples: unknown[] = [
      { city: 'Oslo' },
      { city: 'Oslo', days: 14, units: 'imperial' },
      { city: 'Oslo', days: 15 },
      { city: 'Oslo', units: 'kelvin' },
      { days: 2 },
      { city: 3 },
      {},
      { city: 'Oslo', extra: 1 },
    ]
    for (const sample of samples) {
      const a = inputSchema.validate(sample, { convert: false })
      const b = rebuilt.validate(sample, { convert: false })
      expect(Boolean(b.error), JSON.stringify(sample)).toBe(Boolean(a.error))
      expect(b.value).toEqual(a.value)
    }
  })

  it('returns a fresh copy each time', () => {
    const tool = weatherTool()
    const a = tool.describe()
    a.name = 'mutated'
    expect(tool.describe().name).toBe('weather')
  })

  it('carries descriptions from the schema', () => {
    const d = weatherTool().describe()
    expect((d.inputSchema as { keys: Record<string, { flags?: { description?: string } }> }).keys.city!.flags?.description).toBe(
      'City name',
    )
  })
})

describe('Tool subclasses', () => {
  class GreetTool extends Tool {
    constructor(greeting: string) {
      super({
        name: 'greet',
        description: 'Greets someone',
        inputSchema: validator.object({ who: validator.string().required() }),
        handler: async ({ who }: { who: string }) => `${greeting}, ${who}`,
      })
    }
  }

  it('works exactly like a plain instance', async () => {
    const sub = new GreetTool('Hello')
    const plain = new Tool({
      name: 'greet',
      description: 'Greets someone',
      inputSchema: validator.object({ who: validator.string().required() }),
      handler: async ({ who }: { who: string }) => `Hello, ${who}`,
    })
    expect(Tool.isTool(sub)).toBe(true)
    expect(sub).toBeInstanceOf(Tool)
    expect(sub.describe()).toEqual(plain.describe())
    const a = recordingContext()
    const b = recordingContext()
    await expect(sub.executor(a.ctx)({ who: 'Ada' })).resolves.toBe('Hello, Ada')
    await expect(plain.executor(b.ctx)({ who: 'Ada' })).resolves.toBe('Hello, Ada')
    expect(a.starts[0]!.callId).toBe(b.starts[0]!.callId)
    await expect(sub.executor(a.ctx)({})).rejects.toBeInstanceOf(E_INVALID_TOOL_ARGS)
  })
})

describe('Tool.isTool', () => {
  it('recognises tools, including branded objects from another copy, and rejects look-alikes', () => {
    expect(Tool.isTool(weatherTool())).toBe(true)
    expect(Tool.isTool({ name: 'x', executor() {} })).toBe(false)
    expect(Tool.isTool(null)).toBe(false)
    expect(Tool.isTool('read')).toBe(false)
    const foreign = { [Symbol.for('toolsmith.tool')]: true }
    expect(Tool.isTool(foreign)).toBe(true)
  })

  it('exposes the RawTool schema for reuse', () => {
    const { error } = Tool.schema.validate({ name: 'ok', description: '', inputSchema, handler: () => '' })
    expect(error).toBeUndefined()
    expect(Tool.schema.validate({ name: 'no spaces' }).error).toBeDefined()
  })
})
