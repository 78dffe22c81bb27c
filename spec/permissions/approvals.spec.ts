// `ask` rules: the approve callback, its answers, remembered approvals and
// the decision events, through the public barrel with real tools.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import {
  Permissions,
  createDispatchContext,
  createTools,
  type ApprovalRequest,
  type PermissionDecisionEvent,
  type RawPermissionPolicy,
} from '../../lib/index.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'

let root: string
beforeEach(() => {
  root = fs.realpathSync(trackedMkdtemp(path.join(os.tmpdir(), 'toolsmith-approve-')))
})

const POLICY: RawPermissionPolicy = {
  rules: [
    { name: 'ask for docs', tool: 'write', match: { paths: ['docs/**'] }, decision: 'ask', reason: 'docs are reviewed' },
    { name: 'ask for notes', tool: 'write', match: { paths: ['notes/**'] }, decision: 'ask' },
  ],
}

function setup(approve?: ConstructorParameters<typeof Permissions>[0]['approve']) {
  const events: PermissionDecisionEvent[] = []
  const permissions = new Permissions({ policy: POLICY, root, ...(approve ? { approve } : {}) })
  const ctx = createDispatchContext({ permissions, onPermissionDecision: (e) => events.push(e) })
  const { write } = createTools({ rootDir: root, isolation: { filesystem: false } })
  return { events, permissions, ctx, write: write.executor(ctx) }
}

describe('ask → approve(request)', () => {
  it('the approver gets tool, redacted args, rule, reason, subject and ids; true runs the call', async () => {
    const approve = vi.fn((_request: ApprovalRequest) => true)
    const { write, events, ctx } = setup(approve)
    await expect(write({ path: 'docs/a.md', content: 'secret content' })).resolves.toBe('ok')
    expect(fs.readFileSync(path.join(root, 'docs/a.md'), 'utf8')).toBe('secret content')
    const request = approve.mock.calls[0]![0]
    expect(request).toMatchObject({ toolName: 'write', rule: { index: 0, name: 'ask for docs' }, reason: 'docs are reviewed', subject: 'docs/a.md', turnId: ctx.id })
    expect(request.callId).toMatch(/^[0-9a-f]{64}$/)
    // write's redact: size and hash, never the content.
    expect(request.args).toMatchObject({ path: 'docs/a.md', contentBytes: 14 })
    expect(JSON.stringify(request.args)).not.toContain('secret content')
    expect(events).toEqual([expect.objectContaining({ decision: 'allow', policyDecision: 'ask', approver: 'approve', rule: { index: 0, name: 'ask for docs' } })])
    expect(events[0]!.latencyMs).toBeGreaterThanOrEqual(0)
  })

  it.each([[false], ['deny' as const], [{ decision: 'deny' as const, note: 'not today' }]])('%j denies with TOOL_DENIED carrying the note', async (answer) => {
    const { write, events } = setup(() => answer)
    const error = await write({ path: 'docs/a.md', content: 'x' }).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'TOOL_DENIED', details: { rule: { index: 0, name: 'ask for docs' }, approver: 'approve', policyDecision: 'ask' } })
    if (typeof answer === 'object') expect((error as Error).message).toContain('approve declined: not today')
    expect(fs.existsSync(path.join(root, 'docs/a.md'))).toBe(false)
    expect(events[0]).toMatchObject({ decision: 'deny', approver: 'approve' })
  })

  it('an approver that throws or answers nonsense denies', async () => {
    const thrower = setup(() => {
      throw new Error('dialog crashed')
    })
    await expect(thrower.write({ path: 'docs/a.md', content: 'x' })).rejects.toThrow(/the approval failed: .*dialog crashed/)
    const vague = setup(() => 'maybe' as never)
    await expect(vague.write({ path: 'docs/a.md', content: 'x' })).rejects.toMatchObject({ code: 'TOOL_DENIED' })
  })

  it('an approver may name itself in the record', async () => {
    const { write, events } = setup(() => ({ decision: 'allow', approver: 'alice' }))
    await write({ path: 'docs/a.md', content: 'x' })
    expect(events[0]!.approver).toBe('alice')
  })

  it('calls that need no approval never reach the approver', async () => {
    const approve = vi.fn(() => true)
    const { write } = setup(approve)
    await write({ path: 'src/a.ts', content: 'x' })
    expect(approve).not.toHaveBeenCalled()
  })
})

