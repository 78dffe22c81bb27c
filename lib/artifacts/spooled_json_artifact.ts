/**
 * `SpooledJsonArtifact`: a JSON or JSON Lines result, queried by path.
 *
 * @module
 */
import { E_ARTIFACT_QUERY_FAILED } from '../exceptions.js'
import { validator } from '../validation.js'
import { lazyObject } from '../utils/lazy_object.js'
import { clipBytes, type ArtifactOutputLimits, type ArtifactToolMethod } from './artifact_tool.js'
import type { SpoolReader } from './spool_reader.js'
import { SpooledArtifact } from './spooled_artifact.js'
import { utf8Prefix } from '../utils/utf8.js'

/** `json`: one document; `jsonl`: one document per line. */
export type JsonFormat = 'json' | 'jsonl'

/** Options of `new SpooledJsonArtifact(reader, options)`. */
export interface SpooledJsonArtifactOptions {
  /**
   * The format, when known.
   *
   * @defaultValue detected: `jsonl` when the first two non-blank lines each parse on their own, else `json`
   */
  format?: JsonFormat
}

/** What {@link SpooledJsonArtifact.keys} reports about the value at a path. */
export type JsonShape = JsonObjectShape | JsonArrayShape | JsonScalarShape

/** An object, with its keys in order. */
export interface JsonObjectShape {
  /** Always `'object'`. */
  type: 'object'
  /** The object's own keys. */
  keys: string[]
}

/** An array, with its length. */
export interface JsonArrayShape {
  /** Always `'array'`. */
  type: 'array'
  /** How many items. */
  length: number
}

/** A scalar. */
export interface JsonScalarShape {
  /** The JSON type of the value. */
  type: 'string' | 'number' | 'boolean' | 'null'
}

/** One step of a parsed JSON path: a key or an array index. */
export type JsonPathSegment = string | number

/**
 * Parse a JSON path: dot-separated keys and indexes with optional brackets.
 *
 * @remarks
 * `''` or `'$'` is the root. `a.b.0.c`, `a.b[0].c`, `$.a["key.with.dots"]`
 * and `[3].id` all work. A segment of digits is an index when it meets an
 * array and a key when it meets an object.
 *
 * @param path - The path text.
 * @returns The segments.
 * @throws {@link toolsmith/core!E_ARTIFACT_QUERY_FAILED} for an unterminated bracket or quote.
 */
