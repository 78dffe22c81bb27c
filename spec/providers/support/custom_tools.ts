/** Custom tools shared by the provider specs and the MCP stdio fixture. */
import { Tool, defineTool, validator } from '../../../lib/index.js'

/**
 * A tool whose schema exercises what providers treat differently: nested
 * objects, arrays, enums (string and numeric), optional and nullable fields,
 * defaults, descriptions, examples, notes and a label.
 */
export function createTicketTool(): Tool {
  return new Tool({
    name: 'create_ticket',
    description: 'Open a ticket in the tracker and return its id.',
    inputSchema: validator
      .object({
        title: validator.string().min(3).max(120).required().description('One-line summary').example('Login fails on Safari'),
        priority: validator.string().valid('low', 'normal', 'high').default('normal').description('How urgent it is'),
        severity: validator.number().integer().valid(1, 2, 3).description('1 = critical, 3 = cosmetic'),
        estimate: validator.number().min(0).max(100).allow(null).description('Hours of work, null when unknown'),
        labels: validator
          .array()
          .items(validator.string().pattern(/^[a-z][a-z0-9-]*$/).max(30))
          .max(5)
          .default([])
          .description('Lower-case labels'),
        assignee: validator
          .object({
            name: validator.string().required().description('Display name'),
            email: validator.string().max(200).description('Work e-mail'),
            team: validator.string().valid('web', 'api', 'infra').allow(null),
          })
          .label('Assignee')
          .description('Who should work on it')
          .note('Leave empty to use the triage rotation'),
        steps: validator
          .array()
          .items(
            validator.object({
              action: validator.string().required(),
              expected: validator.string(),
            }),
          )
          .min(1)
          .description('Reproduction steps'),
        private: validator.boolean().default(false),
      })
      .description('A new ticket'),
    handler: (args: { title: string; priority: string }) => `TICKET-1 ${args.title} (${args.priority})`,
  })
}

/** A tool that always fails with a coded error, for error paths. */
export function createFailingTool(): Tool {
  return defineTool({
    name: 'explode',
    description: 'Always fails.',
    schema: validator.object({ reason: validator.string().required() }),
    execute: ({ reason }) => {
      throw Object.assign(new Error(`exploded: ${reason}`), { code: 'BOOM' })
    },
  })
}

/**
 * A tool with an output schema: its handler returns a plain object, checked
 * against the schema. `broken: true` makes it break its own contract.
 */
export function createForecastTool(runs: string[] = []): Tool {
  return new Tool({
    name: 'forecast',
    description: 'The weather forecast for a city.',
    inputSchema: validator.object({
      city: validator.string().required().description('City name'),
      broken: validator.boolean().default(false),
    }),
    outputSchema: validator
      .object({
        city: validator.string().required(),
        tempC: validator.number().required().description('Temperature in °C'),
        conditions: validator.string().valid('sunny', 'cloudy', 'rain').required(),
        hourly: validator.array().items(validator.number()).default([]).description('Next hours, in °C'),
      })
      .description('The forecast'),
    sideEffect: true,
    idempotent: false,
    handler: async ({ city, broken }: { city: string; broken: boolean }, _ctx, _meta, _call) => {
      runs.push(city)
      return broken ? { city, tempC: 'warm', conditions: 'sunny' } : { city, tempC: 21.5, conditions: 'sunny' }
    },
  })
}
