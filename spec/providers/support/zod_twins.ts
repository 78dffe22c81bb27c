/**
 * Tools defined twice, once with joi and once with zod 4, whose schemas mean
 * the same: every provider definition of one must equal the other's.
 */
import { z } from 'zod'
import { Tool, validator } from '../../../lib/index.js'

/** The joi twin: nested object, array of objects, enums, bounds, optional keys, a default, examples. */
export function joiBookingTool(): Tool {
  return new Tool({
    name: 'book_room',
    description: 'Book a meeting room.',
    inputSchema: validator
      .object({
        people: validator.number().integer().min(1).max(30).required(),
        room: validator.string().min(2).max(40).required().description('Room name').example('Fjord'),
        size: validator.string().valid('small', 'large').description('Room size'),
        // zod bounds every int() to the safe range; joi says so only when asked.
        $top: validator.number().integer().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER).description('A key Gemini renames'),
        organiser: validator
          .object({
            name: validator.string().min(1).required().description('Display name'),
            email: validator.string().min(1),
          })
          .description('Who books'),
        agenda: validator
          .array()
          .items(validator.object({ topic: validator.string().min(1).required(), minutes: validator.number() }))
          .min(1),
        remote: validator.boolean(),
      })
      .description('A booking'),
    handler: () => 'booked',
  })
}

/** The zod twin of {@link joiBookingTool} (keys in the order joi lists `required`): strict objects (joi refuses unknown keys too), `min(1)` strings (joi refuses ''). */
export function zodBookingTool() {
  return new Tool({
    name: 'book_room',
    description: 'Book a meeting room.',
    inputSchema: z
      .strictObject({
        people: z.number().int().min(1).max(30),
        room: z.string().min(2).max(40).describe('Room name').meta({ examples: ['Fjord'] }),
        size: z.enum(['small', 'large']).optional().describe('Room size'),
        $top: z.number().int().optional().describe('A key Gemini renames'),
        organiser: z
          .strictObject({ name: z.string().min(1).describe('Display name'), email: z.string().min(1).optional() })
          .optional()
          .describe('Who books'),
        agenda: z.array(z.strictObject({ topic: z.string().min(1), minutes: z.number().optional() })).min(1).optional(),
        remote: z.boolean().optional(),
      })
      .describe('A booking'),
    handler: ({ room, people }) => `booked ${room} for ${people}`,
  })
}
