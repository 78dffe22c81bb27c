// `toolsmith mcp` on the 2026-07-28 revision, beyond listing and calling: approvals
// through `input_required` (the v2 client answers them with its elicitation
// handler), the stdio transport's answers to malformed lines, progress,
// cancellation and the idempotency key, as a v2 client pinned to 2026-07-28 sees them.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client, type ClientOptions, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { trackedMkdtemp } from '../support/temp_dirs.js'
import { startHttp, stopHttp } from './support/mcp_http_cli.js'
import { CLI_COMMAND } from './support/run_cli.js'

const MODERN = { versionNegotiation: { mode: { pin: '2026-07-28' } } } satisfies ClientOptions

/** Writes to `asked*` and `sh` commands are put to the client; everything else is allowed. */
const POLICY = {
  default: 'allow',
  rules: [
    { name: 'ask first', tool: 'write', match: { paths: ['asked*'] }, decision: 'ask' },
    { name: 'ask before sh', tool: 'bash', match: { commands: ['sh'] }, decision: 'ask' },
  ],
}

type Answer = { isError: boolean; text: string }

function fresh(prefix: string): { root: string; journal: string; policy: string } {
  const root = realpathSync(trackedMkdtemp(join(tmpdir(), prefix)))
  const dir = realpathSync(trackedMkdtemp(join(tmpdir(), `${prefix}state-`)))
  const policy = join(dir, 'policy.json')
  writeFileSync(policy, JSON.stringify(POLICY))
  return { root, journal: join(dir, 'calls.jsonl'), policy }
}

/** A v2 client pinned to 2026-07-28, with an elicitation handler answering `answer` (or no elicitation capability). */
async function modernClient(transport: StdioClientTransport | StreamableHTTPClientTransport, answer: 'accept' | 'decline' | undefined) {
  const client = new Client({ name: 'modern-spec', version: '1.0.0' }, { ...MODERN, capabilities: answer === undefined ? {} : { elicitation: { form: {} } } })
  const asked: string[] = []
  if (answer !== undefined) {
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params.message)
      return answer === 'accept' ? { action: 'accept', content: {} } : { action: 'decline' }
    })
  }
  await client.connect(transport)
  expect(client.getProtocolEra()).toBe('modern')
  const call = async (name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<Answer> => {
    const result = (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as { isError?: boolean; content: { text: string }[] }
    return { isError: result.isError === true, text: result.content.map((block) => block.text).join('') }
  }
  return { client, asked, call }
}

function stdio(root: string, ...args: string[]): StdioClientTransport {
  return new StdioClientTransport({ command: CLI_COMMAND.command, args: [...CLI_COMMAND.args, 'mcp', '--root', root, ...args], stderr: 'ignore' })
}

/** The journal's call rows (claims left out): tool, status, and the permission decision with its note. */
function journalRows(file: string): { toolName: string; status: string; replayed: boolean; decision?: string; approver?: string; note?: string }[] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((row) => row.$claim === undefined)
    .map((row) => {
      const permission = row.permissionJson ? (JSON.parse(row.permissionJson as string) as Record<string, string>) : {}
      return {
        toolName: row.toolName as string,
        status: row.status as string,
        replayed: row.replayed as boolean,
        decision: permission.decision,
        approver: permission.approver,
        ...(permission.note ? { note: permission.note } : {}),
      }
    })
}

