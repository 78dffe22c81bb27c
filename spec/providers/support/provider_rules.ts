/**
 * The providers' published rules for tool definitions, encoded as checks
 * that return every violation (docs/providers.md, "What each provider
 * accepts", cites the pages):
 * - OpenAI function calling and Structured Outputs' supported schemas;
 * - Anthropic tool use (`input_schema`, property keys);
 * - Gemini function declarations (the OpenAPI `Schema` subset);
 * - MCP `tools/list` (`inputSchema` is a JSON Schema object with `type: "object"`).
 */
type Node = Record<string, unknown>

const isObject = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Visit every subschema of a JSON Schema with its JSON pointer. */
function walk(node: unknown, path: string, visit: (node: Node, path: string) => void): void {
  if (!isObject(node)) return
  visit(node, path)
  for (const key of ['items', 'additionalProperties', 'not', 'contains', 'unevaluatedItems', 'if', 'then', 'else']) {
    walk(node[key], `${path}/${key}`, visit)
  }
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) {
    if (Array.isArray(node[key])) for (const [i, n] of (node[key] as unknown[]).entries()) walk(n, `${path}/${key}/${i}`, visit)
  }
  for (const key of ['properties', '$defs', 'patternProperties']) {
    if (isObject(node[key])) for (const [k, v] of Object.entries(node[key] as Node)) walk(v, `${path}/${key}/${k}`, visit)
  }
}

function types(node: Node): string[] {
  return typeof node.type === 'string' ? [node.type] : Array.isArray(node.type) ? (node.type as string[]) : []
}

function rootObject(schema: Node, provider: string): string[] {
  const out: string[] = []
  if (schema.type !== 'object') out.push(`${provider}: root type must be "object" (got ${JSON.stringify(schema.type)})`)
  for (const k of ['anyOf', 'oneOf', 'allOf', 'not', 'enum']) if (k in schema) out.push(`${provider}: no ${k} at the top level`)
  return out
}

/** OpenAI function `parameters` (non-strict): an object root, and every array states `items`. */
export function openAIViolations(parameters: Node): string[] {
  const out = rootObject(parameters, 'openai')
  walk(parameters, '#', (node, path) => {
    if (types(node).includes('array') && node.items === undefined && node.prefixItems === undefined) out.push(`openai: ${path}: array schema missing items`)
  })
  return out
}

const STRICT_KEYWORDS = new Set([
  'type', 'description', 'title', 'properties', 'required', 'additionalProperties', 'items', 'anyOf', 'enum', 'const', '$ref', '$defs',
  'pattern', 'format', 'multipleOf', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minItems', 'maxItems',
])
const STRICT_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid'])

/** OpenAI Structured Outputs (`strict: true`) supported schemas and limits. */
export function openAIStrictViolations(parameters: Node): string[] {
  const out = openAIViolations(parameters)
  let properties = 0
  let enumValues = 0
  const depthOf = (path: string) => path.split('/properties/').length + path.split('/items').length - 1
  walk(parameters, '#', (node, path) => {
    for (const key of Object.keys(node)) if (!STRICT_KEYWORDS.has(key)) out.push(`openai-strict: ${path}: keyword ${key} is not supported`)
    if (typeof node.format === 'string' && !STRICT_FORMATS.has(node.format)) out.push(`openai-strict: ${path}: format ${node.format}`)
    if (types(node).includes('object') || isObject(node.properties)) {
      if (node.additionalProperties !== false) out.push(`openai-strict: ${path}: additionalProperties must be false`)
      const keys = Object.keys((node.properties ?? {}) as Node)
      properties += keys.length
      const required = Array.isArray(node.required) ? (node.required as string[]) : []
      if (keys.some((k) => !required.includes(k))) out.push(`openai-strict: ${path}: every property must be required`)
      if (depthOf(path) > 10) out.push(`openai-strict: ${path}: more than 10 levels of nesting`)
    }
    if (Array.isArray(node.enum)) enumValues += node.enum.length
  })
  if (properties > 5000) out.push('openai-strict: more than 5000 properties')
  if (enumValues > 1000) out.push('openai-strict: more than 1000 enum values')
  return out
}

const ANTHROPIC_KEY = /^[a-zA-Z0-9_.-]{1,64}$/