export function parseJsonPath(path: string): JsonPathSegment[] {
  let rest = path.trim()
  if (rest.startsWith('$')) rest = rest.slice(1)
  const segments: JsonPathSegment[] = []
  let i = 0
  while (i < rest.length) {
    const char = rest[i]!
    if (char === '.') {
      i++
      continue
    }
    if (char === '[') {
      const close = findClosingBracket(rest, i)
      const inner = rest.slice(i + 1, close).trim()
      if (/^-?\d+$/.test(inner)) segments.push(Number(inner))
      else if (/^(["']).*\1$/s.test(inner)) segments.push(unquote(inner))
      else segments.push(inner)
      i = close + 1
      continue
    }
    let end = i
    while (end < rest.length && rest[end] !== '.' && rest[end] !== '[') end++
    const key = rest.slice(i, end)
    segments.push(/^\d+$/.test(key) ? Number(key) : key)
    i = end
  }
  return segments
}

function findClosingBracket(text: string, open: number): number {
  let quote: string | undefined
  for (let i = open + 1; i < text.length; i++) {
    const char = text[i]!
    if (quote) {
      if (char === '\\') i++
      else if (char === quote) quote = undefined
    } else if (char === '"' || char === "'") quote = char
    else if (char === ']') return i
  }
  throw new E_ARTIFACT_QUERY_FAILED(`Unterminated "[" in JSON path ${JSON.stringify(text)}`)
}

function unquote(text: string): string {
  if (text.startsWith('"')) {
    try {
      return JSON.parse(text) as string
    } catch {
      // fall through to the lenient form
    }
  }
  return text.slice(1, -1).replace(/\\(.)/g, '$1')
}

function formatPath(segments: readonly JsonPathSegment[]): string {
  if (segments.length === 0) return '$'
  return (
    '$' +
    segments
      .map((s) => (typeof s === 'number' ? `[${s}]` : /^[A-Za-z_$][\w$]*$/.test(s) ? `.${s}` : `[${JSON.stringify(s)}]`))
      .join('')
  )
}

function typeOf(value: unknown): JsonShape['type'] {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value as 'object' | 'string' | 'number' | 'boolean'
}

function step(value: unknown, segment: JsonPathSegment, walked: JsonPathSegment[]): unknown {
  if (Array.isArray(value)) {
    const index = typeof segment === 'number' ? segment : /^-?\d+$/.test(segment) ? Number(segment) : NaN
    const at = index < 0 ? value.length + index : index
    if (Number.isInteger(at) && at >= 0 && at < value.length) return value[at]
    throw notFound(walked, segment, `an array of ${value.length} items`)
  }
  if (value !== null && typeof value === 'object') {
    const key = String(segment)
    if (Object.hasOwn(value, key)) return (value as Record<string, unknown>)[key]
    const keys = Object.keys(value)
    throw notFound(walked, segment, `an object with keys ${keys.slice(0, 20).join(', ')}${keys.length > 20 ? ', …' : ''}`)
  }
  throw notFound(walked, segment, `a ${typeOf(value)}`)
}

function notFound(walked: JsonPathSegment[], segment: JsonPathSegment, what: string): E_ARTIFACT_QUERY_FAILED {
  return new E_ARTIFACT_QUERY_FAILED(
    `No ${JSON.stringify(segment)} at ${formatPath(walked)}: it is ${what}`,
    { details: { path: formatPath([...walked, segment]) } },
  )
}

/**
 * A JSON (one document) or JSON Lines (one document per line) result,
 * queried by path without handing the model the whole text.
 *
 * @remarks
 * JSON is parsed once, on first query, and kept (JSON cannot be queried
 * without parsing it whole). JSON Lines is never parsed whole: the root is a
 * virtual array whose item `i` is line `i + 1` (0-based records; a blank line
 * is `null`), and only the lines a query touches are parsed.
 *
 * @example
 * ```ts
 * const data = await SpooledJsonArtifact.fromResult('{"users":[{"name":"ada"}]}')
 * await data.keys()                   // { type: 'object', keys: ['users'] }
 * await data.get('users[0].name')     // 'ada'
 * await data.slice('users', 0, 10)    // [{ name: 'ada' }]
 * ```
 */
export class SpooledJsonArtifact extends SpooledArtifact {
  /** The base methods plus `json_keys`, `json_get` and `json_slice`. */
  static override readonly toolMethods: readonly ArtifactToolMethod<any>[] = Object.freeze([
    ...SpooledArtifact.toolMethods,
    jsonKeysMethod(),
    jsonGetMethod(),
    jsonSliceMethod(),
  ])

  readonly #declaredFormat: JsonFormat | undefined
  #format: Promise<JsonFormat> | undefined
  #document: Promise<unknown> | undefined

  /**
   * @param reader - Where the bytes are.
   * @param options - The format, when known.
   * @throws `E_NOT_A_SPOOL_READER` when `reader` is not a spool reader.
   */
  constructor(reader: SpoolReader, options: SpooledJsonArtifactOptions = {}) {
    super(reader)
    this.#declaredFormat = options.format
  }

  /**
   * Whether this is one JSON document or JSON Lines.
   *
   * @returns The declared or detected format.
   */
  async format(): Promise<JsonFormat> {
    this.#format ??= this.#declaredFormat ? Promise.resolve(this.#declaredFormat) : this.#detect()
    return this.#format
  }

  /**
   * What is at `path`: an object's keys, an array's length, or a scalar's type.
   *
   * @param path - A JSON path (see `parseJsonPath`); `''` is the root.
   * @returns The shape.
   * @throws {@link toolsmith/core!E_ARTIFACT_QUERY_FAILED} when the path does not exist or the text is not JSON.
   */
  async keys(path = ''): Promise<JsonShape> {
    const segments = parseJsonPath(path)
    if (segments.length === 0 && (await this.format()) === 'jsonl') {
      return { type: 'array', length: await this.lineCount() }
    }
    const value = await this.#resolve(segments)
    const type = typeOf(value)
    if (type === 'object') return { type, keys: Object.keys(value as object) }
    if (type === 'array') return { type, length: (value as unknown[]).length }
    return { type }
  }

  /**
   * The value at `path`.
   *
   * @param path - A JSON path; for JSON Lines it starts with the record index.
   * @returns The value (parsed JSON).
   * @throws {@link toolsmith/core!E_ARTIFACT_QUERY_FAILED} when the path does not exist, the
   *   text is not JSON, or the whole of a JSON Lines result is asked for (use
   *   {@link SpooledJsonArtifact.slice}).
   */
  async get(path = ''): Promise<unknown> {
    const segments = parseJsonPath(path)
    if (segments.length === 0 && (await this.format()) === 'jsonl') {
      throw new E_ARTIFACT_QUERY_FAILED(
        'A JSON Lines result is not read whole: start the path with a record index, or use slice',
      )
    }
    return this.#resolve(segments)
  }

  /**
   * Items `start` to `end` (0-based, end exclusive, like `Array.prototype.slice`)
   * of the array at `path`; for the root of JSON Lines, only those lines are parsed.
   *
   * @param path - A JSON path to an array; `''` is the root.
   * @param start - First index (default 0).
   * @param end - One past the last index (default: the end).
   * @returns The items.
   * @throws {@link toolsmith/core!E_ARTIFACT_QUERY_FAILED} when the path does not exist or is not an array.
   */
  async slice(path = '', start = 0, end?: number): Promise<unknown[]> {
    const segments = parseJsonPath(path)
    if (segments.length === 0 && (await this.format()) === 'jsonl') {
      const count = await this.lineCount()
      const from = clampIndex(start, count)
      const to = end === undefined ? count : clampIndex(end, count)
      const records: unknown[] = []
      for await (const line of this.scan(from + 1, to)) records.push(parseRecord(line.text, line.index))
      return records
    }
    const value = await this.#resolve(segments)
    if (!Array.isArray(value)) {
      throw new E_ARTIFACT_QUERY_FAILED(`${formatPath(segments)} is a ${typeOf(value)}, not an array`)
    }
    return value.slice(start, end)
  }

  async #resolve(segments: JsonPathSegment[]): Promise<unknown> {
    let value: unknown
    let rest = segments
    const walked: JsonPathSegment[] = []
    if ((await this.format()) === 'jsonl') {
      const [first, ...others] = segments
      const count = await this.lineCount()
      const index = typeof first === 'number' ? (first < 0 ? count + first : first) : NaN
      if (!Number.isInteger(index) || index < 0 || index >= count) {
        throw notFound([], first ?? '', `JSON Lines with ${count} records (paths start with a record index)`)
      }
      value = parseRecord((await this.reader.line(index)) ?? '', index)
      walked.push(index)
      rest = others
    } else {
      value = await this.#parseDocument()
    }
    for (const segment of rest) {
      value = step(value, segment, walked)
      walked.push(segment)
    }
    return value
  }

  #parseDocument(): Promise<unknown> {
    this.#document ??= this.asString().then((text) => {
      try {
        return JSON.parse(text) as unknown
      } catch (cause) {
        throw new E_ARTIFACT_QUERY_FAILED(`The result is not valid JSON: ${(cause as Error).message}`, { cause })
      }
    })
    return this.#document
  }

  async #detect(): Promise<JsonFormat> {
    const probes: string[] = []
    // Bounded probe: the first two non-blank lines, each read up to 1 MiB.
    for await (const line of this.scan(1, undefined, { maxLineBytes: 1024 * 1024 })) {
      if (line.text.trim() === '') continue
      if (line.truncated) return 'json'
      probes.push(line.text)
      if (probes.length === 2) break
    }
    if (probes.length < 2) return 'json'
    return probes.every(parses) ? 'jsonl' : 'json'
  }
}

