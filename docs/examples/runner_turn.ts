/**
 * A TurnRunner turn with a scripted model: parallel reads, a spooled result
 * paged through with artifact tools, and the journal at the end.
 *
 *   npx tsx docs/examples/runner_turn.ts
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { JsonlJournal, TurnRunner, createTools, scriptedModel } from 'toolsmith'

const root = mkdtempSync(join(tmpdir(), 'runner-example-'))
writeFileSync(join(root, 'app.log'), Array.from({ length: 3_000 }, (_, i) => `${i % 500 === 42 ? 'ERROR' : 'info'} event ${i}`).join('\n'))
writeFileSync(join(root, 'README.md'), '# example\n')

const { read, grep } = createTools({ rootDir: root })
const journal = new JsonlJournal(join(root, '.journal.jsonl'))

const runner = new TurnRunner({
  model: scriptedModel([
    // Two read-only calls in one step: they run in parallel.
    {
      toolCalls: [
        { id: 'c1', name: 'read', args: { path: 'README.md' } },
        { id: 'c2', name: 'read', args: { path: 'app.log' } },
      ],
    },
    // app.log is over the 16 KiB inline budget: the model got a preview and a
    // callId, and artifact_* tools are now on offer.
    (request) => {
      const preview = request.messages.find((m) => m.toolCallId === 'c2')!.content
      const callId = /callId: (\w+)/.exec(preview)![1]!
      console.log('offered now:', request.tools.map((t) => t.name).join(', '))
      return { toolCalls: [{ id: 'c3', name: 'artifact_grep', args: { callId, pattern: 'ERROR' } }] }
    },
    (request) => ({ text: `Errors found:\n${request.messages.at(-1)!.content}` }),
  ]),
  tools: [read, grep],
  journal,
  identity: { runId: 'example', nodeId: 'triage', iteration: 0, attempt: 1 },
  onEvent: (event) => {
    if (event.type === 'tool-end') {
      console.log(`${event.toolName} #${event.seq}: ${Math.round(event.durationMs)} ms, ${event.bytes} bytes${event.spooled ? ' (spooled)' : ''}`)
    }
  },
})

const result = await runner.run('Which errors are in app.log?')
console.log(result.text)
console.log(`${result.steps} steps, ${result.toolCalls.length} calls`)

for (const row of await journal.list({ runId: 'example' })) {
  console.log(row.seq, row.toolName, row.status, row.inputJson, row.outputJson!.slice(0, 60))
}
