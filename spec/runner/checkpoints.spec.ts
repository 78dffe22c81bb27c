// Turn checkpoints at rest: no argument the redaction rules cover is stored
// in clear (without a key it is withheld, with `checkpointKey` it is sealed),
// resume still finishes the turn, checkpoints are appended as deltas (bytes
// per step do not grow with the turn), a torn append or a journal written by
// the previous version still resumes, and a broken chain is E_JOURNAL_CORRUPT.
import { randomBytes } from 'node:crypto'
import { appendFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  E_INVALID_OPTIONS,
  E_JOURNAL_CORRUPT,
  JsonlJournal,
  SqliteJournal,
  Tool,
  TurnRunner,
  createTools,
  scriptedModel,
  validator,
  type ClaimingJournal,
  type Message,
  type TurnCheckpoint,
  type ModelResponse,
} from '../../lib/index.js'
import { CONTENT, PASSWORD, assistantArgs, echoTool, firstAnswer, growthTurn, identity, interruptedTurn, threeStepTurn } from '../support/checkpoint_turns.js'
import { OLD_SQLITE_SCHEMA } from '../support/previous_journal_schema.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'

const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string, options?: { readonly?: boolean }) => {
  prepare(sql: string): { all(...p: unknown[]): unknown[]; run(...p: unknown[]): unknown; get(...p: unknown[]): unknown }
  exec(sql: string): void
  close(): void
}

const KEY = randomBytes(32)

interface Store {
  name: string
  /** A fresh journal in a temp folder. */
  make(): { journal: ClaimingJournal; dir: string; raw(): string; bytes(): number; close(): void }
}

/** Every byte the store keeps, as text: the JSONL file; every row of every SQLite table plus the database and WAL files. */
const stores: Store[] = [
  {
    name: 'JsonlJournal',
    make() {
      const dir = trackedMkdtemp(join(tmpdir(), 'toolsmith-ckpt-'))
      const file = join(dir, 'journal.jsonl')
      const journal = new JsonlJournal(file)
      return {
        journal,
        dir,
        raw: () => (existsSync(file) ? readFileSync(file, 'utf8') : ''),
        bytes: () => (existsSync(file) ? statSync(file).size : 0),
        close: () => undefined,
      }
    },
  },
  {
    name: 'SqliteJournal',
    make() {
      const dir = trackedMkdtemp(join(tmpdir(), 'toolsmith-ckpt-'))
      const file = join(dir, 'journal.db')
      const journal = new SqliteJournal(file)
      // A reader holding its snapshot keeps the WAL from being reset, so
      // its size counts every byte the journal wrote since.
      const reader = new Database(file, { readonly: true })
      reader.prepare('BEGIN').run()
      reader.prepare('SELECT count(*) FROM tool_calls').get()
      return {
        journal,
        dir,
        raw: () => sqliteText(file),
        bytes: () => statSync(`${file}-wal`).size,
        close: () => {
          reader.prepare('COMMIT').run()
          reader.close()
          journal.close()
        },
      }
    },
  },
]

function sqliteText(file: string): string {
  const db = new Database(file, { readonly: true })
  try {
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name)
    const rows = tables.map((t) => JSON.stringify(db.prepare(`SELECT * FROM "${t}"`).all()))
    const files = [file, `${file}-wal`].filter(existsSync).map((f) => readFileSync(f).toString('latin1'))
    return [...rows, ...files].join('\n')
  } finally {
    db.close()
  }
}

