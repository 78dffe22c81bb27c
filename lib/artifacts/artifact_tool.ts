/**
 * `ArtifactTool`: the ephemeral tools `SpooledArtifact.forgeTools` forges so
 * a model can page through a large result instead of receiving it whole.
 *
 * @module
 */
import { E_INVALID_OPTIONS } from '../exceptions.js'
import { utf8Prefix } from '../utils/utf8.js'
import { Tool } from '../core/tool.js'
import { validator, type ObjectSchema } from '../validation.js'
import type { SpooledArtifactLike } from '../contracts/artifact.js'

/** How much one forged-tool call may return. */
export interface ArtifactOutputLimits {
  /**
   * Lines (or matches, keys, headings) per call.
   *
   * @defaultValue 200
   */
  maxLines: number
  /**
   * Bytes of text per call (UTF-8), notes included.
   *
   * @defaultValue 16384
   */
  maxBytes: number
  /**
   * Bytes kept of any single line; longer lines are cut and marked.
   *
   * @defaultValue 2048
   */
  maxLineBytes: number
}

/** The limits forged tools use unless told otherwise. */
export const DEFAULT_ARTIFACT_OUTPUT_LIMITS: Readonly<ArtifactOutputLimits> = Object.freeze({
  maxLines: 200,
  maxBytes: 16_384,
  maxLineBytes: 2_048,
})

/**
 * One artifact capability offered to a model as a tool (`artifact_head`,
 * `json_get`, …): an entry of `SpooledArtifact.toolMethods`.
 *
 * @typeParam A - The artifact class the method works on.
 */
export interface ArtifactToolMethod<A extends SpooledArtifactLike = SpooledArtifactLike> {
  /** The forged tool's name (`^[a-zA-Z0-9_-]{1,64}$`). */
  readonly toolName: string
  /** What the model reads; the forged tool adds how to pick the artifact. */
  readonly description: string
  /** The method's own args; the forged tool adds a required `callId`. */
  readonly inputSchema: ObjectSchema
  /**
   * Produce the bounded text the model receives.
   *
   * @param artifact - The artifact the `callId` named.
   * @param args - The validated args, `callId` removed.
   * @param limits - The output bounds to respect.
   * @returns Text within `limits.maxBytes`.
   */
  run(artifact: A, args: any, limits: ArtifactOutputLimits): Promise<string>
}

/** An artifact a forged tool can reach, with the ids a model may name it by. */
export interface ArtifactEntry {
  /** The ToolCall's checksum (the executor's `callId`). */
  readonly checksum: string
  /** The provider's call id. */
  readonly id: string
  /** The tool that produced the artifact. */
  readonly tool: string
  /** The artifact. */
  readonly artifact: SpooledArtifactLike
}

/** The input of `new ArtifactTool(raw)`. */
export interface RawArtifactTool {
  /** The capability to expose. */
  method: ArtifactToolMethod<any>
  /**
   * The artifacts it may read, in order. Each is reachable by its provider
   * `id`; by `checksum`, a later entry wins when two calls share one (same
   * tool and args), so the earlier one is then reached by its `id`.
   */
  entries: Iterable<ArtifactEntry>
  /** Output bounds; missing fields take {@link DEFAULT_ARTIFACT_OUTPUT_LIMITS}. */
  limits?: Partial<ArtifactOutputLimits>
}

/**
 * A forged, ephemeral tool that runs one {@link ArtifactToolMethod} on the
 * artifact of an earlier call, chosen by `callId`.
 *
 * @remarks
 * `callId` is matched against each call's provider id first (the id the
 * runner names in a spooled preview, unique within a conversation), then its
 * checksum (the executor's `callId`). Two calls with the same tool and args
 * share a checksum: by checksum the latest is found, by id each one. On a
 * repeated provider id the later entry wins. An unknown id, or an artifact the
 * method does not apply to (`json_get` on plain text), fails with a message
 * listing the ids that would work. Forged tools are `ephemeral` (pruned by
 * `ToolRegistry.pruneEphemeral`), read-only, idempotent, and use
 * `onCollision: 'replace'` so a newer turn's forged tools replace older ones
 * when registries are merged.
 *
 * @example
 * ```ts
 * const tools = SpooledArtifact.forgeTools(result.toolCalls)
 * const page = await tools.get('artifact_cat')!.executor(ctx)({ callId, start: 201, end: 400 })
 * ```
 */
export class ArtifactTool extends Tool {
  readonly #method: ArtifactToolMethod<any>
  readonly #limits: ArtifactOutputLimits
  readonly #entries: readonly ArtifactEntry[]

