/**
 * Validation primitives: joi, re-exported under the name `@nhtio/validation`
 * uses, and two helpers that turn a joi failure into a typed exception.
 *
 * @module
 */
import { createRequire } from 'node:module'
import type Joi from 'joi'
import { BaseException } from './exceptions.js'
import { lazyObject } from './utils/lazy_object.js'

let joi: Joi.Root | undefined

/**
 * joi itself, required on the first call: `import 'toolsmith'` does not load
 * it (it would be most of the import's cost), the first schema built or
 * validated does. joi is CommonJS, so a synchronous `require` works here.
 *
 * @returns The joi root.
 * @internal
 */
export function joiRoot(): Joi.Root {
  joi ??= createRequire(import.meta.url)('joi') as Joi.Root
  return joi
}

/**
 * The joi root, exported as `validator` so schemas read the same as they do
 * with `@nhtio/validation` (which wraps joi).
 *
 * @remarks
 * joi loads the first time `validator` is used (`validator.object(…)`,
 * `validator.isSchema(…)`…), not when the package is imported; from then on
 * every property is joi's own.
 *
 * @example
 * ```ts
 * import { validator } from 'toolsmith'
 * const schema = validator.object({ path: validator.string().required() })
 * ```
 */
export const validator: Joi.Root = lazyObject(joiRoot)

/** Any joi schema. */
export type Schema<T = any> = Joi.Schema<T>
/** A joi object schema: the only kind a tool's `inputSchema` may be. */
export type ObjectSchema<T = any> = Joi.ObjectSchema<T>
/** The plain-JSON output of `schema.describe()`, rebuildable with `validator.build()`. */
export type Description = Joi.Description
/** One failing rule reported by joi. */
export type ValidationErrorItem = Joi.ValidationErrorItem

/**
 * Options accepted by {@link validateOrThrow} and {@link asyncValidateOrThrow}:
 * joi's own validation options.
 */
export type ValidateOptions = Joi.ValidationOptions

/**
 * A value did not satisfy a schema.
 *
 * @remarks
 * Every joi detail is kept in {@link ValidationException.details}, and the
 * message lists all of them, so the caller (or a model) sees every failing
 * field at once rather than one per retry. The original joi error is the
 * `cause`.
 */
export class ValidationException extends BaseException<ValidationErrorItem[]> {
  /** Machine-readable code. */
  static override code = 'E_VALIDATION'
  /** HTTP-style status: 422 Unprocessable Entity. */
  static override status = 422
  /** Default message. */
  static override message = 'Validation failed'

  /**
   * @param error - The joi validation error to wrap.
   * @param label - Optional prefix naming what was validated.
   */
  constructor(error: Joi.ValidationError, label?: string) {
    const listed = error.details.map((d) => d.message).join('; ')
    super(label ? `${label}: ${listed}` : listed, { cause: error, details: error.details })
  }

  /** The dotted paths of every failing field (`opts.cwd`, `args.0`…). */
  get paths(): string[] {
    return this.details.map((d) => d.path.join('.'))
  }
}

/**
 * A copy of a joi error that holds none of the validated input: no
 * `context.value` in its details, no `_original`, and the value cut out of
 * every message (joi's pattern and custom messages quote it). For input a
 * model or user sends, which may carry a password, before it reaches an
 * exception that events and journals record.
 *
 * @param error - A joi validation error.
 * @returns A new error with the same paths, types and (scrubbed) messages.
 */
export function withoutInputValues(error: Joi.ValidationError): Joi.ValidationError {
  const details = error.details.map((detail) => {
    const { value, ...context } = detail.context ?? {}
    return { ...detail, message: cutValue(detail.message, value), context }
  })
  return new (joiRoot().ValidationError)(details.map((d) => d.message).join('. '), details, undefined)
}

function cutValue(message: string, value: unknown): string {
  if (value === undefined || value === null || typeof value === 'boolean') return message
  let text: string
  try {
    text = typeof value === 'object' ? JSON.stringify(value) : String(value)
  } catch {
    return message
  }
  return text && text.length > 0 ? message.split(text).join('[value]') : message
}

const DEFAULT_OPTIONS: ValidateOptions = { abortEarly: false }

/**
 * Validate synchronously and return the validated (defaults applied) value.
 *
 * @param schema - The joi schema.
 * @param value - The value to validate.
 * @param options - joi validation options; `abortEarly` defaults to `false`.
 * @returns The validated value.
 * @throws {@link ValidationException} when `value` does not satisfy `schema`.
 */
export function validateOrThrow<T>(schema: Schema<T>, value: unknown, options?: ValidateOptions): T {
  const { error, value: validated } = schema.validate(value, { ...DEFAULT_OPTIONS, ...options })
  if (error) throw new ValidationException(error)
  return validated as T
}

/**
 * Validate asynchronously (external rules allowed) and return the validated value.
 *
 * @param schema - The joi schema.
 * @param value - The value to validate.
 * @param options - joi validation options; `abortEarly` defaults to `false`.
 * @returns The validated value.
 * @throws {@link ValidationException} when `value` does not satisfy `schema`.
 */
export async function asyncValidateOrThrow<T>(schema: Schema<T>, value: unknown, options?: ValidateOptions): Promise<T> {
  try {
    return (await schema.validateAsync(value, { ...DEFAULT_OPTIONS, ...options })) as T
  } catch (error) {
    if (joiRoot().isError(error)) throw new ValidationException(error)
    throw error
  }
}

/**
 * A key that must not be given, refused with `message` (error type
 * `any.unknown`, as `forbidden()` gives).
 *
 * @remarks
 * `validator.any().forbidden().messages({...})` would do, but joi checks
 * the `messages` preferences against its own meta-schemas, and loading
 * those costs 15–25 ms the first time in a process; a schema built at
 * import must not pay that. A message set on a rule (`rule({ message })`)
 * is not checked that way, hence a custom rule in place of `forbidden()`.
 *
 * @param message - The joi message template (`{#label}` is the key).
 * @returns The schema for the key.
 * @internal
 */
export function forbiddenOption(message: string): Schema {
  // optional(): like joi's forbidden(), absent is fine even under presence: 'required'.
  return joiRoot()
    .any()
    .optional()
    .custom((_value, helpers) => helpers.error('any.unknown'))
    .rule({ message: { 'any.unknown': message } })
}
