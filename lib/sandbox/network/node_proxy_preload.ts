/**
 * What makes Node's built-in `fetch` use the allowlist proxy on Node
 * versions that ignore `HTTP_PROXY` (before 22.21 and 24): a file preloaded
 * with `NODE_OPTIONS=--require` in sandboxed commands.
 *
 * @module
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/**
 * The preload's source (CommonJS, no dependencies).
 *
 * @remarks
 * Node's `fetch` is undici, whose global dispatcher lives on `globalThis`
 * under `Symbol.for('undici.globalDispatcher.1')` (undici's documented way
 * of sharing it between copies). Touching `Response` loads Node's bundled
 * undici, which installs its `Agent` there; the preload replaces it with an
 * `Agent` of the same class whose `connect` opens a `CONNECT` tunnel
 * through the proxy (TLS on top for `https:`). Newer Node versions read the
 * proxy variables themselves (`NODE_USE_ENV_PROXY=1`, which `bash` sets),
 * and the preload does nothing there; it also does nothing without a proxy
 * variable, and it never throws.
 */
export const NODE_PROXY_PRELOAD_SOURCE = `'use strict'
;(() => {
  try {
    const [major, minor] = process.versions.node.split('.').map(Number)
    if (major >= 24 || (major === 22 && minor >= 21)) return
    const proxy = process.env.HTTPS_PROXY || process.env.https_proxy || process.env.HTTP_PROXY || process.env.http_proxy
    if (!proxy || typeof globalThis.Response !== 'function') return
    const key = Symbol.for('undici.globalDispatcher.1')
    const current = globalThis[key]
    if (!current || typeof current.constructor !== 'function') return
    const { hostname, port } = new URL(proxy)
    const net = require('node:net')
    const tls = require('node:tls')
    const connect = (options, callback) => {
      const target = options.hostname + ':' + (options.port || (options.protocol === 'https:' ? 443 : 80))
      const socket = net.connect(Number(port) || 80, hostname)
      let head = Buffer.alloc(0)
      const fail = (error) => { socket.destroy(); callback(error, null) }
      socket.once('error', fail)
      socket.once('connect', () => socket.write('CONNECT ' + target + ' HTTP/1.1\\r\\nHost: ' + target + '\\r\\n\\r\\n'))
      const onData = (chunk) => {
        head = Buffer.concat([head, chunk])
        const end = head.indexOf('\\r\\n\\r\\n')
        if (end === -1) return
        socket.off('data', onData)
        const text = head.toString('latin1')
        const status = /^HTTP\\/1\\.[01] (\\d{3})/.exec(text)
        if (!status || status[1] !== '200') {
          const body = head.subarray(end + 4).toString('utf8').trim()
          fail(new Error('the proxy refused ' + target + ': ' + text.split('\\r\\n')[0] + (body ? ' - ' + body : '')))
          return
        }
        socket.off('error', fail)
        if (options.protocol !== 'https:') return callback(null, socket)
        const secure = tls.connect({ socket, servername: options.servername || options.hostname, ALPNProtocols: ['http/1.1'] })
        secure.once('secureConnect', () => callback(null, secure))
        secure.once('error', (error) => callback(error, null))
      }
      socket.on('data', onData)
    }
    globalThis[key] = new current.constructor({ connect })
  } catch {}
})()
`

/** Where the preload is mounted inside the sandbox (the private `/run`). */
export const NODE_PROXY_PRELOAD_TARGET = '/run/toolsmith/node-proxy.cjs'

let written: string | undefined
const dirs: string[] = []

/**
 * Write the preload once per process to a private temp folder (removed when
 * the process exits) and return its host path.
 *
 * @returns The host path of the file.
 * @internal
 */
export function nodeProxyPreloadFile(): string {
  // A temp cleaner may have removed it since: write it again then.
  if (written !== undefined && existsSync(written)) return written
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolsmith-proxy-'))
  const file = path.join(dir, 'node-proxy.cjs')
  writeFileSync(file, NODE_PROXY_PRELOAD_SOURCE, { mode: 0o644 })
  if (dirs.length === 0) process.once('exit', () => {
      for (const d of dirs) rmSync(d, { recursive: true, force: true })
    })
  dirs.push(dir)
  written = file
  return file
}
