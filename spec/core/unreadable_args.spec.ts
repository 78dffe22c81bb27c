/**
 * Args that throw when read (a getter, a Proxy trap, `toJSON`, a revoked
 * Proxy) are invalid args: `E_INVALID_TOOL_ARGS` naming the argument, never
 * whatever the getter threw, and never a crash of the executor. The handler
 * does not run.
 */
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  E_INVALID_TOOL_ARGS,
  E_NOT_CANONICALIZABLE,
  callIdOf,
  canonicalStringify,
  createDispatchContext,
  createTools,
  defineTool,
  validator,
  type BuiltinTools,
} from '../../lib/index.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'

let tools: BuiltinTools
beforeAll(() => {
  tools = createTools({ rootDir: trackedMkdtemp(join(tmpdir(), 'toolsmith-unreadable-')) })
})

const boom = (what: string) => (): never => {
  throw new Error(what)
}

/** [name, tool, args, path named in the error ('' for the arguments as a whole), text of what was thrown]. */
const CASES: [string, 'read' | 'bash', () => unknown, string, string][] = [
  ['a getter on an argument', 'read', () => ({ get path() { return boom('getter boom')() } }), 'path', 'getter boom'],
  ['a getter on a nested object', 'bash', () => ({ cmd: 'echo', env: { get SECRET() { return boom('nested boom')() } } }), 'env.SECRET', 'nested boom'],
  ['a getter on an array element', 'bash', () => ({ cmd: 'echo', args: Object.defineProperty(['a'], 0, { get: boom('element boom'), enumerable: true }) }), 'args[0]', 'element boom'],
  ['a getter that throws a string', 'read', () => ({ get path() { throw 'not an Error' } }), 'path', 'not an Error'],
  ['a Proxy whose ownKeys throws', 'read', () => new Proxy({ path: 'a' }, { ownKeys: boom('ownKeys boom') }), '', 'ownKeys boom'],
  ['a Proxy whose get throws', 'read', () => new Proxy({ path: 'a' }, { get: boom('get boom') }), '', 'get boom'],
  ['a Proxy whose getOwnPropertyDescriptor throws', 'read', () => new Proxy({ path: 'a' }, { getOwnPropertyDescriptor: boom('descriptor boom') }), '', 'descriptor boom'],
  ['a nested Proxy whose get throws', 'bash', () => ({ cmd: 'echo', env: new Proxy({ A: '1' }, { get: boom('nested get boom') }) }), 'env', 'nested get boom'],
  ['a revoked Proxy', 'read', () => revoked(), '', 'revoked'],
  ['a toJSON that throws', 'read', () => ({ path: 'a', toJSON: boom('toJSON boom') }), '', 'toJSON boom'],
  ['a nested toJSON that throws', 'bash', () => ({ cmd: 'echo', env: { toJSON: boom('nested toJSON boom') } }), 'env', 'nested toJSON boom'],
]

function revoked(): object {
  const { proxy, revoke } = Proxy.revocable({ path: 'a' }, {})
  revoke()
  return proxy
}

describe('args that throw when read are E_INVALID_TOOL_ARGS naming the argument', () => {
  it.each(CASES)('%s: the executor throws E_INVALID_TOOL_ARGS', async (_name, toolName, args, path, thrown) => {
    const error = await tools[toolName].executor(createDispatchContext())(args() as never).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(E_INVALID_TOOL_ARGS)
    const message = (error as Error).message
    expect(message).toContain(`Invalid arguments for tool "${toolName}": reading ${path === '' ? 'the arguments' : `"${path}"`} threw: `)
    expect(message).toContain(thrown)
    expect(message).not.toContain('\n')
    expect((error as E_INVALID_TOOL_ARGS).details).toMatchObject({
      toolName,
      issues: [{ path, type: 'any.unreadable', message: expect.stringContaining(thrown) }],
    })
  })

  it.each(CASES)('%s: prepare answers not ok, with a stable callId', async (_name, toolName, args) => {
    const prepared = await tools[toolName].prepare(args(), createDispatchContext())
    expect(prepared.ok).toBe(false)
    expect(prepared.callId).toMatch(/^[0-9a-f]{64}$/)
    expect((await tools[toolName].prepare(args(), createDispatchContext())).callId).toBe(prepared.callId)
    expect(callIdOf(toolName, args())).toBe(prepared.callId)
  })

  it('the handler never runs', async () => {
    let ran = false
    const tool = defineTool({
      name: 'probe',
      description: 'Probe.',
      schema: validator.object({ settings: validator.object({ depth: validator.number() }) }),
      execute: async () => {
        ran = true
        return 'ran'
      },
    })
    const error = await tool.executor(createDispatchContext())({ settings: { get depth() { return boom('depth boom')() } } }).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'E_INVALID_TOOL_ARGS', message: expect.stringContaining('reading "settings.depth" threw: depth boom') })
    expect(ran).toBe(false)
  })
})

describe('canonicalStringify names the path of a value that cannot be read', () => {
  it.each([
    ['a.b', () => ({ a: { get b() { return boom('b boom')() } } }), 'Reading "a.b" threw: b boom'],
    ['list[1]["odd key"]', () => ({ list: [1, { get 'odd key'() { return boom('odd boom')() } }] }), 'Reading "list[1][\\"odd key\\"]" threw: odd boom'],
    ['', () => new Proxy({}, { ownKeys: boom('keys boom') }), 'Reading the value threw: keys boom'],
  ])('E_NOT_CANONICALIZABLE at "%s"', (path, value, message) => {
    let error: unknown
    try {
      canonicalStringify(value())
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(E_NOT_CANONICALIZABLE)
    expect(error).toMatchObject({ message, details: { path } })
    expect((error as Error).cause).toBeInstanceOf(Error)
  })
})
