/**
 * `ToolCall`: the immutable record of one tool call and its outcome.
 *
 * @module
 */
import { isSpooledArtifact, type SpooledArtifactLike } from '../contracts/artifact.js'
import { E_INVALID_INITIAL_TOOL_CALL_VALUE, describeCause, errorSummary } from '../exceptions.js'
import { canonicalStringify } from '../utils/canonical_json.js'
import { hasBrand } from '../utils/guards.js'
import { sha256Hex } from '../utils/hash.js'
import { ValidationException, validateOrThrow, validator, type ObjectSchema } from '../validation.js'
import { lazyObject } from '../utils/lazy_object.js'

const TOOL_CALL_BRAND = Symbol.for('toolsmith.tool_call')

/** The input of `new ToolCall(raw)`. */
export interface RawToolCall {
  /** The provider's id for the call (`call_abc…`, `toolu_…`); any non-empty string. */
  id: string
  /** The tool's name. */
  tool: string
  /** The arguments as the model sent them. */
  args?: unknown
  /**
   * `sha256hex(canonicalStringify({ tool, args }))`, the executor's `callId`.
   *
   * @defaultValue computed from `tool` and `args`
   */
  checksum?: string
  /**
   * Whether the call has finished (successfully or not).
   *
   * @defaultValue false
   */
  isComplete?: boolean
  /**
   * Whether the call failed; implies `isComplete`.
   *
   * @defaultValue false
   */
  isError?: boolean
  /** The artifact holding the output of a successful call. */
  results?: SpooledArtifactLike
  /** What the call failed with, when `isError`. */
  error?: unknown
  /**
   * When the call was requested.
   *
   * @defaultValue now
   */
  createdAt?: Date
  /** When the call finished; required exactly when `isComplete`. */
  completedAt?: Date
}

/** The plain-JSON form {@link ToolCall.toJSON} returns. */
export interface ToolCallJSON {
  /** The provider's call id. */
  id: string
  /** The tool's name. */
  tool: string
  /** The arguments. */
  args: unknown
  /** The executor's `callId`. */
  checksum: string
  /** Whether the call has finished. */
  isComplete: boolean
  /** Whether the call failed. */
  isError: boolean
  /** Whether an artifact holds the results. */
  hasResults: boolean
  /** The failure, reduced to plain JSON (`{ name, code, message, … }`), or `null`. */
  error: unknown
  /** ISO 8601. */
  createdAt: string
  /** ISO 8601, or `null` while running. */
  completedAt: string | null
}

const rawToolCallSchema: ObjectSchema<RawToolCall> = lazyObject(() => validator
  .object<RawToolCall>({
    id: validator.string().min(1).required(),
    tool: validator.string().min(1).required(),
    args: validator.any(),
    checksum: validator.string().hex().length(64),
    isComplete: validator.boolean().default(false),
    isError: validator.boolean().default(false),
    results: validator
      .any()
      .custom((value, helpers) => (isSpooledArtifact(value) ? value : helpers.error('any.invalid')))
      .rule({ message: { 'any.invalid': '"results" must be a SpooledArtifact' } }),
    error: validator.any(),
    createdAt: validator.date(),
    completedAt: validator.date(),
  })
  .unknown(false)
  .custom((value: RawToolCall, helpers) => {
    if (value.isError && !value.isComplete) return helpers.message({ custom: '"isError" requires "isComplete"' })
    if (value.isComplete && value.completedAt === undefined) {
      return helpers.message({ custom: '"completedAt" is required when "isComplete" is true' })
    }
    if (!value.isComplete && value.completedAt !== undefined) {
      return helpers.message({ custom: '"completedAt" is only allowed when "isComplete" is true' })
    }
    if (value.results !== undefined && (!value.isComplete || value.isError)) {
      return helpers.message({ custom: '"results" is only allowed on a successfully completed call' })
    }
    if (value.error !== undefined && !value.isError) {
      return helpers.message({ custom: '"error" is only allowed when "isError" is true' })
    }
    return value
  }))

