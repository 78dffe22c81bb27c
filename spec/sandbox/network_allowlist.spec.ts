/**
 * `allowNetwork: { domains }`: commands reach only the listed hosts, through
 * the kit's proxy. Every server here listens on 127.0.0.1 in the host's
 * network namespace, and nothing else is ever contacted: refused requests
 * (a metadata address, a public name) are decided before any connection.
 * Each server counts what it received, so "refused" also means "nothing
 * arrived".
 */
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  JsonlJournal,
  Sandbox,
  TurnRunner,
  createDispatchContext,
  createTools,
  scriptedModel,
  type NetworkRequestEvent,
  type SandboxOptions,
  type TurnEvent,
} from '../../lib/index.js'
import { runCli } from '../cli/support/run_cli.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'

const bwrapWorks = spawnSync('bwrap', ['--unshare-user', '--unshare-net', '--ro-bind', '/', '/', 'true']).status === 0
const has = (program: string): boolean => spawnSync('sh', ['-c', `command -v ${program}`]).status === 0

/** Outside /tmp: the host's /tmp is private inside the sandbox, and the CA file must be readable there. */
const parent = fs.existsSync('/var/tmp') ? '/var/tmp' : os.homedir()

let root: string
let httpPort: number
let tlsPort: number
let received: string[] = []
let httpServer: http.Server
let tlsServer: https.Server | undefined
const sandboxes: Sandbox[] = []

function sandbox(options: SandboxOptions): Sandbox {
  const made = new Sandbox({ rootDir: root, timeoutMs: 30_000, ...options })
  sandboxes.push(made)
  return made
}

interface Outcome {
  ok: boolean
  text: string
  code?: string
  events: NetworkRequestEvent[]
  callId?: string
}

/** Run one bash call in `box`; never throws. */
async function run(box: Sandbox, cmd: string, args: string[]): Promise<Outcome> {
  const events: NetworkRequestEvent[] = []
  let callId: string | undefined
  const ctx = createDispatchContext({
    onNetworkRequest: (event) => events.push(event),
    onToolExecutionStart: (event) => (callId = event.callId),
  })
  try {
    const text = String(await createTools(box).bash.executor(ctx)({ cmd, args }))
    return { ok: true, text, events, callId }
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string; details?: { output?: string } } }).cause
    return { ok: false, text: cause?.details?.output ?? cause?.message ?? String(error), code: cause?.code, events, callId }
  }
}

function listen(server: http.Server | https.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)))
}

/** A bare git repository served over git's "dumb" HTTP protocol (static files). */
function makeRepository(): string {
  const work = path.join(root, 'origin-work')
  fs.mkdirSync(work)
  const git = (args: string[], cwd: string): void => {
    execFileSync('git', args, { cwd, stdio: 'ignore', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: root } })
  }
  git(['init', '-q', '-b', 'main'], work)
  fs.writeFileSync(path.join(work, 'README.md'), 'cloned through the allowlist proxy\n')
  git(['add', 'README.md'], work)
  git(['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-q', '-m', 'first'], work)
  const served = trackedMkdtemp(path.join(parent, 'toolsmith-git-'))
  git(['clone', '-q', '--bare', work, path.join(served, 'repo.git')], parent)
  git(['update-server-info'], path.join(served, 'repo.git'))
  fs.rmSync(work, { recursive: true, force: true })
  return served
}

