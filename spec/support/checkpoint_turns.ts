// Turns the checkpoint specs interrupt and resume, shared by the JSONL,
// SQLite and PostgreSQL specs.
import { randomBytes } from 'node:crypto'
import { expect } from 'vitest'
import { Tool, TurnRunner, createTools, validator, type ClaimingJournal, type Message, type ModelToolCall, type TurnIdentity, type TurnModel } from '../../lib/index.js'

/** A password in args that fail validation: never stored. */
export const PASSWORD = 'hunter2-secret'
/** A write's content: never stored. */
export const CONTENT = 'DISTINCTIVE-write-content-5c1e7f'

export const identity: TurnIdentity = { runId: 'ckpt-run', nodeId: 'fix', iteration: 0, attempt: 1 }

/** The failed-validation calls (a stray password, a wrong type next to it, an unknown tool) and a write. */
export function firstAnswer(): ModelToolCall[] {
  return [
    { id: 'bad-1', name: 'write', args: { password: PASSWORD } },
    { id: 'bad-2', name: 'write', args: { path: PASSWORD, content: 42 } },
    { id: 'bad-3', name: 'nope', args: { password: PASSWORD } },
    { id: 'w', name: 'write', args: { path: 'notes.txt', content: CONTENT } },
  ]
}

/** A turn whose worker is lost after its first answer's calls ran. */
export async function interruptedTurn(journal: ClaimingJournal, dir: string, options: { checkpointKey?: Uint8Array } = {}): Promise<Message[]> {
  let seen: Message[] = []
  const runner = new TurnRunner({
    model: async ({ step, messages }) => {
      if (step === 0) return { toolCalls: firstAnswer() }
      seen = messages
      throw new Error('worker lost')
    },
    tools: [createTools({ rootDir: dir }).write],
    journal,
    identity,
    ...options,
  })
  await expect(runner.run('take notes')).rejects.toThrow('worker lost')
  return seen
}

export function assistantArgs(messages: Message[]): unknown[] {
  return messages.flatMap((m) => m.toolCalls ?? []).map((c) => c.args)
}

/** A turn interrupted at its fourth model call: a chain of a root and two deltas, the last answer's call to run again. */
export async function threeStepTurn(journal: ClaimingJournal, options: { checkpointKey?: Uint8Array } = {}): Promise<void> {
  const echo = echoTool()
  const runner = new TurnRunner({
    model: async ({ step }) => {
      if (step < 3) return { toolCalls: [{ id: `e${step}`, name: 'echo', args: { n: step } }] }
      throw new Error('worker lost')
    },
    tools: [echo],
    journal,
    identity,
    ...options,
  })
  await expect(runner.run('echo thrice')).rejects.toThrow('worker lost')
}


/**
 * A 200-step turn (each step a read-only call with random text and a
 * claimed non-idempotent one), sampling the journal's size before every
 * model call: the bytes steps 1-10 added per step, and steps 189-198.
 */
export async function growthTurn(journal: ClaimingJournal, bytes: () => number | Promise<number>): Promise<{ at10: number; at200: number }> {
  const note = new Tool({
    name: 'note',
    description: 'Keeps a note',
    inputSchema: validator.object({ text: validator.string().required() }),
    sideEffect: false,
    handler: async ({ text }: { text: string }) => `noted ${text.slice(0, 40)}`,
  })
  const tally = new Tool({
    name: 'tally',
    description: 'Counts once',
    inputSchema: validator.object({ n: validator.number().required() }),
    sideEffect: true,
    idempotent: false,
    handler: async ({ n }: { n: number }, _ctx, _meta, _call) => `counted ${n}`,
  })
  const sizes: number[] = []
  const model: TurnModel = async ({ step }) => {
    sizes[step] = await bytes() // everything of the steps before is written by now
    // Random text: a store that compresses cannot hide a repeated conversation.
    return { toolCalls: [{ id: `n${step}`, name: 'note', args: { text: randomBytes(150).toString('base64') } }, { id: `t${step}`, name: 'tally', args: { n: step } }] }
  }
  const result = await new TurnRunner({ model, tools: [note, tally], journal, identity, maxSteps: 200 }).run('count to 200')
  expect(result.steps).toBe(200)
  const perStep = (from: number, to: number): number => (sizes[to]! - sizes[from]!) / (to - from)
  return { at10: perStep(1, 11), at200: perStep(189, 199) }
}

/** A read-only tool answering `echo <n>`. */
export function echoTool(): Tool {
  return new Tool({ name: 'echo', description: 'Echo', inputSchema: validator.object({ n: validator.number().required() }), handler: async ({ n }: { n: number }) => `echo ${n}` })
}
