/**
 * The allowlist proxy (`allowNetwork: { domains }`): what it costs a command
 * against the same command with the whole network allowed — 1 GiB through
 * one connection (wall and the kit's peak RSS growth), and 200 small
 * requests from one command.
 *
 * @module
 */
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { Sandbox, createDispatchContext, createTools } from '../../lib/index.js'
import { startLoopbackServer } from '../children/network_scenarios.js'
import { BENCH_TMP } from '../fixtures.js'
import { interleave, metric, timed, type Arm, type Measurement } from '../harness.js'
import { inChild } from '../memory.js'
import { makeRow, type Figure, type Row } from '../figure.js'

const GIB = 2 ** 30

export const networkProxyFigure: Figure = {
  id: 'proxy',
  title: 'bash through the allowlist proxy vs the whole network',
  async run(config) {
    const probe = new Sandbox({ allowNetwork: { domains: ['localhost'] } })
    const reason = await probe.networkGateway()
    if (typeof reason === 'string') throw new Error(`the allowlist proxy cannot run here: ${reason}`)
    await probe.close()

    const bytes = config.quick ? 256 * 2 ** 20 : GIB
    const size = bytes >= GIB ? `${bytes / GIB} GiB` : `${bytes / 2 ** 20} MiB`
    const scaled = config.quick ? `; quick: ${size} instead of 1 GiB` : ''
    const transfers: Record<'subject' | 'baseline' | 'floor', Arm> = {
      subject: () => inChild('proxy-transfer:subject', bytes),
      baseline: () => inChild('proxy-transfer:baseline', bytes),
      floor: () => inChild('proxy-transfer:floor', bytes),
    }
    const big: Record<'subject' | 'baseline' | 'floor', Measurement[]> = await interleave(transfers, { warmup: 0, samples: config.quick ? 3 : 5 })

    const requests = config.quick ? 50 : 200
    const server = await startLoopbackServer()
    const rootDir = path.join(BENCH_TMP, 'proxy-root')
    mkdirSync(rootDir, { recursive: true })
    const proxied = new Sandbox({ rootDir, allowNetwork: { domains: ['localhost'] } })
    const open = new Sandbox({ rootDir, allowNetwork: true })
    // One curl, many URLs (curl's own globbing): it keeps one connection (to the proxy, or to the server) alive across them.
    const args = ['-sSf', `http://localhost:${server.port}/small?[1-${requests}]`]
    const viaProxy = createTools(proxied).bash.executor(createDispatchContext())
    const direct = createTools(open).bash.executor(createDispatchContext())
    let small: Record<'subject' | 'baseline', Measurement[]>
    try {
      small = await interleave(
        { subject: () => timed(() => viaProxy({ cmd: 'curl', args })), baseline: () => timed(() => direct({ cmd: 'curl', args })) },
        { warmup: 2, samples: config.quick ? 5 : 11 },
      )
    } finally {
      server.stop()
      await proxied.close()
    }
    const rows: Row[] = [
      makeRow({
        id: 'proxy-transfer-wall',
        figure: `proxy: ${size} to a command in the sandbox: wall`,
        subject: "bash curl -o /dev/null http://localhost:PORT/… with allowNetwork: { domains: ['localhost'] } (CONNECT-less plain HTTP through the kit's proxy)",
        baseline: 'the same bash call with allowNetwork: true (no namespace, no proxy)',
        unit: 'ms',
        subjectValues: metric(big.subject, 'ms'),
        baselineValues: metric(big.baseline, 'ms'),
        target: { kind: 'ratio', max: 1.5 },
        note: `server in its own process; one child process per sample${scaled}`,
      }),
      makeRow({
        id: 'proxy-transfer-floor',
        figure: `floor: a bare Node relay, ${size}: wall`,
        subject: 'curl (spawned directly) → a net.Server piping each connection to the server → the server',
        baseline: 'the same bash call with allowNetwork: true',
        unit: 'ms',
        subjectValues: metric(big.floor, 'ms'),
        baselineValues: metric(big.baseline, 'ms'),
        target: { kind: 'report' },
        note: `reference, not the kit: what any relay in a Node process costs${scaled}`,
      }),
      makeRow({
        id: 'proxy-transfer-rss',
        figure: `proxy: ${size} to a command in the sandbox: peak RSS growth`,
        subject: 'the kit process while the proxy carries the transfer',
        baseline: 'the same with allowNetwork: true',
        unit: 'MB',
        subjectValues: metric(big.subject, 'rssMB'),
        baselineValues: metric(big.baseline, 'rssMB'),
        target: { kind: 'absolute', max: 64 },
        note: `MiB above the RSS just before the transfer, worst sample must stay ≤ 64${scaled}`,
      }),
      makeRow({
        id: 'proxy-small',
        figure: `proxy: ${requests} small requests from one command`,
        subject: `bash curl with ${requests} URLs on a listed host, through the proxy (one kept-alive connection)`,
        baseline: 'the same bash call with allowNetwork: true',
        unit: 'ms',
        subjectValues: metric(small.subject, 'ms'),
        baselineValues: metric(small.baseline, 'ms'),
        target: { kind: 'ratio', max: 1.5 },
        note: `ms per command, spawn included${config.quick ? `; quick: ${requests} requests instead of 200` : ''}`,
      }),
    ]
    return rows
  },
}
