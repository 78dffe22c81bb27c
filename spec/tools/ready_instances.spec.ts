import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { tmpdir } from 'node:os'
import { describe, expect, it } from 'vitest'
import { Tool, bash, edit, grep, read, tools, write } from '../../lib/index.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'

const INDEX = resolve(import.meta.dirname, '../../lib/index.ts')
const TSX = import.meta.resolve('tsx')

describe('the ready instances (issue 12)', () => {
  it('stay importable from the root as the five built-ins', () => {
    expect([read, write, edit, grep, bash].every((t) => Tool.isTool(t))).toBe(true)
    expect(Object.keys(tools).sort()).toEqual(['bash', 'edit', 'grep', 'read', 'write'])
    expect(tools.read).toBe(read)
  })

  it('are rooted where the process is when first used, not where it was at import', () => {
    const before = trackedMkdtemp(join(tmpdir(), 'toolsmith-cwd-a-'))
    const after = trackedMkdtemp(join(tmpdir(), 'toolsmith-cwd-b-'))
    writeFileSync(join(before, 'where.txt'), 'import directory')
    mkdirSync(join(after, 'sub'))
    writeFileSync(join(after, 'where.txt'), 'first-use directory')
    // chdir is not allowed in a test worker: a child process imports, moves, then reads.
    const script = `
      const { read, createDispatchContext } = await import(${JSON.stringify(INDEX)})
      process.chdir(${JSON.stringify(after)})
      process.stdout.write(await read.executor(createDispatchContext())({ path: 'where.txt' }))`
    const out = execFileSync(process.execPath, ['--import', TSX, '--input-type=module', '-e', script], {
      cwd: before,
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    })
    expect(out).toBe('first-use directory')
  })
})

describe('the built-in definitions', () => {
  // The built-ins' constructors skip joi on their own constant definitions
  // (it was most of what building the ready tools at import cost): each
  // definition, as the instance shows it, must satisfy Tool.schema, and the
  // defaults the constructor applies must be the ones joi would.
  const definitionOf = (tool: Tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    sideEffect: tool.sideEffect,
    idempotent: tool.idempotent,
    ...(tool.roles === undefined ? {} : { roles: { ...tool.roles } }),
    ...(tool.redact === undefined ? {} : { redact: tool.redact }),
    handler: () => '',
  })

  it.each(['read', 'write', 'edit', 'grep', 'bash'] as const)('%s satisfies Tool.schema, and its defaults are joi’s', (name) => {
    const tool = tools[name]
    const { error, value } = Tool.schema.validate(definitionOf(tool), { convert: false })
    expect(error).toBeUndefined()
    expect({ ephemeral: tool.ephemeral, onCollision: tool.onCollision, sideEffect: tool.sideEffect }).toEqual({
      ephemeral: value.ephemeral,
      onCollision: value.onCollision,
      sideEffect: value.sideEffect,
    })
    // The same definition through the validating path gives the same tool.
    const validated = new Tool(definitionOf(tool))
    for (const field of ['name', 'description', 'sideEffect', 'idempotent', 'ephemeral', 'onCollision', 'roles', 'outputSchema'] as const) {
      expect(validated[field], field).toEqual(tool[field])
    }
    expect(validated.describe()).toEqual(tool.describe())
  })
})
