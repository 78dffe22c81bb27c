/**
 * The network namespace of `allowNetwork: { domains }`, and the listeners in
 * it that lead to the kit's proxy.
 *
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process'
import type { Server, Socket } from 'node:net'
import { MAX_CONNECTIONS_PER_COMMAND, type NetworkProxy, type ProxyClient } from './network_proxy.js'
import { NODE_PROXY_PRELOAD_TARGET, nodeProxyPreloadFile } from './node_proxy_preload.js'

/**
 * The program that holds the namespace: it runs inside a fresh user and
 * network namespace (made by bwrap), and on request opens a listener on its
 * loopback and hands that listening socket to the kit over the IPC channel.
 * A listening socket stays in the namespace it was made in, so the kit
 * accepts, in its own process, exactly the connections made inside — there
 * is no bridge process and no copy between namespaces.
 */
const HOLDER_SOURCE = `
const net = require('node:net')
process.on('message', (message) => {
  if (!message || message.op !== 'listen') return
  const server = net.createServer()
  server.once('error', (error) => process.send({ id: message.id, error: String(error && error.message) }))
  server.listen(0, '127.0.0.1', () => {
    process.send({ id: message.id, port: server.address().port }, server, () => server.close())
  })
})
process.on('disconnect', () => process.exit(0))
process.send({ ready: true, pid: process.pid })
`

/** How to run a command inside the gateway's network namespace. */
export interface NamespaceJoin {
  /** The program to exec first (`nsenter`). */
  readonly file: string
  /** Its arguments; the command (bwrap and its argv) follows them. */
  readonly args: readonly string[]
  /** Host files to mount read-only inside the sandbox (source → target). */
  readonly files: ReadonlyArray<{ readonly source: string; readonly target: string }>
}

/** One command's way out: a loopback port inside the namespace that leads to the proxy. */
export interface GatewayLease {
  /** The port on `127.0.0.1` inside the namespace. */
  readonly port: number
  /** How to run the command in the namespace. */
  readonly join: NamespaceJoin
  /** The proxy variables the command gets (`HTTP_PROXY`, `https_proxy`, `NODE_OPTIONS`…). */
  readonly env: Readonly<Record<string, string>>
  /** Stop accepting and close every connection of this command. */
  close(): void
}

/** Where the gateway's programs are. */
export interface GatewayPrograms {
  /** Absolute path of `bwrap`. */
  readonly bwrap: string
  /** Absolute path of `nsenter` (util-linux). */
  readonly nsenter: string
}

interface Pending {
  resolve(value: { port: number; server: Server }): void
  reject(error: Error): void
}

/**
 * The network namespace shared by the commands of one sandbox with a domain
 * allowlist.
 *
 * @remarks
 * Started on first use: one small Node process (about 40 MB) in its own
 * user and network namespace, which lives until {@link NetworkGateway.close},
 * until the kit's process exits (bwrap's `--die-with-parent`), or until it
 * dies, after which the next command starts a new one. Each command gets a
 * listener of its own, so every connection is attributed to the call that
 * made it; commands join the namespace with `nsenter` and make their own
 * nested user, PID and mount namespaces as usual. The holder process and its
 * IPC channel do not keep the kit's event loop alive while idle.
 *
 * @internal
 */
export class NetworkGateway {
  readonly #programs: GatewayPrograms
  readonly #proxy: NetworkProxy
  #holder: Promise<{ child: ChildProcess; pid: number }> | undefined
  readonly #pending = new Map<number, Pending>()
  #nextId = 0
  #closed = false
  /** Open leases: `close()` ends them too, so a running command loses its way out at once. */
  readonly #leases = new Set<GatewayLease>()

  /**
   * @param programs - bwrap and nsenter.
   * @param proxy - Where accepted connections go.
   */
  constructor(programs: GatewayPrograms, proxy: NetworkProxy) {
    this.#programs = programs
    this.#proxy = proxy
  }

