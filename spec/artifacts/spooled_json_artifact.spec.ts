import { parseJsonPath } from '../../lib/entries/internal.js'
import { describe, expect, it } from 'vitest'
import {
  E_ARTIFACT_QUERY_FAILED,
  E_TOOL_DOWNSTREAM_ERROR,
  MemorySpoolReader,
  SpooledArtifact,
  SpooledJsonArtifact,
  ToolCall,
  createDispatchContext,
} from '../../lib/index.js'

const doc = {
  users: [
    { name: 'ada', roles: ['admin', 'dev'] },
    { name: 'bob', roles: [] },
  ],
  'a.b': { c: true },
  count: 2,
}

function jsonArtifact(text: string, format?: 'json' | 'jsonl'): SpooledJsonArtifact {
  return new SpooledJsonArtifact(MemorySpoolReader.from(text), format ? { format } : {})
}

describe('parseJsonPath', () => {
  it('parses dots, brackets, quotes and the $ root', () => {
    expect(parseJsonPath('')).toEqual([])
    expect(parseJsonPath('$')).toEqual([])
    expect(parseJsonPath('users.0.name')).toEqual(['users', 0, 'name'])
    expect(parseJsonPath('$.users[1].roles')).toEqual(['users', 1, 'roles'])
    expect(parseJsonPath('["a.b"].c')).toEqual(['a.b', 'c'])
    expect(parseJsonPath("[3]['x y']")).toEqual([3, 'x y'])
    expect(() => parseJsonPath('a[0')).toThrow(E_ARTIFACT_QUERY_FAILED)
  })
})

describe('SpooledJsonArtifact (json)', () => {
  const artifact = jsonArtifact(JSON.stringify(doc, null, 2))

  it('detects one document, even pretty-printed', async () => {
    expect(await artifact.format()).toBe('json')
    expect(await jsonArtifact('{"a":1}').format()).toBe('json')
  })

  it('keys, get and slice by path', async () => {
    expect(await artifact.keys()).toEqual({ type: 'object', keys: ['users', 'a.b', 'count'] })
    expect(await artifact.keys('users')).toEqual({ type: 'array', length: 2 })
    expect(await artifact.keys('count')).toEqual({ type: 'number' })
    expect(await artifact.get('users[0].name')).toBe('ada')
    expect(await artifact.get('users.-1.name')).toBe('bob')
    expect(await artifact.get('["a.b"].c')).toBe(true)
    expect(await artifact.get()).toEqual(doc)
    expect(await artifact.slice('users', 1)).toEqual([doc.users[1]])
    expect(await artifact.slice('users[0].roles', 0, 1)).toEqual(['admin'])
  })

  it('explains a missing path and a non-array slice', async () => {
    await expect(artifact.get('users[5]')).rejects.toThrow(/array of 2 items/)
    await expect(artifact.get('nope')).rejects.toThrow(/keys users, a\.b, count/)
    await expect(artifact.get('count.x')).rejects.toThrow(E_ARTIFACT_QUERY_FAILED)
    await expect(artifact.slice('count')).rejects.toThrow(/not an array/)
  })

  it('reports invalid JSON', async () => {
    await expect(jsonArtifact('{oops').get('a')).rejects.toThrow(/not valid JSON/)
  })
})

describe('SpooledJsonArtifact (jsonl)', () => {
  const lines = ['{"id":0,"v":"a"}', '{"id":1,"v":"b"}', '', '{"id":3,"v":"d"}']
  const artifact = jsonArtifact(`${lines.join('\n')}\n`)

  it('detects JSON Lines and treats the root as an array of records', async () => {
    expect(await artifact.format()).toBe('jsonl')
    expect(await artifact.keys()).toEqual({ type: 'array', length: 4 })
    expect(await artifact.get('1.v')).toBe('b')
    expect(await artifact.get('[3]')).toEqual({ id: 3, v: 'd' })
    expect(await artifact.get('2')).toBeNull()
    expect(await artifact.slice('', 1, 3)).toEqual([{ id: 1, v: 'b' }, null])
    expect(await artifact.slice('', -1)).toEqual([{ id: 3, v: 'd' }])
  })

  it('refuses to read the whole root and names a bad record', async () => {
    await expect(artifact.get('')).rejects.toThrow(/slice/)
    await expect(artifact.get('9')).rejects.toThrow(/4 records/)
    await expect(jsonArtifact('{"a":1}\n{bad\n', 'jsonl').get('1')).rejects.toThrow(/Line 2 is not valid JSON/)
  })

  it('a declared format wins over detection', async () => {
    expect(await jsonArtifact('{"a":1}\n{"a":2}\n', 'json').format()).toBe('json')
  })
})

describe('forged json_* tools', () => {
  it('forges json_keys/json_get/json_slice only when a JSON artifact is present, with bounded output', async () => {
    const big = { items: Array.from({ length: 5000 }, (_, i) => ({ i, text: 'x'.repeat(50) })) }
    const call = new ToolCall({ id: 'j', tool: 'fetch', args: {} }).complete(jsonArtifact(JSON.stringify(big)))
    const plain = new ToolCall({ id: 'p', tool: 'read', args: {} }).complete(
      new SpooledArtifact(MemorySpoolReader.from('text')),
    )
    expect(SpooledArtifact.forgeTools([plain]).has('json_get')).toBe(false)
    const tools = SpooledArtifact.forgeTools([call, plain])
    expect(tools.has('json_keys') && tools.has('json_get') && tools.has('json_slice')).toBe(true)
    const ctx = createDispatchContext()

    expect(await tools.get('json_keys')!.executor(ctx)({ callId: 'j' })).toBe('$: object with 1 keys\nitems: array (5000)')
    expect(await tools.get('json_keys')!.executor(ctx)({ callId: 'j', path: 'items' })).toMatch(/array of 5000 items/)
    expect(await tools.get('json_get')!.executor(ctx)({ callId: 'j', path: 'items[42].i' })).toBe('42')

    const whole = (await tools.get('json_get')!.executor(ctx)({ callId: 'j', path: '' })) as string
    expect(Buffer.byteLength(whole)).toBeLessThanOrEqual(16_384)
    expect(whole).toMatch(/truncated/)

    const slice = (await tools.get('json_slice')!.executor(ctx)({ callId: 'j', path: 'items', start: 10, end: 13 })) as string
    expect(slice.split('\n')).toEqual([
      `[10] ${JSON.stringify(big.items[10])}`,
      `[11] ${JSON.stringify(big.items[11])}`,
      `[12] ${JSON.stringify(big.items[12])}`,
      '[items 10-12 of 5000]',
    ])
    const page = (await tools.get('json_slice')!.executor(ctx)({ callId: 'j', path: 'items' })) as string
    expect(Buffer.byteLength(page)).toBeLessThanOrEqual(16_384)
    expect(page).toMatch(/continue with start=\d+/)

    await expect(tools.get('json_get')!.executor(ctx)({ callId: 'p', path: '' })).rejects.toThrow(
      /SpooledArtifact, which json_get does not read/,
    )
    await expect(tools.get('json_get')!.executor(ctx)({ callId: 'j', path: 'nope' })).rejects.toThrow(
      E_TOOL_DOWNSTREAM_ERROR,
    )
  })
})
