/**
 * The allowlist proxy: the one way out of a sandbox run with
 * `allowNetwork: { domains }`. It runs in the kit's own process, outside the
 * command's network namespace, and speaks HTTP `CONNECT` (tunnels, for
 * HTTPS and anything else over TCP) and plain HTTP with absolute URLs.
 *
 * @module
 */
import type { LookupAddress } from 'node:dns'
import type { Agent, IncomingMessage, Server, ServerResponse } from 'node:http'
import { createRequire } from 'node:module'
import { connect, isIP, type LookupFunction, type Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { normalizeHost, type NetworkAllowlist } from './network_allowlist.js'
import { restrictedKind } from './restricted_addresses.js'

/** One decision of the proxy, before any byte is sent to the host. */
export interface NetworkDecision {
  /** The host the program asked for (normalised: lower case, no brackets). */
  readonly host: string
  /** The port it asked for. */
  readonly port: number
  /** `CONNECT`, or the method of a plain HTTP request. */
  readonly method: string
  /** Whether the proxy let it through. */
  readonly allowed: boolean
  /** Why, in words a model can act on. */
  readonly reason: string
  /** The allowlist entry that matched, if one did. */
  readonly rule?: string
  /** The address connected to, when allowed. */
  readonly address?: string
}

/** Who made the connections of one command: decisions are reported to it. */
export interface ProxyClient {
  /** Called once per decision, synchronously. */
  onDecision(decision: NetworkDecision): void
}

/** Longest host name DNS allows; longer ones are refused before any lookup or cache. */
const MAX_HOST_LENGTH = 253
/** Hosts whose verdict one command keeps (beyond that, each request decides afresh). */
const MAX_CACHED_HOSTS = 256
/** Connections one command may hold open through the proxy at once. */
export const MAX_CONNECTIONS_PER_COMMAND = 256
/** A connection with no traffic for this long is closed (until a tunnel is established). */
const IDLE_MS = 60_000

/** Headers that describe one hop, never forwarded (RFC 9110 §7.6.1, plus the proxy's own). */
const HOP_BY_HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
])

/** The text a refused program receives, naming the host and how to allow it. */
export function refusalText(decision: NetworkDecision): string {
  return (
    `toolsmith network proxy: ${decision.host}:${decision.port} was refused (${decision.reason}). Nothing was sent to it.\n` +
    `To allow it, ask the user to add "${decision.host}" to the sandbox's allowNetwork.domains ` +
    `(toolsmith CLI: --allow-domain ${decision.host}).\n`
  )
}

function splitHostPort(authority: string, defaultPort: number): { host: string; port: number } | undefined {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(authority)
  if (!match) return undefined
  const port = match[2] === undefined ? defaultPort : Number(match[2])
  if (!Number.isInteger(port) || port < 1 || port > 65535) return undefined
  return { host: normalizeHost(match[1]!), port }
}

function forwardedHeaders(raw: readonly string[]): string[] {
  const named = new Set<string>()
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === 'connection') for (const token of raw[i + 1]!.split(',')) named.add(token.trim().toLowerCase())
  }
  const out: string[] = []
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase()
    if (HOP_BY_HOP.has(name) || named.has(name)) continue
    out.push(raw[i]!, raw[i + 1]!)
  }
  return out
}

/** A lookup that answers only with the addresses the proxy checked (no second resolution to race). */
function pinnedLookup(addresses: readonly LookupAddress[]): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, addresses)
    else callback(null, addresses[0]!.address, addresses[0]!.family)
  }) as unknown as LookupFunction
}

function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) =>
    builtins().dns.lookup(host, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  )
}

/** An allowed decision carries the checked addresses to connect to. */
interface Verdict extends NetworkDecision {
  readonly addresses?: readonly LookupAddress[]
}

/**
 * `node:http` and `node:dns`, loaded by the first proxy: with them (and the
 * eleven modules `node:http` pulls in) at the top, every `import 'toolsmith'`
 * paid for a proxy that only an allowlist sandbox starts (bench: import).
 */
function builtins(): { http: typeof import('node:http'); dns: typeof import('node:dns') } {
  if (loaded === undefined) {
    const require = createRequire(import.meta.url)
    loaded = { http: require('node:http') as typeof import('node:http'), dns: require('node:dns') as typeof import('node:dns') }
  }
  return loaded
}
let loaded: { http: typeof import('node:http'); dns: typeof import('node:dns') } | undefined

/**
 * The proxy of one sandbox.
 *
 * @remarks
 * It never listens on the host: the connections it serves are accepted on
 * listeners that live in the command's network namespace (see
 * `NetworkGateway`). For every request it checks the host against the
 * allowlist **before** resolving it, resolves it once, drops restricted
 * addresses unless the host is listed exactly, and connects only to the
 * addresses it checked (so a second, rebinding answer cannot slip in).
 * Refusals answer `403` with a body that names the host and how to allow
 * it. Bodies are streamed both ways with back-pressure: memory stays flat
 * whatever the size.
 *
 * @internal
 */
