import { trackedMkdtemp } from '../support/temp_dirs.js'
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { appendFileSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import {
  JsonlJournal,
  SqliteJournal,
  outputToJson,
  type ToolCallJournal,
  type ToolCallRow,
} from '../../lib/index.js'

const FIELDS = [
  'attempt', 'callId', 'errorJson', 'finishedAtMs', 'idempotencyKey', 'inputJson', 'iteration', 'nodeId',
  'outputJson', 'permissionJson', 'replayed', 'runId', 'seq', 'startedAtMs', 'status', 'toolName',
]

function tempFile(name: string): string {
  return join(trackedMkdtemp(join(tmpdir(), 'toolsmith-journal-')), name)
}

function row(overrides: Partial<ToolCallRow> = {}): ToolCallRow {
  return {
    runId: 'r1', nodeId: 'n1', iteration: 0, attempt: 1, seq: 0, toolName: 'read',
    inputJson: '{"path":"a.txt"}', outputJson: '"hello"', startedAtMs: 1000, finishedAtMs: 1005,
    status: 'success', errorJson: null, callId: 'c0', idempotencyKey: 'k0',
    ...overrides,
  }
}

const stores: [string, (maxOutputBytes?: number) => ToolCallJournal][] = [
  ['JsonlJournal', (maxOutputBytes) => new JsonlJournal(tempFile('j.jsonl'), { maxOutputBytes })],
  ['SqliteJournal', (maxOutputBytes) => new SqliteJournal(tempFile('j.db'), { maxOutputBytes })],
]

describe.each(stores)('%s', (_name, make) => {
  it('stores rows with exactly the design fields, in order, and filters them', async () => {
    const journal = make()
    await journal.record(row())
    await journal.record(row({ seq: 1, toolName: 'grep', runId: 'r2' }))
    await journal.record(row({ seq: 2, status: 'error', outputJson: null, errorJson: '{"code":"TOOL_X"}' }))
    const all = await journal.list()
    expect(all.map((r) => r.seq)).toEqual([0, 1, 2])
    expect(Object.keys(all[0]!).sort()).toEqual(FIELDS)
    expect(all[0]).toEqual({ ...row(), replayed: false, permissionJson: null })
    expect((await journal.list({ runId: 'r2' })).map((r) => r.toolName)).toEqual(['grep'])
    expect((await journal.list({ status: 'error' }))[0]!.errorJson).toBe('{"code":"TOOL_X"}')
    expect(await journal.list({ idempotencyKey: 'nope' })).toEqual([])
  })

  it('caps large outputs with the truncation envelope', async () => {
    const journal = make(100)
    await journal.record(row({ outputJson: outputToJson('é'.repeat(300), 1_000_000) }))
    const [stored] = await journal.list()
    const envelope = JSON.parse(stored!.outputJson!)
    expect(envelope).toMatchObject({ truncated: true, bytes: 600 })
    expect(envelope.preview).toBe('é'.repeat(50))
  })

  it('keeps an output of exactly maxOutputBytes, however much JSON escaping it needs', async () => {
    const journal = make(1_000)
    const quotes = '"\\\n'.repeat(250) // 1,000 bytes of text, 2,000 bytes escaped
    const exact = 'x'.repeat(1_000)
    await journal.record(row({ outputJson: outputToJson(quotes, 1_000) }))
    await journal.record(row({ seq: 1, outputJson: outputToJson(exact, 1_000) }))
    await journal.record(row({ seq: 2, outputJson: JSON.stringify(`${exact}y`) }))
    const [a, b, c] = await journal.list()
    expect(JSON.parse(a!.outputJson!)).toBe(quotes)
    expect(JSON.parse(b!.outputJson!)).toBe(exact)
    expect(JSON.parse(c!.outputJson!)).toMatchObject({ truncated: true, bytes: 1_001 })
  })

  it('refuses a filter on a field rows do not have', async () => {
    const journal = make()
    await expect(journal.list({ bogus: 1 } as never)).rejects.toMatchObject({ code: 'E_INVALID_OPTIONS' })
  })

  it('reports only non-idempotent side-effect calls of the scope, across attempts', async () => {
    const journal = make()
    const unsafe = { sideEffect: true, idempotent: false }
    await journal.record(row({ toolName: 'read' }), { sideEffect: false, idempotent: true })
    await journal.record(row({ seq: 1, toolName: 'send_email' }), unsafe)
    await journal.record(row({ seq: 2, toolName: 'upsert' }), { sideEffect: true, idempotent: true })
    await journal.record(row({ seq: 0, attempt: 2, toolName: 'charge' }), unsafe)
    await journal.record(row({ iteration: 1, toolName: 'other_iteration' }), unsafe)
    const rows = await journal.sideEffectsFor({ runId: 'r1', nodeId: 'n1', iteration: 0 })
    expect(rows.map((r) => r.toolName)).toEqual(['send_email', 'charge'])
  })
})

describe('journal helpers', () => {
  it('keeps small outputs as JSON strings', () => {
    expect(outputToJson('ok')).toBe('"ok"')
  })
})

describe('JsonlJournal crash safety', () => {
  it('a row written after another writer left a torn line is never glued onto it', async () => {
    const file = tempFile('shared.jsonl')
    const journal = new JsonlJournal(file)
    await journal.record(row({ seq: 0 }))
    // A second process sharing the file dies mid-row, while this journal lives on.
    appendFileSync(file, '{"runId":"B","seq":7,"toolNa')
    await journal.record(row({ seq: 1 }))
    await journal.record(row({ seq: 2 }))
    expect((await journal.list()).map((r) => r.seq)).toEqual([0, 1, 2])
  })

  it('keeps every complete row parseable after kill -9 mid-stream, and appends cleanly afterwards', async () => {
    const file = tempFile('crash.jsonl')
    const writer = fileURLToPath(new URL('./fixtures/journal_writer.ts', import.meta.url))
    const child = spawn(process.execPath, ['--import', 'tsx', writer, file], { stdio: 'ignore' })
    const exited = new Promise((resolve) => child.once('exit', resolve))
    const deadline = Date.now() + 40_000
    while (Date.now() < deadline) {
      let size = 0
      try {
        size = statSync(file).size
      } catch {}
      if (size > 4_000_000) break
      await new Promise((r) => setTimeout(r, 20))
    }
    child.kill('SIGKILL')
    await exited
    // Make a torn tail certain, whatever the kill interrupted.
    appendFileSync(file, '{"runId":"crash","seq":99999,"toolName":"re')

    const lines = readFileSync(file, 'utf8').split('\n')
    const complete = lines.slice(0, -1)
    expect(complete.length).toBeGreaterThan(5)
    for (const line of complete) expect(() => JSON.parse(line)).not.toThrow()

    const journal = new JsonlJournal(file)
    const before = await journal.list()
    expect(before.length).toBe(complete.length)
    expect(before.map((r) => r.seq)).toEqual(before.map((_r, i) => i))

    await journal.record(row({ runId: 'after', seq: 0 }))
    const after = await journal.list()
    expect(after.length).toBe(before.length + 1)
    expect(after.at(-1)!.runId).toBe('after')
  })
})

describe('SqliteJournal crash safety', () => {
  it('keeps every committed row after kill -9 mid-stream', async () => {
    const file = tempFile('crash.db')
    const writer = fileURLToPath(new URL('./fixtures/journal_writer.ts', import.meta.url))
    const child = spawn(process.execPath, ['--import', 'tsx', writer, file, 'sqlite'], { stdio: 'ignore' })
    const exited = new Promise((resolve) => child.once('exit', resolve))
    const deadline = Date.now() + 40_000
    let seen = 0
    while (Date.now() < deadline && seen < 10) {
      await new Promise((r) => setTimeout(r, 50))
      try {
        const probe = new SqliteJournal(file)
        seen = (await probe.list()).length
        probe.close()
      } catch {
        // The writer may not have created the table yet.
      }
    }
    child.kill('SIGKILL')
    await exited
    const journal = new SqliteJournal(file)
    const rows = await journal.list({ runId: 'crash' })
    expect(rows.length).toBeGreaterThanOrEqual(10)
    expect(rows.map((r) => r.seq)).toEqual(rows.map((_r, i) => i))
    for (const row of rows) expect(JSON.parse(row.outputJson!)).toMatch(/^x+\d+$/)
    await journal.record(row({ runId: 'after' }))
    expect(await journal.list({ runId: 'after' })).toHaveLength(1)
    journal.close()
  })
})

describe('SqliteJournal statements', () => {
  // A statement prepared per call is a native object left to the garbage
  // collector; under Node 24 with better-sqlite3 12 freeing one can abort the process.
  it('prepares each statement once per journal: a thousand renewals, reads and releases prepare nothing new', async () => {
    const Driver = createRequire(import.meta.url)('better-sqlite3') as { prototype: { prepare: (sql: string) => unknown } }
    const original = Driver.prototype.prepare
    let prepared = 0
    Driver.prototype.prepare = function (this: unknown, sql: string) {
      prepared++
      return original.call(this, sql)
    }
    try {
      const journal = new SqliteJournal(tempFile('stmts.db'))
      const flags = { sideEffect: true, idempotent: false }
      const round = async (i: number): Promise<void> => {
        const claimKey = `k${i % 3}`
        await journal.claim({ claimKey, owner: 'w1', leaseMs: 60_000, row: row({ seq: i, callId: `c${i}` }), flags })
        expect(await journal.renew(claimKey, 'w1', 60_000)).toBe(true)
        expect(await journal.takeOver(claimKey, 'w1', 'w1', 60_000)).toBe(true)
        await journal.list({ runId: 'r1' })
        await journal.sideEffectsFor({ runId: 'r1', nodeId: 'n1', iteration: 0 })
        await journal.saveTurn({ runId: 'r1', nodeId: 'n1', iteration: 0, attempt: 1, prompt: 'p', messagesJson: '[]', steps: i, stateJson: '{}', done: false, updatedAtMs: i })
        await journal.loadTurn('r1')
        expect(await journal.release(claimKey, 'w1')).toBe(true)
      }
      await round(0)
      const afterFirst = prepared
      for (let i = 1; i < 1000; i++) await round(i)
      expect(prepared).toBe(afterFirst)
      journal.close()
    } finally {
      Driver.prototype.prepare = original
    }
  })
})

describe('SqliteJournal without better-sqlite3', () => {
  it('fails with E_OPTIONAL_DEPENDENCY_MISSING and the install command', async () => {
    const hide = fileURLToPath(new URL('./fixtures/hide_better_sqlite.cjs', import.meta.url))
    const script = fileURLToPath(new URL('./fixtures/open_sqlite_journal.ts', import.meta.url))
    const child = spawn(process.execPath, ['--require', hide, '--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk))
    await new Promise((resolve) => child.once('close', resolve))
    const report = JSON.parse(out.trim())
    expect(report).toMatchObject({ opened: false, code: 'E_OPTIONAL_DEPENDENCY_MISSING' })
    expect(report.message).toContain('npm install better-sqlite3')
  })
})