beforeAll(async () => {
  root = fs.realpathSync(trackedMkdtemp(path.join(parent, 'toolsmith-allowlist-')))
  const served = has('git') ? makeRepository() : undefined
  httpServer = http.createServer((req, res) => {
    received.push(`${req.method} ${req.url} host=${req.headers.host}`)
    const url = new URL(req.url ?? '/', 'http://x')
    if (url.pathname === '/hello') return void res.end('hello from loopback\n')
    if (url.pathname === '/npm/left-pad') {
      res.setHeader('content-type', 'application/json')
      return void res.end(
        JSON.stringify({
          name: 'left-pad',
          'dist-tags': { latest: '9.9.9' },
          versions: { '9.9.9': { name: 'left-pad', version: '9.9.9', dist: { tarball: `http://localhost:${httpPort}/npm/left-pad-9.9.9.tgz` } } },
        }),
      )
    }
    if (served && url.pathname.startsWith('/git/')) {
      const file = path.join(served, path.normalize(url.pathname.slice('/git/'.length)))
      if (file.startsWith(served) && fs.existsSync(file) && fs.statSync(file).isFile()) return void fs.createReadStream(file).pipe(res)
    }
    res.statusCode = 404
    res.end('not found\n')
  })
  httpPort = await listen(httpServer)
  if (has('openssl')) {
    const key = path.join(root, 'key.pem')
    const cert = path.join(root, 'cert.pem')
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost'], { stdio: 'ignore' })
    tlsServer = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (req, res) => {
      received.push(`TLS ${req.method} ${req.url}`)
      res.end('hello over TLS\n')
    })
    tlsPort = await listen(tlsServer)
  }
})

afterAll(async () => {
  await Promise.all(sandboxes.map((s) => s.close()))
  httpServer?.close()
  tlsServer?.close()
})

describe.runIf(bwrapWorks)('allowNetwork: { domains } — allowed hosts, through the proxy', () => {
  const allowed = (): Sandbox => sandbox({ allowNetwork: { domains: ['localhost'] } })

  it('curl reaches a listed host by name, and the decision is a networkRequest event of that call', async () => {
    received = []
    const box = allowed()
    const out = await run(box, 'curl', ['-sS', `http://localhost:${httpPort}/hello`])
    expect(out).toMatchObject({ ok: true, text: 'hello from loopback\n' })
    expect(received).toEqual([`GET /hello host=localhost:${httpPort}`])
    expect(out.events).toHaveLength(1)
    expect(out.events[0]).toMatchObject({ toolName: 'bash', callId: out.callId, host: 'localhost', port: httpPort, method: 'GET', allowed: true, rule: 'localhost' })
    expect(out.events[0]!.address).toMatch(/^(127\.0\.0\.1|::1)$/)
  })

  it('the command sees the proxy variables (both cases) and an empty NO_PROXY', async () => {
    const out = await run(allowed(), 'sh', ['-c', 'echo "$HTTP_PROXY|$https_proxy|$ALL_PROXY|[$NO_PROXY]"'])
    expect(out.ok).toBe(true)
    expect(out.text).toMatch(/^http:\/\/127\.0\.0\.1:(\d+)\|http:\/\/127\.0\.0\.1:\1\|http:\/\/127\.0\.0\.1:\1\|\[\]\n$/)
  })

  it.runIf(has('wget'))('wget reaches it', async () => {
    const out = await run(allowed(), 'wget', ['-qO-', `http://localhost:${httpPort}/hello`])
    expect(out).toMatchObject({ ok: true, text: 'hello from loopback\n' })
  })

  it.runIf(has('python3'))('python urllib reaches it', async () => {
    const script = `import urllib.request; print(urllib.request.urlopen("http://localhost:${httpPort}/hello").read().decode(), end="")`
    const out = await run(allowed(), 'python3', ['-c', script])
    expect(out).toMatchObject({ ok: true, text: 'hello from loopback\n' })
  })

  it("node's built-in fetch reaches it (on Node 20 through the kit's preload, which tunnels with CONNECT)", async () => {
    const script = `fetch("http://localhost:${httpPort}/hello").then((r) => r.text()).then((t) => process.stdout.write(t))`
    const out = await run(allowed(), process.execPath, ['-e', script])
    expect(out).toMatchObject({ ok: true, text: 'hello from loopback\n' })
    expect(out.events.map((e) => [e.method, e.allowed])).toEqual([['CONNECT', true]])
  })

  it.runIf(has('git'))('git clone over http works through the proxy', async () => {
    const target = `clone-${Date.now()}`
    const out = await run(allowed(), 'git', ['clone', '-q', `http://localhost:${httpPort}/git/repo.git`, target])
    expect(out.ok, out.text).toBe(true)
    expect(fs.readFileSync(path.join(root, target, 'README.md'), 'utf8')).toBe('cloned through the allowlist proxy\n')
  })

  it('npm reads a package from a registry on a listed host', async () => {
    const out = await run(allowed(), 'npm', ['view', 'left-pad', 'version', `--registry=http://localhost:${httpPort}/npm/`, '--cache=/tmp/npm-cache', '--no-update-notifier'])
    expect(out.ok, out.text).toBe(true)
    expect(out.text.trim()).toBe('9.9.9')
  })

  it.runIf(has('openssl'))('a CONNECT tunnel reaches a TLS server on a listed host (self-signed certificate)', async () => {
    received = []
    const out = await run(allowed(), 'curl', ['-sS', '--cacert', path.join(root, 'cert.pem'), `https://localhost:${tlsPort}/secure`])
    expect(out).toMatchObject({ ok: true, text: 'hello over TLS\n' })
    expect(received).toEqual(['TLS GET /secure'])
    expect(out.events).toEqual([expect.objectContaining({ host: 'localhost', port: tlsPort, method: 'CONNECT', allowed: true })])
  })

  it('host names compare case-insensitively and without a trailing dot', async () => {
    const box = sandbox({ allowNetwork: { domains: ['LocalHost.'] } })
    expect(box.allowedDomains).toEqual(['localhost'])
    const out = await run(box, 'curl', ['-sS', `http://LOCALHOST.:${httpPort}/hello`])
    expect(out).toMatchObject({ ok: true, text: 'hello from loopback\n' })
  })

  it('an address listed exactly is reachable even though it is loopback', async () => {
    const out = await run(sandbox({ allowNetwork: { domains: ['127.0.0.1'] } }), 'curl', ['-sS', `http://127.0.0.1:${httpPort}/hello`])
    expect(out).toMatchObject({ ok: true, text: 'hello from loopback\n' })
  })
})

