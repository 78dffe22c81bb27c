import { trackedMkdtemp } from '../support/temp_dirs.js'
import { readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLI_COMMAND } from './support/run_cli.js'

describe('toolsmith mcp, driven by the official MCP stdio client', () => {
  let root: string
  let client: Client
  let transport: StdioClientTransport

  beforeAll(async () => {
    root = realpathSync(trackedMkdtemp(join(tmpdir(), 'toolsmith-mcp-')))
    writeFileSync(join(root, 'notes.txt'), 'alpha\nbeta\n')
    transport = new StdioClientTransport({
      command: CLI_COMMAND.command,
      args: [...CLI_COMMAND.args, 'mcp', '--root', root, '--timeout-ms', '20000'],
      stderr: 'ignore',
    })
    client = new Client({ name: 'toolsmith-spec', version: '1.0.0' })
    await client.connect(transport)
  })

  afterAll(async () => {
    await client?.close()
  })

  it('identifies itself and lists the five tools with annotations', async () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'toolsmith' })
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(['bash', 'edit', 'grep', 'read', 'write'])
    const read = tools.find((t) => t.name === 'read')!
    expect(read.inputSchema.type).toBe('object')
    expect(read.annotations).toMatchObject({ readOnlyHint: true })
    expect(tools.find((t) => t.name === 'write')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true })
  })

  it('runs calls inside --root', async () => {
    const read = await client.callTool({ name: 'read', arguments: { path: 'notes.txt' } })
    expect(read.isError).toBeFalsy()
    expect(read.content).toEqual([{ type: 'text', text: 'alpha\nbeta\n' }])

    const write = await client.callTool({ name: 'write', arguments: { path: 'made.txt', content: 'via mcp' } })
    expect(write.isError).toBeFalsy()
    expect(readFileSync(join(root, 'made.txt'), 'utf8')).toBe('via mcp')

    const grep = await client.callTool({ name: 'grep', arguments: { pattern: 'beta' } })
    expect((grep.content as { text: string }[])[0]!.text).toContain('notes.txt:2:beta')

    const bash = await client.callTool({ name: 'bash', arguments: { cmd: 'pwd' } })
    expect((bash.content as { text: string }[])[0]!.text.trim()).toBe(root)
  })

  it('returns tool failures as isError results the model can read', async () => {
    const escaped = await client.callTool({ name: 'read', arguments: { path: '../outside.txt' } })
    expect(escaped.isError).toBe(true)
    expect((escaped.content as { text: string }[])[0]!.text).toContain('TOOL_PATH_ESCAPE')

    const invalid = await client.callTool({ name: 'read', arguments: {} })
    expect(invalid.isError).toBe(true)
    expect((invalid.content as { text: string }[])[0]!.text).toContain('E_INVALID_TOOL_ARGS')
  })

  it('exits when the client disconnects', async () => {
    const extra = new StdioClientTransport({ command: CLI_COMMAND.command, args: [...CLI_COMMAND.args, 'mcp', '--root', root] })
    const other = new Client({ name: 'toolsmith-spec-2', version: '1.0.0' })
    await other.connect(extra)
    const pid = extra.pid!
    expect(pid).toBeGreaterThan(0)
    await other.close()
    const deadline = Date.now() + 10_000
    while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    expect(isAlive(pid)).toBe(false)
  })
})

describe('toolsmith mcp --max-output-bytes', () => {
  it('sets the cap of the result sent back too: a 1 MB file is read whole', async () => {
    const root = realpathSync(trackedMkdtemp(join(tmpdir(), 'toolsmith-mcp-cap-')))
    const line = `${'x'.repeat(99)}\n`
    const content = line.repeat(10_486) // 1,048,600 bytes: over 1 MiB, five times the default cap
    writeFileSync(join(root, 'big.txt'), content)
    const transport = new StdioClientTransport({
      command: CLI_COMMAND.command,
      args: [...CLI_COMMAND.args, 'mcp', '--root', root, '--max-output-bytes', '2000000'],
      stderr: 'ignore',
    })
    const client = new Client({ name: 'toolsmith-spec-cap', version: '1.0.0' })
    await client.connect(transport)
    try {
      const read = await client.callTool({ name: 'read', arguments: { path: 'big.txt' } })
      expect(read.isError).toBeFalsy()
      const text = (read.content as { text: string }[])[0]!.text
      expect(text).not.toContain('bytes truncated')
      expect(text.length).toBe(content.length)
      expect(text === content).toBe(true)
    } finally {
      await client.close()
    }
  })
})

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
