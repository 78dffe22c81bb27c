/**
 * `ProviderToolSet`: the definitions for a whole collection of tools, with
 * the name mapping that produced them.
 *
 * @module
 */
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
}

/**
 * Build a {@link ProviderToolSet}: map every name first (legal names are
 * reserved before any illegal one is renamed), then build each definition.
 *
 * @param tools - The collection.
 * @param rule - The provider's naming rule.
 * @param names - A map to reuse, or `undefined` for a fresh one.
 * @param build - Builds one definition.
 * @returns The definitions and the map.
 */
export function buildToolSet<D>(
  tools: ToolLikeCollection,
  rule: ToolNameRule,
  names: ToolNameMap | undefined,
  build: (tool: ToolLike, names: ToolNameMap) => D,
): ProviderToolSet<D> {
  const list = toolLikeList(tools)
  const map = names ?? new ToolNameMap(rule, list.map((t) => t.name))
  return { definitions: list.map((tool) => build(tool, map)), names: map }
}
