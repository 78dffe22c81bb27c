/**
 * The differential corpus of issue 11 (item 5): the built-ins and the custom
 * tools, plus schemas for every construct providers treat differently.
 */
import { Tool, validator, type Schema } from '../../../lib/index.js'
import { allTools } from './catalogue.js'

/** One corpus entry. */
export interface CorpusEntry {
  /** A tool over the schema. */
  tool: Tool
  /**
   * Why only "joi accepts ⇒ ajv accepts" holds (a documented gap: `when()`
   * conditions are not expressed, formats are annotations); both ways otherwise.
   */
  oneWay?: string
}

const s = validator

function entry(name: string, schema: Schema, oneWay?: string): CorpusEntry {
  const tool = new Tool({ name, description: `Corpus: ${name}`, inputSchema: schema as never, handler: () => 'ok' })
  return oneWay === undefined ? { tool } : { tool, oneWay }
}

const WHEN = 'when() conditions are not expressed in JSON Schema'

/** Every corpus entry (≥ 30). */
export function corpus(): CorpusEntry[] {
  return [
    ...allTools().map((tool) => ({ tool })),
    entry('flat_scalars', s.object({ a: s.string().required(), b: s.number(), c: s.boolean(), d: s.number().integer() })),
    entry('nested_objects', s.object({ outer: s.object({ inner: s.object({ leaf: s.string().required() }).required() }) })),
    entry('deep_nesting', s.object({ a: s.object({ b: s.object({ c: s.object({ d: s.object({ e: s.string() }) }) }) }) })),
    entry('array_of_objects', s.object({ items: s.array().items(s.object({ id: s.number().integer().required(), tag: s.string() })).required() })),
    entry('array_of_arrays', s.object({ grid: s.array().items(s.array().items(s.number()).max(3)).max(3) })),
    entry('open_array', s.object({ list: s.array().max(4) })),
    entry('any_value', s.object({ value: s.any(), name: s.string() })),
    entry('optional_only', s.object({ a: s.string(), b: s.number(), c: s.boolean() })),
    entry('nullable_scalars', s.object({ a: s.string().allow(null), b: s.number().allow(null).required(), c: s.boolean().allow(null) })),
    entry('nullable_object', s.object({ who: s.object({ name: s.string().required() }).allow(null) })),
    entry('defaults', s.object({ mode: s.string().valid('fast', 'safe').default('safe'), retries: s.number().integer().min(0).default(3), dry: s.boolean().default(false) })),
    entry('string_enum', s.object({ color: s.string().valid('red', 'green', 'blue').required() })),
    entry('number_enum', s.object({ level: s.number().valid(1, 2, 3).required() })),
    entry('mixed_enum', s.object({ v: s.valid('a', 1, true) })),
    entry('nullable_enum', s.object({ size: s.string().valid('s', 'm', 'l').allow(null) })),
    entry('pattern', s.object({ sku: s.string().pattern(/^[A-Z]{3}-\d{4}$/).required(), slug: s.string().pattern(/^[a-z0-9-]+$/) })),
    entry('string_lengths', s.object({ short: s.string().min(2).max(5), exact: s.string().length(3) })),
    entry('number_bounds', s.object({ pct: s.number().min(0).max(100), pos: s.number().greater(0), neg: s.number().less(0) })),
    entry('integer_bounds', s.object({ page: s.number().integer().min(1).max(500).required() })),
    entry('array_bounds', s.object({ tags: s.array().items(s.string()).min(1).max(4).unique() })),
    entry('alternatives', s.object({ id: s.alternatives().try(s.string(), s.number().integer()).required() })),
    entry('alternatives_objects', s.object({ shape: s.alternatives().try(s.object({ r: s.number().required() }), s.object({ w: s.number().required(), h: s.number().required() })) })),
    entry('allow_empty_string', s.object({ note: s.string().allow('') })),
    entry('labels_and_examples', s.object({ city: s.string().label('City').example('Oslo').description('Where').required() })),
    entry('forbidden_key', s.object({ keep: s.string(), drop: s.any().forbidden() })),
    entry('date_field', s.object({ due: s.date(), label: s.string() }), 'formats are annotations: ajv takes any string as a date-time'),
    entry('odd_keys', s.object({ 'filter[id]': s.string(), $top: s.number().integer().min(1), 'page-size': s.number().integer(), 'a b': s.string() })),
    entry('ordered_tuple', s.object({ point: s.array().ordered(s.number().required(), s.number().required()) })),
    entry('nested_when', s.object({ kind: s.string().valid('a', 'b').required(), detail: s.object({ a: s.string(), b: s.number() }).when('kind', { is: 'a', then: s.object({ a: s.required() }) }) }), WHEN),
    entry(
      'root_when_exclusive',
      s.object({ kind: s.string().valid('a', 'b').required(), a: s.string(), b: s.number() })
        .when('.kind', { is: 'a', then: s.object({ kind: s.valid('a'), a: s.required() }), otherwise: s.object({ kind: s.valid('b'), b: s.required() }) }),
      WHEN,
    ),
    entry('root_when_issue_repro', s.object({ kind: s.string().valid('a', 'b').required(), a: s.string(), b: s.number() })
      .when('.kind', { is: 'a', then: s.object({ a: s.required() }), otherwise: s.object({ b: s.required() }) }), WHEN),
    entry('root_when_nested_required', s.object({ kind: s.string().required(), a: s.string() })
      .when('.kind', { is: 'strict', then: s.object({ a: s.required() }) }), WHEN),
  ]
}
