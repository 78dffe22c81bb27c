/**
 * What `import 'toolsmith'` loads: joi's own meta-schemas
 * (`joi/lib/schemas.js`, 15–25 ms the first time in a process) are loaded
 * by `schema.messages()` / `prefs()`, which the kit's module-level schemas
 * must not call. The custom messages they carry instead come from rule messages and
 * must read exactly as before.
 */
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { Sandbox, Tool, ToolCall, parsePermissionPolicy, permissionPolicySchema, validator } from '../lib/index.js'

describe("the kit never loads joi's meta-schemas", () => {
  // The first describe() of a schema loads them (joi checks every description
  // against them): a provider's tool list, a tool's first validation. Importing
  // and configuring the kit must not.
  it('importing the barrel and building tools, a sandbox, a tool and a policy leave joi/lib/schemas.js unloaded', () => {
    const script = `
      import { createRequire } from 'node:module'
      import { mkdtempSync } from 'node:fs'
      import { tmpdir } from 'node:os'
      import path from 'node:path'
      const kit = await import(${JSON.stringify(new URL('../lib/index.ts', import.meta.url).href)})
      const root = mkdtempSync(path.join(tmpdir(), 'toolsmith-import-'))
      const tools = kit.createTools({ rootDir: root, writablePaths: ['/var/tmp'], env: { A: 'b' }, allowNetwork: { domains: ['example.com'] } })
      kit.createDispatchContext()
      new kit.Tool({ name: 'echo', description: '', inputSchema: kit.validator.object({}), handler: () => 'ok' })
      try { new kit.Tool({ name: 'bad name', description: '', inputSchema: kit.validator.object({}), handler: () => 'ok', trusted: true }) } catch {}
      kit.parsePermissionPolicy(JSON.stringify({ rules: [{ tool: 'bash', match: { commands: ['git push'] }, decision: 'ask' }] }))
      try { kit.parsePermissionPolicy(JSON.stringify({ rules: [{ tool: 'read', match: {}, decision: 'deny' }] })) } catch {}
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((file) => file.includes('/joi/'))
      process.stdout.write(JSON.stringify({ joi: loaded.length, schemas: loaded.filter((file) => file.endsWith('/joi/lib/schemas.js')) }))
    `
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', cwd: process.cwd() })
    expect(result.status, result.stderr).toBe(0)
    const { joi, schemas } = JSON.parse(result.stdout) as { joi: number; schemas: string[] }
    // joi itself is loaded (the check looks at the right cache)…
    expect(joi).toBeGreaterThan(10)
    // …and its meta-schemas are not.
    expect(schemas).toEqual([])
  })
})

