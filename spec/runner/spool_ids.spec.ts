import { describe, expect, it } from 'vitest'
import { FileSpoolStore, InMemorySpoolStore, TurnRunner, defineTool, scriptedModel, validator, type SpoolStore } from '../../lib/index.js'

/** Review 2, finding #2: two calls with the same tool and args (same checksum) must both stay readable. */
describe.each<[string, () => SpoolStore & { clear?: () => Promise<void> }]>([
  ['FileSpoolStore', () => new FileSpoolStore()],
  ['InMemorySpoolStore', () => new InMemorySpoolStore()],
])('spooled results of repeated calls (%s)', (_name, makeStore) => {
  it('keeps both results reachable under the id the model was told', async () => {
    let run = 0
    // Same name and args every time, different (large) output each run.
    const big = defineTool({
      name: 'big',
      schema: validator.object({}),
      execute: async () => {
        run++
        return Array.from({ length: 3_000 }, (_, i) => `run${run} line ${i}`).join('\n')
      },
    })
    const told: string[] = []
    const pages: string[] = []
    const lastContent = (request: { messages: { content: string }[] }) => request.messages.at(-1)!.content
    const store = makeStore()
    const runner = new TurnRunner({
      spoolStore: store,
      model: scriptedModel([
        { toolCalls: [{ id: 'first', name: 'big', args: {} }] },
        (request) => {
          told.push(/callId: ([^\]\s]+)\]/.exec(lastContent(request))![1]!)
          return { toolCalls: [{ id: 'second', name: 'big', args: {} }] }
        },
        (request) => {
          told.push(/callId: ([^\]\s]+)\]/.exec(lastContent(request))![1]!)
          return {
            toolCalls: [
              { id: 'p1', name: 'artifact_head', args: { callId: told[0], n: 2 } },
              { id: 'p2', name: 'artifact_head', args: { callId: told[1], n: 2 } },
            ],
          }
        },
        (request) => {
          pages.push(...request.messages.slice(-2).map((m) => m.content))
          return { text: 'done' }
        },
      ]),
      tools: [big],
    })
    try {
      const result = await runner.run('go')
      expect(result.text).toBe('done')
      expect(told).toEqual(['first', 'second'])
      expect(pages[0]).toMatch(/^run1 line 0\nrun1 line 1/)
      expect(pages[1]).toMatch(/^run2 line 0\nrun2 line 1/)
      // The earlier ToolCall still shows its own output after the second call.
      expect(result.toolCalls[0]!.checksum).toBe(result.toolCalls[1]!.checksum)
      expect(await result.toolCalls[0]!.results!.head(1)).toBe('run1 line 0')
      expect(await result.toolCalls[1]!.results!.head(1)).toBe('run2 line 0')
    } finally {
      await store.clear?.()
    }
  })
})
