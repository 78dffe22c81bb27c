/**
 * Retries the smithers way: the second attempt of a task is told which
 * non-idempotent side effects the first one already caused, and the tool sees
 * the same idempotency key in both attempts.
 *
 *   npx tsx docs/examples/runner_retries.ts
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { JsonlJournal, TurnRunner, defineTool, scriptedModel, validator } from 'toolsmith'

const chargeCard = defineTool({
  name: 'charge_card',
  description: 'Charge a customer (pretend)',
  schema: validator.object({ customer: validator.string().required(), cents: validator.number().integer().required() }),
  sideEffect: true,
  idempotent: false,
  // A real tool passes call.idempotencyKey to the payment API, which then refuses a duplicate.
  execute: async ({ customer, cents }, call) => `charged ${customer} ${cents}¢ (key ${call.idempotencyKey.slice(0, 12)}…)`,
})

const journal = new JsonlJournal(join(mkdtempSync(join(tmpdir(), 'retries-example-')), 'journal.jsonl'))
const task = { runId: 'order-1001', nodeId: 'charge', iteration: 0 }
const charge = { toolCalls: [{ id: 'c1', name: 'charge_card', args: { customer: 'ada', cents: 4200 } }] }

// Attempt 1 charges the card, then (say) the process dies before the task completes.
const first = new TurnRunner({ model: scriptedModel([charge, { text: '' }]), tools: [chargeCard], journal, identity: { ...task, attempt: 1 } })
console.log('attempt 1:', (await first.run('Charge ada 42.00')).messages.find((m) => m.role === 'tool')!.content)

// Attempt 2 starts with a warning, before the model acts.
const second = new TurnRunner({
  model: scriptedModel([
    (request) => {
      console.log(`attempt 2 sees:\n${request.messages[0]!.content}`)
      return { text: 'The card was already charged in attempt 1; not charging again.' }
    },
  ]),
  tools: [chargeCard],
  journal,
  identity: { ...task, attempt: 2 },
})
console.log('attempt 2:', (await second.run('Charge ada 42.00')).text)
console.log('side effects on record:', (await journal.sideEffectsFor(task)).map((r) => `${r.toolName} ${r.inputJson}`))
