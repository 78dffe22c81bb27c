import { describe, expect, it } from 'vitest'
import {
  E_INVALID_OPTIONS,
  E_TOOL_ALREADY_REGISTERED,
  E_TOOL_NOT_REGISTERED,
  Tool,
  ToolRegistry,
  toolList,
  validator,
  type CollisionPolicy,
} from '../../lib/index.js'

function makeTool(name: string, extra: { onCollision?: CollisionPolicy; ephemeral?: boolean; tag?: string } = {}): Tool {
  return new Tool({
    name,
    description: extra.tag ?? name,
    inputSchema: validator.object({}),
    handler: () => extra.tag ?? name,
    ...(extra.onCollision ? { onCollision: extra.onCollision } : {}),
    ...(extra.ephemeral ? { ephemeral: true } : {}),
  })
}

describe('ToolRegistry', () => {
  it('registers, looks up, lists in order and iterates', () => {
    const a = makeTool('a')
    const b = makeTool('b')
    const registry = new ToolRegistry([a]).register(b)
    expect(registry.size).toBe(2)
    expect(registry.get('a')).toBe(a)
    expect(registry.get('zzz')).toBeUndefined()
    expect(registry.has('b')).toBe(true)
    expect(registry.has('c')).toBe(false)
    expect(registry.all()).toEqual([a, b])
    expect([...registry]).toEqual([a, b])
  })

  it('refuses a taken name with E_TOOL_ALREADY_REGISTERED (409) unless overwrite', () => {
    const registry = new ToolRegistry([makeTool('a', { tag: 'first' })])
    const second = makeTool('a', { tag: 'second' })
    let caught: unknown
    try {
      registry.register(second)
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(E_TOOL_ALREADY_REGISTERED)
    expect((caught as E_TOOL_ALREADY_REGISTERED).status).toBe(409)
    expect((caught as E_TOOL_ALREADY_REGISTERED).code).toBe('E_TOOL_ALREADY_REGISTERED')
    expect(registry.get('a')?.description).toBe('first')
    registry.register(second, true)
    expect(registry.get('a')).toBe(second)
    expect(registry.size).toBe(1)
  })

  it('re-registering the same instance is not a collision', () => {
    const a = makeTool('a')
    const registry = new ToolRegistry([a])
    expect(() => registry.register(a)).not.toThrow()
    expect(registry.size).toBe(1)
  })

  it('rejects non-tools', () => {
    expect(() => new ToolRegistry().register({ name: 'x' } as unknown as Tool)).toThrow(E_INVALID_OPTIONS)
  })

  it('unregisters and reports whether anything was removed', () => {
    const registry = new ToolRegistry([makeTool('a')])
    expect(registry.unregister('a')).toBe(true)
    expect(registry.unregister('a')).toBe(false)
    expect(registry.size).toBe(0)
  })

  it('getOrFail names the known tools', () => {
    const registry = new ToolRegistry([makeTool('alpha'), makeTool('beta')])
    expect(() => registry.getOrFail('gamma')).toThrow(E_TOOL_NOT_REGISTERED)
    expect(() => registry.getOrFail('gamma')).toThrow(/alpha, beta/)
  })

  describe('hidden tools', () => {
    it('hide removes from visible() only; unhide restores', () => {
      const a = makeTool('a')
      const b = makeTool('b')
      const registry = new ToolRegistry([a, b])
      registry.hide('a')
      expect(registry.isHidden('a')).toBe(true)
      expect(registry.visible()).toEqual([b])
      expect(registry.all()).toEqual([a, b])
      expect(registry.get('a')).toBe(a)
      registry.unhide('a')
      expect(registry.isHidden('a')).toBe(false)
      expect(registry.visible()).toEqual([a, b])
    })

    it('hide/unhide of an unknown name throws E_TOOL_NOT_REGISTERED', () => {
      const registry = new ToolRegistry()
      expect(() => registry.hide('x')).toThrow(E_TOOL_NOT_REGISTERED)
      expect(() => registry.unhide('x')).toThrow(E_TOOL_NOT_REGISTERED)
      expect(registry.isHidden('x')).toBe(false)
    })

    it('hidden state survives overwrite and ends with unregister', () => {
      const registry = new ToolRegistry([makeTool('a')]).hide('a')
      registry.register(makeTool('a', { tag: 'v2' }), true)
      expect(registry.isHidden('a')).toBe(true)
      registry.unregister('a')
      registry.register(makeTool('a'))
      expect(registry.isHidden('a')).toBe(false)
    })
  })

  it('pruneEphemeral removes ephemeral tools only and returns them', () => {
    const keep = makeTool('keep')
    const gone = makeTool('gone', { ephemeral: true })
    const registry = new ToolRegistry([keep, gone])
    registry.hide('gone')
    expect(registry.pruneEphemeral()).toEqual([gone])
    expect(registry.all()).toEqual([keep])
    expect(registry.isHidden('gone')).toBe(false)
    expect(registry.pruneEphemeral()).toEqual([])
  })

  describe('merge', () => {
    it('combines registries without touching the inputs', () => {
      const r1 = new ToolRegistry([makeTool('a')])
      const r2 = new ToolRegistry([makeTool('b')])
      const merged = ToolRegistry.merge([r1, r2])
      expect(merged.all().map((t) => t.name)).toEqual(['a', 'b'])
      expect(r1.size).toBe(1)
      expect(r2.size).toBe(1)
      expect(merged).not.toBe(r1)
    })

    it("honours the incoming tool's own policy: throw (default)", () => {
      const r1 = new ToolRegistry([makeTool('a', { tag: 'old' })])
      const r2 = new ToolRegistry([makeTool('a', { tag: 'new' })])
      expect(() => ToolRegistry.merge([r1, r2])).toThrow(E_TOOL_ALREADY_REGISTERED)
    })

    it("honours the incoming tool's own policy: replace and keep", () => {
      const old = makeTool('a', { tag: 'old', onCollision: 'throw' })
      const replacing = makeTool('a', { tag: 'new', onCollision: 'replace' })
      const keeping = makeTool('a', { tag: 'newer', onCollision: 'keep' })
      expect(ToolRegistry.merge([[old], [replacing]]).get('a')).toBe(replacing)
      expect(ToolRegistry.merge([[old], [keeping]]).get('a')).toBe(old)
      // The existing tool's policy does not matter, only the incoming one's.
      expect(ToolRegistry.merge([[keeping], [replacing]]).get('a')).toBe(replacing)
    })

    it('options.onCollision overrides every tool policy', () => {
      const old = makeTool('a', { tag: 'old', onCollision: 'replace' })
      const incomingReplace = makeTool('a', { tag: 'new', onCollision: 'replace' })
      const incomingThrow = makeTool('a', { tag: 'new2' })
      expect(ToolRegistry.merge([[old], [incomingReplace]], { onCollision: 'keep' }).get('a')).toBe(old)
      expect(ToolRegistry.merge([[old], [incomingThrow]], { onCollision: 'replace' }).get('a')).toBe(incomingThrow)
      expect(() => ToolRegistry.merge([[old], [incomingReplace]], { onCollision: 'throw' })).toThrow(
        E_TOOL_ALREADY_REGISTERED,
      )
    })

    it('rejects an unknown policy', () => {
      expect(() => ToolRegistry.merge([], { onCollision: 'merge' as CollisionPolicy })).toThrow(E_INVALID_OPTIONS)
    })

    it('the same instance in two registries is not a collision', () => {
      const a = makeTool('a')
      expect(ToolRegistry.merge([new ToolRegistry([a]), new ToolRegistry([a])]).all()).toEqual([a])
    })

    it('carries hidden state from the source of the winning tool', () => {
      const r1 = new ToolRegistry([makeTool('a'), makeTool('b')]).hide('b')
      const replacement = makeTool('a', { onCollision: 'replace' })
      const r2 = new ToolRegistry([replacement]).hide('a')
      const merged = ToolRegistry.merge([r1, r2])
      expect(merged.isHidden('b')).toBe(true)
      expect(merged.isHidden('a')).toBe(true)
      expect(merged.get('a')).toBe(replacement)
      const kept = ToolRegistry.merge([r1, r2], { onCollision: 'keep' })
      expect(kept.isHidden('a')).toBe(false)
    })
  })

  it('isToolRegistry works by brand, not only instanceof', () => {
    const registry = new ToolRegistry()
    expect(ToolRegistry.isToolRegistry(registry)).toBe(true)
    expect(ToolRegistry.isToolRegistry({})).toBe(false)
    expect(ToolRegistry.isToolRegistry(null)).toBe(false)
    const foreign = { [Symbol.for('toolsmith.tool_registry')]: true }
    expect(ToolRegistry.isToolRegistry(foreign)).toBe(true)
  })
})

describe('toolList', () => {
  const a = makeTool('a')
  const b = makeTool('b')

  it('accepts arrays, iterables, records and registries', () => {
    expect(toolList([a, b])).toEqual([a, b])
    expect(toolList(new Set([a, b]))).toEqual([a, b])
    expect(toolList({ first: a, second: b })).toEqual([a, b])
    expect(toolList(new ToolRegistry([a, b]))).toEqual([a, b])
  })

  it('gives only the visible tools of a registry', () => {
    expect(toolList(new ToolRegistry([a, b]).hide('a'))).toEqual([b])
  })

  it('dedupes one instance but refuses two tools with one name', () => {
    expect(toolList([a, a])).toEqual([a])
    expect(() => toolList([a, makeTool('a')])).toThrow(E_TOOL_ALREADY_REGISTERED)
  })

  it('refuses non-tools', () => {
    expect(() => toolList([a, 'b' as unknown as Tool])).toThrow(E_INVALID_OPTIONS)
    expect(() => toolList(42 as unknown as Tool[])).toThrow(E_INVALID_OPTIONS)
  })
})
