/**
 * Standard Schema input: the types of the Standard Schema and Standard JSON
 * Schema interfaces (declared here, so the kit depends on no schema library:
 * a user's schema brings its own), and the checks and conversions a tool
 * needs to take one as its `inputSchema`.
 *
 * @module
 */
import { E_INVALID_INITIAL_TOOL_VALUE, E_INVALID_TOOL_ARGS, errorSummary } from '../exceptions.js'
import { isPlainObject } from '../utils/guards.js'
import { validator, type ObjectSchema } from '../validation.js'

/** One problem a Standard Schema reports: what is wrong, and where. */
export interface StandardSchemaIssue {
  /** The library's message. */
  readonly message: string
  /** The path to the failing value: keys, or segments carrying a key. */
  readonly path?: ReadonlyArray<PropertyKey | StandardPathSegment> | undefined
}

/** A path segment given as an object (the Standard Schema allows either form). */
export interface StandardPathSegment {
  /** The key. */
  readonly key: PropertyKey
}

/** What a Standard Schema's `validate` returns: the value, or the issues. */
export type StandardSchemaResult<Output> = StandardSchemaSuccess<Output> | StandardSchemaFailure

/** {@link StandardSchemaResult}: the value passed. */
export interface StandardSchemaSuccess<Output> {
  /** The output value (defaults and transforms applied). */
  readonly value: Output
  /** Absent on success. */
  readonly issues?: undefined
}

/** {@link StandardSchemaResult}: the value failed. */
export interface StandardSchemaFailure {
  /** Every problem found. */
  readonly issues: ReadonlyArray<StandardSchemaIssue>
}

/**
 * The `~standard` property of a Standard Schema (standardschema.dev, v1):
 * what zod 4, valibot, arktype and joi 18 all implement.
 *
 * @typeParam Input - What the schema accepts.
 * @typeParam Output - What validation returns (the handler's argument type).
 */
export interface StandardSchemaProps<Input = unknown, Output = Input> {
  /** Always 1. */
  readonly version: 1
  /** The library (`zod`, `valibot`, `arktype`, `joi`). */
  readonly vendor: string
  /** Validate a value: the output value, or the issues. */
  readonly validate: (
    value: unknown,
    options?: { readonly libraryOptions?: Record<string, unknown> | undefined } | undefined,
  ) => StandardSchemaResult<Output> | Promise<StandardSchemaResult<Output>>
  /** Type-only: the input and output types, for inference. */
  readonly types?: StandardSchemaTypes<Input, Output> | undefined
}

/** The type-only `~standard.types` of a Standard Schema (never present at run time). */
export interface StandardSchemaTypes<Input = unknown, Output = Input> {
  /** What the schema accepts. */
  readonly input: Input
  /** What validation returns. */
  readonly output: Output
}

/** The Standard JSON Schema addition to `~standard`: the schema's JSON Schema. */
export interface StandardJsonSchemaProps {
  /** The converters. */
  readonly jsonSchema: {
    /** The JSON Schema of what the schema accepts. */
    readonly input: (options: {
      readonly target: string
      readonly libraryOptions?: Record<string, unknown> | undefined
    }) => Record<string, unknown>
  }
}

/**
 * A Standard Schema that can also write its JSON Schema: what a tool's
 * `inputSchema` may be besides a joi object schema (zod 4, valibot with
 * `@valibot/to-json-schema`'s Standard JSON Schema, arktype…).
 *
 * @typeParam Output - The validated value's type: the handler's argument type.
 */
export interface StandardInputSchema<Output = unknown> {
  /** The Standard Schema and Standard JSON Schema properties. */
  readonly '~standard': StandardSchemaProps<unknown, Output> & StandardJsonSchemaProps
}

/**
 * What a tool's `inputSchema` may be: a joi object schema (the default), or
 * any {@link StandardInputSchema} whose JSON Schema is an object.
 *
 * @typeParam Args - The validated argument type.
 */
export type ToolInputSchema<Args = any> = ObjectSchema<Args> | StandardInputSchema<Args>

/**
 * Anything with a `~standard.types`: what the inference helpers match.
 *
 * @typeParam T - The `types` property's type.
 */
export interface StandardSchemaLike<T> {
  /** The Standard Schema properties. */
  readonly '~standard': {
    /** The type-only input and output types. */
    readonly types?: T
  }
}

/**
 * The handler's argument type a schema gives: a Standard Schema's output
 * type (joi's `ObjectSchema<T>` gives `T`, `any` for an untyped `validator.object()`).
 *
 * @typeParam S - The input schema.
 */
export type InferToolArgs<S> = S extends StandardSchemaLike<infer T>
  ? NonNullable<T> extends StandardSchemaTypes<unknown, infer O>
    ? O
    : any
  : any

