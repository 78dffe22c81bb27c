/**
 * `ToolRegistry`: the set of tools a turn offers, by name.
 *
 * @module
 */
import { E_INVALID_OPTIONS, E_TOOL_ALREADY_REGISTERED, E_TOOL_NOT_REGISTERED } from '../exceptions.js'
import { hasBrand } from '../utils/guards.js'
import { Tool, type CollisionPolicy } from './tool.js'

const TOOL_REGISTRY_BRAND = Symbol.for('toolsmith.tool_registry')

/** Options of {@link ToolRegistry.merge}. */
export interface MergeOptions {
  /**
   * When set, decides every collision, overriding the `onCollision` of the
   * incoming tools. When omitted, each incoming tool's own `onCollision`
   * decides (a tool's default is `'throw'`).
   */
  onCollision?: CollisionPolicy
}

/**
 * A name-keyed set of {@link Tool}s, with per-name visibility.
 *
 * @remarks
 * - Insertion order is kept: {@link ToolRegistry.all}, {@link ToolRegistry.visible}
 *   and iteration list tools in the order they were first registered
 *   (replacing a tool keeps its place).
 * - A hidden tool stays registered and callable by name through
 *   {@link ToolRegistry.get}, but {@link ToolRegistry.visible} (and so every
 *   provider adapter and the runner) leaves it out: hide a tool to stop
 *   offering it to the model without losing it. Hidden state belongs to the
 *   name, so it survives `register(tool, true)` and ends with `unregister`.
 * - Iterating a registry yields every tool, hidden ones included, like
 *   {@link ToolRegistry.all}.
 *
 * @example
 * ```ts
 * const registry = new ToolRegistry([read, grep])
 * registry.register(write)
 * registry.hide('write')
 * registry.visible().map((t) => t.name) // ['read', 'grep']
 * registry.get('write')?.name             // 'write'
 * ```
 */
export class ToolRegistry implements Iterable<Tool> {
  readonly #tools = new Map<string, Tool>()
  readonly #hidden = new Set<string>()

  /**
   * @param tools - Tools to register at once, in order.
   * @throws {@link E_TOOL_ALREADY_REGISTERED} when two of them share a name.
   */
  constructor(tools: Iterable<Tool> = []) {
    for (const tool of tools) this.register(tool)
  }

  /** Brand for {@link ToolRegistry.isToolRegistry}; realm-safe. */
  get [TOOL_REGISTRY_BRAND](): true {
    return true
  }

  /**
   * Returns true when `value` is a ToolRegistry, including one from another
   * copy of this package or another realm.
   *
   * @param value - Anything.
   * @returns Whether `value` is a ToolRegistry.
   */
  static isToolRegistry(value: unknown): value is ToolRegistry {
    return value instanceof ToolRegistry || hasBrand(value, TOOL_REGISTRY_BRAND)
  }

  /**
   * Combine registries into a new one; the inputs are left untouched.
   *
   * @remarks
   * Registries are read in order; a tool whose name is already in the result
   * is an incoming tool, and the policy that decides is
   * `options.onCollision` when given, otherwise **the incoming tool's own
   * `onCollision`**:
   * - `'throw'`: {@link E_TOOL_ALREADY_REGISTERED} (status 409);
   * - `'replace'`: the incoming tool takes the name (keeping its first position);
   * - `'keep'`: the tool already there stays, the incoming one is dropped.
   *
   * The same tool instance met twice is not a collision. A tool that is
   * hidden in the registry it comes from is hidden in the result, as long as
   * it is the one that ends up there.
   *
   * @param registries - Registries (or plain iterables of tools) to merge, in order.
   * @param options - An optional policy that overrides every tool's own.
   * @returns A new registry.
   * @throws {@link E_TOOL_ALREADY_REGISTERED} on a `'throw'` collision.
   * @throws {@link E_INVALID_OPTIONS} when `options.onCollision` is not a policy.
   */
  static merge(
    registries: Iterable<ToolRegistry | Iterable<Tool>>,
    options: MergeOptions = {},
  ): ToolRegistry {
    const override = options.onCollision
    if (override !== undefined && !['throw', 'replace', 'keep'].includes(override)) {
      throw new E_INVALID_OPTIONS(`onCollision must be 'throw', 'replace' or 'keep' (got ${String(override)})`)
    }
    const merged = new ToolRegistry()
    for (const source of registries) {
      const isRegistry = ToolRegistry.isToolRegistry(source)
      for (const tool of source) {
        const existing = merged.#tools.get(tool.name)
        const hidden = isRegistry && source.isHidden(tool.name)
        if (existing === undefined) {
          merged.register(tool)
          if (hidden) merged.#hidden.add(tool.name)
          continue
        }
        if (existing === tool) continue
        const policy = override ?? tool.onCollision
        if (policy === 'keep') continue
        if (policy === 'throw') throw alreadyRegistered(tool.name, 'while merging registries')
        merged.register(tool, true)
        if (hidden) merged.#hidden.add(tool.name)
        else merged.#hidden.delete(tool.name)
      }
    }
    return merged
  }

