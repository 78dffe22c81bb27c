/**
 * A generated JSON Schema as specs read it back: the nested keywords they walk
 * are nodes again, every other keyword is `unknown` for the assertion to check.
 * A keyword a spec walks into that is missing fails that spec with a TypeError.
 */
export interface SchemaNode {
  [keyword: string]: unknown
  properties: Record<string, SchemaNode>
  $defs: Record<string, SchemaNode>
  items: SchemaNode
  default: unknown[]
}
