/**
 * A turn's listener hears a running `bash` call's output as `tool-output`
 * events, between the call's `tool-start` and `tool-end`, while the command
 * still runs; the model still gets the whole result at the end.
 */
import { existsSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { TurnRunner, createTools, scriptedModel, type TurnEvent } from '../../lib/index.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'

/** A command that prints, then waits for `go` in its folder before it goes on. */
const WAITS_FOR_GO = { cmd: 'sh', args: ['-c', 'echo first; echo oops >&2; while [ ! -e go ]; do sleep 0.05; done; echo second'] }

describe('TurnRunner: tool-output events', () => {
  it('carry bash output while the command runs, tagged with the call; the result is whole', async () => {
    const root = trackedMkdtemp(path.join(os.tmpdir(), 'toolsmith-tool-output-'))
    const { bash } = createTools({ rootDir: root })
    const events: TurnEvent[] = []
    let sawFirstBeforeGo = false
    const runner = new TurnRunner({
      model: scriptedModel([{ toolCalls: [{ id: 'c1', name: 'bash', args: WAITS_FOR_GO }] }, { text: 'done' }]),
      tools: [bash],
      onEvent: (event) => {
        events.push(event)
        // The command is still waiting for `go`: release it only once its first line was heard.
        if (event.type === 'tool-output' && event.text.includes('first') && !existsSync(path.join(root, 'go'))) {
          sawFirstBeforeGo = true
          writeFileSync(path.join(root, 'go'), '')
        }
      },
    })
    const result = await runner.run('run it')
    expect(sawFirstBeforeGo).toBe(true)
    const types = events.map((e) => e.type)
    const start = types.indexOf('tool-start')
    const end = types.indexOf('tool-end')
    const outputs = events.flatMap((e, i) => (e.type === 'tool-output' ? [{ i, ...e }] : []))
    expect(outputs.length).toBeGreaterThan(0)
    expect(outputs.every(({ i }) => i > start && i < end)).toBe(true)
    expect(outputs.every((e) => e.toolName === 'bash' && e.toolCallId === 'c1' && e.step === 0)).toBe(true)
    expect(outputs.filter((e) => e.stream === 'stdout').map((e) => e.text).join('')).toBe('first\nsecond\n')
    expect(outputs.filter((e) => e.stream === 'stderr').map((e) => e.text).join('')).toBe('oops\n')
    expect(result.text).toBe('done')
    expect(result.toolCalls[0]).toMatchObject({ tool: 'bash' })
  }, 60_000)
})