describe.each(stores)('turn checkpoints in %s', (store) => {
  it('stores no failed-validation password and no write content, and resume still finishes the turn (no key: the model sees the journal form)', async () => {
    const { journal, dir, raw, close } = store.make()
    try {
      const before = await interruptedTurn(journal, dir)
      expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe(CONTENT)
      expect(raw()).not.toContain(PASSWORD)
      expect(raw()).not.toContain(CONTENT)

      let resumedSaw: Message[] = []
      const resumed = await new TurnRunner({
        model: async ({ messages }) => {
          resumedSaw = messages
          return { text: 'notes taken' }
        },
        tools: [createTools({ rootDir: dir }).write],
        journal,
      }).resume('ckpt-run')
      expect(resumed.text).toBe('notes taken')
      expect(resumed.steps).toBe(2)
      // Same results as the interrupted worker got: the write replayed from its claim, the bad calls the same errors.
      const toolTexts = (ms: Message[]): string[] => ms.filter((m) => m.role === 'tool').map((m) => m.content)
      expect(toolTexts(resumedSaw)).toEqual(toolTexts(before))
      expect(resumed.toolCalls.map((c) => c.tool)).toEqual(['write', 'write', 'nope', 'write'])
      // The args shown for the calls are the journal's: no content, no password.
      expect(assistantArgs(resumedSaw)).toEqual([
        { argumentsNotKept: '[invalid args not recorded]' },
        { argumentsNotKept: '[invalid args not recorded]' },
        { argumentsNotKept: '[invalid args not recorded]' },
        { path: 'notes.txt', contentBytes: CONTENT.length, contentHash: expect.stringMatching(/^[0-9a-f]{64}$/) },
      ])
      const rows = await journal.list({ runId: 'ckpt-run', toolName: 'write', status: 'success' })
      expect(rows.map((r) => r.replayed)).toEqual([false, true])
      expect(raw()).not.toContain(PASSWORD)
      expect(raw()).not.toContain(CONTENT)
    } finally {
      close()
    }
  }, 60_000)

  it('with checkpointKey, seals those args (AES-256-GCM) and a resume with the key rebuilds them exactly; without it, or with another, it refuses', async () => {
    const { journal, dir, raw, close } = store.make()
    try {
      const before = await interruptedTurn(journal, dir, { checkpointKey: KEY })
      expect(assistantArgs(before)).toEqual(firstAnswer().map((c) => c.args))
      expect(raw()).not.toContain(PASSWORD)
      expect(raw()).not.toContain(CONTENT)

      const tools = [createTools({ rootDir: dir }).write]
      const model = scriptedModel([{ text: 'never' }])
      await expect(new TurnRunner({ model, tools, journal }).resume('ckpt-run')).rejects.toThrow(E_INVALID_OPTIONS)
      await expect(new TurnRunner({ model, tools, journal }).resume('ckpt-run')).rejects.toThrow(/sealed with a checkpointKey \(key id [0-9a-f]{16}\)/)
      await expect(new TurnRunner({ model, tools, journal, checkpointKey: randomBytes(32) }).resume('ckpt-run')).rejects.toThrow(/sealed with another checkpointKey/)

      let resumedSaw: Message[] = []
      const resumed = await new TurnRunner({
        model: async ({ messages }) => {
          resumedSaw = messages
          return { text: 'notes taken' }
        },
        tools,
        journal,
        checkpointKey: KEY.toString('base64'),
      }).resume('ckpt-run')
      expect(resumed.text).toBe('notes taken')
      // The conversation the model gets is the one the lost worker had: args and results alike.
      expect(resumedSaw).toEqual(before)
      expect(raw()).not.toContain(PASSWORD)
      expect(raw()).not.toContain(CONTENT)
    } finally {
      close()
    }
  }, 60_000)

  it('a write that had not started when the worker was lost: runs after a resume with the key; without one it is answered TOOL_ABORTED, never run with stand-in args', async () => {
    for (const checkpointKey of [KEY, undefined]) {
      const { journal, dir, close } = store.make()
      try {
        const controller = new AbortController()
        // Read-only, so a resume runs it again (this time without stopping the turn).
        const stop = new Tool({
          name: 'stop',
          description: 'Stops the first worker',
          inputSchema: validator.object({}),
          handler: async () => {
            controller.abort(new Error('worker lost'))
            return 'stopped'
          },
        })
        const answer: ModelResponse = { toolCalls: [{ id: 's', name: 'stop', args: {} }, { id: 'w', name: 'write', args: { path: 'later.txt', content: CONTENT } }] }
        const tools = [stop, createTools({ rootDir: dir }).write]
        const first = new TurnRunner({ model: scriptedModel([answer]), tools, journal, identity, ...(checkpointKey ? { checkpointKey } : {}) })
        await expect(first.run('write later', { signal: controller.signal })).rejects.toThrow(/aborted/)
        expect(existsSync(join(dir, 'later.txt'))).toBe(false)

        let saw: Message[] = []
        const resumed = await new TurnRunner({
          model: async ({ messages }) => {
            saw = messages
            return { text: 'ok' }
          },
          tools,
          journal,
          ...(checkpointKey ? { checkpointKey } : {}),
        }).resume('ckpt-run')
        expect(resumed.text).toBe('ok')
        const writeResult = saw.find((m) => m.role === 'tool' && m.toolCallId === 'w')!
        if (checkpointKey) {
          expect(readFileSync(join(dir, 'later.txt'), 'utf8')).toBe(CONTENT)
          expect(writeResult.isError).toBeUndefined()
        } else {
          expect(existsSync(join(dir, 'later.txt'))).toBe(false)
          expect(writeResult.content).toMatch(/^TOOL_ABORTED: write was not run again after the resume: its arguments were not kept .* had not started/)
        }
      } finally {
        close()
      }
    }
  }, 60_000)

  it('without a key, a write whose worker died mid-call (its outcome never recorded) is TOOL_OUTCOME_UNKNOWN after the resume, not run again', async () => {
    const { journal, dir, raw, close } = store.make()
    try {
      // The journal refuses the outcome: the turn stops with the write's claim still running, as if its worker had died.
      const failing = new Proxy(journal, {
        get: (target, name) =>
          name === 'complete'
            ? async () => {
                throw new Error('database gone')
              }
            : typeof target[name as keyof ClaimingJournal] === 'function'
              ? (target[name as keyof ClaimingJournal] as (...a: unknown[]) => unknown).bind(target)
              : target[name as keyof ClaimingJournal],
      })
      const tools = [createTools({ rootDir: dir }).write]
      const answer: ModelResponse = { toolCalls: [{ id: 'w', name: 'write', args: { path: 'gone.txt', content: CONTENT } }] }
      await expect(new TurnRunner({ model: scriptedModel([answer]), tools, journal: failing, identity }).run('write')).rejects.toThrow(/database gone/)
      expect(readFileSync(join(dir, 'gone.txt'), 'utf8')).toBe(CONTENT)
      let saw: Message[] = []
      const resumed = await new TurnRunner({ model: async ({ messages }) => {
        saw = messages
        return { text: 'checked' }
      }, tools, journal }).resume('ckpt-run')
      expect(resumed.text).toBe('checked')
      expect(saw.at(-1)!.content).toMatch(/^TOOL_OUTCOME_UNKNOWN: write \{"contentBytes":32,"contentHash":"[0-9a-f]{64}","path":"gone.txt"\} was started at /)
      expect(raw()).not.toContain(CONTENT)
    } finally {
      close()
    }
  }, 60_000)

  it('appends deltas: the bytes a step adds at step 200 are within 1.5x of those at step 10', async () => {
    const { journal, bytes, close } = store.make()
    try {
      const { at10, at200 } = await growthTurn(journal, bytes)
      console.log(`${store.name}: ${Math.round(at10)} bytes per step at step 10, ${Math.round(at200)} at step 200`)
      expect(at10).toBeGreaterThan(0)
      expect(at200).toBeLessThanOrEqual(at10 * 1.5)
      // And the chain reads back whole.
      const checkpoint = await journal.loadTurn('ckpt-run')
      expect(JSON.parse(checkpoint!.messagesJson)).toHaveLength(1 + 200 * 3)
    } finally {
      close()
    }
  }, 300_000)

  it('a chain with a missing link fails with E_JOURNAL_CORRUPT, naming the run', async () => {
    const { journal, dir, close } = store.make()
    try {
      await threeStepTurn(journal)
      const file = store.name === 'JsonlJournal' ? join(dir, 'journal.jsonl') : join(dir, 'journal.db')
      if (store.name === 'JsonlJournal') {
        const lines = readFileSync(file, 'utf8').split('\n')
        const turns = lines.filter((l) => l.startsWith('{"$turn"'))
        writeFileSync(file, lines.filter((l) => l !== turns[1]).join('\n'))
      } else {
        const db = new Database(file)
        db.prepare('DELETE FROM turn_checkpoint_deltas WHERE id = (SELECT MIN(id) + 1 FROM turn_checkpoint_deltas)').run()
        db.close()
      }
      const error = await new TurnRunner({ model: scriptedModel([]), tools: [], journal }).resume('ckpt-run').catch((e: unknown) => e)
      expect(error).toBeInstanceOf(E_JOURNAL_CORRUPT)
      expect((error as Error).message).toMatch(/^The checkpoint chain of run "ckpt-run" node "fix" iteration 0 cannot be rebuilt: record [0-9a-f-]+ is missing/)
    } finally {
      close()
    }
  }, 60_000)
})

