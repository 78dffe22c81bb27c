import { describe, expect, it } from 'vitest'
import { E_INVALID_INITIAL_REGISTRY_VALUE, Registry, ValidationException } from '../../lib/index.js'

describe('Registry', () => {
  it('reads and writes dot paths, creating intermediate objects', () => {
    const r = new Registry({ a: { b: 1 } })
    r.set('a.c.d', 'x')
    expect(r.get('a')).toEqual({ b: 1, c: { d: 'x' } })
    expect(r.get('a.c.d')).toBe('x')
    expect(r.has('a.b')).toBe(true)
    expect(r.has('a.z')).toBe(false)
    expect(r.get('a.z', 'fallback')).toBe('fallback')
    expect(r.delete('a.b')).toBe(true)
    expect(r.delete('a.b')).toBe(false)
    expect(r.all()).toEqual({ a: { c: { d: 'x' } } })
  })

  it('isolates stored values from the caller in both directions', () => {
    const initial = { list: [1, 2], nested: { n: 1 } }
    const r = new Registry(initial)
    initial.list.push(3)
    initial.nested.n = 99
    expect(r.get('list')).toEqual([1, 2])
    const out = r.get<{ n: number }>('nested')
    out.n = 42
    expect(r.get('nested.n')).toBe(1)
    const value = { deep: { v: 1 } }
    r.set('v', value)
    value.deep.v = 2
    expect(r.get('v.deep.v')).toBe(1)
    const copy = r.clone()
    copy.set('v.deep.v', 3)
    expect(r.get('v.deep.v')).toBe(1)
  })

  it('keeps functions by reference and serialises to JSON', () => {
    const fn = () => 1
    const r = new Registry().set('fn', fn).set('n', 1)
    expect(r.get('fn')).toBe(fn)
    expect(JSON.stringify(new Registry({ a: 1 }))).toBe('{"a":1}')
  })

  it('refuses non-plain initial values, with the joi error as cause (Registry.schema)', () => {
    for (const bad of [[], new Date(), null, 'text', new (class Custom {})()]) {
      let error: unknown
      try {
        new Registry(bad as never)
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(E_INVALID_INITIAL_REGISTRY_VALUE)
      expect((error as Error).message).toMatch(/^A Registry must be created from a plain object: /)
      expect((error as Error).cause).toBeInstanceOf(ValidationException)
      expect(Registry.schema.validate(bad).error).toBeDefined()
    }
    expect(Registry.schema.validate({ a: 1, nested: { b: [1] } }).error).toBeUndefined()
    expect(Registry.schema.validate(Object.create(null)).error).toBeUndefined()
  })

  it('isRegistry is realm-safe', () => {
    expect(Registry.isRegistry(new Registry())).toBe(true)
    expect(Registry.isRegistry({})).toBe(false)
    expect(Registry.isRegistry({ [Symbol.for('toolsmith.registry')]: true })).toBe(true)
  })
})
