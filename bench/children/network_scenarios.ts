/**
 * The allowlist proxy's transfer scenarios: a command in the sandbox
 * downloads N bytes from a loopback server (a separate process, so the
 * measured process holds only the kit) — through the proxy, or with the
 * whole network allowed.
 *
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { connect, createServer, type AddressInfo } from 'node:net'
import path from 'node:path'
import { Sandbox, createDispatchContext, createTools, type SandboxOptions } from '../../lib/index.js'
import { BENCH_TMP } from '../fixtures.js'
import type { Scenario } from './scenarios.js'

/** A loopback HTTP server in its own process: `/bytes?n=N` streams N bytes, `/small` a few. */
const SERVER_SOURCE = `
const http = require('node:http')
const chunk = Buffer.alloc(256 * 1024, 120)
const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x')
  if (url.pathname === '/small') return res.end('ok\\n')
  let left = Number(url.searchParams.get('n') || 0)
  res.writeHead(200, { 'content-length': left })
  const pump = () => {
    while (left > 0) {
      const piece = left >= chunk.length ? chunk : chunk.subarray(0, left)
      left -= piece.length
      if (!res.write(piece)) return res.once('drain', pump)
    }
    res.end()
  }
  pump()
})
server.listen(0, '127.0.0.1', () => console.log(server.address().port))
process.stdin.on('end', () => process.exit(0)).resume()
`

/**
 * Start the loopback server.
 *
 * @returns Its port and a function that stops it.
 */
export function startLoopbackServer(): Promise<{ port: number; stop(): void; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', SERVER_SOURCE], { stdio: ['pipe', 'pipe', 'inherit'] })
    child.once('error', reject)
    child.stdout!.setEncoding('utf8').once('data', (line: string) => {
      resolve({ port: Number(line.trim()), child, stop: () => child.stdin!.end() })
    })
  })
}

function transfer(network: SandboxOptions['allowNetwork']): Scenario {
  return {
    async prepare(bytes) {
      const rootDir = path.join(BENCH_TMP, 'proxy-root')
      mkdirSync(rootDir, { recursive: true })
      const server = await startLoopbackServer()
      const sandbox = new Sandbox({ rootDir, allowNetwork: network, timeoutMs: 600_000 })
      const bash = createTools(sandbox).bash.executor(createDispatchContext())
      const get = (n: number) => bash({ cmd: 'curl', args: ['-sSf', '-o', '/dev/null', `http://localhost:${server.port}/bytes?n=${n}`] })
      await get(1_048_576) // rehearsal: the namespace holder, the first lease, JIT
      return async () => {
        try {
          await get(bytes)
        } finally {
          server.stop()
          await sandbox.close()
        }
      }
    },
  }
}

/**
 * Not the kit: the least any relay in a Node process pays — a bare TCP
 * relay (`socket.pipe` both ways) between curl, spawned directly, and the
 * server.
 */
const bareRelay: Scenario = {
  async prepare(bytes) {
    const server = await startLoopbackServer()
    const relay = createServer((inbound) => {
      const outbound = connect(server.port, '127.0.0.1')
      inbound.pipe(outbound)
      outbound.pipe(inbound)
      inbound.on('error', () => outbound.destroy())
      outbound.on('error', () => inbound.destroy())
    })
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve))
    const port = (relay.address() as AddressInfo).port
    const get = (n: number) =>
      new Promise<void>((resolve, reject) => {
        const curl = spawn('curl', ['-sSf', '-o', '/dev/null', `http://127.0.0.1:${port}/bytes?n=${n}`], { stdio: 'ignore' })
        curl.on('error', reject)
        curl.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`curl exited ${code}`))))
      })
    await get(1_048_576)
    return async () => {
      try {
        await get(bytes)
      } finally {
        relay.close()
        server.stop()
      }
    }
  },
}

/**
 * `proxy-transfer:subject` (through the proxy), `proxy-transfer:baseline`
 * (`allowNetwork: true`) and `proxy-transfer:floor` (a bare Node relay).
 */
export const networkScenarios: Record<string, Scenario> = {
  'proxy-transfer:subject': transfer({ domains: ['localhost'] }),
  'proxy-transfer:baseline': transfer(true),
  'proxy-transfer:floor': bareRelay,
}
