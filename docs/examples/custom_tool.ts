/**
 * Define a custom tool, run it through `executor(ctx)`, and print the events.
 *
 *   npx tsx docs/examples/custom_tool.ts
 */
import { Tool, createDispatchContext, defineTool, errorSummary, validator } from 'toolsmith'

// A class-based tool: the schema annotations double as provider documentation.
class TemperatureTool extends Tool {
  constructor() {
    super({
      name: 'temperature',
      description: 'Converts a temperature between Celsius and Fahrenheit',
      inputSchema: validator.object({
        value: validator.number().required().description('The temperature to convert'),
        to: validator.string().valid('C', 'F').default('F').description('Target unit'),
      }),
      handler: async ({ value, to }: { value: number; to: 'C' | 'F' }) =>
        to === 'F' ? `${((value * 9) / 5 + 32).toFixed(1)}°F` : `${(((value - 32) * 5) / 9).toFixed(1)}°C`,
    })
  }
}

// The smithers-style factory gives the same kind of object.
const notify = defineTool({
  name: 'notify',
  description: 'Sends a notification (pretend)',
  schema: validator.object({ message: validator.string().max(140).required() }),
  sideEffect: true,
  idempotent: false,
  execute: async ({ message }, call) => `queued "${message}" with key ${call.idempotencyKey.slice(0, 12)}…`,
})

const ctx = createDispatchContext({ idempotencyScope: 'example-run/step-1' })
ctx.on('toolExecutionStart', (e) => console.log(`start ${e.toolName} callId=${e.callId.slice(0, 12)}… args=${JSON.stringify(e.args)}`))
ctx.on('toolExecutionEnd', (e) =>
  console.log(`end   ${e.toolName} callId=${e.callId.slice(0, 12)}… ${e.isError ? 'ERROR' : 'ok'} in ${e.durationMs.toFixed(2)} ms`),
)

const temperature = new TemperatureTool().executor(ctx)
console.log('result:', await temperature({ value: 21 }))
console.log('result:', await notify.executor(ctx)({ message: 'build is green' }))

// Invalid args are rejected before any event, with every failing field named.
try {
  await temperature({ value: 'hot', to: 'K' })
} catch (error) {
  console.log('rejected:', errorSummary(error))
}
