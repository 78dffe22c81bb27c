import { getEventListeners } from 'node:events'
import { trackedMkdtemp } from '../support/temp_dirs.js'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import {
  E_INVALID_OPTIONS,
  Tool,
  ToolRegistry,
  createDispatchContext,
  createMcpServer,
  createTools,
  toMcpTool,
  validator,
  type ProviderCallContext,
  type ToolExecutionEndEvent,
} from '../../lib/index.js'
import { createFailingTool, createTicketTool } from './support/custom_tools.js'

const FIXTURE = resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures/mcp_server.ts')

type CallResult = { isError?: boolean; content: { type: string; text?: string }[] }
const text = (result: unknown) => (result as CallResult).content.map((c) => c.text ?? '').join('')

function tempProject(): string {
  const root = trackedMkdtemp(join(tmpdir(), 'toolsmith-mcp-'))
  mkdirSync(join(root, 'src'))
  writeFileSync(join(root, 'src/greet.txt'), 'hello\nworld\n')
  return root
}

const EXPECTED_ANNOTATIONS = {
  read: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  grep: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  write: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  edit: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  bash: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  create_ticket: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
}

/** The same conversation against any connected client: list, call every built-in and the custom tool. */
async function exercise(client: Client, root: string): Promise<void> {
  const { tools } = await client.listTools()
  expect(tools.map((t) => t.name).sort()).toEqual(['bash', 'create_ticket', 'edit', 'grep', 'read', 'write'])
  for (const tool of tools) {
    expect(tool.annotations).toMatchObject({ ...EXPECTED_ANNOTATIONS[tool.name as keyof typeof EXPECTED_ANNOTATIONS], openWorldHint: false })
    expect(tool.inputSchema.type).toBe('object')
    expect(tool.title).toBe(tool.annotations!.title)
  }

  expect(text(await client.callTool({ name: 'read', arguments: { path: 'src/greet.txt' } }))).toBe('hello\nworld\n')
  expect(text(await client.callTool({ name: 'write', arguments: { path: 'src/new.txt', content: 'one\n' } }))).toBe('ok')
  const patch = '--- a/src/greet.txt\n+++ b/src/greet.txt\n@@ -1,2 +1,2 @@\n hello\n-world\n+there\n'
  expect(text(await client.callTool({ name: 'edit', arguments: { path: 'src/greet.txt', patch } }))).toBe('ok')
  expect(readFileSync(join(root, 'src/greet.txt'), 'utf8')).toBe('hello\nthere\n')
  expect(text(await client.callTool({ name: 'grep', arguments: { pattern: 'there|one' } })).trim().split('\n').sort()).toEqual([
    'src/greet.txt:2:there',
    'src/new.txt:1:one',
  ])
  expect(text(await client.callTool({ name: 'bash', arguments: { cmd: 'ls', args: ['src'] } })).split('\n').filter(Boolean)).toEqual([
    'greet.txt',
    'new.txt',
  ])
  // A null for an optional field (as a strict-mode model sends it) is dropped, so the default applies.
  expect(text(await client.callTool({ name: 'create_ticket', arguments: { title: 'Broken build', priority: null } }))).toBe(
    'TICKET-1 Broken build (normal)',
  )

  const missing = (await client.callTool({ name: 'read', arguments: { path: 'nope.txt' } })) as CallResult
  expect(missing.isError).toBe(true)
  expect(text(missing)).toMatch(/^TOOL_FILE_NOT_FOUND: .* \[read failed; E_TOOL_DOWNSTREAM_ERROR\]$/)

  const invalid = (await client.callTool({ name: 'write', arguments: { path: 'x.txt' } })) as CallResult
  expect(invalid.isError).toBe(true)
  expect(text(invalid)).toMatch(/^E_INVALID_TOOL_ARGS: .*"content" is required/)

  const escaped = (await client.callTool({ name: 'read', arguments: { path: '../outside.txt' } })) as CallResult
  expect(escaped.isError).toBe(true)
  expect(text(escaped)).toContain('TOOL_PATH_ESCAPE')

  await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool: no_such_tool/)
}

