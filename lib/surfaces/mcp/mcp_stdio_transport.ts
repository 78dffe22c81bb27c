/**
 * `McpStdioServerTransport`: MCP's stdio transport (one JSON-RPC message per
 * line) that answers every malformed line and bounds the size of a message.
 *
 * @module
 */
import type { Readable, Writable } from 'node:stream'
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server'
import type { McpJsonRpcMessage, McpTransport } from './mcp_types.js'
import { E_INVALID_OPTIONS } from '../../exceptions.js'
import {
  JSON_RPC_INVALID_REQUEST,
  JSON_RPC_PARSE_ERROR,
  checkJsonRpcMessage,
  requestIdOfOversizedLine,
  schemaErrorAsInvalidParams,
} from './mcp_message_check.js'

/** Options of {@link McpStdioServerTransport}. */
export interface McpStdioServerTransportOptions {
  /**
   * Most bytes one message (one line, without its newline) may have. A
   * longer line is discarded as it streams in, never held whole, and
   * answered with `-32600` (with the request's id when it can be read from
   * the line's ends); the next line is served as usual.
   *
   * @defaultValue 10 MiB (10,485,760), the MCP SDK's own read-buffer limit
   */
  maxMessageBytes?: number
}

const DEFAULT_MAX_MESSAGE_BYTES = 10 * 2 ** 20
/** Bytes kept of each end of an oversized line, to find its id. */
const EDGE_BYTES = 4096
const NEWLINE = 0x0a

/** What is kept of a line while it is discarded. */
interface Oversized {
  bytes: number
  head: Buffer
  tail: Buffer
}

/**
 * A server-side MCP transport over a readable and a writable stream (stdin
 * and stdout by default), a drop-in for the SDK's `StdioServerTransport`
 * that answers what that one leaves unanswered.
 *
 * @remarks
 * The SDK's transport drops a line it cannot parse (so the client waits for
 * an answer that never comes) and, when a line outgrows its 10 MiB buffer,
 * closes itself: `toolsmith mcp` then exited 0 in silence. This one answers
 * as JSON-RPC 2.0 says, and keeps serving:
 *
 * | line | answer |
 * | --- | --- |
 * | not JSON | `-32700` Parse error, `id: null` |
 * | `[]`, a batch, not an object | `-32600`, `id: null` (MCP has no batches since 2025-06-18) |
 * | `"jsonrpc"` missing or not `"2.0"` | `-32600`, with the id when it is valid |
 * | `"id"` `null`, an object, a fraction… | `-32600`, `id: null` |
 * | `"method"` not a string, no method and no result/error | `-32600` |
 * | a request whose `params` is not an object | `-32602` |
 * | over `maxMessageBytes` | `-32600` naming the size and the limit, with the request's id when it is the first or last member |
 * | params an SDK-owned handler (`initialize`…) refuses | `-32602` with zod's issues on one line (the SDK sends `-32603` and a multi-line dump) |
 *
 * Every message is one line. A malformed *notification* or *response* is
 * not answered (JSON-RPC forbids it) but reported to `onerror`, as is each
 * refused line. Blank lines are skipped and a `\r` before the newline is
 * ignored. The memory a connection holds is bounded by `maxMessageBytes`
 * plus one read chunk, whatever the client sends.
 *
 * @example
 * ```ts
 * import { createMcpServer, createTools, McpStdioServerTransport } from 'toolsmith'
 * const server = createMcpServer(createTools({ rootDir: process.cwd() }), { name: 'my-tools', version: '1.0.0' })
 * await server.connect(new McpStdioServerTransport())
 * ```
 */
// The members the public declarations show use toolsmith's own MCP types
// (mcp_types.ts), not the SDK's: the SDK is an optional peer. The SDK's
// `Transport` is checked where the class is handed to it (serveMcpStdio).
export class McpStdioServerTransport implements McpTransport {
  /** Set by the SDK's `Server.connect`: called with each valid message. */
  onmessage?: ((message: McpJsonRpcMessage) => void) | undefined
  /** Set by the SDK's `Server.connect`: stream errors and refused lines. */
  onerror?: ((error: Error) => void) | undefined
  /** Set by the SDK's `Server.connect`: called once, on `close()`. */
  onclose?: (() => void) | undefined