describe.runIf(bwrapWorks)('allowNetwork: { domains } — refused requests', () => {
  it('a host not listed gets a 403 whose body names it and how to allow it; nothing reaches the server', async () => {
    received = []
    const out = await run(sandbox({ allowNetwork: { domains: ['example.com'] } }), 'curl', ['-sS', `http://localhost:${httpPort}/hello`])
    expect(out.ok).toBe(true) // curl prints the 403 body and exits 0
    expect(out.text).toContain(`localhost:${httpPort} was refused (not in the allowlist)`)
    expect(out.text).toContain('--allow-domain localhost')
    expect(out.text).toContain('[toolsmith] The network proxy refused')
    expect(received).toEqual([])
    expect(out.events).toEqual([expect.objectContaining({ host: 'localhost', allowed: false, reason: 'not in the allowlist' })])
  })

  it('a refused CONNECT fails the command, and the note under its output names the host', async () => {
    received = []
    const out = await run(sandbox({ allowNetwork: { domains: [] } }), 'curl', ['-sS', `https://localhost:${tlsPort || httpPort}/`])
    expect(out.ok).toBe(false)
    expect(out.code).toBe('TOOL_COMMAND_FAILED')
    expect(out.text).toMatch(/403/)
    expect(out.text).toContain(`The network proxy refused localhost:${tlsPort || httpPort} (not in the allowlist)`)
    expect(out.text).toContain('"localhost"')
    expect(received).toEqual([])
  })

  it('a wildcard never matches the bare apex', async () => {
    const out = await run(sandbox({ allowNetwork: { domains: ['*.localhost'] } }), 'curl', ['-sS', `http://localhost:${httpPort}/hello`])
    expect(out.events).toEqual([expect.objectContaining({ host: 'localhost', allowed: false, reason: 'not in the allowlist' })])
  })

  it('a name matched only by a wildcard that resolves to loopback is refused (an exact entry is needed)', async () => {
    received = []
    const out = await run(sandbox({ allowNetwork: { domains: ['*'] } }), 'curl', ['-sS', `http://localhost:${httpPort}/hello`])
    expect(out.text).toContain('loopback address')
    expect(out.events).toEqual([expect.objectContaining({ host: 'localhost', allowed: false, rule: '*' })])
    expect(received).toEqual([])
  })

  it.each([
    ['the metadata address', 'http://169.254.169.254/latest/meta-data/', /metadata address/],
    ["AWS's IPv6 metadata address", 'http://[fd00:ec2::254]/latest/meta-data/', /metadata address/],
    ['a loopback address', `http://127.0.0.1:${0}/`, /loopback address/],
    ['IPv6 loopback', 'http://[::1]:1/', /loopback address/],
    ['an IPv4-mapped IPv6 loopback', 'http://[::ffff:127.0.0.1]:1/', /loopback address/],
    ['a private network', 'http://10.0.0.1/', /private address/],
    ['link-local', 'http://169.254.1.1/', /link-local address/],
  ])('with "*", %s is refused before any connection', async (_name, url, reason) => {
    const target = url.replace(':0/', `:${httpPort}/`)
    const out = await run(sandbox({ allowNetwork: { domains: ['*'] } }), 'curl', ['-sS', '--max-time', '10', target])
    expect(out.events).toHaveLength(1)
    expect(out.events[0]!.allowed).toBe(false)
    expect(out.events[0]!.reason).toMatch(reason)
  })

  it.each([
    ['a decimal IPv4 (2130706433)', '2130706433'],
    ['a hex-dotted IPv4 (0x7f.1)', '0x7f.1'],
  ])('with "*", a CONNECT to %s is read as the loopback it is and refused', async (_name, host) => {
    received = []
    const out = await run(sandbox({ allowNetwork: { domains: ['*'] } }), 'curl', ['-sS', '--max-time', '10', '-p', `http://${host}:${httpPort}/hello`])
    expect(out.ok).toBe(false)
    expect(out.events.every((e) => !e.allowed)).toBe(true)
    expect(received).toEqual([])
  })

  it('a program that ignores the proxy variables and connects directly gets nowhere', async () => {
    received = []
    const box = sandbox({ allowNetwork: { domains: ['localhost', '127.0.0.1'] } })
    const curl = await run(box, 'curl', ['-sS', '--noproxy', '*', '--max-time', '10', `http://127.0.0.1:${httpPort}/hello`])
    expect(curl.ok).toBe(false)
    const direct = `require("node:net").connect(${httpPort}, "127.0.0.1").on("connect", () => { console.log("CONNECTED"); process.exit(0) }).on("error", (e) => { console.log(e.code); process.exit(3) })`
    const node = await run(box, process.execPath, ['-e', direct])
    expect(node.ok).toBe(false)
    expect(node.text).toContain('ECONNREFUSED')
    expect(received).toEqual([])
    expect([...curl.events, ...node.events]).toEqual([])
    // Control: with the whole network allowed, the same direct connection does arrive.
    const control = await run(sandbox({ allowNetwork: true }), process.execPath, ['-e', direct])
    expect(control).toMatchObject({ ok: true, text: 'CONNECTED\n' })
  })

  it('UDP has no way out (there is no UDP proxy): a datagram to the host never arrives', async () => {
    const dgram = await import('node:dgram')
    const socket = dgram.createSocket('udp4')
    const got: string[] = []
    socket.on('message', (message) => got.push(String(message)))
    const port = await new Promise<number>((resolve) => socket.bind(0, '127.0.0.1', () => resolve(socket.address().port)))
    const send = `const s = require("node:dgram").createSocket("udp4"); s.send("leak", ${port}, "127.0.0.1", (e) => { console.log(e ? e.code : "sent"); s.close() })`
    await run(sandbox({ allowNetwork: { domains: ['localhost'] } }), process.execPath, ['-e', send])
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(got).toEqual([])
    // Control: with the whole network allowed, the same datagram arrives.
    await run(sandbox({ allowNetwork: true }), process.execPath, ['-e', send])
    const deadline = Date.now() + 5_000
    while (got.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
    socket.close()
    expect(got).toEqual(['leak'])
  })
})

/**
 * A node script, run inside the sandbox, that sends `raw` to the proxy (the
 * port from HTTP_PROXY) and prints the first line of the answer.
 */
function rawProxyRequest(raw: string): string[] {
  const script = `
const port = Number(new URL(process.env.HTTP_PROXY).port)
const socket = require("node:net").connect(port, "127.0.0.1", () => socket.write(${JSON.stringify(raw)}))
let answer = ""
socket.on("data", (d) => { answer += d; if (answer.includes("\\r\\n")) { console.log(answer.split("\\r\\n")[0]); process.exit(0) } })
socket.on("close", () => { console.log(answer.split("\\r\\n")[0] || "CLOSED"); process.exit(0) })
socket.on("error", (e) => { console.log(e.code); process.exit(0) })`
  return [process.execPath, '-e', script]
}

describe.runIf(bwrapWorks)('allowNetwork: { domains } — hostile commands and hosts (review findings)', () => {
  it('an upstream that answers a status Node cannot send does not crash the kit: the command gets a 502', async () => {
    const net = await import('node:net')
    const bad = net.createServer((socket) => {
      socket.once('data', () => socket.end('HTTP/1.1 000 Weird\r\nContent-Length: 0\r\n\r\n'))
    })
    const port = await new Promise<number>((resolve) => bad.listen(0, '127.0.0.1', () => resolve((bad.address() as AddressInfo).port)))
    try {
      const out = await run(sandbox({ allowNetwork: { domains: ['localhost'] } }), 'curl', ['-sS', `http://localhost:${port}/`])
      expect(out.text).toContain('cannot be relayed')
      // The kit (this process) is still here, and the proxy still serves.
      const again = await run(sandbox({ allowNetwork: { domains: ['localhost'] } }), 'curl', ['-sS', `http://localhost:${httpPort}/hello`])
      expect(again.text).toBe('hello from loopback\n')
    } finally {
      bad.close()
    }
  })

  it('a host name longer than DNS allows is refused before any lookup', async () => {
    const out = await run(sandbox({ allowNetwork: { domains: ['*'] } }), 'curl', ['-sS', '-p', `http://${'a'.repeat(300)}.example:80/`])
    expect(out.events).toHaveLength(1)
    expect(out.events[0]!).toMatchObject({ allowed: false, reason: 'the host name is longer than 253 characters' })
  })

  it('a non-canonical NAT64 address is read as the private IPv4 address it carries', async () => {
    const [cmd, ...args] = rawProxyRequest('CONNECT [64:ff9b:0:0:0:0:a00:1]:80 HTTP/1.1\r\nHost: x\r\n\r\n')
    const out = await run(sandbox({ allowNetwork: { domains: ['*'] } }), cmd!, args)
    expect(out.text).toContain('403')
    expect(out.events[0]).toMatchObject({ allowed: false })
    expect(out.events[0]!.reason).toMatch(/private address/)
  })

  it('a GET with a chunked body cannot smuggle a second, undecided request to the host', async () => {
    received = []
    const smuggled = `GET /smuggled HTTP/1.1\r\nHost: localhost\r\n\r\n`
    const body = `${smuggled.length.toString(16)}\r\n${smuggled}\r\n0\r\n\r\n`
    const [cmd, ...args] = rawProxyRequest(
      `GET http://localhost:${httpPort}/hello HTTP/1.1\r\nHost: localhost:${httpPort}\r\nTransfer-Encoding: chunked\r\n\r\n${body}`,
    )
    const out = await run(sandbox({ allowNetwork: { domains: ['localhost'] } }), cmd!, args)
    expect(out.text).toContain('200')
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(received.some((line) => line.includes('/smuggled'))).toBe(false)
    expect(received.some((line) => line.startsWith('GET /hello'))).toBe(true)
  })

  it('a command cannot hold more than 256 connections to the proxy', async () => {
    const script = `
const port = Number(new URL(process.env.HTTP_PROXY).port)
let closed = 0
const sockets = []
for (let i = 0; i < 300; i++) { const s = require("node:net").connect(port, "127.0.0.1"); s.on("close", () => closed++); s.on("error", () => {}); sockets.push(s) }
// Once the surplus is closed, a moment more shows the proxy closes no others.
const settle = setInterval(() => { if (closed >= 300 - 256) { clearInterval(settle); setTimeout(() => { console.log(closed); process.exit(0) }, 300) } }, 20)
setTimeout(() => { console.log(closed); process.exit(0) }, 20000)`
    const out = await run(sandbox({ allowNetwork: { domains: ['localhost'] } }), process.execPath, ['-e', script])
    expect(out.ok).toBe(true)
    expect(Number(out.text.trim())).toBeGreaterThanOrEqual(300 - 256)
    expect(Number(out.text.trim())).toBeLessThan(300)
  })

  it('sandbox.close() cuts the way out of a command that is still running', async () => {
    received = []
    const box = new Sandbox({ rootDir: root, allowNetwork: { domains: ['localhost'] }, timeoutMs: 30_000 })
    const pending = run(box, 'sh', ['-c', `sleep 2; curl -sS --max-time 5 http://localhost:${httpPort}/after-close; echo "curl exit $?"`])
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    await box.close()
    const out = await pending
    expect(out.text).not.toContain('hello')
    expect(received.some((line) => line.includes('/after-close'))).toBe(false)
  })
})

describe.runIf(bwrapWorks)('allowNetwork: { domains } — lifecycle, options and surfaces', () => {
  /** The parent of `pid`, from `/proc/PID/stat`; 0 when gone. */
  const parentOf = (pid: number): number => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1')
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    } catch {
      return 0
    }
  }
  /** Whether `pid` was started by this process, through any number of parents (bwrap's). */
  const startedHere = (pid: number): boolean => {
    for (let at = parentOf(pid), hops = 0; at > 1 && hops < 32; at = parentOf(at), hops++) if (at === process.pid) return true
    return false
  }
  // This process's holders only: another test run on the machine has its own.
  const holderPids = (): number[] =>
    fs
      .readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .filter((pid) => {
        try {
          // The node process itself (bwrap's own argv holds the same source).
          const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
          return argv[0] === process.execPath && argv.some((arg) => arg.includes("message.op !== 'listen'"))
        } catch {
          return false
        }
      })
      .map(Number)
      .filter(startedHere)

  it('the namespace holder starts on first use and close() stops it; a later call is refused', async () => {
    const before = holderPids()
    const box = new Sandbox({ rootDir: root, allowNetwork: { domains: ['localhost'] } })
    expect(holderPids()).toEqual(before) // nothing started by construction
    expect((await run(box, 'true', [])).ok).toBe(true)
    const started = holderPids().filter((pid) => !before.includes(pid))
    expect(started).toHaveLength(1)
    await box.close()
    const deadline = Date.now() + 5_000
    while (holderPids().some((pid) => started.includes(pid)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    expect(holderPids().filter((pid) => started.includes(pid))).toEqual([])
    const after = await run(box, 'true', [])
    expect(after).toMatchObject({ ok: false, code: 'TOOL_SANDBOX_UNAVAILABLE' })
  })

  it('a holder that dies is replaced by the next call', async () => {
    const box = sandbox({ allowNetwork: { domains: ['localhost'] } })
    const before = holderPids()
    expect((await run(box, 'true', [])).ok).toBe(true)
    const mine = holderPids().filter((pid) => !before.includes(pid))
    expect(mine).toHaveLength(1)
    process.kill(mine[0]!, 'SIGKILL')
    // At once, before the kit has seen the holder's exit: the call must not fail on the dead one.
    const out = await run(box, 'curl', ['-sS', `http://localhost:${httpPort}/hello`])
    expect(out).toMatchObject({ ok: true, text: 'hello from loopback\n' })
    // And again once the exit is known.
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(await run(box, 'curl', ['-sS', `http://localhost:${httpPort}/hello`])).toMatchObject({ ok: true, text: 'hello from loopback\n' })
  })

  it('concurrent commands each get their own listener: every decision lands on the call that made it', async () => {
    const box = sandbox({ allowNetwork: { domains: ['localhost'] } })
    const outs = await Promise.all(
      ['a', 'b', 'c', 'd'].map((tag) => run(box, 'curl', ['-sS', `http://localhost:${httpPort}/hello?${tag}`, `http://localhost:${httpPort}/hello?${tag}2`])),
    )
    for (const out of outs) {
      expect(out.ok).toBe(true)
      expect(out.events).toHaveLength(2)
      expect(out.events.every((e) => e.callId === out.callId)).toBe(true)
    }
    expect(new Set(outs.map((o) => o.callId)).size).toBe(4)
  })

  it('refuses entries that are not hosts, and normalises the rest', () => {
    for (const bad of ['http://example.com', 'example.com/path', 'a b', '*.', '*example.com', 'exa mple.com', '']) {
      expect(() => new Sandbox({ allowNetwork: { domains: [bad] } }), bad).toThrow(/allowNetwork/)
    }
    const box = new Sandbox({ allowNetwork: { domains: ['Example.COM', '*.Example.com', 'example.com.', '::1', '*'] } })
    expect(box.allowNetwork).toEqual({ domains: ['example.com', '*.example.com', '::1', '*'] })
    expect(Object.isFrozen(box.allowNetwork)).toBe(true)
  })

  it('without the OS sandbox an allowlist cannot be enforced: bash refuses and runs nothing', async () => {
    const marker = path.join(root, `ran-${Date.now()}`)
    const out = await run(sandbox({ allowNetwork: { domains: ['localhost'] }, isolation: { filesystem: false } }), 'touch', [marker])
    expect(out).toMatchObject({ ok: false, code: 'TOOL_SANDBOX_UNAVAILABLE' })
    expect(fs.existsSync(marker)).toBe(false)
  })

  it('the bash description tells the model which hosts it may reach', () => {
    const box = sandbox({ allowNetwork: { domains: ['registry.npmjs.org', '*.github.com'] } })
    expect(createTools(box).bash.description).toContain('allows only: registry.npmjs.org, *.github.com')
  })

  it('TurnRunner reports network-request events, and the refusal note lands in the journal', async () => {
    const journalFile = path.join(trackedMkdtemp(path.join(os.tmpdir(), 'toolsmith-journal-')), 'j.jsonl')
    const events: TurnEvent[] = []
    const box = sandbox({ allowNetwork: { domains: [] } })
    const runner = new TurnRunner({
      model: scriptedModel([
        { toolCalls: [{ id: 'c1', name: 'bash', args: { cmd: 'curl', args: ['-sS', `http://localhost:${httpPort}/hello`] } }] },
        { text: 'done' },
      ]),
      tools: [createTools(box).bash],
      journal: new JsonlJournal(journalFile),
      onEvent: (event) => events.push(event),
    })
    await runner.run('fetch it')
    expect(events.filter((e) => e.type === 'network-request')).toEqual([
      expect.objectContaining({ type: 'network-request', toolName: 'bash', host: 'localhost', allowed: false }),
    ])
    expect(fs.readFileSync(journalFile, 'utf8')).toContain('The network proxy refused localhost')
  })

  it('CLI: --allow-domain lets curl reach a loopback server; without it the proxy refuses, naming the host', async () => {
    const callArgs = JSON.stringify({ cmd: 'curl', args: ['-s', `http://localhost:${httpPort}/hello`] })
    const allowedRun = await runCli(['call', 'bash', callArgs, '--root', root, '--allow-domain', 'localhost'])
    expect(allowedRun).toMatchObject({ code: 0, stdout: 'hello from loopback\n' })
    const refusedRun = await runCli(['call', 'bash', callArgs, '--root', root])
    expect(refusedRun.stdout).toContain(`localhost:${httpPort} was refused`)
    expect(refusedRun.stdout).toContain('--allow-domain localhost')
    const conflict = await runCli(['call', 'bash', callArgs, '--allow-domain', 'localhost', '--allow-network'])
    expect(conflict.code).toBe(2)
    expect(conflict.stderr).toContain('--allow-domain and --allow-network exclude each other')
    const bad = await runCli(['call', 'bash', callArgs, '--allow-domain', 'http://x'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/^toolsmith: --allow-domain must be a host name/)
  })
})
