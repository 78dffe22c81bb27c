/**
 * The joi schema a tool definition (`RawTool`) must satisfy.
 *
 * @module
 */
import { argumentRolesSchema } from './argument_roles.js'
import { isSpooledArtifact } from '../contracts/artifact.js'
import { isPlainObject } from '../utils/guards.js'
import { forbiddenOption, validator, type ObjectSchema } from '../validation.js'
import { lazyObject } from '../utils/lazy_object.js'
import { Registry } from './registry.js'
import { isStandardInputSchema } from './standard_schema.js'
import type { RawTool } from './tool_types.js'

/**
 * What `new Tool(raw)` validates `raw` against (`Tool.schema`).
 *
 * @internal
 */
export const rawToolSchema = lazyObject(() => validator
  .object<RawTool & { trusted?: never }>({
    name: validator
      .string()
      .pattern(/^[a-zA-Z0-9_-]{1,64}$/)
      .rule({ message: { 'string.pattern.base': '"name" must be 1 to 64 letters, digits, "_" or "-" (got {#value})' } })
      .required(),
    description: validator.string().allow('').required(),
    inputSchema: validator
      .any()
      .required()
      .custom((value, helpers) =>
        (validator.isSchema(value) && (value as { type?: string }).type === 'object') || isStandardInputSchema(value)
          ? value
          : helpers.error('any.invalid'),
      )
      .rule({
        message: {
          'any.invalid':
            '"inputSchema" must be a joi object schema or a Standard Schema with JSON Schema output (zod 4, valibot, arktype)',
        },
      }),
    outputSchema: validator
      .any()
      .custom((value, helpers) =>
        validator.isSchema(value) && (value as { type?: string }).type === 'object' ? value : helpers.error('any.invalid'),
      )
      .rule({
        message: {
          'any.invalid':
            '"outputSchema" must be a joi object schema (MCP\'s structuredContent is an object): wrap a list or a value in a field',
        },
      }),
    handler: validator.func().required(),
    artifactConstructor: validator
      .func()
      .custom((value: (...args: unknown[]) => unknown, helpers) => (isClass(value) ? helpers.error('any.class') : value))
      .rule({
        message: {
          'any.class':
            '"artifactConstructor" must be a thunk returning the artifact class: pass () => {#value.name}, not {#value.name} itself',
        },
      }),
    meta: validator
      .any()
      .custom((value, helpers) => (Registry.isRegistry(value) || isPlainObject(value) ? value : helpers.error('any.invalid')))
      .rule({ message: { 'any.invalid': '"meta" must be a Registry or a plain object' } }),
    ephemeral: validator.boolean().default(false),
    // Removed: stored and never read by anything. Refused by name
    // rather than ignored, so nobody relies on a guarantee that does not exist.
    trusted: forbiddenOption('"trusted" was removed: it never had an effect (no surface treats tool output differently); drop it'),
    onCollision: validator.string().valid('throw', 'replace', 'keep').default('throw'),
    sideEffect: validator.boolean().default(false),
    idempotent: validator.boolean(),
    redact: validator.func(),
    reconcile: validator.func(),
    roles: argumentRolesSchema(),
  })
  .unknown(false)
  // A structured result is plain JSON data; an artifact (spooled text) is not.
  // A custom rule, not `.without().messages()`: `messages()` on a module-level
  // schema loads joi's meta-schemas at import (spec/import_cost.spec.ts).
  .custom((value: { outputSchema?: unknown; artifactConstructor?: unknown }, helpers) =>
    value.outputSchema !== undefined && value.artifactConstructor !== undefined ? helpers.error('object.outputArtifact') : value,
  )
  .rule({
    message: {
      'object.outputArtifact':
        '"outputSchema" and "artifactConstructor" exclude each other: a tool with an output schema returns a plain object, not an artifact',
    },
  }) as unknown as ObjectSchema<RawTool>)

/**
 * Whether a function is a class rather than a thunk. A native `class` cannot
 * be called (its source starts with `class`); a transpiled one is told apart
 * by a prototype carrying the artifact brand.
 */
function isClass(fn: (...args: unknown[]) => unknown): boolean {
  if (/^class[\s{]/.test(Function.prototype.toString.call(fn))) return true
  const proto = (fn as { prototype?: unknown }).prototype
  return isSpooledArtifact(proto)
}
