import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  ArtifactTool,
  DEFAULT_ARTIFACT_OUTPUT_LIMITS,
  E_INVALID_OPTIONS,
  E_INVALID_TOOL_ARGS,
  E_NOT_A_SPOOL_READER,
  E_TOOL_DOWNSTREAM_ERROR,
  FileSpoolStore,
  InMemorySpoolStore,
  MemorySpoolReader,
  SpooledArtifact,
  SpooledJsonArtifact,
  Tool,
  ToolCall,
  ToolRegistry,
  createDispatchContext,
  type SpoolReader,
} from '../../lib/index.js'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

function artifactOf(text: string): SpooledArtifact {
  return new SpooledArtifact(MemorySpoolReader.from(text))
}

function completed(id: string, tool: string, args: unknown, artifact: SpooledArtifact): ToolCall {
  return new ToolCall({ id, tool, args }).complete(artifact)
}

describe('SpooledArtifact', () => {
  const text = 'alpha\nbeta\r\ngamma\ndelta\nepsilon\n'

  it('head, tail, cat (1-based inclusive), byteLength, lineCount, asString', async () => {
    const artifact = artifactOf(text)
    expect(await artifact.lineCount()).toBe(5)
    expect(await artifact.byteLength()).toBe(Buffer.byteLength(text))
    expect(await artifact.asString()).toBe(text)
    expect(await artifact.head(2)).toBe('alpha\nbeta')
    expect(await artifact.head()).toBe('alpha\nbeta\ngamma\ndelta\nepsilon')
    expect(await artifact.tail(2)).toBe('delta\nepsilon')
    expect(await artifact.tail(0)).toBe('')
    expect(await artifact.tail(99)).toBe('alpha\nbeta\ngamma\ndelta\nepsilon')
    expect(await artifact.cat(2, 3)).toBe('beta\ngamma')
    expect(await artifact.cat(4)).toBe('delta\nepsilon')
    expect(await artifact.cat(5, 100)).toBe('epsilon')
    expect(await artifact.cat(4, 2)).toBe('')
  })

  it('grep returns 1-based lines and ignores g/y state', async () => {
    const artifact = artifactOf(text)
    expect(await artifact.grep(/a$/g)).toEqual([
      { line: 1, text: 'alpha' },
      { line: 2, text: 'beta' },
      { line: 3, text: 'gamma' },
      { line: 4, text: 'delta' },
    ])
    expect(await artifact.grep('^e')).toEqual([{ line: 5, text: 'epsilon' }])
    expect(await artifact.grep(/a$/, { maxMatches: 2 })).toHaveLength(2)
    await expect(artifact.grep('(')).rejects.toThrow(E_INVALID_OPTIONS)
  })

  it('works with a minimal reader that has no lines() method', async () => {
    const lines = ['x', 'yy', 'zzz']
    const reader: SpoolReader = {
      line: async (i) => lines[i],
      lineCount: async () => lines.length,
      byteLength: async () => 8,
      readAll: async () => lines.join('\n'),
    }
    const artifact = new SpooledArtifact(reader)
    expect(await artifact.tail(2)).toBe('yy\nzzz')
    expect(await artifact.grep(/y/)).toEqual([{ line: 2, text: 'yy' }])
  })

  it('refuses a non-reader with E_NOT_A_SPOOL_READER', () => {
    expect(() => new SpooledArtifact({} as SpoolReader)).toThrow(E_NOT_A_SPOOL_READER)
  })

  it('fromResult wraps text, bytes and streams in the class it is called on, via a store', async () => {
    const plain = await SpooledArtifact.fromResult('a\nb')
    expect(plain).toBeInstanceOf(SpooledArtifact)
    expect(await plain.lineCount()).toBe(2)
    const store = new InMemorySpoolStore()
    const json = await SpooledJsonArtifact.fromResult(new TextEncoder().encode('{"a":1}'), { store, id: 'k' })
    expect(json).toBeInstanceOf(SpooledJsonArtifact)
    expect(store.read('k')).toBeDefined()
    expect(await SpooledArtifact.fromResult(plain)).toBe(plain)
  })

  it('isSpooledArtifact', () => {
    expect(SpooledArtifact.isSpooledArtifact(artifactOf('x'))).toBe(true)
    expect(SpooledArtifact.isSpooledArtifact({ head() {} })).toBe(false)
    expect(SpooledArtifact.isSpooledArtifact({ [Symbol.for('toolsmith.spooled_artifact')]: true })).toBe(true)
  })

  it('toolMethods lists the four base methods', () => {
    expect(SpooledArtifact.toolMethods.map((m) => m.toolName)).toEqual([
      'artifact_head',
      'artifact_tail',
      'artifact_cat',
      'artifact_grep',
    ])
  })
})

