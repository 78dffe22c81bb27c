import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { describe, expect, it } from 'vitest'
import {
  E_TOOL_FILE_NOT_FOUND,
  E_TOOL_PATH_ESCAPE,
  TOOL_FILE_NOT_FOUND,
  TOOL_PATH_ESCAPE,
  TurnRunner,
  createDispatchContext,
  createMcpServer,
  createTools,
  scriptedModel,
  toAiSdkTools,
  toolFailureText,
} from '../lib/index.js'
import { runCli } from './cli/support/run_cli.js'
import { trackedMkdtemp } from './support/temp_dirs.js'

const ONE_FORM = /^TOOL_FILE_NOT_FOUND: [^\n]*missing\.txt[^\n]* \[read failed; E_TOOL_DOWNSTREAM_ERROR\]$/

describe('one text form for a tool failure on every surface (issue 12)', () => {
  const root = trackedMkdtemp(join(tmpdir(), 'toolsmith-failure-'))
  writeFileSync(join(root, 'present.txt'), 'here')
  const { read } = createTools({ rootDir: root })

  async function executorText(): Promise<string> {
    try {
      await read.executor(createDispatchContext())({ path: 'missing.txt' })
    } catch (error) {
      return toolFailureText(error)
    }
    throw new Error('the read did not fail')
  }

  it('the root cause leads, the wrapper follows, and every surface prints the same text', async () => {
    const expected = await executorText()
    expect(expected).toMatch(ONE_FORM)

    const runner = new TurnRunner({
      model: scriptedModel([{ toolCalls: [{ id: 'c1', name: 'read', args: { path: 'missing.txt' } }] }, { text: 'done' }]),
      tools: [read],
    })
    const turn = await runner.run('read it')
    expect(turn.messages.find((m) => m.role === 'tool')?.content).toBe(expected)

    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    const server = createMcpServer([read], { name: 'spec', version: '1' })
    await server.connect(serverSide)
    const client = new Client({ name: 'spec-client', version: '1' })
    await client.connect(clientSide)
    const mcp = (await client.callTool({ name: 'read', arguments: { path: 'missing.txt' } })) as { isError?: boolean; content: { text: string }[] }
    await client.close()
    expect(mcp.isError).toBe(true)
    expect(mcp.content[0]!.text).toBe(expected)

    const aiSdk = toAiSdkTools([read], createDispatchContext())
    const rejected = await Promise.resolve(
      (aiSdk.read as unknown as { execute: (a: unknown, o: unknown) => Promise<unknown> }).execute({ path: 'missing.txt' }, { toolCallId: 't1', messages: [] }),
    ).catch((error: Error) => error)
    expect((rejected as Error).message).toBe(expected)

    const cli = await runCli(['call', 'read', '{"path":"missing.txt"}', '--root', root])
    expect(cli.code).toBe(1)
    expect(cli.stderr.trim()).toBe(expected)
  })

  it('control: a success is not a failure text, and a non-wrapped error reads as CODE: message', async () => {
    expect(await read.executor(createDispatchContext())({ path: 'present.txt' })).toBe('here')
    expect(toolFailureText(new E_TOOL_FILE_NOT_FOUND('gone'))).toBe('TOOL_FILE_NOT_FOUND: gone')
  })

  it('the aliases named after the codes are the same classes', () => {
    expect(TOOL_PATH_ESCAPE).toBe(E_TOOL_PATH_ESCAPE)
    expect(new TOOL_FILE_NOT_FOUND('x')).toBeInstanceOf(E_TOOL_FILE_NOT_FOUND)
    expect(TOOL_FILE_NOT_FOUND.code).toBe('TOOL_FILE_NOT_FOUND')
  })
})