describe('createMcpServer options', () => {
  it.each([
    ['no options', undefined],
    ['null', null],
    ['an empty object', {}],
    ['no version', { name: 's' }],
    ['no name', { version: '1' }],
    ['an empty name', { name: '', version: '1' }],
    ['a numeric version', { name: 's', version: 1 }],
  ])('%s → E_INVALID_OPTIONS naming { name, version }', (_label, options) => {
    const tools = [createTicketTool()]
    const create = (): unknown => createMcpServer(tools, options as never)
    expect(create).toThrow(E_INVALID_OPTIONS)
    expect(create).toThrow(/createMcpServer\(tools, \{ name, version \}\)/)
  })
})

describe('createMcpServer with the SDK Client in memory', () => {
  it('returns the SDK Server synchronously, lists and calls the built-ins and a custom tool', async () => {
    const root = tempProject()
    const ends: ToolExecutionEndEvent[] = []
    const context = createDispatchContext({ onToolExecutionEnd: (e) => ends.push(e) })
    const server = createMcpServer([...Object.values(createTools({ rootDir: root })), createTicketTool()], {
      name: 'toolsmith-spec',
      version: '1.0.0',
      context,
    })
    expect(typeof server.connect).toBe('function')
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
    await server.connect(serverTransport)
    const client = new Client({ name: 'spec-client', version: '1.0.0' })
    await client.connect(clientTransport)
    expect(client.getServerVersion()).toMatchObject({ name: 'toolsmith-spec', version: '1.0.0' })
    await exercise(client, root)
    // Every executed call went through tool.executor(ctx): its events reached our context (invalid args emit none).
    expect(ends.map((e) => `${e.toolName}:${e.isError}`)).toEqual([
      'read:false', 'write:false', 'edit:false', 'grep:false', 'bash:false', 'create_ticket:false', 'read:true', 'read:true',
    ])
    await client.close()
  })

  it('a tool error from a custom tool carries its code', async () => {
    const server = createMcpServer({ explode: createFailingTool() }, { name: 's', version: '1' })
    const [a, b] = InMemoryTransport.createLinkedPair()
    await server.connect(b)
    const client = new Client({ name: 'c', version: '1' })
    await client.connect(a)
    const result = (await client.callTool({ name: 'explode', arguments: { reason: 'test' } })) as CallResult
    expect(result.isError).toBe(true)
    expect(text(result)).toBe('BOOM: exploded: test [explode failed; E_TOOL_DOWNSTREAM_ERROR]')
    await client.close()
  })

  it('passes the request id and cancellation to the handler', async () => {
    let seen: { toolCallId: string; aborted: boolean } | undefined
    const slow = new Tool({
      name: 'slow',
      description: 'Waits until cancelled',
      inputSchema: validator.object({}),
      handler: (_args, ctx, _meta, call) =>
        new Promise<string>((resolve) => {
          call.signal.addEventListener('abort', () => {
            seen = { toolCallId: (ctx as ProviderCallContext).toolCallId, aborted: call.signal.aborted }
            resolve('cancelled')
          })
        }),
    })
    const server = createMcpServer([slow], { name: 's', version: '1' })
    const [a, b] = InMemoryTransport.createLinkedPair()
    await server.connect(b)
    const client = new Client({ name: 'c', version: '1' })
    await client.connect(a)
    const controller = new AbortController()
    const pending = client.callTool({ name: 'slow', arguments: {} }, undefined, { signal: controller.signal })
    setTimeout(() => controller.abort('stop'), 50)
    await expect(pending).rejects.toThrow()
    // The cancellation reaches the server asynchronously: wait for it, bounded.
    await vi.waitFor(() => expect(seen?.aborted).toBe(true), { timeout: 10_000 })
    expect(seen?.toolCallId).toMatch(/^\d+$/)
    await client.close()
  })

  it('with a context of its own, aborting that context cancels a running call, and so does the client', async () => {
    const seen: string[] = []
    const slow = new Tool({
      name: 'slow',
      description: 'Waits until cancelled',
      inputSchema: validator.object({ tag: validator.string().required() }),
      handler: ({ tag }, _ctx, _meta, call) =>
        new Promise<string>((resolve) => {
          call.signal.addEventListener('abort', () => {
            seen.push(tag)
            resolve('cancelled')
          })
        }),
    })
    const context = createDispatchContext()
    const server = createMcpServer([slow], { name: 's', version: '1', context })
    const [a, b] = InMemoryTransport.createLinkedPair()
    await server.connect(b)
    const client = new Client({ name: 'c', version: '1' })
    await client.connect(a)
    const controller = new AbortController()
    const byClient = client.callTool({ name: 'slow', arguments: { tag: 'client' } }, undefined, { signal: controller.signal })
    setTimeout(() => controller.abort('stop'), 50)
    await expect(byClient).rejects.toThrow()
    await vi.waitFor(() => expect(seen).toEqual(['client']), { timeout: 10_000 })
    const byContext = client.callTool({ name: 'slow', arguments: { tag: 'context' } })
    setTimeout(() => context.abort('shutting down'), 50)
    await byContext
    expect(seen).toEqual(['client', 'context'])
    await client.close()
  })

  it('with a context of its own, finished calls leave no listener on its signal, calls in flight share one', async () => {
    const gates: (() => void)[] = []
    const wait = new Tool({
      name: 'wait',
      description: 'Waits for the spec',
      inputSchema: validator.object({}),
      handler: (_args, _ctx, _meta, call) =>
        new Promise<string>((resolve) => {
          gates.push(() => resolve('done'))
          call.signal.addEventListener('abort', () => resolve(`aborted: ${String(call.signal.reason)}`))
        }),
    })
    const context = createDispatchContext()
    const server = createMcpServer([wait, createTicketTool()], { name: 's', version: '1', context })
    const [a, b] = InMemoryTransport.createLinkedPair()
    await server.connect(b)
    const client = new Client({ name: 'c', version: '1' })
    await client.connect(a)
    for (let i = 0; i < 50; i++) expect((await client.callTool({ name: 'create_ticket', arguments: { title: `ticket ${i}` } })).isError).toBeFalsy()
    expect(getEventListeners(context.abortSignal, 'abort')).toHaveLength(0)
    const inFlight = [1, 2, 3].map(() => client.callTool({ name: 'wait', arguments: {} }))
    await vi.waitFor(() => expect(gates).toHaveLength(3), { timeout: 10_000 })
    expect(getEventListeners(context.abortSignal, 'abort')).toHaveLength(1)
    gates[0]!()
    expect(text(await inFlight[0]!)).toBe('done')
    expect(getEventListeners(context.abortSignal, 'abort')).toHaveLength(1)
    context.abort('shutting down')
    expect((await Promise.all(inFlight.slice(1))).map(text)).toEqual(['aborted: shutting down', 'aborted: shutting down'])
    expect(getEventListeners(context.abortSignal, 'abort')).toHaveLength(0)
    await client.close()
  })

  it('reads a ToolRegistry on every request and maps names MCP rejects', async () => {
    const registry = new ToolRegistry([createTicketTool()])
    const server = createMcpServer(registry, { name: 's', version: '1', openWorldHint: true })
    const [a, b] = InMemoryTransport.createLinkedPair()
    await server.connect(b)
    const client = new Client({ name: 'c', version: '1' })
    await client.connect(a)
    expect((await client.listTools()).tools.map((t) => [t.name, t.annotations?.openWorldHint])).toEqual([['create_ticket', true]])
    registry.hide('create_ticket')
    registry.register(createFailingTool())
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['explode'])
    await expect(client.callTool({ name: 'create_ticket', arguments: { title: 'abc' } })).rejects.toThrow(/Unknown tool/)
    await client.close()
  })
})

