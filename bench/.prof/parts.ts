import { createHash } from 'node:crypto'
import { canonicalStringify, sha256Hex, createDispatchContext, validator, asyncValidateOrThrow } from '../../lib/index.js'
const ARGS = { path: 'src/index.ts', limit: 42, recursive: true }
const inputSchema = validator.object({ path: validator.string().required(), limit: validator.number().integer().required(), recursive: validator.boolean().required() })
const ctx = createDispatchContext()
const N = 100000
async function bench(name: string, fn: () => unknown) {
  let best = Infinity
  for (let r = 0; r < 5; r++) { const t = performance.now(); for (let i = 0; i < N; i++) await fn(); best = Math.min(best, (performance.now() - t) / N * 1000) }
  console.log(name.padEnd(30), best.toFixed(3), 'µs')
}
const opts = { abortEarly: false, convert: false }
await bench('validateAsync literal opts', () => inputSchema.validateAsync(ARGS, { abortEarly: false, convert: false }))
await bench('validateAsync const opts', () => inputSchema.validateAsync(ARGS, opts))
await bench('asyncValidateOrThrow', () => asyncValidateOrThrow(inputSchema, ARGS, { convert: false }))
const pref = inputSchema.prefs({ abortEarly: false, convert: false })
await bench('validateAsync schema prefs', () => pref.validateAsync(ARGS))
await bench('validate sync const', () => inputSchema.validate(ARGS, opts))
await bench('json+hash', () => createHash('sha256').update(JSON.stringify({ tool: 'noop', args: ARGS })).digest('hex'))
await bench('canonical', () => canonicalStringify({ tool: 'noop', args: ARGS }))
await bench('json', () => JSON.stringify({ tool: 'noop', args: ARGS }))
await bench('sha256Hex', () => sha256Hex('{"args":{"limit":42,"path":"src/index.ts","recursive":true},"tool":"noop"}'))
await bench('emit start', () => ctx.emitToolExecutionStart({ toolName: 'noop', turnId: ctx.id, callId: 'x', args: ARGS, startedAt: Date.now() }))
await bench('Date.now+perf.now', () => Date.now() + performance.now())
await bench('empty await', () => undefined)
