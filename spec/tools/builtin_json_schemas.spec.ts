// The built-ins' input JSON Schemas are generated (lib/tools/builtin_json_schemas.ts,
// `npx tsx scripts/builtin_json_schemas.ts`) so that listing them over MCP loads
// no joi. They must stay what the joi schemas convert to.
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { describe, expect, it } from 'vitest'
import { ReadTool, Sandbox, toMcpTool, toToolInputSchema, tools, validator } from '../../lib/index.js'
import { kitInputJsonSchema } from '../../lib/core/tool.js'
import { CLI_COMMAND } from '../cli/support/run_cli.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'

const NAMES = ['read', 'write', 'edit', 'grep', 'bash'] as const

describe('the built-ins’ generated input JSON Schemas', () => {
  it.each(NAMES)('%s: the generated schema is the joi schema’s (else run `npx tsx scripts/builtin_json_schemas.ts`)', (name) => {
    expect(kitInputJsonSchema(tools[name])).toEqual(toToolInputSchema(tools[name].inputSchema))
  })

  it.each(NAMES)('%s: its MCP definition is the one its description gives', (name) => {
    expect(toMcpTool(tools[name])).toEqual(toMcpTool(tools[name].describe()))
  })

  it('a subclass that describes itself otherwise, or another input schema in its place, is listed from its description', () => {
    class Renamed extends ReadTool {
      override describe() {
        const described = super.describe()
        return { ...described, inputSchema: { ...described.inputSchema, keys: { ...described.inputSchema.keys, note: { type: 'string' } } } }
      }
    }
    const renamed = new Renamed(new Sandbox())
    expect(kitInputJsonSchema(renamed)).toBeUndefined()
    expect(toMcpTool(renamed).inputSchema.properties).toHaveProperty('note')
    const swapped = new ReadTool(new Sandbox())
    Object.defineProperty(swapped, 'inputSchema', { value: validator.object({ only: validator.string().required() }) })
    expect(kitInputJsonSchema(swapped)).toBeUndefined()
    expect(Object.keys(toMcpTool(swapped).inputSchema.properties ?? {})).toEqual(['only'])
    expect(kitInputJsonSchema(new ReadTool(new Sandbox()))).toEqual(kitInputJsonSchema(tools.read))
  })

  it('hands out copies', () => {
    const first = kitInputJsonSchema(tools.read) as { properties: Record<string, unknown> }
    delete first.properties.path
    expect(kitInputJsonSchema(tools.read)).toEqual(toToolInputSchema(tools.read.inputSchema))
  })

  it('toolsmith mcp answers initialize and tools/list without loading joi; the first call loads it', () => {
    const root = trackedMkdtemp(join(tmpdir(), 'toolsmith-mcp-nojoi-'))
    writeFileSync(join(root, 'a.txt'), 'hello\n')
    // Preloaded into the server: reports, at exit, how many answers it had
    // written when joi was first required (undefined: never).
    const probe = join(trackedMkdtemp(join(tmpdir(), 'toolsmith-mcp-probe-')), 'probe.cjs')
    writeFileSync(
      probe,
      `const Module = require('node:module'); const load = Module._load; const write = process.stdout.write; let answers = 0; let at
      process.stdout.write = function (chunk, ...rest) { answers += String(chunk).split('\\n').length - 1; return write.call(this, chunk, ...rest) }
      Module._load = function (request, ...rest) { if (request === 'joi' && at === undefined) at = answers; return load.call(this, request, ...rest) }
      process.on('exit', () => process.stderr.write('JOI AT ' + at + '\\n'))`,
    )
    const lines = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ]
    const listOnly = spawnSync(CLI_COMMAND.command, ['--require', probe, ...CLI_COMMAND.args, 'mcp', '--root', root], {
      input: lines.map((line) => `${JSON.stringify(line)}\n`).join(''),
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
      timeout: 60_000,
    })
    expect(listOnly.status, listOnly.stderr).toBe(0)
    const listed = JSON.parse(listOnly.stdout.trim().split('\n')[1]!) as { result: { tools: { name: string }[] } }
    expect(listed.result.tools.map((tool) => tool.name)).toEqual([...NAMES])
    expect(listOnly.stderr).toContain('JOI AT undefined')

    const call = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'read', arguments: { path: 'a.txt' } } }
    const withCall = spawnSync(CLI_COMMAND.command, ['--require', probe, ...CLI_COMMAND.args, 'mcp', '--root', root], {
      input: [...lines, call].map((line) => `${JSON.stringify(line)}\n`).join(''),
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
      timeout: 60_000,
    })
    expect(withCall.status, withCall.stderr).toBe(0)
    expect(withCall.stdout).toContain('hello')
    // The call's arguments are checked with joi. (All lines arrive at once, so the
    // answers may still be on their way when it loads: only that it loads is asserted.)
    expect(withCall.stderr).toMatch(/JOI AT \d+/)
  }, 120_000)
})
