// One pipeline, four surfaces: whichever way a call comes in (the CLI, an MCP
// client, the AI SDK, the TurnRunner), it is recorded with the gate's
// decision and redacted args, a repeat under the surface's stable identity
// replays the recorded result without running the handler again, and the
// call's events are reported. One parametrised spec, so no surface can drift.
import { mkdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SqliteJournal, type ToolCallPermission, type ToolCallRow } from '../../lib/index.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'
import { APPEND, DENIED, SURFACES, handlerRuns, writeProject, type Surface, type SurfaceEnv } from './support/surfaces.js'

async function rows(env: SurfaceEnv): Promise<ToolCallRow[]> {
  const journal = new SqliteJournal(env.journalFile)
  try {
    return (await journal.list()).filter((row) => row.toolName === 'edit')
  } finally {
    journal.close()
  }
}

const permission = (row: ToolCallRow): ToolCallPermission => JSON.parse(row.permissionJson!) as ToolCallPermission

describe.each(SURFACES)('$name', (surfaceCase) => {
  let env: SurfaceEnv
  let surface: Surface

  beforeEach(async () => {
    const parent = trackedMkdtemp(join(tmpdir(), 'toolsmith-surfaces-'))
    mkdirSync(join(parent, 'root'))
    env = writeProject(join(parent, 'root'))
    surface = await surfaceCase.open(env)
  })

  afterEach(async () => {
    await surface?.close()
  })

  it('records an allowed call with its decision and redacted args', async () => {
    const answer = await surface.call(APPEND, 'key-allowed')
    expect(answer).toEqual({ ok: true, text: 'ok' })
    expect(handlerRuns(env)).toBe(1)
    const [row, ...more] = await rows(env)
    expect(more).toEqual([])
    expect(row).toMatchObject({ status: 'success', replayed: false })
    expect(permission(row!)).toMatchObject({ decision: 'allow', policyDecision: 'allow', rule: { index: 0, name: 'append to the log' } })
    // The redacted form (edit's redact), never the patch itself.
    expect(JSON.parse(row!.inputJson)).toEqual({ path: 'log.txt', patchBytes: Buffer.byteLength(APPEND.patch), patchHash: expect.stringMatching(/^[0-9a-f]{64}$/) })
    expect(row!.inputJson).not.toContain('+ran')
  })

  it('records a denied call with the rule that denied it, and the handler never runs', async () => {
    const answer = await surface.call(DENIED, 'key-denied')
    expect(answer.ok).toBe(false)
    expect(answer.text).toContain('TOOL_DENIED')
    expect(answer.text).toContain('secrets stay put')
    expect(readFileSync(join(env.root, 'secret.txt'), 'utf8')).toBe('secret\n')
    const [row, ...more] = await rows(env)
    expect(more).toEqual([])
    expect(row).toMatchObject({ status: 'error' })
    expect(permission(row!)).toMatchObject({ decision: 'deny', policyDecision: 'deny', rule: { index: 1, name: 'secrets stay put' } })
    expect(row!.inputJson).not.toContain('+ran')
  })

  it('replays a repeat under the same stable identity: the handler ran once, the answer is the recorded one', async () => {
    const first = await surface.call(APPEND, 'key-once')
    const second = await surface.call(APPEND, 'key-once')
    expect(first).toEqual({ ok: true, text: 'ok' })
    expect(second).toEqual(first)
    expect(handlerRuns(env)).toBe(1)
    const recorded = await rows(env)
    expect(recorded.map((row) => [row.status, row.replayed])).toEqual([
      ['success', false],
      ['success', true],
    ])
    expect(recorded[1]!.callId).toBe(recorded[0]!.callId)
    expect(recorded[1]!.idempotencyKey).toBe(recorded[0]!.idempotencyKey)
    // A replayed row carries the decision of the run that made the call.
    expect(permission(recorded[1]!)).toMatchObject({ decision: 'allow', rule: { name: 'append to the log' } })
  })

  it('runs a repeat again under another identity (or none, where the surface allows it), recording both', async () => {
    await surface.call(APPEND, 'key-a')
    await surface.call(APPEND, surface.keyless ? undefined : 'key-b')
    expect(handlerRuns(env)).toBe(2)
    const recorded = await rows(env)
    expect(recorded.map((row) => [row.status, row.replayed])).toEqual([
      ['success', false],
      ['success', false],
    ])
    expect(recorded[1]!.idempotencyKey).not.toBe(recorded[0]!.idempotencyKey)
  })

  it("reports the call's events: one start and one end under the row's callId; a replay is never reported as a run", async () => {
    await surface.call(APPEND, 'key-events')
    await surface.call(APPEND, 'key-events')
    const [row] = await rows(env)
    if (surface.events === undefined) {
      // A `toolsmith call` process shows no event stream outside itself: its
      // journal row (asserted above) is the call's record.
      expect(row).toBeDefined()
      return
    }
    const ends = surface.events.filter((e) => e.type === 'end')
    const ran = ends.filter((e) => e.replayed !== true)
    expect(ran.map((e) => [e.toolName, e.callId])).toEqual([['edit', row!.callId]])
    // The runner reports the replay as `tool-end { replayed: true }`; the
    // context's toolExecutionEnd has no replayed flag yet and fires only for a
    // run of the handler (asked of the pipeline: an end event for a replay).
    for (const replay of ends.filter((e) => e.replayed === true)) expect(replay).toMatchObject({ toolName: 'edit', callId: row!.callId })
    const starts = surface.events.filter((e) => e.type === 'start')
    expect(starts.length).toBeGreaterThanOrEqual(1)
    expect(starts[0]).toMatchObject({ toolName: 'edit' })
    if (starts[0]!.callId !== undefined) expect(starts[0]!.callId).toBe(row!.callId)
  })

  it('emits one execute_tool span per call: the provider id, the row callId, error.type when denied, replayed for a replay', async () => {
    const tracing = surface.trace()
    try {
      await surface.call(APPEND, 'key-span')
      await surface.call(DENIED, 'key-span-denied')
      // The same identity again: replayed from the journal, the handler does not run.
      await surface.call(APPEND, 'key-span')
      expect(handlerRuns(env)).toBe(1)
      const [allowedRow, deniedRow, replayedRow] = await rows(env)
      expect(replayedRow).toMatchObject({ replayed: true, callId: allowedRow!.callId })
      // The runner adds its invoke_agent and chat spans; only the tool spans are asserted here.
      const spans = tracing.spans().filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool')
      expect(spans.map((s) => s.name)).toEqual(['execute_tool edit', 'execute_tool edit', 'execute_tool edit'])
      const [allowed, denied, replay] = spans
      const ids = surface.providerIds
      expect(ids).toHaveLength(3)
      expect(allowed!.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'edit',
        'gen_ai.tool.call.id': ids[0],
        'toolsmith.tool.call_id': allowedRow!.callId,
        'toolsmith.permission.decision': 'allow',
        'toolsmith.permission.rule': 'append to the log',
      })
      expect(allowed!.attributes['error.type']).toBeUndefined()
      expect(allowed!.attributes['toolsmith.tool.call.replayed']).toBeUndefined()
      expect(allowed!.status).toBe(0)
      expect(denied!.attributes).toMatchObject({
        'gen_ai.tool.name': 'edit',
        'gen_ai.tool.call.id': ids[1],
        'toolsmith.tool.call_id': deniedRow!.callId,
        'error.type': 'TOOL_DENIED',
        'toolsmith.permission.decision': 'deny',
        'toolsmith.permission.rule': 'secrets stay put',
      })
      expect(denied!.status).toBe(2)
      // A replay ran no handler; its span stands for the call, with the decision of the run that made it.
      expect(replay!.attributes).toMatchObject({
        'gen_ai.tool.name': 'edit',
        'gen_ai.tool.call.id': ids[2],
        'toolsmith.tool.call_id': replayedRow!.callId,
        'toolsmith.tool.call.replayed': true,
        'toolsmith.permission.decision': 'allow',
        'toolsmith.permission.rule': 'append to the log',
      })
      expect(replay!.attributes['error.type']).toBeUndefined()
    } finally {
      await tracing.stop()
    }
  })
})
