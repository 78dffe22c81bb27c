import { describe, expect, it } from 'vitest'
import * as toolsmith from '../lib/index.js'
import { BaseException, createException, describeCause, errorSummary } from '../lib/index.js'

describe('exceptions', () => {
  it('every E_* class exported has a static code, a status, and is a BaseException', () => {
    const classes = Object.entries(toolsmith).filter(([name]) => name.startsWith('E_'))
    expect(classes.length).toBeGreaterThanOrEqual(25)
    for (const [name, value] of classes) {
      const ctor = value as typeof BaseException
      const instance = new ctor()
      expect(instance, name).toBeInstanceOf(BaseException)
      expect(instance.name).toBe(name)
      expect(instance.code).toBe(ctor.code)
      expect(typeof instance.status).toBe('number')
      expect(instance.message).toBe(ctor.message)
      // TOOL_* codes for built-ins, class name otherwise
      expect([name, name.slice(2)]).toContain(instance.code)
    }
  })

  it.each([
    ['E_INVALID_INITIAL_TOOL_VALUE', 500],
    ['E_INVALID_TOOL_ARGS', 422],
    ['E_TOOL_ALREADY_REGISTERED', 409],
    ['E_NOT_CANONICALIZABLE', 400],
  ])('%s has status %i', (name, status) => {
    expect((toolsmith as unknown as Record<string, typeof BaseException>)[name]!.status).toBe(status)
  })

  it('keeps any cause as is, including non-Errors', () => {
    const { E_TOOL_DOWNSTREAM_ERROR } = toolsmith
    expect(new E_TOOL_DOWNSTREAM_ERROR('x', { cause: 'a string' }).cause).toBe('a string')
    const obj = { weird: true }
    expect(new E_TOOL_DOWNSTREAM_ERROR('x', { cause: obj }).cause).toBe(obj)
    expect('cause' in new E_TOOL_DOWNSTREAM_ERROR('x')).toBe(false)
  })

  it('createException makes a coded class', () => {
    const E_QUOTA = createException('Quota exceeded', 'E_QUOTA', 429)
    const e = new E_QUOTA(undefined, { details: { limit: 5 } })
    expect(e).toBeInstanceOf(BaseException)
    expect(e.message).toBe('Quota exceeded')
    expect(e.code).toBe('E_QUOTA')
    expect(e.status).toBe(429)
    expect(e.details).toEqual({ limit: 5 })
    // Named after its code, like the built-in classes: String(), stacks and toJSON show it.
    expect(e.name).toBe('E_QUOTA')
    expect(String(e)).toBe('E_QUOTA: Quota exceeded')
    expect(e.stack?.split('\n')[0]).toBe('E_QUOTA: Quota exceeded')
    expect(e.toJSON().name).toBe('E_QUOTA')
  })

  it('toJSON gives a plain, serialisable view with the cause summarised', () => {
    const { E_TOOL_COMMAND_FAILED } = toolsmith
    const e = new E_TOOL_COMMAND_FAILED('exit 2', { details: { exitCode: 2 }, cause: new TypeError('bad') })
    expect(JSON.parse(JSON.stringify(e))).toEqual({
      name: 'E_TOOL_COMMAND_FAILED',
      code: 'TOOL_COMMAND_FAILED',
      status: 500,
      message: 'exit 2',
      details: { exitCode: 2 },
      cause: { name: 'TypeError', message: 'bad' },
    })
    expect(describeCause(Symbol.for('x'))).toBe('Symbol(x)')
  })

  it('errorSummary prints CODE: message', () => {
    expect(errorSummary(new toolsmith.E_TOOL_PATH_ESCAPE('nope'))).toBe('TOOL_PATH_ESCAPE: nope')
    expect(errorSummary(new Error('plain'))).toBe('plain')
    expect(errorSummary(42)).toBe('42')
    expect(errorSummary({ code: 'EX', message: 'plain object' })).toBe('EX: plain object')
    expect(errorSummary({ message: 'no code' })).toBe('no code')
    expect(errorSummary({ code: 'ONLY_CODE' })).toBe('ONLY_CODE')
  })

  it('isException works for look-alikes from another copy of the package', () => {
    const foreign = Object.assign(new Error('x'), { code: 'TOOL_TIMEOUT', status: 504 })
    expect(BaseException.isException(foreign)).toBe(true)
    expect(BaseException.isException(new Error('x'))).toBe(false)
  })
})
