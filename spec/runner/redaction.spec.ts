import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { describe, expect, it } from 'vitest'
import {
  INVALID_ARGS_NOT_RECORDED,
  JsonlJournal,
  Tool,
  TurnRunner,
  createDispatchContext,
  scriptedModel,
  validator,
  type TurnEvent,
} from '../../lib/index.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'

const SECRET = 'hunter2-correct-horse-battery'

// A redact written for valid args: it passes every other field through, so
// running it on args that failed validation would leak the stray password.
const login = new Tool({
  name: 'login',
  description: 'Log in',
  inputSchema: validator.object({ user: validator.string().required(), token: validator.string().required() }),
  handler: async ({ user }) => `hello ${user}`,
  redact: ({ token, ...rest }: { user: string; token: string }) => ({ ...rest, tokenBytes: token.length }),
})

// No redact at all: valid args are logged as they are, invalid ones never.
const plain = new Tool({
  name: 'plain',
  description: 'Plain',
  inputSchema: validator.object({ password: validator.string().min(40).required() }),
  handler: async () => 'ok',
})

const badCalls = [
  { id: 'a', name: 'login', args: { user: 'ann', token: 't', password: SECRET } }, // unknown key
  { id: 'b', name: 'login', args: { user: SECRET, token: 42 } }, // wrong type next to the secret
  { id: 'c', name: 'plain', args: { password: SECRET } }, // too short: fails validation
  { id: 'd', name: 'nope', args: { password: SECRET } }, // unknown tool
]

describe('redaction fails closed on every surface (issue 12)', () => {
  it('a failed-validation call with a password leaves no clear text in the journal or the events', async () => {
    const dir = trackedMkdtemp(join(tmpdir(), 'toolsmith-redact-'))
    const file = join(dir, 'journal.jsonl')
    const events: TurnEvent[] = []
    const runner = new TurnRunner({
      model: scriptedModel([{ toolCalls: badCalls }, { text: 'done' }]),
      tools: [login, plain],
      journal: new JsonlJournal(file),
      onEvent: (e) => events.push(e),
    })
    const result = await runner.run('log in')
    const tools = result.messages.filter((m) => m.role === 'tool')
    expect(tools.map((m) => m.isError)).toEqual([true, true, true, true]) // the calls really failed
    const journal = readFileSync(file, 'utf8')
    expect(journal.trim().split('\n')).toHaveLength(4)
    expect(journal).not.toContain(SECRET)
    expect(JSON.stringify(events)).not.toContain(SECRET)
    const starts = events.filter((e) => e.type === 'tool-start')
    expect(starts.map((e) => (e as { args: unknown }).args)).toEqual(Array(4).fill(INVALID_ARGS_NOT_RECORDED))
  })

  it('control: the same journal and events do carry args that passed validation (redacted by the tool itself)', async () => {
    const dir = trackedMkdtemp(join(tmpdir(), 'toolsmith-redact-'))
    const file = join(dir, 'journal.jsonl')
    const events: TurnEvent[] = []
    const longSecret = SECRET.repeat(2)
    const runner = new TurnRunner({
      model: scriptedModel([
        { toolCalls: [{ id: 'a', name: 'login', args: { user: 'ann', token: SECRET } }, { id: 'b', name: 'plain', args: { password: longSecret } }] },
        { text: 'done' },
      ]),
      tools: [login, plain],
      journal: new JsonlJournal(file),
      onEvent: (e) => events.push(e),
    })
    await runner.run('log in')
    const rows = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { inputJson: string })
    expect(JSON.parse(rows[0]!.inputJson)).toEqual({ user: 'ann', tokenBytes: SECRET.length })
    // A tool without redact declares nothing secret: its valid args are kept, which shows the check above can fail.
    expect(JSON.parse(rows[1]!.inputJson)).toEqual({ password: longSecret })
  })

  it('the executor emits nothing for invalid args and prepare() reports the placeholder', async () => {
    const ctx = createDispatchContext()
    const seen: unknown[] = []
    ctx.on('toolExecutionStart', (e) => seen.push(e))
    ctx.on('toolExecutionEnd', (e) => seen.push(e))
    const args = { user: 'ann', token: 't', password: SECRET }
    await expect(login.executor(ctx)(args)).rejects.toMatchObject({ code: 'E_INVALID_TOOL_ARGS' })
    expect(seen).toEqual([])
    const prepared = await login.prepare(args, ctx)
    expect(prepared).toMatchObject({ ok: false, toolName: 'login', loggedArgs: INVALID_ARGS_NOT_RECORDED })
    expect(prepared.callId).toMatch(/^[0-9a-f]{64}$/)
    expect(prepared.idempotencyKey).toMatch(/^[0-9a-f]{64}$/)
  })
})