describe('remembered approvals', () => {
  it('remember: true answers the same rule for the rest of the turn; other rules still ask', async () => {
    const approve = vi.fn(() => ({ decision: 'allow' as const, remember: true }))
    const { write, events } = setup(approve)
    await write({ path: 'docs/a.md', content: '1' })
    await write({ path: 'docs/b.md', content: '2' })
    expect(approve).toHaveBeenCalledTimes(1)
    expect(events.map((e) => e.approver)).toEqual(['approve', 'remembered'])
    await write({ path: 'notes/n.md', content: '3' })
    expect(approve).toHaveBeenCalledTimes(2)
  })

  it('a remembered denial denies without asking', async () => {
    const approve = vi.fn(() => ({ decision: 'deny' as const, remember: true, note: 'no docs today' }))
    const { write } = setup(approve)
    await expect(write({ path: 'docs/a.md', content: '1' })).rejects.toMatchObject({ code: 'TOOL_DENIED' })
    await expect(write({ path: 'docs/b.md', content: '2' })).rejects.toThrow(/declined calls like this earlier in the turn: no docs today/)
    expect(approve).toHaveBeenCalledTimes(1)
  })

  it('without remember, every call asks', async () => {
    const approve = vi.fn(() => true)
    const { write } = setup(approve)
    await write({ path: 'docs/a.md', content: '1' })
    await write({ path: 'docs/a.md', content: '2' })
    expect(approve).toHaveBeenCalledTimes(2)
  })

  it('forTurn() starts a turn with nothing remembered; withApprover() shares the turn', async () => {
    const approve = vi.fn(() => ({ decision: 'allow' as const, remember: true }))
    const { write, permissions } = setup(approve)
    await write({ path: 'docs/a.md', content: '1' })
    const { write: sameTurnWrite } = createTools({ rootDir: root, isolation: { filesystem: false } })
    const other = vi.fn(() => false)
    await expect(sameTurnWrite.executor(createDispatchContext({ permissions: permissions.withApprover(other, 'other') }))({ path: 'docs/b.md', content: '2' })).resolves.toBe('ok')
    expect(other).not.toHaveBeenCalled()
    await expect(sameTurnWrite.executor(createDispatchContext({ permissions: permissions.forTurn() }))({ path: 'docs/c.md', content: '3' })).resolves.toBe('ok')
    expect(approve).toHaveBeenCalledTimes(2)
  })
})

describe('decision records', () => {
  it('every decision is reported once, to the context and to onDecision, with rule, approver and latency', async () => {
    const onDecision = vi.fn()
    const permissions = new Permissions({ policy: { default: 'deny', rules: [{ tool: 'read', decision: 'allow' }] }, root, onDecision })
    const seen: PermissionDecisionEvent[] = []
    const ctx = createDispatchContext({ permissions, onPermissionDecision: (e) => seen.push(e) })
    fs.writeFileSync(path.join(root, 'f.txt'), 'hi')
    const { read, write } = createTools({ rootDir: root, isolation: { filesystem: false } })
    await read.executor(ctx)({ path: 'f.txt' })
    await write.executor(ctx)({ path: 'f.txt', content: 'x' }).catch(() => undefined)
    expect(seen).toEqual(onDecision.mock.calls.map((c) => c[0]))
    expect(seen).toEqual([
      expect.objectContaining({ toolName: 'read', decision: 'allow', policyDecision: 'allow', rule: { index: 0, name: 'allow read' }, approver: 'policy', turnId: ctx.id }),
      expect.objectContaining({ toolName: 'write', decision: 'deny', policyDecision: 'deny', rule: null, approver: 'policy' }),
    ])
    for (const event of seen) expect(typeof event.latencyMs).toBe('number')
  })

  it('a listener that throws breaks nothing', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined)
    try {
      const permissions = new Permissions({ policy: [], root, onDecision: () => {
        throw new Error('listener bug')
      } })
      fs.writeFileSync(path.join(root, 'f.txt'), 'hi')
      const { read } = createTools({ rootDir: root, isolation: { filesystem: false } })
      await expect(read.executor(createDispatchContext({ permissions }))({ path: 'f.txt' })).resolves.toBe('hi')
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('listener bug'), expect.anything())
    } finally {
      warn.mockRestore()
    }
  })
})
