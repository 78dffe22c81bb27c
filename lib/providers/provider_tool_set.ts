/**
 * `ProviderToolSet`: the definitions for a whole collection of tools, with
 * the name mapping that produced them.
 *
 * @module
 */
import type { PropertyKeyMaps } from './property_key_map.js'
import { toolLikeList, type ToolLike, type ToolLikeCollection } from './tool_like.js'
import { ToolNameMap, type ToolNameRule } from './tool_name_map.js'

/**
 * Definitions for every tool of a collection, in one provider's shape.
 *
 * @typeParam D - The provider's definition type.
 */
export interface ProviderToolSet<D> {
  /** One definition per tool, in the collection's order. */
  definitions: D[]
  /** Tool name ↔ provider name; `names.renamed` reports every change, `names.fromProvider()` resolves a call. */
  names: ToolNameMap
  /**
   * Property keys renamed for a provider with a key rule (Anthropic, Gemini):
   * map a call's arguments back with `keys.argsFromProvider(toolName, args)`
   * before validating. Absent for providers that take any key.
   */
  keys?: PropertyKeyMaps
}

/**
 * Build a {@link ProviderToolSet}: map every name first (legal names are
 * reserved before any illegal one is renamed), then build each definition.
 *
 * @param tools - The collection.
 * @param rule - The provider's naming rule.
 * @param names - A map to reuse, or `undefined` for a fresh one.
 * @param build - Builds one definition.
 * @param keys - The property-key maps `build` fills in, for providers with a key rule.
 * @returns The definitions and the map.
 */
export function buildToolSet<D>(
  tools: ToolLikeCollection,
  rule: ToolNameRule,
  names: ToolNameMap | undefined,
  build: (tool: ToolLike, names: ToolNameMap) => D,
  keys?: PropertyKeyMaps,
): ProviderToolSet<D> {
  const list = toolLikeList(tools)
  const map = names ?? new ToolNameMap(rule, list.map((t) => t.name))
  return { definitions: list.map((tool) => build(tool, map)), names: map, ...(keys ? { keys } : {}) }
}