  readonly #stdin: Readable
  readonly #stdout: Writable
  readonly #maxBytes: number
  #parts: Buffer[] = []
  #pendingBytes = 0
  #oversized: Oversized | undefined
  #started = false
  #closed = false
  /** Requests handed to the server and not yet answered nor cancelled. */
  readonly #unanswered = new Set<RequestId>()
  #onSettled: (() => void) | undefined
  readonly #inputEnded = new AbortController()
  readonly #closedPromise: Promise<void>
  #resolveClosed!: () => void

  /**
   * @param stdin - Where messages arrive.
   * @param stdout - Where answers go; nothing else may write to it.
   * @param options - The message size limit.
   * @throws {@link toolsmith/core!E_INVALID_OPTIONS} when `maxMessageBytes` is not a positive integer.
   */
  constructor(stdin: Readable = process.stdin, stdout: Writable = process.stdout, options: McpStdioServerTransportOptions = {}) {
    const max = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES
    if (!Number.isSafeInteger(max) || max < 1) {
      throw new E_INVALID_OPTIONS(`McpStdioServerTransport: maxMessageBytes must be a positive integer (got ${String(max)})`)
    }
    this.#stdin = stdin
    this.#stdout = stdout
    this.#maxBytes = max
    this.#closedPromise = new Promise((resolve) => {
      this.#resolveClosed = resolve
    })
  }

  /** Start reading (the SDK's `connect` calls it). */
  async start(): Promise<void> {
    if (this.#started) throw new Error('McpStdioServerTransport already started: Server.connect() starts it')
    this.#started = true
    this.#stdin.on('data', this.#onData)
    this.#stdin.on('error', this.#onStreamError)
    this.#stdin.once('end', this.#onEnd)
  }

  /**
   * Resolves once the transport has closed (by `close()`, whoever called
   * it): what a command serving stdio waits for, whatever the SDK did with
   * `onclose`.
   */
  get closed(): Promise<void> {
    return this.#closedPromise
  }

  /**
   * Aborts when the client's input has ended (or the transport closed): no
   * answer to a request the server sends can arrive after that, so whoever
   * waits for one (an elicitation) stops waiting instead of timing out.
   */
  get inputEnded(): AbortSignal {
    return this.#inputEnded.signal
  }

  /**
   * Write one message as a line, resolving once the stream took it (after
   * `drain` when it pushed back).
   *
   * @param message - The message.
   */
  send(message: McpJsonRpcMessage): Promise<void> {
    // The server sends the SDK's messages; the public declaration names the structural type.
    return this.#write(message as JSONRPCMessage)
  }

  #write(message: JSONRPCMessage): Promise<void> {
    if (('result' in message || 'error' in message) && 'id' in message && message.id !== undefined) this.#answered(message.id)
    const rewritten = 'error' in message ? schemaErrorAsInvalidParams(message.error) : undefined
    const line = JSON.stringify(rewritten === undefined ? message : { ...message, error: rewritten })
    return new Promise((resolve) => {
      if (this.#stdout.write(`${line}\n`)) resolve()
      else this.#stdout.once('drain', resolve)
    })
  }

  /**
   * Resolves once every request received so far has been answered (or
   * cancelled by the client): what a command does when its input ends, so
   * `printf '…' | toolsmith mcp` prints every answer before exiting.
   *
   * @returns A promise that never rejects.
   */
  settled(): Promise<void> {
    if (this.#unanswered.size === 0) return Promise.resolve()
    return new Promise((resolve) => {
      const previous = this.#onSettled
      this.#onSettled = () => {
        previous?.()
        resolve()
      }
    })
  }

  #answered(id: RequestId): void {
    if (!this.#unanswered.delete(id) || this.#unanswered.size > 0) return
    const settled = this.#onSettled
    this.#onSettled = undefined
    settled?.()
  }

  /** Stop reading, drop what was buffered and call `onclose` (once). */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#stdin.off('data', this.#onData)
    this.#stdin.off('error', this.#onStreamError)
    this.#stdin.off('end', this.#onEnd)
    this.#inputEnded.abort(new Error('the MCP transport closed'))
    // Pause only if no one else reads stdin, as the SDK's transport does.
    if (this.#stdin.listenerCount('data') === 0) this.#stdin.pause()
    this.#parts = []
    this.#pendingBytes = 0
    this.#oversized = undefined
    this.#unanswered.clear()
    const settled = this.#onSettled
    this.#onSettled = undefined
    settled?.()
    this.#resolveClosed()
    this.onclose?.()
  }

  readonly #onEnd = (): void => {
    this.#inputEnded.abort(new Error('the MCP client closed its input'))
  }

  readonly #onStreamError = (error: Error): void => {
    this.onerror?.(error)
  }

  readonly #onData = (chunk: Buffer | string): void => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    let start = 0
    for (;;) {
      const end = data.indexOf(NEWLINE, start)
      if (end === -1) {
        this.#hold(data.subarray(start))
        return
      }
      this.#hold(data.subarray(start, end))
      this.#endOfLine()
      start = end + 1
      if (this.#closed) return
    }
  }

  /** Keep a piece of the current line, or only its ends once the line is over the limit. */
  #hold(piece: Buffer): void {
    if (piece.length === 0) return
    const oversized = this.#oversized
    if (oversized !== undefined) {
      oversized.bytes += piece.length
      oversized.tail = lastBytes(oversized.tail, piece)
      return
    }
    if (this.#pendingBytes + piece.length <= this.#maxBytes) {
      this.#parts.push(piece)
      this.#pendingBytes += piece.length
      return
    }
    const held = Buffer.concat(this.#parts, this.#pendingBytes)
    this.#oversized = {
      bytes: this.#pendingBytes + piece.length,
      head: Buffer.from(Buffer.concat([held.subarray(0, EDGE_BYTES), piece.subarray(0, EDGE_BYTES)]).subarray(0, EDGE_BYTES)),
      tail: lastBytes(held.subarray(-EDGE_BYTES), piece),
    }
    this.#parts = []
    this.#pendingBytes = 0
  }

  #endOfLine(): void {
    const oversized = this.#oversized
    if (oversized !== undefined) {
      this.#oversized = undefined
      const id = requestIdOfOversizedLine(oversized.head.toString('utf8'), oversized.tail.toString('utf8').replace(/\r$/, ''))
      this.#refuse(
        id,
        JSON_RPC_INVALID_REQUEST,
        `Invalid Request: the message is ${oversized.bytes} bytes, over the limit of ${this.#maxBytes} bytes per message; it was discarded`,
      )
      return
    }
    const line = this.#parts.length === 1 ? this.#parts[0]! : Buffer.concat(this.#parts, this.#pendingBytes)
    this.#parts = []
    this.#pendingBytes = 0
    const text = line.toString('utf8')
    if (text.trim() === '') return
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      this.#refuse(null, JSON_RPC_PARSE_ERROR, `Parse error: ${error instanceof Error ? error.message : String(error)}`)
      return
    }
    const check = checkJsonRpcMessage(value)
    if (check.kind === 'message') this.#deliver(check.message)
    else if (check.kind === 'refuse') this.#refuse(check.refusal.id, check.refusal.code, check.refusal.message)
    else this.onerror?.(new Error(`Dropped a message: ${check.reason}`))
  }

  #deliver(message: JSONRPCMessage): void {
    if ('method' in message) {
      if ('id' in message) this.#unanswered.add(message.id)
      // The SDK sends no answer to a request the client cancelled.
      else if (message.method === 'notifications/cancelled') {
        const id = (message.params as { requestId?: unknown } | undefined)?.requestId
        if (typeof id === 'string' || typeof id === 'number') this.#answered(id)
      }
    }
    this.onmessage?.(message)
  }

  #refuse(id: RequestId | null, code: number, message: string): void {
    this.onerror?.(new Error(`Answered ${code}: ${message}`))
    // The SDK's JSONRPCMessage type has no `id: null`; JSON-RPC requires it when the id is unknown.
    this.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage).catch((error: unknown) =>
      this.onerror?.(error instanceof Error ? error : new Error(String(error))),
    )
  }
}

/** The last {@link EDGE_BYTES} of `before` followed by `piece`, copied (so no read chunk is retained). */
function lastBytes(before: Buffer, piece: Buffer): Buffer {
  if (piece.length >= EDGE_BYTES) return Buffer.from(piece.subarray(piece.length - EDGE_BYTES))
  const joined = Buffer.concat([before, piece])
  return Buffer.from(joined.subarray(Math.max(0, joined.length - EDGE_BYTES)))
}