  /**
   * @param raw - The method, the reachable artifacts and the output limits.
   * @throws {@link toolsmith/core!E_INVALID_OPTIONS} when a limit is not a positive integer.
   */
  constructor(raw: RawArtifactTool) {
    const limits = resolveLimits(raw.limits)
    const index: ArtifactIndex = { byId: new Map(), byChecksum: new Map() }
    for (const entry of raw.entries) {
      index.byId.set(entry.id, entry)
      index.byChecksum.set(entry.checksum, entry)
    }
    // Every reachable entry once, in order: an entry shadowed on both keys is unreachable and left out.
    const reachable = new Set([...index.byId.values(), ...index.byChecksum.values()])
    const entries = [...raw.entries].filter((e) => reachable.has(e))
    const { method } = raw
    const applicable = entries.filter((e) => appliesTo(method, e.artifact))
    super({
      name: method.toolName,
      description:
        `${method.description} Pick the result with "callId": the callId of the earlier tool call ` +
        `(known: ${describeKnown(applicable)}). ` +
        `Output is capped at ${limits.maxLines} lines / ${limits.maxBytes} bytes per call.`,
      inputSchema: method.inputSchema.keys({
        callId: validator
          .string()
          .required()
          .description('callId of the earlier tool call, as named in its spooled preview (its provider call id; a checksum also works)'),
      }),
      handler: async (args: Record<string, unknown>) => {
        const { callId, ...rest } = args
        const entry = findEntry(index, String(callId))
        if (entry === undefined || !appliesTo(method, entry.artifact)) {
          throw new E_INVALID_OPTIONS(unknownCallMessage(method, String(callId), applicable, entry), {
            details: { callId, known: applicable.map((e) => e.id) },
          })
        }
        return clipBytes(await method.run(entry.artifact, rest, limits), limits.maxBytes)
      },
      ephemeral: true,
      onCollision: 'replace',
      sideEffect: false,
      idempotent: true,
    })
    this.#method = method
    this.#limits = limits
    this.#entries = entries
  }

  /** The capability this tool exposes. */
  get method(): ArtifactToolMethod<any> {
    return this.#method
  }

  /** The output bounds in force. */
  get limits(): Readonly<ArtifactOutputLimits> {
    return this.#limits
  }

  /**
   * The distinct checksums (executor callIds) of the artifacts this tool can
   * read; see {@link ArtifactTool.ids} for the provider ids, which tell two
   * calls with the same checksum apart.
   */
  get callIds(): string[] {
    return [...new Set(this.#applicable().map((e) => e.checksum))]
  }

  /** The provider call ids of the artifacts this tool can read, in order. */
  get ids(): string[] {
    return [...new Set(this.#applicable().map((e) => e.id))]
  }

  #applicable(): ArtifactEntry[] {
    return this.#entries.filter((e) => appliesTo(this.#method, e.artifact))
  }
}

interface ArtifactIndex {
  readonly byId: Map<string, ArtifactEntry>
  readonly byChecksum: Map<string, ArtifactEntry>
}

/**
 * Whether `method` is one of the `toolMethods` of the artifact's class.
 *
 * @internal
 */
export function appliesTo(method: ArtifactToolMethod<any>, artifact: SpooledArtifactLike): boolean {
  const methods = (artifact.constructor as { toolMethods?: readonly ArtifactToolMethod<any>[] }).toolMethods ?? []
  return methods.some((m) => m.toolName === method.toolName)
}

// Descriptions are sent to the model on every step: name a few ids, not hundreds.
function describeKnown(entries: ArtifactEntry[]): string {
  if (entries.length === 0) return 'none'
  const named = entries.slice(-20).map((e) => `${e.id} from ${e.tool}`)
  return (entries.length > 20 ? `${entries.length - 20} older, then ` : '') + named.join(', ')
}

function findEntry(index: ArtifactIndex, callId: string): ArtifactEntry | undefined {
  return index.byId.get(callId) ?? index.byChecksum.get(callId)
}

function unknownCallMessage(
  method: ArtifactToolMethod<any>,
  callId: string,
  applicable: ArtifactEntry[],
  entry: ArtifactEntry | undefined,
): string {
  const known = applicable.length
    ? `known callIds: ${applicable.map((e) => `${e.id} (${e.tool}, checksum ${e.checksum})`).join('; ')}`
    : 'no result can be read with it'
  const why =
    entry === undefined
      ? `no tool result has callId "${callId}"`
      : `the result of "${callId}" is a ${entry.artifact.constructor.name}, which ${method.toolName} does not read`
  return `${method.toolName}: ${why}; ${known}`
}

function resolveLimits(limits: Partial<ArtifactOutputLimits> = {}): ArtifactOutputLimits {
  const resolved = { ...DEFAULT_ARTIFACT_OUTPUT_LIMITS, ...stripUndefined(limits) }
  for (const [key, value] of Object.entries(resolved)) {
    if (!Number.isInteger(value) || value <= 0) {
      throw new E_INVALID_OPTIONS(`Artifact output limit "${key}" must be a positive integer (got ${String(value)})`)
    }
  }
  return resolved
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}

/**
 * Cut `text` to at most `maxBytes` UTF-8 bytes on a character boundary,
 * saying so at the end when it had to.
 *
 * @param text - Any text.
 * @param maxBytes - The budget, marker included.
 * @returns `text`, or a cut version ending in a `[… truncated …]` note.
 */
export function clipBytes(text: string, maxBytes: number): string {
  const bytes = Buffer.byteLength(text, 'utf8')
  if (bytes <= maxBytes) return text
  const marker = `\n[… truncated: output was ${bytes} bytes, limit ${maxBytes}; ask for a smaller range]`
  const budget = Math.max(0, maxBytes - Buffer.byteLength(marker, 'utf8'))
  return utf8Prefix(text, budget) + marker
}