/** Anthropic `input_schema`: an object root without top-level combinators, legal property keys. */
export function anthropicViolations(inputSchema: Node): string[] {
  const out = rootObject(inputSchema, 'anthropic')
  walk(inputSchema, '#', (node, path) => {
    for (const key of Object.keys((isObject(node.properties) ? node.properties : {}) as Node)) {
      if (!ANTHROPIC_KEY.test(key)) out.push(`anthropic: ${path}: property key ${JSON.stringify(key)} breaks ${ANTHROPIC_KEY}`)
    }
  })
  return out
}

const GEMINI_FIELDS = new Set([
  'type', 'format', 'title', 'description', 'nullable', 'enum', 'maxItems', 'minItems', 'properties', 'required', 'minProperties',
  'maxProperties', 'minLength', 'maxLength', 'pattern', 'example', 'anyOf', 'propertyOrdering', 'default', 'items', 'minimum', 'maximum',
])
const GEMINI_TYPES = new Set(['STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT'])
const GEMINI_FORMATS: Record<string, string[]> = { STRING: ['enum', 'date-time'], INTEGER: ['int32', 'int64'], NUMBER: ['float', 'double'] }
const GEMINI_KEY = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/
const COUNTS = ['maxItems', 'minItems', 'minProperties', 'maxProperties', 'minLength', 'maxLength']

/** Gemini `FunctionDeclaration.parameters`: the OpenAPI `Schema` subset. */
export function geminiViolations(parameters: Node | undefined): string[] {
  if (parameters === undefined) return []
  const out: string[] = []
  if (parameters.type !== 'OBJECT') out.push(`gemini: root type must be OBJECT (got ${JSON.stringify(parameters.type)})`)
  const visit = (node: unknown, path: string): void => {
    if (!isObject(node)) {
      out.push(`gemini: ${path}: not a schema object`)
      return
    }
    for (const key of Object.keys(node)) if (!GEMINI_FIELDS.has(key)) out.push(`gemini: ${path}: field ${key} is not in Schema`)
    if (node.type === undefined && !Array.isArray(node.anyOf)) out.push(`gemini: ${path}: type must be specified`)
    if (node.type !== undefined && !GEMINI_TYPES.has(node.type as string)) out.push(`gemini: ${path}: type ${JSON.stringify(node.type)}`)
    if (node.format !== undefined && !(GEMINI_FORMATS[node.type as string] ?? []).includes(node.format as string)) {
      out.push(`gemini: ${path}: format ${String(node.format)} for ${String(node.type)}`)
    }
    if (node.enum !== undefined && (node.type !== 'STRING' || !(node.enum as unknown[]).every((v) => typeof v === 'string'))) {
      out.push(`gemini: ${path}: enum is for STRING values only`)
    }
    for (const key of COUNTS) if (node[key] !== undefined && !/^\d+$/.test(String(node[key])) ) out.push(`gemini: ${path}: ${key} must be an int64 string`)
    for (const key of COUNTS) if (node[key] !== undefined && typeof node[key] !== 'string') out.push(`gemini: ${path}: ${key} must be a string (int64)`)
    if (node.type === 'ARRAY' && node.items === undefined) out.push(`gemini: ${path}: items: missing field`)
    if (node.items !== undefined) visit(node.items, `${path}/items`)
    if (Array.isArray(node.anyOf)) for (const [i, m] of node.anyOf.entries()) visit(m, `${path}/anyOf/${i}`)
    if (node.properties !== undefined) {
      for (const [key, value] of Object.entries(node.properties as Node)) {
        if (!GEMINI_KEY.test(key)) out.push(`gemini: ${path}: property key ${JSON.stringify(key)} breaks ${GEMINI_KEY}`)
        visit(value, `${path}/properties/${key}`)
      }
      for (const key of (node.required ?? []) as string[]) if (!(key in (node.properties as Node))) out.push(`gemini: ${path}: required ${key} is not a property`)
    }
  }
  visit(parameters, '#')
  return out
}

/** MCP `Tool.inputSchema`: a JSON Schema object whose root `type` is `"object"`. */
export function mcpViolations(inputSchema: Node): string[] {
  return inputSchema.type === 'object' ? [] : [`mcp: inputSchema.type must be "object" (got ${JSON.stringify(inputSchema.type)})`]
}
