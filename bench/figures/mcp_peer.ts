/**
 * `toolsmith mcp` against the official MCP filesystem server
 * (`@modelcontextprotocol/server-filesystem`), both spawned over stdio and
 * driven by the MCP SDK's client, interleaved in one run: the start-up an MCP
 * client waits for (spawn, `initialize`, `tools/list`, from the built bin a
 * user runs), and the per-call cost a model's most frequent calls pay end to
 * end (client, JSON-RPC over pipes, server, tool, file system).
 *
 * @module
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { open, rename } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { BENCH_TMP } from '../fixtures.js'
import { interleave, metric, timed } from '../harness.js'
import { makeRow, skippedRow, type Figure, type Row } from '../figure.js'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

/** A 600-byte source file, as in the measurements. */
function smallFile(): string {
  let text = ''
  for (let i = 0; text.length < 600; i++) text += `export const value${i} = compute(${i}, 'item-${i}')\n`
  // Cut to 600 bytes on a line end: the last line is shortened, never split.
  return `${text.slice(0, 599).replace(/\n?$/, '')}\n`
}

/**
 * What the durability step of an atomic write costs on this disk, with no
 * server around it: temp file + write + rename, with and without
 * `fdatasync` before the rename and the directory's `fsync` after it
 * (toolsmith's edit does both, the official server's neither).
 */
async function atomicWrite(dir: string, data: string, sync: boolean): Promise<void> {
  const temp = path.join(dir, `.edit.ts.${sync ? 's' : 'n'}.tmp`)
  const handle = await open(temp, 'w')
  try {
    await handle.writeFile(data)
    if (sync) await handle.datasync()
  } finally {
    await handle.close()
  }
  await rename(temp, path.join(dir, sync ? 'synced.ts' : 'unsynced.ts'))
  if (!sync) return
  // And the directory, so the rename itself is on disk (what writeFileAtomic does).
  const directory = await open(dir, 'r')
  try {
    await directory.sync()
  } finally {
    await directory.close()
  }
}

/** One connected client per server. */
interface Peer {
  client: Client
  read(file: string): Promise<string>
  /** Replace line 2 of `file`, `from` → `to`. */
  edit(file: string, from: string, to: string): Promise<void>
}

async function connect(command: string, args: string[], name: string): Promise<Client> {
  const client = new Client({ name: `bench-${name}`, version: '1.0.0' })
  await client.connect(new StdioClientTransport({ command, args, cwd: ROOT, stderr: 'ignore' }))
  return client
}

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const content = result.content as { type: string; text?: string }[]
  if (result.isError) throw new Error(`tool call failed: ${content[0]?.text ?? ''}`)
  return content[0]?.text ?? ''
}

async function toolsmithPeer(root: string): Promise<Peer> {
  const client = await connect(process.execPath, ['--import', 'tsx', path.join(ROOT, 'lib/cli/main.ts'), 'mcp', '--root', root], 'toolsmith')
  return {
    client,
    read: async (file) => textOf(await client.callTool({ name: 'read', arguments: { path: file } })),
    edit: async (file, from, to) => {
      textOf(await client.callTool({ name: 'edit', arguments: { path: file, patch: `@@ -2,1 +2,1 @@\n-${from}\n+${to}\n` } }))
    },
  }
}

/** The built CLI: what `npx toolsmith` and an installed bin run. */
const TOOLSMITH_BIN = path.join(ROOT, 'dist/cli/main.js')
const OFFICIAL_SERVER = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js')

/**
 * One start-up: spawn the server, `initialize` (with the `initialized`
 * notification) and `tools/list`, as a client does before its first call.
 * The process is closed after the sample, outside the timing.
 */
async function startup(args: string[], tools: number): Promise<{ ms: number }> {
  const start = process.hrtime.bigint()
  const client = await connect(process.execPath, args, 'startup')
  const listed = await client.listTools()
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  await client.close()
  if (listed.tools.length < tools) throw new Error(`the server listed ${listed.tools.length} tools, expected ${tools} or more`)
  return { ms }
}

async function startupRow(root: string, quick: boolean): Promise<Row> {
  const figure = 'MCP: start-up (spawn + initialize + tools/list)'
  const target = { kind: 'ratio', max: 1.0 } as const
  if (!existsSync(TOOLSMITH_BIN)) return skippedRow('mcp-startup', figure, target, 'dist/ is missing: run `npm run build` first')
  const samples = await interleave(
    {
      baseline: () => startup([OFFICIAL_SERVER, root], 10),
      subject: () => startup([TOOLSMITH_BIN, 'mcp', '--root', root], 5),
    },
    { warmup: 1, samples: quick ? 7 : 21 },
  )
  return makeRow({
    id: 'mcp-startup',
    figure,
    subject: 'node dist/cli/main.js mcp --root DIR (the built bin): spawn, initialize, tools/list (5 tools)',
    baseline: 'node @modelcontextprotocol/server-filesystem DIR: spawn, initialize, tools/list (14 tools)',
    unit: 'ms',
    subjectValues: metric(samples.subject, 'ms'),
    baselineValues: metric(samples.baseline, 'ms'),
    target,
    note: 'ms from spawn to the tools/list answer, SDK client over stdio, one new process per sample, interleaved; the machine\'s load is printed above the table',
  })
}

async function officialPeer(root: string): Promise<Peer> {
  const client = await connect(process.execPath, [OFFICIAL_SERVER, root], 'official')
  const abs = (file: string) => path.join(root, file)
  return {
    client,
    read: async (file) => textOf(await client.callTool({ name: 'read_text_file', arguments: { path: abs(file) } })),
    edit: async (file, from, to) => {
      textOf(await client.callTool({ name: 'edit_file', arguments: { path: abs(file), edits: [{ oldText: from, newText: to }] } }))
    },
  }
}