describe('toolsmith mcp --policy on 2026-07-28: an ask goes back as input_required', () => {
  it('accepted: the client is asked once, the call runs once; the journal shows the asking round, then the call', async () => {
    const { root, journal, policy } = fresh('toolsmith-modern-accept-')
    const { client, asked, call } = await modernClient(stdio(root, '--policy', policy, '--journal', journal), 'accept')
    try {
      expect(await call('write', { path: 'free.txt', content: 'x' })).toEqual({ isError: false, text: 'ok' })
      expect(asked).toEqual([])
      expect(await call('write', { path: 'asked.txt', content: 'approved' })).toEqual({ isError: false, text: 'ok' })
      expect(asked).toEqual(['Permission rule rules[0] ("ask first") asks before write "asked.txt". Allow it?'])
      expect(readFileSync(join(root, 'asked.txt'), 'utf8')).toBe('approved')
    } finally {
      await client.close()
    }
    // The first round stops at the gate (the answer is the question): it is
    // recorded as a denial whose note says the client was asked; the retry
    // carrying the client's answer is the call that ran.
    expect(journalRows(journal).filter((row) => row.toolName === 'write')).toEqual([
      { toolName: 'write', status: 'success', replayed: false, decision: 'allow', approver: 'policy' },
      {
        toolName: 'write',
        status: 'error',
        replayed: false,
        decision: 'deny',
        approver: 'mcp-elicitation',
        note: 'asked the MCP client (input_required); the call runs when it retries with the answer',
      },
      { toolName: 'write', status: 'success', replayed: false, decision: 'allow', approver: 'mcp-elicitation' },
    ])
  })

  it('a keyed call is asked once and runs once; its repeat replays the result without asking', async () => {
    const { root, journal, policy } = fresh('toolsmith-modern-keyed-')
    const { client, asked, call } = await modernClient(stdio(root, '--policy', policy, '--journal', journal), 'accept')
    const append = { cmd: 'sh', args: ['-c', 'echo x >> appended.txt; wc -l < appended.txt'] }
    const meta = { 'io.github.toolsmith/idempotency-key': 'keyed-ask-1' }
    try {
      expect(await call('bash', append, meta)).toEqual({ isError: false, text: '1\n' })
      expect(await call('bash', append, meta)).toEqual({ isError: false, text: '1\n' })
      expect(asked).toHaveLength(1)
      expect(readFileSync(join(root, 'appended.txt'), 'utf8')).toBe('x\n')
    } finally {
      await client.close()
    }
    expect(journalRows(journal).map((row) => [row.status, row.replayed, row.approver])).toEqual([
      ['error', false, 'mcp-elicitation'],
      ['success', false, 'mcp-elicitation'],
      ['success', true, 'mcp-elicitation'],
    ])
  })

  it("accepted with the form's remember box: later calls the rule covers are not asked again", async () => {
    const { root, policy } = fresh('toolsmith-modern-remember-')
    const client = new Client({ name: 'modern-spec', version: '1.0.0' }, { ...MODERN, capabilities: { elicitation: { form: {} } } })
    let asked = 0
    client.setRequestHandler('elicitation/create', async () => {
      asked++
      return { action: 'accept', content: { remember: true } }
    })
    await client.connect(stdio(root, '--policy', policy))
    try {
      for (const path of ['asked-1.txt', 'asked-2.txt']) {
        const result = (await client.callTool({ name: 'write', arguments: { path, content: path } })) as { isError?: boolean }
        expect(result.isError).toBeFalsy()
        expect(readFileSync(join(root, path), 'utf8')).toBe(path)
      }
      expect(asked).toBe(1)
    } finally {
      await client.close()
    }
  })

  it('declined: TOOL_DENIED saying the client declined, nothing written', async () => {
    const { root, policy } = fresh('toolsmith-modern-decline-')
    const { client, asked, call } = await modernClient(stdio(root, '--policy', policy), 'decline')
    try {
      const answer = await call('write', { path: 'asked.txt', content: 'no' })
      expect(answer.isError).toBe(true)
      expect(answer.text).toMatch(/^TOOL_DENIED: Permission denied for write "asked\.txt": rules\[0\] \("ask first"\) asks for approval, .*the client answered decline/)
      expect(asked).toHaveLength(1)
      expect(existsSync(join(root, 'asked.txt'))).toBe(false)
    } finally {
      await client.close()
    }
  })

  it('a client without the elicitation capability: TOOL_DENIED saying it cannot be asked, nothing written', async () => {
    const { root, policy } = fresh('toolsmith-modern-nocap-')
    const { client, call } = await modernClient(stdio(root, '--policy', policy), undefined)
    try {
      const answer = await call('write', { path: 'asked.txt', content: 'no' })
      expect(answer.isError).toBe(true)
      expect(answer.text).toMatch(/^TOOL_DENIED: .*the MCP client does not support elicitation, so nobody could be asked/)
      expect(existsSync(join(root, 'asked.txt'))).toBe(false)
    } finally {
      await client.close()
    }
  })

  it('over Streamable HTTP too: accepted runs once; a 2025 client there is denied, saying why', async () => {
    const { root, policy } = fresh('toolsmith-modern-http-')
    const server = await startHttp(['--root', root, '--policy', policy])
    try {
      const modern = await modernClient(new StreamableHTTPClientTransport(new URL(server.url)), 'accept')
      try {
        expect(await modern.call('write', { path: 'asked.txt', content: 'approved' })).toEqual({ isError: false, text: 'ok' })
        expect(modern.asked).toHaveLength(1)
        expect(readFileSync(join(root, 'asked.txt'), 'utf8')).toBe('approved')
      } finally {
        await modern.client.close()
      }
      // A 2025 client over stateless HTTP has no channel for elicitation/create.
      const legacy = new Client({ name: 'legacy-spec', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } })
      let asked = 0
      legacy.setRequestHandler('elicitation/create', async () => {
        asked++
        return { action: 'accept', content: {} }
      })
      await legacy.connect(new StreamableHTTPClientTransport(new URL(server.url)))
      try {
        const result = (await legacy.callTool({ name: 'write', arguments: { path: 'asked-legacy.txt', content: 'x' } })) as { isError?: boolean; content: { text: string }[] }
        expect(result.isError).toBe(true)
        expect(result.content[0]!.text).toMatch(/^TOOL_DENIED: .*could not be asked.*2026-07-28 client, or stdio, can answer/)
        expect(asked).toBe(0)
        expect(existsSync(join(root, 'asked-legacy.txt'))).toBe(false)
      } finally {
        await legacy.close()
      }
    } finally {
      await stopHttp(server.child)
    }
  })
})