describe('SpooledArtifact.forgeTools', () => {
  it('forges ephemeral, read-only ArtifactTools in a ToolRegistry', () => {
    const call = completed('call_1', 'bash', { cmd: 'ls' }, artifactOf('x'))
    const tools = SpooledArtifact.forgeTools([call])
    expect(ToolRegistry.isToolRegistry(tools)).toBe(true)
    expect(tools.all().map((t) => t.name)).toEqual(['artifact_head', 'artifact_tail', 'artifact_cat', 'artifact_grep'])
    for (const tool of tools) {
      expect(tool).toBeInstanceOf(ArtifactTool)
      expect(Tool.isTool(tool)).toBe(true)
      expect(tool.ephemeral).toBe(true)
      expect(tool.sideEffect).toBe(false)
      expect((tool as ArtifactTool).callIds).toEqual([call.checksum])
    }
    expect(tools.pruneEphemeral()).toHaveLength(4)
  })

  it('accepts { turnToolCalls } and skips calls without an artifact', () => {
    const pending = new ToolCall({ id: 'p', tool: 't' })
    const failed = new ToolCall({ id: 'f', tool: 't' }).fail(new Error('x'))
    expect(SpooledArtifact.forgeTools({ turnToolCalls: [pending, failed] }).size).toBe(0)
    expect(SpooledArtifact.forgeTools([]).size).toBe(0)
    expect(() => SpooledArtifact.forgeTools(5 as never)).toThrow(E_INVALID_OPTIONS)
  })

  it('reaches both of two calls sharing a checksum by provider id; the checksum finds the later', async () => {
    const first = completed('first', 'big', {}, artifactOf('run 1'))
    const second = completed('second', 'big', {}, artifactOf('run 2'))
    expect(first.checksum).toBe(second.checksum)
    const tools = SpooledArtifact.forgeTools([first, second])
    const head = tools.get('artifact_head')!.executor(createDispatchContext())
    expect(await head({ callId: 'first' })).toMatch(/^run 1\n/)
    expect(await head({ callId: 'second' })).toMatch(/^run 2\n/)
    expect(await head({ callId: first.checksum })).toMatch(/^run 2\n/)
    const tool = tools.get('artifact_head') as ArtifactTool
    expect(tool.ids).toEqual(['first', 'second'])
    expect(tool.callIds).toEqual([first.checksum])
    expect(tool.description).toContain('first from big, second from big')
  })

  it('finds the artifact by checksum or provider id; an unknown id names the known ones', async () => {
    const a = completed('call_a', 'read', { path: 'a' }, artifactOf('from a'))
    const b = completed('call_b', 'read', { path: 'b' }, artifactOf('from b'))
    const tools = SpooledArtifact.forgeTools([a, b])
    const head = tools.get('artifact_head')!.executor(createDispatchContext())
    expect(await head({ callId: b.checksum })).toMatch(/^from b\n/)
    expect(await head({ callId: 'call_a' })).toMatch(/^from a\n/)
    let caught: unknown
    try {
      await head({ callId: 'nope' })
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(E_TOOL_DOWNSTREAM_ERROR)
    const message = (caught as Error).message
    expect(message).toContain('"nope"')
    expect(message).toContain(a.checksum)
    expect(message).toContain(b.checksum)
    await expect(head({})).rejects.toThrow(E_INVALID_TOOL_ARGS)
  })

  it('pages a large file-backed artifact with bounded output', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolsmith-spec-forge-'))
    dirs.push(dir)
    const store = new FileSpoolStore({ dir })
    const total = 300_000
    const lineText = (i: number): string => `row ${i + 1} ${i % 3000 === 0 ? 'ERROR' : 'ok'} ${'.'.repeat(i % 90)}`
    async function* produce(): AsyncGenerator<string> {
      for (let i = 0; i < total; i += 5000) {
        yield Array.from({ length: Math.min(5000, total - i) }, (_, k) => `${lineText(i + k)}\n`).join('')
      }
    }
    const artifact = new SpooledArtifact(await store.write('log', produce()))
    const call = completed('call_log', 'bash', { cmd: 'build' }, artifact)
    const tools = SpooledArtifact.forgeTools([call])
    const ctx = createDispatchContext()
    const limits = DEFAULT_ARTIFACT_OUTPUT_LIMITS
    const run = (name: string, args: Record<string, unknown>): Promise<string> =>
      tools.get(name)!.executor(ctx)({ callId: call.checksum, ...args }) as Promise<string>

    const head = await run('artifact_head', { n: 5 })
    expect(head).toBe(`${[0, 1, 2, 3, 4].map(lineText).join('\n')}\n[lines 1-5 of ${total}]`)

    const page = await run('artifact_cat', { start: 150_001, end: 150_003 })
    expect(page.split('\n').slice(0, 3)).toEqual([150_000, 150_001, 150_002].map(lineText))

    const tail = await run('artifact_tail', { n: 2 })
    expect(tail.split('\n').slice(0, 2)).toEqual([total - 2, total - 1].map(lineText))
    expect(tail).toContain(`lines ${total - 1}-${total} of ${total}`)

    // Asking for everything returns one bounded page and says how to continue.
    const big = await run('artifact_cat', { start: 1 })
    expect(Buffer.byteLength(big)).toBeLessThanOrEqual(limits.maxBytes)
    const shown = big.split('\n').length - 1
    expect(shown).toBeLessThanOrEqual(limits.maxLines)
    expect(big).toMatch(new RegExp(`continue with artifact_cat start=${shown + 1}`))

    const bigTail = await run('artifact_tail', { n: 100_000 })
    expect(Buffer.byteLength(bigTail)).toBeLessThanOrEqual(limits.maxBytes)
    expect(bigTail).toContain(lineText(total - 1))
    expect(bigTail).toMatch(/earlier lines: artifact_cat start=1 end=\d+/)

    const grep = await run('artifact_grep', { pattern: 'ERROR' })
    const hits = grep.split('\n').filter((l) => /^\d+:/.test(l))
    expect(hits.slice(0, 3)).toEqual([`1:${lineText(0)}`, `3001:${lineText(3000)}`, `6001:${lineText(6000)}`])
    expect(hits).toHaveLength(total / 3000)
    expect(grep).toContain(`${total / 3000} matches in ${total} lines`)

    const many = await run('artifact_grep', { pattern: 'ok' })
    expect(Buffer.byteLength(many)).toBeLessThanOrEqual(limits.maxBytes)
    expect(many).toContain('more exist')

    const none = await run('artifact_grep', { pattern: 'NOPE', ignoreCase: true })
    expect(none).toBe(`[no matches in ${total} lines]`)
  })

  it('cuts an enormous single line and respects custom limits', async () => {
    const artifact = artifactOf(`${'€'.repeat(100_000)}\nshort\n`)
    const call = completed('c', 't', {}, artifact)
    const tools = SpooledArtifact.forgeTools([call], { maxLines: 1, maxBytes: 1000, maxLineBytes: 100 })
    const out = (await tools.get('artifact_head')!.executor(createDispatchContext())({ callId: 'c', n: 2 })) as string
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(1000)
    expect(out).toContain('line cut: 300000 bytes')
    expect(out).toContain('stopped at the 1-line limit; continue with artifact_cat start=2')
    expect(out.startsWith(`${'€'.repeat(33)} `)).toBe(true)
  })

  it('rejects invalid limits', () => {
    const call = completed('c', 't', {}, artifactOf('x'))
    expect(() => SpooledArtifact.forgeTools([call], { maxLines: 0 })).toThrow(E_INVALID_OPTIONS)
  })

  it('reports an empty artifact and an out-of-range page', async () => {
    const empty = completed('e', 't', { n: 1 }, artifactOf(''))
    const small = completed('s', 't', { n: 2 }, artifactOf('a\nb'))
    const tools = SpooledArtifact.forgeTools([empty, small])
    const cat = tools.get('artifact_cat')!.executor(createDispatchContext())
    expect(await cat({ callId: 'e', start: 1 })).toBe('[empty result: 0 lines]')
    expect(await cat({ callId: 's', start: 5 })).toBe('[no lines in range 5-2; the result has 2 lines]')
  })
})
