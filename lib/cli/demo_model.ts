/**
 * The scripted model `toolsmith demo` plays: it reacts to real tool results,
 * so the turn is a genuine read → grep → edit → bash loop, just without an LLM.
 *
 * @module
 */
import { createPatch } from 'diff'
import type { Message, ModelRequest, ModelResponse, TurnModel } from '../providers/messages.js'
import { scriptedModel } from '../runner/scripted_model.js'

/** The file the demo fixes. */
export const DEMO_FILE = 'src/stats.js'
/** The demo's test file. */
export const DEMO_TEST_FILE = 'test/stats.test.js'
/** The prompt the demo sends. */
export const DEMO_PROMPT = `The tests in ${DEMO_TEST_FILE} fail. Find the bug in ${DEMO_FILE}, fix it, and run the tests.`

const BUGGY_LOOP = 'for (let i = 1; i < values.length; i++)'
const FIXED_LOOP = 'for (let i = 0; i < values.length; i++)'

/**
 * The demo model.
 *
 * @param nodePath - The node executable bash runs the tests with.
 * @returns A {@link TurnModel} for four steps.
 */
export function demoModel(nodePath: string = process.execPath): TurnModel {
  return scriptedModel([
    {
      text: `Let me look at ${DEMO_FILE} and find its loops.`,
      toolCalls: [
        { id: 'call_read', name: 'read', args: { path: DEMO_FILE } },
        { id: 'call_grep', name: 'grep', args: { pattern: 'for \\(let i = ', path: 'src' } },
      ],
    },
    (request) => {
      const source = toolResult(request, 'call_read')
      if (source === undefined || !source.includes(BUGGY_LOOP)) {
        return { text: `I could not find the loop I expected in ${DEMO_FILE}; stopping.` }
      }
      const patch = createPatch(DEMO_FILE, source, source.replace(BUGGY_LOOP, FIXED_LOOP))
      return {
        text: 'sum() starts its loop at index 1, so it skips the first value. Starting it at 0 fixes it.',
        toolCalls: [{ id: 'call_edit', name: 'edit', args: { path: DEMO_FILE, patch } }],
      }
    },
    (request) => {
      const edit = lastMessage(request)
      if (edit?.isError) return { text: `The edit failed: ${edit.content}` }
      return {
        text: 'Now the tests.',
        toolCalls: [{ id: 'call_test', name: 'bash', args: { cmd: nodePath, args: ['--test', '--test-reporter=spec', DEMO_TEST_FILE] } }],
      }
    },
    (request): ModelResponse => {
      const run = lastMessage(request)
      const passed = /^\S* ?pass (\d+)/m.exec(run?.content ?? '')?.[1]
      return run?.isError
        ? { text: `The tests still fail:\n${run.content}` }
        : { text: `Fixed: the loop in sum() now starts at 0, and ${passed ?? 'all'} tests pass.` }
    },
  ])
}

function toolResult(request: ModelRequest, callId: string): string | undefined {
  const message = request.messages.find((m) => m.role === 'tool' && m.toolCallId === callId)
  return message && !message.isError ? message.content : undefined
}

function lastMessage(request: ModelRequest): Message | undefined {
  return request.messages.at(-1)
}
