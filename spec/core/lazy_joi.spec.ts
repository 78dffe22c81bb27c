// `import 'toolsmith'` does not load joi: the first schema built or checked
// does. `validator` stands in for joi's root until then, and behaves as joi.
import { execFileSync } from 'node:child_process'
import { resolve } from 'node:path'
import { inspect } from 'node:util'
import Joi from 'joi'
import { describe, expect, it } from 'vitest'
import { Sandbox, Tool, createDispatchContext, permissionPolicySchema, tools, validator } from '../../lib/index.js'
import { sandboxOptionsWithoutJoi } from '../../lib/sandbox/sandbox_options.js'

const INDEX = resolve(import.meta.dirname, '../../lib/index.ts')
const TSX = import.meta.resolve('tsx')

/** Runs `body` in a new node process after importing the kit; prints what `body` returns, as JSON. */
function inChild(body: string): unknown {
  const script = `
    import { createRequire } from 'node:module'
    const joiLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('/node_modules/joi/'))
    const kit = await import(${JSON.stringify(INDEX)})
    process.stdout.write(JSON.stringify(await (async () => { ${body} })()))`
  const out = execFileSync(process.execPath, ['--import', TSX, '--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } })
  return JSON.parse(out)
}

describe('joi loads on first use', () => {
  it('is not loaded by the import (the ready tools and their sandbox included), and is by the first schema', () => {
    const seen = inChild(`
      const atImport = joiLoaded()
      const names = Object.keys(kit.tools).sort()
      const afterTools = joiLoaded()
      const schema = kit.validator.object({ city: kit.validator.string().required() })
      return { atImport, names, afterTools, afterSchema: joiLoaded(), valid: schema.validate({ city: 'Oslo' }).error === undefined }`)
    expect(seen).toEqual({ atImport: false, names: ['bash', 'edit', 'grep', 'read', 'write'], afterTools: false, afterSchema: true, valid: true })
  })

  it('loads it for the first call of a built-in (the arguments are checked)', () => {
    const seen = inChild(`
      const refused = await kit.read.executor(kit.createDispatchContext())({}).then(() => 'ran', (error) => error.code)
      return { refused, loaded: joiLoaded() }`)
    expect(seen).toEqual({ refused: 'E_INVALID_TOOL_ARGS', loaded: true })
  })
})

describe('validator behaves as joi itself', () => {
  it('builds schemas that validate, describe and rebuild', () => {
    const schema = validator.object({
      name: validator.string().min(2).required(),
      tags: validator.array().items(validator.string()).default([]),
      kind: validator.alternatives().try(validator.number(), validator.string().valid('a', 'b')),
      same: validator.ref('name'),
    })
    expect(schema.validate({ name: 'ok' }).value).toEqual({ name: 'ok', tags: [] })
    expect(schema.validate({ name: 'x' }).error?.details[0]?.path).toEqual(['name'])
    const rebuilt = validator.build(schema.describe())
    expect(rebuilt.describe()).toEqual(schema.describe())
    expect(validator.isSchema(schema)).toBe(true)
    expect(Joi.isSchema(schema)).toBe(true)
    expect(validator.isRef(validator.ref('name'))).toBe(true)
  })

  it('throws joi’s own errors, and its own root’s keys', () => {
    let caught: unknown
    try {
      validator.attempt(1, validator.string())
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(validator.ValidationError)
    expect(caught).toBeInstanceOf(Joi.ValidationError)
    expect(validator.isError(caught)).toBe(true)
    expect(Object.keys(validator)).toEqual(Object.keys(Joi))
    expect('object' in validator).toBe(true)
  })

  it('refuses to be frozen with a TypeError, and still works after', () => {
    expect(() => Object.freeze(validator)).toThrow(TypeError)
    expect(Object.isFrozen(validator)).toBe(false)
    expect(validator.isSchema(validator.string())).toBe(true)
    expect(validator.object({ a: validator.number() }).validate({ a: 1 }).error).toBeUndefined()
  })

  it('extends like joi', () => {
    const custom = validator.extend((joi: typeof Joi) => ({
      type: 'even',
      base: joi.number(),
      messages: { 'even.base': '{{#label}} must be even' },
      validate: (value: number, helpers) => (value % 2 === 0 ? { value } : { value, errors: helpers.error('even.base') }),
    }))
    expect(custom.even().validate(4).error).toBeUndefined()
    expect(custom.even().validate(3).error?.message).toBe('"value" must be even')
  })

  it('mixes with schemas of the application’s own joi in a tool', async () => {
    const tool = new Tool({
      name: 'greet',
      description: 'Greets',
      inputSchema: Joi.object({ who: Joi.string().required(), times: validator.number().integer().min(1).default(1) }),
      handler: ({ who, times }: { who: string; times: number }) => `hi ${who} ×${times}`,
    })
    expect(await tool.executor(createDispatchContext())({ who: 'you' })).toBe('hi you ×1')
  })

  it('keeps the public schemas usable: Tool.schema, Sandbox.schema, permissionPolicySchema', () => {
    expect(Tool.schema.validate({ name: 'x' }).error?.message).toMatch(/"description" is required/)
    expect(Sandbox.schema.validate({ timeoutMs: 0 }, { convert: false }).error?.message).toMatch(/"timeoutMs" must be greater than or equal to 1/)
    expect(permissionPolicySchema.validate({ rules: [] }).value).toEqual({ default: 'allow', rules: [] })
    expect(Tool.schema).toBe(Tool.schema)
    // Printed as the schema it stands for (Node's inspect does not run a proxy's traps).
    expect(inspect(Tool.schema, { depth: 0 })).toBe(inspect(validator.build(Tool.schema.describe()), { depth: 0 }))
    expect(validator.isSchema(Sandbox.schema)).toBe(true)
  })
})

describe('new Sandbox() without joi, for options that need only joi’s defaults', () => {
  const root = process.cwd()
  it.each([
    ['no options', undefined],
    ['empty options', {}],
    ['a root', { rootDir: root }],
    ['a root and an empty allowlist (toolsmith mcp --root DIR)', { rootDir: root, allowNetwork: { domains: [] } }],
    ['network on', { allowNetwork: true }],
    ['network off', { allowNetwork: false }],
  ])('takes what joi gives %s', (_name, options) => {
    const { error, value } = Sandbox.schema.validate(options ?? {}, { convert: false })
    expect(error).toBeUndefined()
    expect(sandboxOptionsWithoutJoi(options)).toEqual(value)
  })

  it.each([
    ['an empty root', { rootDir: '' }, /"rootDir" is not allowed to be empty/],
    ['a root with NUL', { rootDir: 'a\0b' }, /"rootDir" with value .* fails to match the no NUL bytes pattern/],
    ['a bad allowlist entry', { allowNetwork: { domains: ['bad host!'] } }, /"allowNetwork.domains\[0\]" must be a host name/],
    ['a number for allowNetwork', { allowNetwork: 1 }, /"allowNetwork" must be/],
    ['an unknown option', { rootDir: root, sandboxed: true }, /"sandboxed" is not allowed/],
  ])('leaves %s to joi, which refuses it', (_name, options, message) => {
    expect(sandboxOptionsWithoutJoi(options as never)).toBeUndefined()
    expect(() => new Sandbox(options as never)).toThrow(message)
  })

  it('and the ready tools’ sandbox answers as one built with joi does', () => {
    const viaJoi = new Sandbox({ timeoutMs: 60_000 })
    const plain = new Sandbox()
    for (const key of ['timeoutMs', 'maxOutputBytes', 'allowNetwork', 'limits', 'isolation'] as const) expect(plain[key], key).toEqual(viaJoi[key])
    expect(tools.read.name).toBe('read')
  })
})