export class NetworkProxy {
  readonly #allowlist: NetworkAllowlist
  readonly #server: Server
  readonly #clients = new WeakMap<object, ProxyClient>()
  readonly #agent: Agent = new (builtins().http.Agent)({ keepAlive: true, maxFreeSockets: 16 })
  readonly #sockets = new Set<Duplex>()
  /**
   * Each command resolves a host once: its later requests reuse the checked
   * addresses (fewer lookups, and no second answer to rebind to).
   */
  readonly #resolved = new WeakMap<ProxyClient, Map<string, Promise<Verdict>>>()
  #closed = false

  /**
   * @param allowlist - The hosts that may be reached.
   */
  constructor(allowlist: NetworkAllowlist) {
    this.#allowlist = allowlist
    // Never listens: connections are handed in by accept().
    this.#server = builtins().http.createServer({ requestTimeout: 0, headersTimeout: 60_000, keepAliveTimeout: 5_000 })
    // Neither handler may ever reject into the kit: a failure ends that one connection.
    this.#server.on('request', (req, res) => this.#onRequest(req, res).catch(() => res.destroy()))
    this.#server.on('connect', (req, socket, head) => this.#onConnect(req, socket, head).catch(() => socket.destroy()))
    this.#server.on('clientError', (_error, socket) => {
      if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
      else socket.destroy()
    })
  }

  /** The allowlist it enforces. */
  get allowlist(): NetworkAllowlist {
    return this.#allowlist
  }

  /**
   * Serve one connection a sandboxed program opened.
   *
   * @param socket - The accepted connection.
   * @param client - Who gets the decisions made on it.
   */
  accept(socket: Socket, client: ProxyClient): void {
    // A program may reset its connection at any time: that must never be an
    // unhandled 'error' in the kit (the HTTP server's own handler goes away
    // when a CONNECT takes the socket over).
    socket.on('error', () => socket.destroy())
    if (this.#closed) {
      socket.destroy()
      return
    }
    this.#clients.set(socket, client)
    this.#track(socket)
    // The server never listens, so its own header and keep-alive timers do
    // not run: a connection that sends nothing is closed here instead.
    socket.setTimeout(IDLE_MS, () => socket.destroy())
    this.#server.emit('connection', socket)
  }

  /**
   * Decide on one request: allowlist first, then resolution and the address rule.
   *
   * @param host - Requested host.
   * @param port - Requested port.
   * @param method - `CONNECT` or the HTTP method.
   * @returns The decision, with the checked addresses when allowed.
   */
  async decide(host: string, port: number, method: string): Promise<Verdict> {
    const base = { host: host.length > MAX_HOST_LENGTH ? `${host.slice(0, 64)}…` : host, port, method }
    if (host.length > MAX_HOST_LENGTH) return { ...base, allowed: false, reason: `the host name is longer than ${MAX_HOST_LENGTH} characters` }
    const match = this.#allowlist.match(host)
    if (match === undefined) return { ...base, allowed: false, reason: 'not in the allowlist' }
    let addresses: LookupAddress[]
    if (isIP(host) !== 0) addresses = [{ address: host, family: isIP(host) }]
    else {
      try {
        addresses = await resolveAll(host)
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'error'
        return { ...base, allowed: false, rule: match.entry, reason: `could not resolve the host (${code})` }
      }
    }
    const usable = match.exact ? addresses : addresses.filter((a) => restrictedKind(a.address) === undefined)
    if (usable.length === 0) {
      const first = addresses[0]
      const kind = first ? restrictedKind(first.address) : undefined
      return {
        ...base,
        allowed: false,
        rule: match.entry,
        reason:
          `it resolves to a ${kind ?? 'restricted'} address (${first?.address ?? 'none'}), which only an exact entry allows ` +
          `(matched "${match.entry}")`,
      }
    }
    return { ...base, allowed: true, rule: match.entry, reason: `listed as "${match.entry}"`, address: usable[0]!.address, addresses: usable }
  }

  /** Close every connection still open (the sandbox is closing). */
  close(): void {
    this.#closed = true
    for (const socket of this.#sockets) socket.destroy()
    this.#sockets.clear()
    this.#agent.destroy()
  }

  #track(socket: Duplex): void {
    this.#sockets.add(socket)
    socket.once('close', () => this.#sockets.delete(socket))
  }

  /** {@link NetworkProxy.decide}, once per host for each command. */
  #decideFor(socket: object, host: string, port: number, method: string): Promise<Verdict> {
    const client = this.#clients.get(socket)
    if (client === undefined) return this.decide(host, port, method)
    let cache = this.#resolved.get(client)
    if (cache === undefined) this.#resolved.set(client, (cache = new Map()))
    const cached = cache.get(host)
    if (cached !== undefined) return cached.then((first) => ({ ...first, port, method }))
    const verdict = this.decide(host, port, method)
    // Only what was allowed is kept (refusals are cheap to decide again, and a
    // command naming endless hosts must not grow the kit), and only so many.
    if (cache.size < MAX_CACHED_HOSTS && host.length <= MAX_HOST_LENGTH) {
      cache.set(host, verdict)
      void verdict.then((v) => {
        if (!v.allowed) cache.delete(host)
      })
    }
    return verdict
  }

  #report(socket: object, verdict: Verdict): void {
    const { addresses: _addresses, ...decision } = verdict
    try {
      this.#clients.get(socket)?.onDecision(Object.freeze(decision))
    } catch {
      // A throwing observer must not break the program's connection.
    }
  }

  async #onConnect(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', () => socket.destroy())
    const target = splitHostPort(req.url ?? '', 443)
    if (target === undefined) {
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
      return
    }
    const verdict = await this.#decideFor(req.socket, target.host, target.port, 'CONNECT')
    this.#report(req.socket, verdict)
    if (socket.destroyed) return
    if (!verdict.allowed || verdict.addresses === undefined) {
      const body = refusalText(verdict)
      socket.end(
        `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          `X-Toolsmith-Refused: ${verdict.host}\r\nConnection: close\r\n\r\n${body}`,
      )
      return
    }
    const upstream = connect({ host: verdict.host, port: target.port, lookup: pinnedLookup(verdict.addresses) })
    this.#track(upstream)
    upstream.once('connect', () => {
      upstream.off('error', failEarly)
      // An established tunnel may sit idle as long as the command likes (a
      // database connection, a watch); it ends with the command.
      ;(socket as Socket).setTimeout?.(0)
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      if (head.length > 0) upstream.write(head)
      upstream.pipe(socket)
      socket.pipe(upstream)
      upstream.on('error', () => socket.destroy())
      socket.on('error', () => upstream.destroy())
      upstream.once('close', () => socket.destroy())
      socket.once('close', () => upstream.destroy())
    })
    const failEarly = (error: NodeJS.ErrnoException): void => {
      const body = `toolsmith network proxy: could not connect to ${verdict.host}:${target.port} (${error.code ?? error.message}).\n`
      socket.end(`HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`)
    }
    upstream.once('error', failEarly)
    socket.once('error', () => upstream.destroy())
  }

  async #onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL | undefined
    try {
      url = new URL(req.url ?? '')
    } catch {
      url = undefined
    }
    if (url === undefined || url.protocol !== 'http:') {
      const body = 'toolsmith network proxy: send an absolute http:// URL, or use CONNECT (HTTPS_PROXY) for anything else.\n'
      res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body)
      return
    }
    const host = normalizeHost(url.hostname)
    const port = url.port === '' ? 80 : Number(url.port)
    const verdict = await this.#decideFor(req.socket, host, port, req.method ?? 'GET')
    this.#report(req.socket, verdict)
    if (res.destroyed) return
    if (!verdict.allowed || verdict.addresses === undefined) {
      const body = refusalText(verdict)
      req.resume()
      res
        .writeHead(403, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body), 'x-toolsmith-refused': verdict.host })
        .end(body)
      return
    }
    const headers = forwardedHeaders(req.rawHeaders)
    // A chunked body keeps its framing upstream: without it Node sends a
    // GET's body bare, and the server would read it as a second request
    // nobody decided.
    if (req.headers['transfer-encoding'] !== undefined) headers.push('Transfer-Encoding', 'chunked')
    const upstream = builtins().http.request({
      host,
      port,
      method: req.method,
      path: `${url.pathname}${url.search}`,
      headers,
      setHost: false,
      agent: this.#agent,
      lookup: pinnedLookup(verdict.addresses),
    })
    upstream.on('response', (answer) => {
      const status = answer.statusCode ?? 0
      try {
        // Whatever the host answers must not throw in the kit: a status Node
        // cannot send, or a reason phrase with control characters, becomes a 502.
        if (status < 200 || status > 599) throw new Error(`status ${status}`)
        res.writeHead(status, forwardedHeaders(answer.rawHeaders))
      } catch (error) {
        answer.destroy()
        upstream.destroy()
        if (res.headersSent) res.destroy()
        else fail(502, `toolsmith network proxy: ${host}:${port} sent a response that cannot be relayed (${(error as Error).message}).\n`)
        return
      }
      answer.pipe(res)
      answer.on('error', () => res.destroy())
    })
    upstream.on('upgrade', (_answer, upstreamSocket) => {
      upstreamSocket.destroy()
      fail(502, 'toolsmith network proxy: protocol upgrades (WebSocket) are not relayed over plain HTTP; use wss:// (CONNECT).\n')
    })
    const fail = (code: number, body: string): void => {
      if (res.headersSent) {
        res.destroy()
        return
      }
      res.writeHead(code, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body)
    }
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (res.headersSent) {
        res.destroy()
        return
      }
      const body = `toolsmith network proxy: could not reach ${host}:${port} (${error.code ?? error.message}).\n`
      res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body)
    })
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy()
    })
    req.pipe(upstream)
  }
}
