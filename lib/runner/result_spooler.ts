/**
 * `ResultSpooler`: decides whether a tool result goes to the model whole or
 * is spooled into an artifact the model pages through.
 *
 * @module
 */
import { randomUUID } from 'node:crypto'
import { MemorySpoolReader } from '../artifacts/spool_reader.js'
import { SpooledArtifact } from '../artifacts/spooled_artifact.js'
import { InMemorySpoolStore, type SpoolStore } from '../artifacts/stores.js'
import type { Tool, ToolResult } from '../core/tool.js'
import type { ToolCall } from '../core/tool_call.js'
import { isSpooledArtifact, type SpooledArtifactLike } from '../contracts/artifact.js'
import { isStructuredToolResult } from '../contracts/tool_result.js'
import { utf8Prefix } from '../utils/utf8.js'
import { outputToJson } from '../journal/output.js'
import type { TruncatedOutput } from '../journal/contract.js'

const PREVIEW_LINES = 20
const PREVIEW_MAX_BYTES = 1_024

// Shared by every runner, so a fork of another runner's result keeps its artifact tools.
const spooledCalls = new WeakSet<ToolCall>()

/** Budgets for {@link ResultSpooler.settle}. */
export interface SettleOptions {
  /**
   * The executor's `callId` (the checksum of tool and args). It repeats when
   * a tool is called twice with the same args, so the spool is stored under
   * `${callId}:${randomUUID()}`, never under the bare `callId`.
   */
  callId: string
  /**
   * The provider's tool-call id, unique within the conversation: the id the
   * model is told to page the artifact by. Defaults to `callId`.
   */
  toolCallId?: string
  /** Largest result sent whole. */
  inlineBudgetBytes: number
  /** The journal's output cap. */
  journalMaxBytes: number
}

/** What a settled result becomes. */
export interface SettledResult {
  /** The tool message text: the result, or a preview with paging instructions. */
  content: string
  /** The artifact holding the whole result. */
  artifact: SpooledArtifactLike
  /** Size of the result in bytes. */
  bytes: number
  /** Whether the model got a preview instead of the whole result. */
  spooled: boolean
  /** `outputJson` for the journal row. */
  outputJson: string
}

/**
 * Turns tool results into tool-message content, spooling the large ones.
 *
 * @internal
 */
export class ResultSpooler {
  readonly #store: SpoolStore

  constructor(store: SpoolStore = new InMemorySpoolStore()) {
    this.#store = store
  }

  /**
   * Wrap a result in an artifact and decide what the model sees.
   *
   * @param tool - The tool that produced it (its artifact class is used).
   * @param result - The handler's result.
   * @param options - callId and budgets.
   * @returns The message content, the artifact and the journal output.
   */
  async settle(tool: Tool, given: ToolResult, options: SettleOptions): Promise<SettledResult> {
    // A structured result (a tool with an output schema) reaches the model as its JSON text.
    const result = isStructuredToolResult(given) ? JSON.stringify(given) : given
    const bytes = await byteLengthOf(result)
    // Forged artifact tools already bound their output; spooling it again would loop.
    const fits = bytes <= options.inlineBudgetBytes || tool.ephemeral
    const Artifact = tool.artifactConstructor?.() ?? SpooledArtifact
    let artifact: SpooledArtifactLike
    let spoolId: string | undefined
    if (isSpooledArtifact(result)) artifact = result
    else if (fits) artifact = new Artifact(MemorySpoolReader.from(result as string | Uint8Array))
    else {
      // A unique spool id: the same tool and args twice must not replace (or hide) the first result.
      spoolId = `${options.callId}:${randomUUID()}`
      artifact = new Artifact(await this.#store.write(spoolId, result as string | Uint8Array))
    }

    if (fits) {
      const text = typeof result === 'string' ? result : await artifact.asString()
      const content = bytes <= options.inlineBudgetBytes ? text : utf8Prefix(text, options.inlineBudgetBytes)
      return { content, artifact, bytes, spooled: false, outputJson: outputToJson(text, options.journalMaxBytes) }
    }
    const preview = await previewOf(artifact)
    const lines = await artifact.lineCount()
    const tools = (artifact.constructor as typeof SpooledArtifact).toolMethods.map((m) => m.toolName)
    // The provider id, not the checksum: two identical calls share a checksum but not an id.
    const name = options.toolCallId || options.callId
    const content =
      `[The result is ${bytes} bytes (${lines} lines), too large to show whole; it was spooled. ` +
      `callId: ${name}]\n${preview}\n` +
      `[Read more with ${tools.join(', ')} and {"callId": ${JSON.stringify(name)}}.]`
    // Too large for the journal: the row references the spool (`spoolId`), so
    // a replay of a claimed call reads the whole result back from the store.
    const outputJson =
      bytes <= options.journalMaxBytes
        ? outputToJson(await artifact.asString(), options.journalMaxBytes)
        : JSON.stringify({ truncated: true, bytes, preview, ...(spoolId === undefined ? {} : { spoolId }) } satisfies TruncatedOutput)
    return { content, artifact, bytes, spooled: true, outputJson }
  }

  /**
   * Remember that a completed call's result was spooled.
   *
   * @param call - The completed call.
   */
  markSpooled(call: ToolCall): void {
    spooledCalls.add(call)
  }

  /**
   * Whether a call's result was spooled (by any runner).
   *
   * @param call - A call.
   * @returns `true` for spooled results.
   */
  isSpooled(call: ToolCall): boolean {
    return spooledCalls.has(call)
  }

  /**
   * The forged artifact tools for some spooled calls.
   *
   * @param calls - Completed calls with artifacts.
   * @returns The tools, visible ones only.
   */
  artifactTools(calls: Iterable<ToolCall>): Tool[] {
    return SpooledArtifact.forgeTools(calls).visible()
  }
}


async function byteLengthOf(result: string | Uint8Array | SpooledArtifactLike): Promise<number> {
  if (typeof result === 'string') return Buffer.byteLength(result, 'utf8')
  if (result instanceof Uint8Array) return result.byteLength
  return await result.byteLength()
}

async function previewOf(artifact: SpooledArtifactLike): Promise<string> {
  const head = await artifact.head(PREVIEW_LINES)
  const cut = utf8Prefix(head, PREVIEW_MAX_BYTES)
  return cut.length < head.length ? `${cut}…` : head
}