export const mcpPeerFigure: Figure = {
  id: 'mcp',
  title: 'toolsmith mcp vs the official MCP filesystem server, over stdio',
  async run(config) {
    const text = smallFile()
    const roots = { toolsmith: path.join(BENCH_TMP, 'mcp-toolsmith'), official: path.join(BENCH_TMP, 'mcp-official') }
    for (const root of Object.values(roots)) {
      mkdirSync(root, { recursive: true })
      writeFileSync(path.join(root, 'small.ts'), text)
      writeFileSync(path.join(root, 'edit.ts'), text)
    }
    const secondLine = text.split('\n')[1]!
    const edited = secondLine.replace('compute', 'recompute')
    // First, while no server of this figure is running yet.
    const startupRows = [await startupRow(roots.toolsmith, config.quick)]
    const peers = { toolsmith: await toolsmithPeer(roots.toolsmith), official: await officialPeer(roots.official) }
    try {
      for (const peer of Object.values(peers)) {
        if ((await peer.read('small.ts')) !== text) throw new Error('a server read something else than the file')
      }
      const reads = config.quick ? 50 : 200
      const edits = config.quick ? 25 : 100
      const waves = 10
      const plan = { warmup: 2, samples: config.quick ? 5 : 15 }
      const state = { toolsmith: false, official: false }
      // Each edit flips line 2 between its two versions, so every call applies a real change.
      const flip = (key: keyof typeof peers) => {
        state[key] = !state[key]
        return state[key] ? peers[key].edit('edit.ts', secondLine, edited) : peers[key].edit('edit.ts', edited, secondLine)
      }
      const wave = (peer: Peer) => Promise.all(Array.from({ length: 20 }, () => peer.read('small.ts')))
      const batch = async (fn: () => Promise<unknown>, n: number) => ({ ms: (await timed(fn, n)).ms * n })
      const readSamples = await interleave(
        { baseline: () => batch(() => peers.official.read('small.ts'), reads), subject: () => batch(() => peers.toolsmith.read('small.ts'), reads) },
        plan,
      )
      const editSamples = await interleave(
        { baseline: () => batch(() => flip('official'), edits), subject: () => batch(() => flip('toolsmith'), edits) },
        plan,
      )
      const waveSamples = await interleave(
        { baseline: () => batch(() => wave(peers.official), waves), subject: () => batch(() => wave(peers.toolsmith), waves) },
        plan,
      )
      const syncDir = path.join(BENCH_TMP, 'mcp-sync')
      mkdirSync(syncDir, { recursive: true })
      const syncSamples = await interleave(
        { baseline: () => batch(() => atomicWrite(syncDir, text, false), edits), subject: () => batch(() => atomicWrite(syncDir, text, true), edits) },
        plan,
      )
      const server = `toolsmith mcp --root DIR (node --import tsx lib/cli/main.ts)`
      const official = `@modelcontextprotocol/server-filesystem DIR`
      const rows: Row[] = [
        ...startupRows,
        makeRow({
          id: 'mcp-read',
          figure: `MCP: read of a ${text.length}-byte file ×${reads}`,
          subject: `${server}: tools/call read { path }`,
          baseline: `${official}: tools/call read_text_file { path }`,
          unit: 'ms',
          subjectValues: metric(readSamples.subject, 'ms'),
          baselineValues: metric(readSamples.baseline, 'ms'),
          target: { kind: 'ratio', max: 1.0 },
          note: `ms per ${reads} sequential calls, SDK client over stdio`,
        }),
        makeRow({
          id: 'mcp-edit',
          figure: `MCP: edit of a ${text.length}-byte file ×${edits}`,
          subject: `${server}: tools/call edit { path, patch } (one-line hunk; atomic write, fdatasync + directory fsync)`,
          baseline: `${official}: tools/call edit_file { path, edits: [{ oldText, newText }] } (temp file + rename, no fsync)`,
          unit: 'ms',
          subjectValues: metric(editSamples.subject, 'ms'),
          baselineValues: metric(editSamples.baseline, 'ms'),
          target: { kind: 'ratio', max: 1.1 },
          note: `ms per ${edits} sequential calls, each flipping line 2`,
        }),
        makeRow({
          id: 'mcp-concurrent',
          figure: `MCP: 20 concurrent reads ×${waves}`,
          subject: `${server}: 20 reads in flight at once`,
          baseline: `${official}: 20 read_text_file in flight at once`,
          unit: 'ms',
          subjectValues: metric(waveSamples.subject, 'ms'),
          baselineValues: metric(waveSamples.baseline, 'ms'),
          target: { kind: 'ratio', max: 1.0 },
          note: `ms per ${waves} waves of 20 concurrent calls`,
        }),
        makeRow({
          id: 'mcp-edit-sync',
          figure: `floor: atomic write of ${text.length} bytes ×${edits}, durable vs not`,
          subject: 'open temp + write + fdatasync + close + rename + fsync of the directory (in this process, no server)',
          baseline: 'open temp + write + close + rename',
          unit: 'ms',
          subjectValues: metric(syncSamples.subject, 'ms'),
          baselineValues: metric(syncSamples.baseline, 'ms'),
          target: { kind: 'report' },
          note: `reference, not the kit: subject − baseline is what durability costs ${edits} edits on this disk`,
        }),
      ]
      return rows
    } finally {
      await Promise.all(Object.values(peers).map((peer) => peer.client.close().catch(() => undefined)))
    }
  },
}
