/**
 * `PropertyKeyMap`: property keys a provider forbids (`filter[id]`, `$top`,
 * `page-size`…) mapped to legal ones in the definition, and the model's
 * arguments mapped back before joi sees them.
 *
 * @module
 */
import { isPlainObject } from '../utils/guards.js'
import type { Description } from '../validation.js'
import { forEachSchema, mapSubschemas, type JsonSchema, type JsonSchemaNode } from './json_schema_walk.js'
import { ToolNameMap, type ToolNameRule, type ToolRename } from './tool_name_map.js'

/** The property-key rules of the providers that have one, in {@link PROPERTY_KEY_RULES}. */
export interface PropertyKeyRules {
  /** Anthropic `input_schema` property keys. */
  readonly anthropic: ToolNameRule
  /** Gemini `parameters` property keys. */
  readonly gemini: ToolNameRule
}

/**
 * The documented property-key rules (same shape as a tool-name rule).
 *
 * @remarks
 * - Anthropic: `^[a-zA-Z0-9_.-]{1,64}$`;
 * - Gemini: `^[A-Za-z_][A-Za-z0-9_]{0,63}$`.
 * OpenAI and MCP take any key.
 */
export const PROPERTY_KEY_RULES: PropertyKeyRules = {
  anthropic: keyRule('anthropic', /[a-zA-Z0-9_.-]/, /[a-zA-Z0-9_.-]/, 64),
  gemini: keyRule('gemini', /[a-zA-Z0-9_]/, /[a-zA-Z_]/, 64),
}

/**
 * The property keys of one tool's input schema, mapped for one provider.
 *
 * @remarks
 * One key gets one provider key wherever it appears in the schema, and every
 * legal key anywhere in the schema is reserved first, so a renamed key never
 * takes a name the schema already uses (`filter[id]` → `filter_id_`, or
 * `filter_id__2` when `filter_id_` exists). Arguments are mapped back along
 * the joi description, so keys inside free-form values (`any()`, open
 * objects) are never touched.
 *
 * @example
 * ```ts
 * const keys = new PropertyKeyMap(PROPERTY_KEY_RULES.gemini, tool.describe().inputSchema)
 * keys.toProvider('$top')                        // '_top'
 * keys.argsFromProvider({ _top: 5 })             // { $top: 5 }
 * ```
 */
export class PropertyKeyMap {
  /** The rule keys are checked against. */
  readonly rule: ToolNameRule
  readonly #names: ToolNameMap
  readonly #description: Description

  /**
   * @param rule - One of {@link PROPERTY_KEY_RULES}.
   * @param description - The tool's input schema description (`tool.describe().inputSchema`).
   * @param schema - Its JSON Schema, whose `properties` keys are all mapped (defaults to the keys of `description`).
   */
  constructor(rule: ToolNameRule, description: Description, schema?: JsonSchema) {
    this.rule = rule
    this.#description = description
    this.#names = new ToolNameMap(rule, schema ? schemaKeys(schema) : descriptionKeys(description))
  }

  /** Every key that had to change. */
  get renamed(): ToolRename[] {
    return this.#names.renamed
  }

  /**
   * The key the provider sees.
   *
   * @param key - A property key of the schema.
   * @returns A legal key (the same one when it already is).
   */
  toProvider(key: string): string {
    return this.#names.toProvider(key)
  }

  /**
   * The schema key behind a provider key.
   *
   * @param providerKey - A key of the model's arguments.
   * @returns The schema's key, or `undefined` for a key this map never issued.
   */
  fromProvider(providerKey: string): string | undefined {
    return this.#names.fromProvider(providerKey)
  }

  /**
   * The schema with every `properties` key and `required` entry renamed.
   *
   * @param schema - A JSON Schema of the tool's input.
   * @returns A new schema; `schema` is not modified.
   */
  mapSchema(schema: JsonSchema): JsonSchema {
    if (this.renamed.length === 0) return schema
    const rename = (node: JsonSchemaNode): JsonSchemaNode => {
      if (typeof node === 'boolean') return node
      const out = mapSubschemas(node, rename)
      if (isPlainObject(out.properties)) {
        out.properties = Object.fromEntries(Object.entries(out.properties).map(([k, v]) => [this.toProvider(k), v]))
      }
      if (Array.isArray(out.required)) out.required = out.required.map((k) => (typeof k === 'string' ? this.toProvider(k) : k))
      return out
    }
    return rename(schema) as JsonSchema
  }

  /**
   * The model's arguments with their keys mapped back to the schema's.
   *
   * @param args - The arguments as the provider returned them.
   * @returns The arguments under the schema's keys (`args` itself when no key was renamed).
   */
  argsFromProvider(args: unknown): unknown {
    if (this.renamed.length === 0) return args
    return this.#walk([this.#description], args, 'back')
  }

  /**
   * Arguments under the provider's keys: how an earlier call is written back
   * into the conversation, so the model sees the keys it used.
   *
   * @param args - Arguments under the schema's keys.
   * @returns The arguments under the provider's keys (`args` itself when no key was renamed).
   */
  argsToProvider(args: unknown): unknown {
    if (this.renamed.length === 0) return args
    return this.#walk([this.#description], args, 'forth')
  }

