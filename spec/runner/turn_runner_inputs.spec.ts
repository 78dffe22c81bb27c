import { trackedMkdtemp } from '../support/temp_dirs.js'
import { realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  createTools,
  E_INVALID_OPTIONS,
  Sandbox,
  ToolRegistry,
  TurnRunner,
  defineTool,
  scriptedModel,
  validator,
  type ModelRequest,
  type ToolCallJournal,
} from '../../lib/index.js'

const echo = defineTool({
  name: 'echo',
  schema: validator.object({ text: validator.string().required() }),
  execute: async ({ text }: { text: string }) => text,
})
const secret = defineTool({ name: 'secret', schema: validator.object({}), execute: async () => 'hidden' })

describe('TurnRunner inputs', () => {
  it('refuses a Sandbox (the runner knows nothing of it) and names createTools instead (issue 12)', () => {
    expect(() => new TurnRunner({ model: () => ({ text: '' }), tools: new Sandbox() as never })).toThrow(
      /got Sandbox; for the built-ins pass createTools\(\{ rootDir \}\)/,
    )
  })

  it('takes createTools() and offers its five built-in tools', async () => {
    const root = realpathSync(trackedMkdtemp(join(tmpdir(), 'toolsmith-sandbox-')))
    writeFileSync(join(root, 'a.txt'), 'from the sandbox')
    let offered: string[] = []
    const runner = new TurnRunner({
      model: scriptedModel([
        (request) => {
          offered = request.tools.map((t) => t.name)
          return { toolCalls: [{ id: '1', name: 'read', args: { path: 'a.txt' } }] }
        },
      ]),
      tools: createTools({ rootDir: root }),
    })
    const result = await runner.run('read it')
    expect(offered.sort()).toEqual(['bash', 'edit', 'grep', 'read', 'write'])
    expect(result.messages.find((m) => m.role === 'tool')).toMatchObject({ content: 'from the sandbox' })
  })

  it('offers only the visible tools of a ToolRegistry', async () => {
    const registry = new ToolRegistry([echo, secret]).hide('secret')
    let offered: string[] = []
    const runner = new TurnRunner({ model: (r) => {
      offered = r.tools.map((t) => t.name)
      return { text: '' }
    }, tools: registry })
    await runner.run('x')
    expect(offered).toEqual(['echo'])
  })

  it('lets a run narrow the tools with allowTools', async () => {
    let offered: string[] = []
    const runner = new TurnRunner({ model: (r) => {
      offered = r.tools.map((t) => t.name)
      return { text: '' }
    }, tools: [echo, secret] })
    await runner.run('x', { allowTools: ['secret'] })
    expect(offered).toEqual(['secret'])
  })

  it('hands the model copies: changing the request changes nothing', async () => {
    const requests: ModelRequest[] = []
    const runner = new TurnRunner({
      model: scriptedModel([
        (request) => {
          requests.push(request)
          request.messages[0]!.content = 'tampered'
          request.messages.push({ role: 'user', content: 'injected' })
          request.tools[0]!.name = 'renamed'
          return { toolCalls: [{ id: '1', name: 'echo', args: { text: 'hi' } }] }
        },
        (request) => {
          requests.push(request)
          return { text: 'ok' }
        },
      ]),
      tools: [echo],
    })
    const result = await runner.run('original')
    expect(result.messages[0]).toEqual({ role: 'user', content: 'original' })
    expect(result.messages.some((m) => m.content === 'injected')).toBe(false)
    expect(requests[1]!.tools[0]!.name).toBe('echo')
  })

  it('keeps going when the journal fails, with a warning', async () => {
    const warnings: string[] = []
    const onWarning = (w: Error) => warnings.push(w.message)
    process.on('warning', onWarning)
    const broken: ToolCallJournal = {
      record: async () => {
        throw new Error('disk full')
      },
      list: async () => [],
      sideEffectsFor: async () => [],
    }
    try {
      const runner = new TurnRunner({
        model: scriptedModel([{ toolCalls: [{ id: '1', name: 'echo', args: { text: 'still here' } }] }, { text: 'done' }]),
        tools: [echo],
        journal: broken,
      })
      const result = await runner.run('x')
      expect(result.text).toBe('done')
      expect(result.messages[2]).toMatchObject({ role: 'tool', content: 'still here' })
      await new Promise((r) => setImmediate(r))
      expect(warnings.some((w) => w.includes('disk full'))).toBe(true)
    } finally {
      process.off('warning', onWarning)
    }
  })

  it('rejects bad options up front', () => {
    const model = () => ({ text: '' })
    expect(() => new TurnRunner({ model, tools: [], concurrency: 0 })).toThrow(E_INVALID_OPTIONS)
    expect(() => new TurnRunner({ model, tools: [], maxSteps: 1.5 })).toThrow(E_INVALID_OPTIONS)
    expect(() => new TurnRunner({ model, tools: [], identity: { runId: 'r', nodeId: 'n', iteration: 0, attempt: 0 } })).toThrow(
      E_INVALID_OPTIONS,
    )
    expect(() => new TurnRunner({ model: undefined as never, tools: [] })).toThrow(E_INVALID_OPTIONS)
  })

  it('propagates a model failure as the rejection of run', async () => {
    const runner = new TurnRunner({
      model: () => {
        throw new Error('rate limited')
      },
      tools: [],
    })
    await expect(runner.run('x')).rejects.toThrow('rate limited')
  })
})