/**
 * One tool call: what was asked (`tool`, `args`), its identity (`id`,
 * `checksum`), and, once finished, its outcome (`results` or `error`).
 *
 * @remarks
 * Immutable: `args` is a deep-frozen copy, the dates are copies, and
 * {@link ToolCall.complete} / {@link ToolCall.fail} return new records.
 * `checksum` is the executor's `callId` for the same tool and args, which is
 * how forged artifact tools (`SpooledArtifact.forgeTools`) find a call's
 * results.
 *
 * @example
 * ```ts
 * const pending = new ToolCall({ id: 'call_1', tool: 'read', args: { path: 'a.txt' } })
 * const artifact = await SpooledArtifact.fromResult('hello')
 * const done = pending.complete(artifact)
 * done.isComplete   // true
 * pending.isComplete // false: the original is unchanged
 * ```
 */
export class ToolCall {
  /** The joi schema a {@link RawToolCall} must satisfy. */
  static readonly schema: ObjectSchema<RawToolCall> = rawToolCallSchema

  readonly #id: string
  readonly #tool: string
  readonly #args: unknown
  readonly #checksum: string
  readonly #isComplete: boolean
  readonly #isError: boolean
  readonly #results: SpooledArtifactLike | undefined
  readonly #error: unknown
  readonly #createdAt: Date
  readonly #completedAt: Date | undefined

  /**
   * @param raw - The call; validated against {@link ToolCall.schema}.
   * @throws {@link E_INVALID_INITIAL_TOOL_CALL_VALUE} when `raw` does not
   *   satisfy the schema (the `ValidationException` is the cause) or its args
   *   cannot be canonicalised to compute the checksum.
   */
  constructor(raw: RawToolCall) {
    let valid: RawToolCall & { isComplete: boolean; isError: boolean }
    try {
      valid = validateOrThrow(rawToolCallSchema, raw, { convert: false }) as typeof valid
    } catch (error) {
      const message = error instanceof ValidationException ? error.message : errorSummary(error)
      throw new E_INVALID_INITIAL_TOOL_CALL_VALUE(`Invalid tool call: ${message}`, { cause: error })
    }
    this.#id = valid.id
    this.#tool = valid.tool
    this.#args = freezeCopy(valid.args)
    try {
      this.#checksum = valid.checksum ?? ToolCall.checksumOf(valid.tool, valid.args)
    } catch (error) {
      throw new E_INVALID_INITIAL_TOOL_CALL_VALUE(`Invalid tool call: ${errorSummary(error)}`, { cause: error })
    }
    this.#isComplete = valid.isComplete
    this.#isError = valid.isError
    this.#results = valid.results
    this.#error = valid.error
    this.#createdAt = new Date((valid.createdAt ?? new Date()).getTime())
    this.#completedAt = valid.completedAt ? new Date(valid.completedAt.getTime()) : undefined
  }

  /**
   * The `callId` the executor computes for `tool` called with `args`.
   *
   * @param tool - The tool's name.
   * @param args - The raw args.
   * @returns `sha256hex(canonicalStringify({ tool, args }))`.
   * @throws `E_NOT_CANONICALIZABLE` for args JSON cannot represent.
   */
  static checksumOf(tool: string, args: unknown): string {
    return sha256Hex(canonicalStringify({ tool, args }))
  }

  /**
   * Returns true when `value` is a ToolCall (from any copy of this package).
   *
   * @param value - Anything.
   * @returns Whether `value` is a ToolCall.
   */
  static isToolCall(value: unknown): value is ToolCall {
    return value instanceof ToolCall || hasBrand(value, TOOL_CALL_BRAND)
  }

  /** Brand for {@link ToolCall.isToolCall}; realm-safe. */
  get [TOOL_CALL_BRAND](): true {
    return true
  }

  /** The provider's call id. */
  get id(): string {
    return this.#id
  }

  /** The tool's name. */
  get tool(): string {
    return this.#tool
  }