  /**
   * Open a listener for one command.
   *
   * @param client - Receives the proxy's decisions for this command.
   * @returns The lease; close it when the command has exited.
   * @throws Error when the namespace cannot be made (the caller turns it into a typed error).
   */
  async lease(client: ProxyClient): Promise<GatewayLease> {
    if (this.#closed) throw new Error('the sandbox was closed')
    let holder = this.#start()
    let opened: { port: number; server: Server; pid: number }
    try {
      opened = await this.#listen(await holder)
    } catch (error) {
      // A holder killed from outside fails the request it gets before the
      // kit has seen its exit; a new one takes its place, once.
      const dead = await holder.then(({ child }) => exitedSoon(child), () => false)
      if (!dead || this.#closed) throw error
      if (this.#holder === holder) this.#holder = undefined
      holder = this.#start()
      opened = await this.#listen(await holder)
    }
    const { port, server, pid } = opened
    const sockets = new Set<Socket>()
    server.on('connection', (socket: Socket) => {
      if (sockets.size >= MAX_CONNECTIONS_PER_COMMAND) {
        socket.on('error', () => undefined)
        socket.destroy()
        return
      }
      sockets.add(socket)
      socket.once('close', () => sockets.delete(socket))
      this.#proxy.accept(socket, client)
    })
    server.on('error', () => server.close())
    const lease: GatewayLease = {
      port,
      join: {
        file: this.#programs.nsenter,
        args: [`--target=${pid}`, '--user', '--net', '--preserve-credentials', '--'],
        files: [{ source: nodeProxyPreloadFile(), target: NODE_PROXY_PRELOAD_TARGET }],
      },
      env: proxyEnvironment(port),
      close: () => {
        this.#leases.delete(lease)
        server.close()
        for (const socket of sockets) socket.destroy()
      },
    }
    this.#leases.add(lease)
    return lease
  }

  /** Ask the holder for a listener inside its namespace. */
  async #listen({ child, pid }: { child: ChildProcess; pid: number }): Promise<{ port: number; server: Server; pid: number }> {
    const id = this.#nextId++
    child.channel?.ref()
    try {
      const { port, server } = await new Promise<{ port: number; server: Server }>((resolve, reject) => {
        this.#pending.set(id, { resolve, reject })
        child.send({ op: 'listen', id }, (error) => {
          if (error) {
            this.#pending.delete(id)
            reject(error)
          }
        })
      })
      return { port, server, pid }
    } finally {
      if (this.#pending.size === 0) child.channel?.unref()
    }
  }

  /** Stop the namespace's holder and every connection. Idempotent. */
  close(): void {
    this.#closed = true
    const holder = this.#holder
    this.#holder = undefined
    void holder?.then(({ child }) => stop(child), () => undefined)
    for (const pending of this.#pending.values()) pending.reject(new Error('the sandbox was closed'))
    this.#pending.clear()
    for (const lease of [...this.#leases]) lease.close()
    this.#proxy.close()
  }

  #start(): Promise<{ child: ChildProcess; pid: number }> {
    this.#holder ??= this.#spawnHolder()
    return this.#holder
  }

  #spawnHolder(): Promise<{ child: ChildProcess; pid: number }> {
    const started = new Promise<{ child: ChildProcess; pid: number }>((resolve, reject) => {
      const child = spawn(
        this.#programs.bwrap,
        [
          '--unshare-user',
          '--unshare-net',
          '--unshare-ipc',
          '--unshare-uts',
          '--die-with-parent',
          '--new-session',
          '--ro-bind',
          '/',
          '/',
          '--dev',
          '/dev',
          '--tmpfs',
          '/tmp',
          '--',
          process.execPath,
          '--max-old-space-size=32',
          '-e',
          HOLDER_SOURCE,
        ],
        { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: {} },
      )
      let stderr = ''
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
        if (stderr.length < 4096) stderr += chunk
      })
      const forget = (reason: string): void => {
        if (this.#holder === started) this.#holder = undefined
        for (const pending of this.#pending.values()) pending.reject(new Error(reason))
        this.#pending.clear()
      }
      child.once('error', (error) => {
        forget(error.message)
        reject(error)
      })
      child.once('exit', (code, signal) => {
        const reason = `the network namespace holder exited (${signal ?? `code ${code}`})${stderr ? `: ${stderr.trim()}` : ''}`
        forget(reason)
        reject(new Error(reason))
      })
      child.on('message', (message: { ready?: boolean; pid?: number; id?: number; port?: number; error?: string }, handle: unknown) => {
        if (message?.ready && typeof message.pid === 'number') {
          child.unref()
          child.channel?.unref()
          ;(child.stderr as Socket | null)?.unref()
          resolve({ child, pid: message.pid })
          return
        }
        if (typeof message?.id !== 'number') return
        const pending = this.#pending.get(message.id)
        if (pending === undefined) {
          ;(handle as Server | undefined)?.close()
          return
        }
        this.#pending.delete(message.id)
        if (message.error !== undefined || typeof message.port !== 'number' || handle === undefined) {
          pending.reject(new Error(message.error ?? 'the holder answered without a listener'))
        } else pending.resolve({ port: message.port, server: handle as Server })
      })
    })
    return started
  }
}

/**
 * The variables the common clients read for their proxy: curl, wget, git,
 * pip and Python (`http_proxy`, `https_proxy`, `all_proxy`, either case),
 * npm (`npm_config_*`), Node ≥ 24 (`NODE_USE_ENV_PROXY`) and older Node's
 * `fetch` (the preload). `NO_PROXY` is empty: loopback inside the sandbox
 * goes to the proxy too, which sends it to the host only when listed.
 */
function proxyEnvironment(port: number): Record<string, string> {
  const url = `http://127.0.0.1:${port}`
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    ALL_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    all_proxy: url,
    NO_PROXY: '',
    no_proxy: '',
    npm_config_proxy: url,
    npm_config_https_proxy: url,
    NODE_USE_ENV_PROXY: '1',
    NODE_OPTIONS: `--require=${NODE_PROXY_PRELOAD_TARGET}`,
  }
}

/** Whether `child` has exited, or does within a second (its exit can trail a failed request). */
async function exitedSoon(child: ChildProcess): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return true
  return await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => {
      child.off('exit', onExit)
      resolve(false)
    }, 1_000)
    timer.unref()
    const onExit = (): void => {
      clearTimeout(timer)
      resolve(true)
    }
    child.once('exit', onExit)
  })
}

function stop(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null) return
  if (child.connected) child.disconnect()
  child.kill('SIGKILL')
}
