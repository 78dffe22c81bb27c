// Two `toolsmith mcp` server processes behind one PostgreSQL journal (as two
// replicas of a server behind a load balancer would be) get the same keyed
// `tools/call` at the same time: the claim lets exactly one run the tool, and
// both answer with its result.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MCP_IDEMPOTENCY_KEY_META, PostgresJournal } from '../../lib/index.js'
import { CLI_COMMAND } from '../cli/support/run_cli.js'
import { startPostgres, type TestPostgres } from '../support/postgres.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'

type CallResult = { isError?: boolean; content: { text?: string }[] }
const text = (result: unknown): string => (result as CallResult).content.map((c) => c.text ?? '').join('')

describe('two toolsmith mcp processes sharing one PostgreSQL journal', () => {
  let pg: TestPostgres
  let root: string
  const clients: Client[] = []

  beforeAll(async () => {
    pg = await startPostgres()
    const journal = new PostgresJournal(pg.url)
    await journal.migrate()
    await journal.close()
    root = join(trackedMkdtemp(join(tmpdir(), 'toolsmith-mcp-shared-')), 'root')
    mkdirSync(root)
    writeFileSync(join(root, 'log.txt'), 'log\n')
    for (const name of ['replica-a', 'replica-b']) {
      const client = new Client({ name, version: '1.0.0' })
      await client.connect(
        new StdioClientTransport({
          command: CLI_COMMAND.command,
          // The URL from the environment, as a deployment keeps the password off the command line.
          args: [...CLI_COMMAND.args, 'mcp', '--root', root, '--journal', 'postgres'],
          env: { ...(process.env as Record<string, string>), TOOLSMITH_JOURNAL_URL: pg.url },
          stderr: 'ignore',
        }),
      )
      clients.push(client)
    }
  }, 180_000)

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined)
    await pg?.stop()
  })

  it('runs the tool once for the same key sent to both at once; both answer its result', async () => {
    // edit appends a line per run: the file counts the handler's runs.
    const request = {
      name: 'edit',
      arguments: { path: 'log.txt', patch: '@@ -1 +1,2 @@\n log\n+ran\n' },
      _meta: { [MCP_IDEMPOTENCY_KEY_META]: 'order-4711' },
    }
    const answers = await Promise.all(clients.map((client) => client.callTool(request)))
    expect(answers.map((answer) => [(answer as CallResult).isError === true, text(answer)])).toEqual([
      [false, 'ok'],
      [false, 'ok'],
    ])
    expect(readFileSync(join(root, 'log.txt'), 'utf8')).toBe('log\nran\n')

    const journal = new PostgresJournal(pg.url)
    try {
      const rows = await journal.list()
      expect(rows).toHaveLength(2)
      expect(rows.map((row) => row.replayed).sort()).toEqual([false, true])
      expect(new Set(rows.map((row) => row.idempotencyKey)).size).toBe(1)
    } finally {
      await journal.close()
    }

    // Later, the same key again (a client retrying after a lost answer): still the recorded result.
    expect(text(await clients[1]!.callTool(request))).toBe('ok')
    expect(readFileSync(join(root, 'log.txt'), 'utf8')).toBe('log\nran\n')
  })
})