  #walk(descriptions: readonly Description[], value: unknown, direction: 'back' | 'forth'): unknown {
    const candidates = descriptions.flatMap(alternativesOf)
    if (isPlainObject(value)) {
      const keys = new Map<string, Description[]>()
      for (const d of candidates) {
        for (const [k, child] of Object.entries((d.keys ?? {}) as Record<string, Description>)) keys.set(k, [...(keys.get(k) ?? []), child])
      }
      if (keys.size === 0) return value
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => {
          if (direction === 'forth') return [keys.has(k) ? this.toProvider(k) : k, this.#walk(keys.get(k) ?? [], v, direction)]
          const original = this.fromProvider(k)
          const key = original !== undefined && keys.has(original) ? original : k
          return [key, this.#walk(keys.get(key) ?? [], v, direction)]
        }),
      )
    }
    if (Array.isArray(value)) {
      const items = candidates.flatMap((d) => [...((d.items ?? []) as Description[]), ...((d.ordered ?? []) as Description[])])
      if (items.length === 0) return value
      return value.map((item) => this.#walk(items, item, direction))
    }
    return value
  }
}

/** A description and every branch it may validate with (`when` then/otherwise, alternatives). */
function alternativesOf(description: Description): Description[] {
  const out: Description[] = [description]
  for (const when of (description.whens ?? []) as Record<string, unknown>[]) {
    for (const branch of [when.then, when.otherwise, ...(((when.switch ?? []) as Record<string, unknown>[]).flatMap((s) => [s.then, s.otherwise]))]) {
      if (isPlainObject(branch)) out.push(...alternativesOf(branch as Description))
    }
  }
  for (const match of (description.matches ?? []) as Record<string, unknown>[]) {
    if (isPlainObject(match.schema)) out.push(...alternativesOf(match.schema as Description))
    for (const branch of [match.then, match.otherwise]) if (isPlainObject(branch)) out.push(...alternativesOf(branch as Description))
  }
  return out
}

function schemaKeys(schema: JsonSchema): string[] {
  const keys = new Set<string>()
  forEachSchema(schema, (node) => {
    if (isPlainObject(node.properties)) for (const k of Object.keys(node.properties)) keys.add(k)
  })
  return [...keys]
}

function descriptionKeys(description: Description): string[] {
  const keys = new Set<string>()
  const visit = (d: unknown): void => {
    if (!isPlainObject(d)) return
    for (const alt of alternativesOf(d as Description)) {
      for (const [k, child] of Object.entries((alt.keys ?? {}) as Record<string, unknown>)) {
        keys.add(k)
        visit(child)
      }
      for (const item of [...((alt.items ?? []) as unknown[]), ...((alt.ordered ?? []) as unknown[])]) visit(item)
    }
  }
  visit(description)
  return [...keys]
}

function keyRule(provider: string, allowed: RegExp, allowedFirst: RegExp, maxLength: number): ToolNameRule {
  const body = allowed.source.slice(1, -1)
  const first = allowedFirst.source.slice(1, -1)
  return { provider, allowed, allowedFirst, maxLength, pattern: new RegExp(`^[${first}][${body}]{0,${maxLength - 1}}$`) }
}

/** One key a {@link PropertyKeyMaps} had to change. */
export interface PropertyKeyRename extends ToolRename {
  /** The tool whose schema has the key. */
  readonly tool: string
}

/**
 * The {@link PropertyKeyMap} of every tool of a set, by tool name: what the
 * provider definition builders fill in and what an adapter reads to map a
 * call's arguments back.
 *
 * @example
 * ```ts
 * const { definitions, names, keys } = toGeminiFunctionDeclarations(tools)
 * const name = names.fromProvider(call.name)!
 * const args = keys!.argsFromProvider(name, call.args)   // keys as the tool's schema spells them
 * ```
 */
export class PropertyKeyMaps {
  /** The provider's key rule. */
  readonly rule: ToolNameRule
  readonly #maps = new Map<string, PropertyKeyMap>()

  /** @param rule - One of {@link PROPERTY_KEY_RULES}. */
  constructor(rule: ToolNameRule) {
    this.rule = rule
  }

  /**
   * The map of one tool, created on first use.
   *
   * @param tool - The tool's name.
   * @param description - Its input schema description.
   * @param schema - Its JSON Schema (every `properties` key is mapped).
   * @returns The tool's map.
   */
  forTool(tool: string, description: Description, schema?: JsonSchema): PropertyKeyMap {
    let map = this.#maps.get(tool)
    if (map === undefined) {
      map = new PropertyKeyMap(this.rule, description, schema)
      this.#maps.set(tool, map)
    }
    return map
  }

  /**
   * A call's arguments under the keys the tool's schema uses.
   *
   * @param tool - The tool's own name (after `names.fromProvider`).
   * @param args - The arguments the provider returned.
   * @returns The mapped arguments (`args` itself for a tool without renamed keys or an unknown tool).
   */
  argsFromProvider(tool: string, args: unknown): unknown {
    const map = this.#maps.get(tool)
    return map === undefined ? args : map.argsFromProvider(args)
  }

  /**
   * An earlier call's arguments under the provider's keys (the reverse of {@link PropertyKeyMaps.argsFromProvider}).
   *
   * @param tool - The tool's own name.
   * @param args - Arguments under the schema's keys.
   * @returns The arguments under the provider's keys.
   */
  argsToProvider(tool: string, args: unknown): unknown {
    const map = this.#maps.get(tool)
    return map === undefined ? args : map.argsToProvider(args)
  }

  /** Every key that had to change, per tool. */
  get renamed(): PropertyKeyRename[] {
    return [...this.#maps].flatMap(([tool, map]) => map.renamed.map((r) => ({ tool, ...r })))
  }
}
