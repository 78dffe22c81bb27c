/**
 * `bash` with a context's `onToolOutput`: the command's output is handed
 * over as it arrives, tagged with its stream, and the call's result is
 * exactly what it is without a listener.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { JsonlJournal, createCallContext, createDispatchContext, createTools, type ToolOutputChunk } from '../../lib/index.js'
import { makeFixture, type Fixture } from './helpers.js'

let fx: Fixture

beforeEach(() => {
  fx = makeFixture()
})
afterEach(() => fx.cleanup())

/** Resolves once `condition` holds, polling; the spec's own timeout bounds the wait. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20))
}

/** A command that prints, then waits for `go` in the root before it goes on. */
const WAITS_FOR_GO = ['-c', 'echo first; echo oops >&2; while [ ! -e go ]; do sleep 0.05; done; echo second']

describe('bash: onToolOutput', () => {
  it('hears the first line while the command still runs, with its stream, and the result is unchanged', async () => {
    const chunks: ToolOutputChunk[] = []
    const ctx = createDispatchContext({ onToolOutput: (chunk) => chunks.push(chunk) })
    const running = fx.tools.bash.executor(ctx)({ cmd: 'sh', args: WAITS_FOR_GO })
    // The command cannot end before `go` exists: seeing its first line now proves it arrived live.
    await until(() => chunks.some((c) => c.stream === 'stdout' && c.text.includes('first')))
    await until(() => chunks.some((c) => c.stream === 'stderr' && c.text.includes('oops')))
    fs.writeFileSync(path.join(fx.root, 'go'), '')
    const result = await running
    expect(result).toContain('first\n')
    expect(result).toContain('oops\n')
    expect(result).toMatch(/second\n$/)
    const stdout = chunks.filter((c) => c.stream === 'stdout').map((c) => c.text).join('')
    expect(stdout).toBe('first\nsecond\n')
    expect(chunks.filter((c) => c.stream === 'stderr').map((c) => c.text).join('')).toBe('oops\n')
    expect(chunks.every((c) => c.toolName === 'bash' && /^[0-9a-f]{64}$/.test(c.callId) && c.text !== '')).toBe(true)
  }, 60_000)

  it('hands over all the output while the result keeps its maxOutputBytes truncation', async () => {
    const small = createTools({ rootDir: fx.root, maxOutputBytes: 1_000 })
    const script = 'i=0; while [ $i -lt 500 ]; do echo "line $i"; i=$((i+1)); done'
    const chunks: ToolOutputChunk[] = []
    const heard = await small.bash.executor(createDispatchContext({ onToolOutput: (chunk) => chunks.push(chunk) }))({ cmd: 'sh', args: ['-c', script] })
    const plain = await small.bash.executor(createDispatchContext())({ cmd: 'sh', args: ['-c', script] })
    expect(heard).toBe(plain)
    expect(heard).toMatch(/\[… \d+ bytes truncated …\]/)
    const all = chunks.map((c) => c.text).join('')
    expect(all.split('\n')).toHaveLength(501)
    expect(all).toContain('line 250\n')
  }, 60_000)

  it('never splits a UTF-8 character across two chunks', async () => {
    const chunks: ToolOutputChunk[] = []
    const ctx = createDispatchContext({ onToolOutput: (chunk) => chunks.push(chunk) })
    // é is C3 A9: the two bytes are written in two reads, apart in time.
    const result = await fx.tools.bash.executor(ctx)({ cmd: 'sh', args: ['-c', "printf '\\303'; sleep 0.2; printf '\\251\\n'"] })
    expect(result).toBe('é\n')
    expect(chunks.map((c) => c.text).join('')).toBe('é\n')
    expect(chunks.some((c) => c.text.includes('\uFFFD'))).toBe(false)
  }, 60_000)

  it('a per-call listener (createCallContext) replaces the turn\'s; a listener that throws only warns', async () => {
    const turn: string[] = []
    const call: string[] = []
    const base = createDispatchContext({ onToolOutput: (chunk) => turn.push(chunk.text) })
    const ctx = createCallContext(base, { toolCallId: 'c1', onToolOutput: (chunk) => call.push(chunk.text) })
    expect(await fx.tools.bash.executor(ctx)({ cmd: 'echo', args: ['hi'] })).toBe('hi\n')
    expect(call.join('')).toBe('hi\n')
    expect(turn).toEqual([])
    const inherited = createCallContext(base, { toolCallId: 'c2' })
    await fx.tools.bash.executor(inherited)({ cmd: 'echo', args: ['again'] })
    expect(turn.join('')).toBe('again\n')

    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined)
    try {
      const throwing = createDispatchContext({
        onToolOutput: () => {
          throw new Error('listener broke')
        },
      })
      // Three chunks (the sleeps part them), one warning for the call.
      const chunky = { cmd: 'sh', args: ['-c', 'echo a; sleep 0.2; echo b; sleep 0.2; echo c'] }
      expect(await fx.tools.bash.executor(throwing)(chunky)).toBe('a\nb\nc\n')
      const listenerWarnings = () => warn.mock.calls.filter(([, options]) => (options as { code?: string } | undefined)?.code === 'TOOLSMITH_LISTENER_ERROR')
      expect(listenerWarnings()).toEqual([[expect.stringContaining('listener broke'), expect.objectContaining({ code: 'TOOLSMITH_LISTENER_ERROR' })]])
      // A listener whose promise rejects: caught and warned once, never an unhandled rejection.
      warn.mockClear()
      const rejecting = createDispatchContext({ onToolOutput: async () => Promise.reject(new Error('async listener broke')) })
      expect(await fx.tools.bash.executor(rejecting)(chunky)).toBe('a\nb\nc\n')
      await until(() => listenerWarnings().length > 0)
      expect(listenerWarnings()).toEqual([[expect.stringContaining('async listener broke'), expect.objectContaining({ code: 'TOOLSMITH_LISTENER_ERROR' })]])
    } finally {
      warn.mockRestore()
    }
  }, 60_000)

  it('a call the journal replays hears nothing live; its recorded result comes back whole', async () => {
    const journal = new JsonlJournal(path.join(fx.base, 'calls.jsonl'))
    const keyed = (heard: string[]) =>
      createCallContext(createDispatchContext({ journal, onToolOutput: (chunk) => heard.push(chunk.text) }), { toolCallId: 'k', idempotencyScope: 'once' })
    const first: string[] = []
    const again: string[] = []
    const args = { cmd: 'sh', args: ['-c', 'echo ran; echo x >> count.txt'] }
    expect(await fx.tools.bash.executor(keyed(first))(args)).toBe('ran\n')
    expect(await fx.tools.bash.executor(keyed(again))(args)).toBe('ran\n')
    expect(first.join('')).toBe('ran\n')
    expect(again).toEqual([])
    expect(fs.readFileSync(path.join(fx.root, 'count.txt'), 'utf8')).toBe('x\n')
  }, 60_000)
})