describe('createMcpServer as a child process over stdio', () => {
  let client: Client
  let root: string
  beforeAll(async () => {
    root = tempProject()
    client = new Client({ name: 'spec-stdio-client', version: '1.0.0' })
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', FIXTURE, root], stderr: 'pipe' }),
    )
  })
  afterAll(async () => {
    await client?.close()
  })

  it('lists and calls every built-in and the custom tool', async () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'toolsmith-fixture' })
    await exercise(client, root)
  })
})

describe('toMcpTool', () => {
  it('derives title and annotations from the flags, and honours meta.mcp overrides', () => {
    const tool = new Tool({
      name: 'fetchPage_v2',
      description: 'Fetch a web page',
      inputSchema: validator.object({ url: validator.string().required() }),
      handler: () => '',
      meta: { mcp: { openWorldHint: true } },
    })
    expect(toMcpTool(tool)).toMatchObject({
      name: 'fetchPage_v2',
      title: 'Fetch page v2',
      annotations: { title: 'Fetch page v2', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    })
    const titled = new Tool({
      name: 'x',
      description: 'x',
      inputSchema: validator.object({}),
      handler: () => '',
      meta: { mcp: { title: 'Custom' } },
    })
    expect(toMcpTool(titled).title).toBe('Custom')
  })
})