function parses(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

function parseRecord(text: string, index: number): unknown {
  if (text.trim() === '') return null
  try {
    return JSON.parse(text) as unknown
  } catch (cause) {
    throw new E_ARTIFACT_QUERY_FAILED(`Line ${index + 1} is not valid JSON: ${(cause as Error).message}`, { cause })
  }
}

function clampIndex(index: number, length: number): number {
  const at = index < 0 ? length + index : index
  return Math.min(length, Math.max(0, Math.floor(at)))
}

function asJson(artifact: SpooledArtifact): SpooledJsonArtifact {
  return artifact as SpooledJsonArtifact
}

function jsonKeysMethod(): ArtifactToolMethod<SpooledJsonArtifact> {
  return {
    toolName: 'json_keys',
    description: 'Show what is at a path of an earlier JSON / JSON Lines result: the keys of an object (with their types), the length of an array, or the type of a value.',
    inputSchema: lazyObject(() => validator.object({
      path: validator.string().allow('').default('').description('JSON path such as users[0].address ("" = root)'),
    })),
    run: async (artifact, args: { path: string }, limits: ArtifactOutputLimits) => {
      const json = asJson(artifact)
      const shape = await json.keys(args.path)
      const where = formatPath(parseJsonPath(args.path))
      if (shape.type === 'array') {
        return `${where}: array of ${shape.length} items (read them with json_slice)`
      }
      if (shape.type !== 'object') return `${where}: ${shape.type}`
      const value = (await json.get(args.path)) as Record<string, unknown>
      const shown = shape.keys.slice(0, limits.maxLines).map((key) => {
        const child = value[key]
        const type = typeOf(child)
        const detail = type === 'array' ? ` (${(child as unknown[]).length})` : ''
        return `${utf8Prefix(key, limits.maxLineBytes)}: ${type}${detail}`
      })
      const more = shape.keys.length > shown.length ? `; showing the first ${shown.length}` : ''
      return clipBytes(`${where}: object with ${shape.keys.length} keys${more}\n${shown.join('\n')}`, limits.maxBytes)
    },
  }
}

function jsonGetMethod(): ArtifactToolMethod<SpooledJsonArtifact> {
  return {
    toolName: 'json_get',
    description: 'Read the value at a path of an earlier JSON / JSON Lines result (for JSON Lines the path starts with the 0-based record index).',
    inputSchema: lazyObject(() => validator.object({
      path: validator.string().allow('').default('').description('JSON path such as users[0].name ("" = root)'),
    })),
    run: async (artifact, args: { path: string }, limits: ArtifactOutputLimits) => {
      const value = await asJson(artifact).get(args.path)
      const text = JSON.stringify(value, null, 2) ?? 'null'
      return clipBytes(text, limits.maxBytes)
    },
  }
}

function jsonSliceMethod(): ArtifactToolMethod<SpooledJsonArtifact> {
  return {
    toolName: 'json_slice',
    description: 'Read items start..end (0-based, end exclusive) of an array in an earlier JSON result, or records of a JSON Lines result; one compact JSON item per line.',
    inputSchema: lazyObject(() => validator.object({
      path: validator.string().allow('').default('').description('JSON path to an array ("" = root)'),
      start: validator.number().integer().min(0).default(0).description('First index, 0-based'),
      end: validator.number().integer().min(0).description('One past the last index'),
    })),
    run: async (artifact, args: { path: string; start: number; end?: number }, limits: ArtifactOutputLimits) => {
      const json = asJson(artifact)
      const end = Math.min(args.end ?? Number.MAX_SAFE_INTEGER, args.start + limits.maxLines)
      const items = await json.slice(args.path, args.start, end)
      const shape = await json.keys(args.path)
      const total = shape.type === 'array' ? shape.length : items.length
      const lines: string[] = []
      let bytes = 0
      for (const [offset, item] of items.entries()) {
        const text = `[${args.start + offset}] ${utf8Prefix(JSON.stringify(item) ?? 'null', limits.maxLineBytes)}`
        if (lines.length > 0 && bytes + Buffer.byteLength(text) + 1 > limits.maxBytes - 200) break
        lines.push(text)
        bytes += Buffer.byteLength(text) + 1
      }
      const last = args.start + lines.length
      const wanted = Math.min(total, args.end ?? total)
      const note =
        lines.length === 0
          ? `[no items in ${args.start}..${wanted}; the array has ${total}]`
          : `[items ${args.start}-${last - 1} of ${total}${last < wanted ? `; continue with start=${last}` : ''}]`
      return clipBytes(`${lines.join('\n')}${lines.length ? '\n' : ''}${note}`, limits.maxBytes)
    },
  }
}