  /** The arguments, deep-frozen. */
  get args(): unknown {
    return this.#args
  }

  /** The executor's `callId`: `sha256hex(canonicalStringify({ tool, args }))`. */
  get checksum(): string {
    return this.#checksum
  }

  /** Whether the call has finished. */
  get isComplete(): boolean {
    return this.#isComplete
  }

  /** Whether the call failed. */
  get isError(): boolean {
    return this.#isError
  }

  /** The artifact holding a successful call's output, or `undefined`. */
  get results(): SpooledArtifactLike | undefined {
    return this.#results
  }

  /** What a failed call failed with (kept as thrown), or `undefined`. */
  get error(): unknown {
    return this.#error
  }

  /** When the call was requested (a copy). */
  get createdAt(): Date {
    return new Date(this.#createdAt.getTime())
  }

  /** When the call finished (a copy), or `undefined` while it runs. */
  get completedAt(): Date | undefined {
    return this.#completedAt ? new Date(this.#completedAt.getTime()) : undefined
  }

  /**
   * Record a success.
   *
   * @param results - The artifact holding the output, if any.
   * @param completedAt - When it finished; defaults to now.
   * @returns A new, completed ToolCall; this one is unchanged.
   * @throws {@link E_INVALID_INITIAL_TOOL_CALL_VALUE} when this call is
   *   already complete or `results` is not a SpooledArtifact.
   */
  complete(results?: SpooledArtifactLike, completedAt: Date = new Date()): ToolCall {
    this.#assertPending()
    return new ToolCall({ ...this.#raw(), isComplete: true, results, completedAt })
  }

  /**
   * Record a failure.
   *
   * @param error - What the call failed with; kept as is.
   * @param completedAt - When it finished; defaults to now.
   * @returns A new, failed ToolCall; this one is unchanged.
   * @throws {@link E_INVALID_INITIAL_TOOL_CALL_VALUE} when this call is already complete.
   */
  fail(error: unknown, completedAt: Date = new Date()): ToolCall {
    this.#assertPending()
    return new ToolCall({ ...this.#raw(), isComplete: true, isError: true, error, completedAt })
  }

  /**
   * A plain-JSON view for logs and journals (the artifact itself is not
   * serialised: read it through its own methods).
   *
   * @returns See {@link ToolCallJSON}.
   */
  toJSON(): ToolCallJSON {
    return {
      id: this.#id,
      tool: this.#tool,
      args: this.#args,
      checksum: this.#checksum,
      isComplete: this.#isComplete,
      isError: this.#isError,
      hasResults: this.#results !== undefined,
      error: this.#error === undefined ? null : describeCause(this.#error),
      createdAt: this.#createdAt.toISOString(),
      completedAt: this.#completedAt ? this.#completedAt.toISOString() : null,
    }
  }

  #raw(): RawToolCall {
    return { id: this.#id, tool: this.#tool, args: this.#args, checksum: this.#checksum, createdAt: this.#createdAt }
  }

  #assertPending(): void {
    if (this.#isComplete) {
      throw new E_INVALID_INITIAL_TOOL_CALL_VALUE(`Tool call "${this.#id}" (${this.#tool}) is already complete`)
    }
  }
}

/** A deep-frozen copy, so nobody can change a recorded call's args after the fact. */
function freezeCopy(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value
  if (Object.isFrozen(value) && isDeepFrozen(value)) return value
  let copy: unknown
  try {
    copy = structuredClone(value)
  } catch {
    // Not cloneable (functions, class instances with private state): freeze what we were given.
    copy = value
  }
  return deepFreeze(copy)
}

function deepFreeze(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value
  if (ArrayBuffer.isView(value)) return value // typed arrays cannot be frozen
  Object.freeze(value)
  for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key])
  return value
}

function isDeepFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true
  if (!Object.isFrozen(value)) return ArrayBuffer.isView(value)
  return Reflect.ownKeys(value).every((key) => isDeepFrozen((value as Record<PropertyKey, unknown>)[key]))
}