/**
 * What a tool's executor takes: a Standard Schema's input type (before
 * defaults and transforms), `any` for joi (whose types give no input type).
 *
 * @typeParam S - The input schema.
 */
export type InferToolInput<S> = S extends StandardSchemaLike<infer T>
  ? NonNullable<T> extends StandardSchemaTypes<infer I, unknown>
    ? I
    : any
  : any

/**
 * Whether a value is a Standard Schema other than joi, with JSON Schema output.
 *
 * @param value - Anything.
 * @returns Whether `value` has `~standard.validate` and `~standard.jsonSchema.input`.
 * @internal
 */
export function isStandardInputSchema(value: unknown): value is StandardInputSchema {
  if (validator.isSchema(value)) return false
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false
  const props = (value as { '~standard'?: unknown })['~standard']
  if (typeof props !== 'object' || props === null) return false
  const standard = props as { validate?: unknown; jsonSchema?: { input?: unknown } }
  return typeof standard.validate === 'function' && typeof standard.jsonSchema?.input === 'function'
}

/**
 * The JSON Schema (draft 2020-12) of a Standard Schema's input, without a
 * `$schema` key (providers do not need it and Gemini rejects it).
 *
 * @param schema - A Standard Schema with JSON Schema output.
 * @returns A fresh JSON Schema object.
 * @internal
 */
export function standardJsonSchemaOf(schema: StandardInputSchema): Record<string, unknown> {
  const { $schema: _dialect, ...json } = structuredClone(schema['~standard'].jsonSchema.input({ target: 'draft-2020-12' }))
  return json
}

/**
 * Validate args with a Standard Schema: the output value, or the
 * `E_INVALID_TOOL_ARGS` a joi failure gives, listing every issue as
 * `path: message` (the library's message; args are never quoted).
 *
 * @param toolName - The tool, for the message.
 * @param schema - The tool's input schema.
 * @param args - The raw args.
 * @returns The validated args.
 * @throws {@link toolsmith/core!E_INVALID_TOOL_ARGS} when the schema reports issues.
 * @internal
 */
export async function validateStandard<Args>(toolName: string, schema: StandardInputSchema<Args>, args: unknown): Promise<Args> {
  // A missing or non-object args value is refused as joi refuses it, whatever the library would say.
  if (!isPlainObject(args)) {
    const message = args === undefined ? '"args" is required' : '"args" must be of type object'
    const type = args === undefined ? 'any.required' : 'object.base'
    throw new E_INVALID_TOOL_ARGS(`Invalid arguments for tool "${toolName}": ${message}`, {
      details: { toolName, issues: [{ path: '', message, type }] },
    })
  }
  const result = await schema['~standard'].validate(args)
  if (result.issues === undefined) return result.value
  const issues = result.issues.map((issue) => {
    const path = (issue.path ?? []).map((segment) => String(typeof segment === 'object' ? segment.key : segment)).join('.')
    return { path, message: path === '' ? issue.message : `"${path}": ${issue.message}`, type: 'standard' }
  })
  throw new E_INVALID_TOOL_ARGS(`Invalid arguments for tool "${toolName}": ${issues.map((i) => i.message).join('; ')}`, {
    details: { toolName, issues },
  })
}

/**
 * A tool's Standard Schema's JSON Schema, which must be an object's (or a
 * union of objects', given a root `"type": "object"`): providers and MCP
 * take object arguments only.
 *
 * @param name - The tool's name, for the message.
 * @param schema - Its input schema.
 * @returns The JSON Schema.
 * @throws {@link toolsmith/core!E_INVALID_INITIAL_TOOL_VALUE} when it cannot be written or its root is not an object.
 * @internal
 */
export function standardJsonOf(name: string, schema: StandardInputSchema): Record<string, unknown> {
  let json: Record<string, unknown>
  try {
    json = standardJsonSchemaOf(schema)
  } catch (cause) {
    throw new E_INVALID_INITIAL_TOOL_VALUE(
      `Invalid tool definition: the JSON Schema of tool "${name}"'s inputSchema could not be written (${errorSummary(cause)}); use types JSON Schema can express`,
      { cause },
    )
  }
  // A root union of objects (z.union, z.discriminatedUnion) has no root type: it gets one, as a joi root .when() does.
  const branches = (json.anyOf ?? json.oneOf) as unknown[] | undefined
  if (json.type === undefined && Array.isArray(branches) && branches.length > 0 && branches.every((b) => isPlainObject(b) && b.type === 'object')) {
    return { type: 'object', ...json }
  }
  if (json.type !== 'object') {
    throw new E_INVALID_INITIAL_TOOL_VALUE(
      `Invalid tool definition: the inputSchema of tool "${name}" must describe an object (its JSON Schema's root "type" is ${JSON.stringify(json.type ?? null)}); use an object schema such as z.object({...}) or a union of them`,
    )
  }
  return json
}
