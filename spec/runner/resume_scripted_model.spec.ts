// What docs/runner.md says about resume and `scriptedModel`: the script counts
// its own answers, so a fresh one (a new worker) answers the resumed turn's
// first request with step 0 again; a model that reads the request (`step`, the
// rebuilt conversation) continues where the turn stopped, as a real model does.
import { appendFileSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { JsonlJournal, Tool, TurnRunner, scriptedModel, validator, type ModelResponse, type TurnModel } from '../../lib/index.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'

/** A tool with a side effect that appends its `text` to a log: which calls ran, in order. */
function noteTool(log: string): Tool {
  return new Tool({
    name: 'note',
    description: 'Append a line to the log.',
    inputSchema: validator.object({ text: validator.string().required() }),
    // Claimed in the journal: a resume replays a call that completed instead of running it again.
    sideEffect: true,
    idempotent: false,
    handler: async ({ text }: { text: string }, _ctx, _meta, _call) => {
      appendFileSync(log, `${text}\n`)
      return 'noted'
    },
  })
}

const STEPS: ModelResponse[] = [
  { toolCalls: [{ id: 'c1', name: 'note', args: { text: 'first' } }] },
  { toolCalls: [{ id: 'c2', name: 'note', args: { text: 'second' } }] },
  { text: 'done' },
]

/** Runs step 0's call, then loses the worker at the second model call. */
async function interrupted(dir: string): Promise<{ journal: JsonlJournal; log: string; runId: string }> {
  const log = join(dir, 'log.txt')
  const journal = new JsonlJournal(join(dir, 'journal.jsonl'))
  const runId = 'resume-scripted'
  const lost: TurnModel = async ({ step }) => {
    if (step === 0) return STEPS[0]!
    throw new Error('worker lost')
  }
  const runner = new TurnRunner({ model: lost, tools: [noteTool(log)], journal, identity: { runId, nodeId: 'n', iteration: 0, attempt: 1 } })
  await expect(runner.run('take notes')).rejects.toThrow('worker lost')
  expect(readFileSync(log, 'utf8')).toBe('first\n')
  return { journal, log, runId }
}

describe('resume with scriptedModel and with a model that reads the request', () => {
  it('a fresh scriptedModel starts again at step 0: its first call runs a second time', async () => {
    const { journal, log, runId } = await interrupted(trackedMkdtemp(join(tmpdir(), 'toolsmith-resume-script-')))
    const result = await new TurnRunner({ model: scriptedModel(STEPS), tools: [noteTool(log)], journal }).resume(runId)
    expect(readFileSync(log, 'utf8')).toBe('first\nfirst\nsecond\n')
    expect(result.text).toBe('done')
  }, 60_000)

  it('a model indexed by request.step continues at the step the turn had reached', async () => {
    const { journal, log, runId } = await interrupted(trackedMkdtemp(join(tmpdir(), 'toolsmith-resume-step-')))
    const model: TurnModel = ({ step }) => STEPS[step] ?? { text: '' }
    const result = await new TurnRunner({ model, tools: [noteTool(log)], journal }).resume(runId)
    expect(readFileSync(log, 'utf8')).toBe('first\nsecond\n')
    expect(result.text).toBe('done')
  }, 60_000)
})