describe('reading a chain back', () => {
  it('JSONL: a checkpoint torn by an interrupted append is skipped, the turn resumes from the one before, and its chain goes on whole', async () => {
    const { journal, dir } = stores[0]!.make()
    const file = join(dir, 'journal.jsonl')
    await threeStepTurn(journal)
    // The worker was killed while appending its next delta: half a line, no newline.
    const torn = JSON.stringify({ $turn: { runId: 'ckpt-run', nodeId: 'fix', iteration: 0, attempt: 1, prompt: '', messagesJson: '[{"role":"tool"' } })
    appendFileSync(file, torn.slice(0, 60))
    const echo = echoTool()
    let saw: Message[] = []
    const resumed = await new TurnRunner({ model: async ({ messages }) => {
      saw = messages
      return { text: 'done' }
    }, tools: [echo], journal }).resume('ckpt-run')
    expect(resumed.text).toBe('done')
    expect(saw.map((m) => [m.role, m.content])).toEqual([
      ['user', 'echo thrice'],
      ['assistant', ''],
      ['tool', 'echo 0'],
      ['assistant', ''],
      ['tool', 'echo 1'],
      ['assistant', ''],
      ['tool', 'echo 2'],
    ])
    expect(readFileSync(file, 'utf8')).toContain(`${torn.slice(0, 60)}\n`)
    // Read again after the torn line: the finished turn, whole.
    const again = await new TurnRunner({ model: scriptedModel([{ text: 'never' }]), tools: [echo], journal }).resume('ckpt-run')
    expect(again.text).toBe('done')
    expect(again.messages).toHaveLength(8)
  }, 60_000)

  it('a journal written by the previous version (a whole checkpoint with args in clear) still resumes; SQLite then drops that clear-text row', async () => {
    const legacyMessages: Message[] = [
      { role: 'user', content: 'take notes' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'w', name: 'write', args: { path: 'old.txt', content: CONTENT } }] },
    ]
    const legacy = {
      runId: 'old-run', nodeId: 'fix', iteration: 0, attempt: 1, prompt: 'take notes', messagesJson: JSON.stringify(legacyMessages),
      steps: 1, stateJson: JSON.stringify({ claims: {}, seq: 0 }), done: false, updatedAtMs: Date.now(),
    }
    // JSONL: the previous version's `$turn` line, verbatim in form.
    const jsonlDir = trackedMkdtemp(join(tmpdir(), 'toolsmith-ckpt-'))
    writeFileSync(join(jsonlDir, 'journal.jsonl'), `${JSON.stringify({ $turn: legacy })}\n`)
    // SQLite: the previous version's schema and its row.
    const sqliteDir = trackedMkdtemp(join(tmpdir(), 'toolsmith-ckpt-'))
    const dbFile = join(sqliteDir, 'journal.db')
    const old = new Database(dbFile)
    old.exec(OLD_SQLITE_SCHEMA)
    old
      .prepare('INSERT INTO turn_checkpoints (run_id, node_id, iteration, attempt, prompt, messages_json, steps, state_json, done, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(legacy.runId, legacy.nodeId, legacy.iteration, legacy.attempt, legacy.prompt, legacy.messagesJson, legacy.steps, legacy.stateJson, 0, legacy.updatedAtMs)
    old.close()

    for (const [dir, journal] of [
      [jsonlDir, new JsonlJournal(join(jsonlDir, 'journal.jsonl'))],
      [sqliteDir, new SqliteJournal(dbFile)],
    ] as const) {
      const resumed = await new TurnRunner({ model: scriptedModel([{ text: 'written' }]), tools: [createTools({ rootDir: dir }).write], journal }).resume('old-run')
      expect(resumed.text).toBe('written')
      expect(readFileSync(join(dir, 'old.txt'), 'utf8')).toBe(CONTENT)
      const again = await new TurnRunner({ model: scriptedModel([{ text: 'never' }]), tools: [], journal }).resume('old-run')
      expect(again.text).toBe('written')
      if (journal instanceof SqliteJournal) {
        journal.close()
        const db = new Database(dbFile, { readonly: true })
        expect(db.prepare('SELECT * FROM turn_checkpoints').all()).toEqual([])
        expect(JSON.stringify(db.prepare('SELECT * FROM turn_checkpoint_deltas').all())).not.toContain(CONTENT)
        db.close()
      }
    }
  }, 60_000)

  it('a journal that keeps one checkpoint per turn (no turnDeltas) gets whole checkpoints, args in checkpoint form, and resumes', async () => {
    const { journal, dir } = stores[0]!.make()
    const saved: TurnCheckpoint[] = []
    const oneCheckpointPerTurn = new Proxy(journal, {
      get: (target, name) => {
        if (name === 'turnDeltas') return undefined
        if (name === 'saveTurn') return async (c: TurnCheckpoint) => void saved.push(c)
        if (name === 'loadTurn') return async () => saved.at(-1)
        const value = target[name as keyof ClaimingJournal]
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value
      },
    })
    await threeStepTurn(oneCheckpointPerTurn)
    expect(saved.map((c) => [c.parentId, c.prompt, JSON.parse(c.messagesJson).length])).toEqual([
      [undefined, 'echo thrice', 2],
      [undefined, 'echo thrice', 4],
      [undefined, 'echo thrice', 6],
    ])
    const resumed = await new TurnRunner({ model: scriptedModel([{ text: 'done' }]), tools: [echoTool()], journal: oneCheckpointPerTurn }).resume('ckpt-run')
    expect(resumed.messages).toHaveLength(8)
    await interruptedTurn(oneCheckpointPerTurn, dir)
    expect(saved.at(-1)!.messagesJson).not.toContain(PASSWORD)
    expect(saved.at(-1)!.messagesJson).not.toContain(CONTENT)
  }, 60_000)

  it('refuses a checkpointKey that is not 32 bytes, and sealed args moved or changed do not open (E_JOURNAL_CORRUPT)', async () => {
    for (const bad of ['short', 'z'.repeat(64), new Uint8Array(16), KEY.toString('hex').slice(2)]) {
      expect(() => new TurnRunner({ model: scriptedModel([]), tools: [], checkpointKey: bad })).toThrow(E_INVALID_OPTIONS)
    }
    const { journal, dir } = stores[0]!.make()
    const file = join(dir, 'journal.jsonl')
    await interruptedTurn(journal, dir, { checkpointKey: KEY })
    const text = readFileSync(file, 'utf8')
    const seals = [...text.matchAll(/"sealed\\":\\"(tsck1\.[^\\]+)\\"/g)].map((m) => m[1]!)
    expect(seals).toHaveLength(4) // the three bad calls and the write; nothing else is sealed
    const resume = (): Promise<unknown> =>
      new TurnRunner({ model: scriptedModel([]), tools: [], journal, checkpointKey: KEY.toString('hex') }).resume('ckpt-run').catch((e: unknown) => e)
    // Moved: the write's sealed args put on the first bad call (and back).
    writeFileSync(file, text.replace(seals[0]!, seals[3]!))
    const moved = await resume()
    expect(moved).toBeInstanceOf(E_JOURNAL_CORRUPT)
    expect((moved as Error).message).toMatch(/sealed arguments of call bad-1 do not open/)
    // Changed: one bit of the ciphertext.
    const parts = seals[0]!.split('.')
    const body = Buffer.from(parts[3]!, 'base64url')
    body[0] = body[0]! ^ 1
    writeFileSync(file, text.replace(seals[0]!, [...parts.slice(0, 3), body.toString('base64url'), parts[4]].join('.')))
    const changed = await resume()
    expect(changed).toBeInstanceOf(E_JOURNAL_CORRUPT)
    expect((changed as Error).message).toMatch(/sealed arguments of call bad-1 do not open/)
  }, 60_000)
})