describe('toolsmith mcp on a 2026-07-28 connection', () => {
  let root: string
  let journal: string
  let session: Awaited<ReturnType<typeof modernClient>>
  beforeAll(async () => {
    ;({ root, journal } = fresh('toolsmith-modern-wire-'))
    session = await modernClient(stdio(root, '--journal', journal, '--timeout-ms', '60000'), 'accept')
  })
  afterAll(async () => {
    await session?.client.close()
  })

  it('sends progress for a slow call when the client asks (onprogress)', async () => {
    const progress: { progress: number; message?: string }[] = []
    const result = await session.client.callTool(
      { name: 'bash', arguments: { cmd: 'sh', args: ['-c', 'sleep 2.5; echo done'] } },
      { onprogress: (update) => progress.push(update) },
    )
    expect(result.content).toEqual([{ type: 'text', text: 'done\n' }])
    expect(progress.length).toBeGreaterThanOrEqual(1)
    expect(progress[0]).toMatchObject({ progress: 1, message: expect.stringMatching(/^bash running for \d/) })
  })

  it('cancelling the request (the client aborts) kills the running command', async () => {
    await expectCancelKills(session.client, root, journal)
  })

  it('a request keyed with _meta["io.github.toolsmith/idempotency-key"] runs once; its repeat replays the result', async () => {
    const meta = { 'io.github.toolsmith/idempotency-key': 'modern-append-1' }
    const append = { cmd: 'sh', args: ['-c', 'echo x >> appended.txt; wc -l < appended.txt'] }
    expect(await session.call('bash', append, meta)).toEqual({ isError: false, text: '1\n' })
    expect(await session.call('bash', append, meta)).toEqual({ isError: false, text: '1\n' })
    expect(readFileSync(join(root, 'appended.txt'), 'utf8')).toBe('x\n')
    expect(journalRows(journal).filter((row) => row.toolName === 'bash' && row.replayed)).toHaveLength(1)
    // A malformed key is refused, not ignored: the client asked for a durable call.
    await expect(session.call('bash', append, { 'io.github.toolsmith/idempotency-key': '' })).rejects.toThrow(/idempotency-key/)
  })
})

describe('toolsmith mcp --http on a 2026-07-28 client', () => {
  it('sends progress for a slow call, and cancelling the request kills the running command', async () => {
    const { root, journal } = fresh('toolsmith-modern-http-wire-')
    const server = await startHttp(['--root', root, '--journal', journal, '--timeout-ms', '60000'])
    const { client } = await modernClient(new StreamableHTTPClientTransport(new URL(server.url)), undefined)
    try {
      const progress: { progress: number }[] = []
      const slow = await client.callTool(
        { name: 'bash', arguments: { cmd: 'sh', args: ['-c', 'sleep 2.5; echo done'] } },
        { onprogress: (update) => progress.push(update) },
      )
      expect(slow.content).toEqual([{ type: 'text', text: 'done\n' }])
      expect(progress[0]).toMatchObject({ progress: 1 })

      await expectCancelKills(client, root, journal)
    } finally {
      await client.close()
      await stopHttp(server.child)
    }
  })
})