describe('custom messages read as before', () => {
  const detailsOf = (schema: { validate(value: unknown, options?: object): { error?: { details: { type: string; message: string; path: (string | number)[] }[] } } }, value: unknown) =>
    schema.validate(value, { abortEarly: false }).error?.details.map(({ type, message, path }) => ({ type, message, path }))

  it('Tool: a bad name, a removed option, a class for artifactConstructor, a bad meta and inputSchema', () => {
    expect(detailsOf(Tool.schema, { name: 'a b', description: '', inputSchema: 1, handler: () => 1, trusted: false, meta: 2, artifactConstructor: class A {} })).toEqual([
      { type: 'string.pattern.base', message: '"name" must be 1 to 64 letters, digits, "_" or "-" (got a b)', path: ['name'] },
      { type: 'any.invalid', message: '"inputSchema" must be a joi object schema or a Standard Schema with JSON Schema output (zod 4, valibot, arktype)', path: ['inputSchema'] },
      { type: 'any.class', message: '"artifactConstructor" must be a thunk returning the artifact class: pass () => A, not A itself', path: ['artifactConstructor'] },
      { type: 'any.invalid', message: '"meta" must be a Registry or a plain object', path: ['meta'] },
      { type: 'any.unknown', message: '"trusted" was removed: it never had an effect (no surface treats tool output differently); drop it', path: ['trusted'] },
    ])
    // Absent, a removed option is fine; present with any value (null included) it is refused.
    expect(detailsOf(Tool.schema, { name: 'a', description: '', inputSchema: validator.object({}), handler: () => 1 })).toBeUndefined()
    expect(detailsOf(Tool.schema, { name: 'a', description: '', inputSchema: validator.object({}), handler: () => 1, trusted: null })?.[0]?.type).toBe('any.unknown')
  })

  it('Sandbox options: env names, allowlist entries, path lists and spoolStore', () => {
    const refusal = (options: object): string => {
      try {
        new Sandbox({ rootDir: process.cwd(), ...options })
        return 'accepted'
      } catch (error) {
        return (error as Error).message
      }
    }
    // A refused name fails the key pattern, which joi reports as an unknown key.
    expect(refusal({ env: { LD_PRELOAD: 'x' } })).toBe('Invalid sandbox options: "env.LD_PRELOAD" is not allowed')
    expect(refusal({ allowNetwork: { domains: ['exa mple'] } })).toContain('"allowNetwork.domains[0]" must be a host name, an IP address, "*.example.com" or "*"')
    expect(refusal({ writablePaths: ['/proc/x'] })).toContain('"writablePaths[0]" must be an absolute path, and not /, /proc, /dev, /sys, /tmp, /run or below them')
    expect(refusal({ spoolStore: {} })).toContain('"spoolStore" is not a Sandbox option (it never had an effect): pass spoolStore to TurnRunner')
  })

  it('permission policies: a tool name, and match needing exactly one of paths, commands or when', () => {
    expect(detailsOf(permissionPolicySchema, { rules: [{ tool: 'a b', match: { paths: ['x'] }, decision: 'deny' }] })?.[0]?.message).toBe(
      '"rules[0].tool" must be a tool name (letters, digits, "_" or "-") or "*" (got a b)',
    )
    expect(detailsOf(permissionPolicySchema, { rules: [{ tool: 'read', match: {}, decision: 'deny' }] })).toEqual([
      { type: 'object.missing', message: '"rules[0].match" needs one of "paths", "commands" or "when"', path: ['rules', 0, 'match'] },
    ])
    expect(detailsOf(permissionPolicySchema, { rules: [{ tool: 'read', match: { paths: ['x'], commands: ['y'] }, decision: 'deny' }] })).toEqual([
      { type: 'object.xor', message: '"rules[0].match" takes only one of "paths", "commands" or "when"', path: ['rules', 0, 'match'] },
    ])
    // The error's context is the one joi's own xor() gives (code reading it sees the same fields).
    const contextOf = (error: { details: { context?: object }[] } | undefined) => {
      const { peers, peersWithLabels, present, presentWithLabels } = (error?.details[0]?.context ?? {}) as Record<string, unknown>
      return { peers, peersWithLabels, present, presentWithLabels }
    }
    const joiXor = validator.object({ paths: validator.any(), commands: validator.any(), when: validator.any() }).xor('paths', 'commands', 'when')
    for (const match of [{ paths: ['x'], commands: ['y'] }, { paths: ['x'], commands: ['y'], when: () => true }, {}]) {
      const ours = contextOf(permissionPolicySchema.validate({ rules: [{ tool: 'read', match, decision: 'deny' }] }).error)
      expect(ours).toEqual(contextOf(joiXor.validate(match).error))
      expect(ours.peers).toEqual(['paths', 'commands', 'when'])
    }
    expect(() => parsePermissionPolicy(JSON.stringify({ rules: [{ tool: 'read', match: { paths: ['x'], commands: ['y'] }, decision: 'deny' }] }))).toThrow(
      /takes only one of "paths", "commands" or "when"/,
    )
  })

  it('ToolCall: results must be a spooled artifact', () => {
    expect(detailsOf(ToolCall.schema, { results: 3 })?.find((d) => d.path[0] === 'results')?.message).toBe('"results" must be a SpooledArtifact')
  })
})