  /** How many tools are registered, hidden ones included. */
  get size(): number {
    return this.#tools.size
  }

  /**
   * Add a tool under its name.
   *
   * @param tool - The tool.
   * @param overwrite - Replace a tool already registered under that name
   *   (default `false`).
   * @returns This registry, for chaining.
   * @throws {@link E_TOOL_ALREADY_REGISTERED} (status 409) when the name is
   *   taken by another tool and `overwrite` is false.
   * @throws {@link E_INVALID_OPTIONS} when `tool` is not a {@link Tool}.
   */
  register(tool: Tool, overwrite = false): this {
    if (!Tool.isTool(tool)) {
      throw new E_INVALID_OPTIONS('ToolRegistry.register expects a Tool instance')
    }
    const existing = this.#tools.get(tool.name)
    if (existing !== undefined && existing !== tool && !overwrite) {
      throw alreadyRegistered(tool.name)
    }
    this.#tools.set(tool.name, tool)
    return this
  }

  /**
   * Remove a tool (and its hidden flag).
   *
   * @param name - The tool's name.
   * @returns True when a tool was removed.
   */
  unregister(name: string): boolean {
    this.#hidden.delete(name)
    return this.#tools.delete(name)
  }

  /**
   * Look a tool up by name, hidden or not.
   *
   * @param name - The tool's name.
   * @returns The tool, or `undefined`.
   */
  get(name: string): Tool | undefined {
    return this.#tools.get(name)
  }

  /**
   * Look a tool up by name, failing loudly when it is missing.
   *
   * @param name - The tool's name.
   * @returns The tool.
   * @throws {@link E_TOOL_NOT_REGISTERED} (status 404) naming the registered tools.
   */
  getOrFail(name: string): Tool {
    const tool = this.#tools.get(name)
    if (tool === undefined) throw this.#notRegistered(name)
    return tool
  }

  /**
   * Whether a tool is registered under `name` (hidden or not).
   *
   * @param name - The tool's name.
   * @returns True when registered.
   */
  has(name: string): boolean {
    return this.#tools.has(name)
  }

  /**
   * Every registered tool, hidden ones included.
   *
   * @returns A new array, in registration order.
   */
  all(): Tool[] {
    return [...this.#tools.values()]
  }

  /**
   * The tools to offer a model: every registered tool that is not hidden.
   *
   * @returns A new array, in registration order.
   */
  visible(): Tool[] {
    return this.all().filter((tool) => !this.#hidden.has(tool.name))
  }

  /**
   * Stop offering a tool without unregistering it.
   *
   * @param name - The tool's name.
   * @returns This registry, for chaining.
   * @throws {@link E_TOOL_NOT_REGISTERED} when no tool has that name.
   */
  hide(name: string): this {
    if (!this.#tools.has(name)) throw this.#notRegistered(name)
    this.#hidden.add(name)
    return this
  }

  /**
   * Offer a hidden tool again.
   *
   * @param name - The tool's name.
   * @returns This registry, for chaining.
   * @throws {@link E_TOOL_NOT_REGISTERED} when no tool has that name.
   */
  unhide(name: string): this {
    if (!this.#tools.has(name)) throw this.#notRegistered(name)
    this.#hidden.delete(name)
    return this
  }

  /**
   * Whether a tool is hidden.
   *
   * @param name - The tool's name.
   * @returns True when a tool of that name is registered and hidden.
   */
  isHidden(name: string): boolean {
    return this.#tools.has(name) && this.#hidden.has(name)
  }

  /**
   * Remove every ephemeral tool (such as forged artifact tools), typically at
   * the end of a turn.
   *
   * @returns The tools removed, in registration order.
   */
  pruneEphemeral(): Tool[] {
    const removed = this.all().filter((tool) => tool.ephemeral)
    for (const tool of removed) this.unregister(tool.name)
    return removed
  }

  /**
   * Every registered tool, hidden ones included, in registration order.
   *
   * @returns An iterator over the tools.
   */
  [Symbol.iterator](): Iterator<Tool> {
    return this.all()[Symbol.iterator]()
  }

  #notRegistered(name: string): E_TOOL_NOT_REGISTERED {
    const known = [...this.#tools.keys()]
    return new E_TOOL_NOT_REGISTERED(
      `No tool named "${name}" is registered${known.length ? ` (known: ${known.join(', ')})` : ' (the registry is empty)'}`,
      { details: { name, known } },
    )
  }
}

function alreadyRegistered(name: string, when = ''): E_TOOL_ALREADY_REGISTERED {
  return new E_TOOL_ALREADY_REGISTERED(`A tool named "${name}" is already registered${when ? ` ${when}` : ''}`, {
    details: { name },
  })
}