describe('toolsmith mcp --http on a 2025 client (the documented limit)', () => {
  it("cancelling does not reach the call: the stateless endpoint has no session to find it by, so it runs to its end", async () => {
    const { root, journal } = fresh('toolsmith-legacy-http-cancel-')
    const server = await startHttp(['--root', root, '--journal', journal, '--timeout-ms', '60000'])
    const client = new Client({ name: 'legacy-spec', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)))
    try {
      expect(client.getProtocolEra()).toBe('legacy')
      const controller = new AbortController()
      let started!: () => void
      const running = new Promise<void>((resolve) => (started = resolve))
      const call = client.callTool(
        { name: 'bash', arguments: { cmd: 'sh', args: ['-c', 'sleep 3; echo late > late.txt'] } },
        { signal: controller.signal, onprogress: () => started() },
      )
      await running
      controller.abort()
      await expect(call).rejects.toThrow(/abort/i)
      const deadline = Date.now() + 30_000
      while (!existsSync(join(root, 'late.txt')) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
      expect(existsSync(join(root, 'late.txt'))).toBe(true)
    } finally {
      await client.close()
      await stopHttp(server.child)
    }
  })
})

describe('toolsmith mcp over a raw pipe, opened with server/discover (2026-07-28)', () => {
  it('answers malformed lines as on a 2025 connection, and keeps serving', async () => {
    const root = realpathSync(trackedMkdtemp(join(tmpdir(), 'toolsmith-modern-raw-')))
    writeFileSync(join(root, 'notes.txt'), 'alpha\n')
    const child = spawn(CLI_COMMAND.command, [...CLI_COMMAND.args, 'mcp', '--root', root], { stdio: ['pipe', 'pipe', 'ignore'] })
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    }
    const lines = [
      { id: 1, method: 'server/discover', params: { _meta: envelope } },
      '{not json',
      { id: 2, method: 'tools/call', params: 5 },
      { id: 3, method: 'tools/call', params: { name: 'read', arguments: 7, _meta: envelope } },
      { id: 4, method: 'tools/call', params: { name: 'nope', arguments: {}, _meta: envelope } },
      { id: 5, method: 'tools/call', params: { name: 'read', arguments: { path: 'notes.txt' }, _meta: envelope } },
    ]
    const stdout: string[] = []
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => stdout.push(chunk))
    const exited = new Promise((resolve) => child.on('exit', resolve))
    child.stdin.end(`${lines.map((line) => (typeof line === 'string' ? line : JSON.stringify({ jsonrpc: '2.0', ...line }))).join('\n')}\n`)
    await exited
    const answers = stdout.join('').trim().split('\n').map((line) => JSON.parse(line) as { id: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } })
    const byId = (id: unknown) => answers.find((answer) => answer.id === id)
    expect(byId(1)?.result).toMatchObject({ supportedVersions: ['2026-07-28'] })
    expect(byId(null)?.error).toMatchObject({ code: -32700, message: expect.stringMatching(/^Parse error/) })
    expect(byId(2)?.error).toMatchObject({ code: -32602, message: expect.stringContaining('must be an object') })
    expect(byId(3)?.error).toMatchObject({ code: -32602, message: expect.stringContaining('"params.arguments" must be an object') })
    expect(byId(4)?.error).toMatchObject({ code: -32602, message: 'Unknown tool: nope' })
    expect(byId(5)?.result).toMatchObject({ content: [{ type: 'text', text: 'alpha\n' }] })
    expect(answers).toHaveLength(6)
  })
})

/**
 * Start a 60 s command, abort the request once its first progress arrives,
 * and check the server killed it: the journal records TOOL_ABORTED and the
 * command never wrote its file.
 */
async function expectCancelKills(client: Pick<Client, 'callTool'>, root: string, journal: string): Promise<void> {
  const controller = new AbortController()
  let started!: () => void
  const running = new Promise<void>((resolve) => (started = resolve))
  const call = client.callTool(
    { name: 'bash', arguments: { cmd: 'sh', args: ['-c', 'sleep 60; echo late > late.txt'] } },
    // The first progress notification says the command is running.
    { signal: controller.signal, onprogress: () => started() },
  )
  await running
  controller.abort()
  await expect(call).rejects.toThrow(/abort/i)
  // The server records the call as aborted once it has killed the process tree.
  const deadline = Date.now() + 30_000
  const aborted = () => readFileSync(journal, 'utf8').includes('TOOL_ABORTED')
  while (!aborted() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
  expect(aborted()).toBe(true)
  expect(existsSync(join(root, 'late.txt'))).toBe(false)
}
