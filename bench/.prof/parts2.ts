import { validator, asyncValidateOrThrow, ValidationException } from '../../lib/index.js'
const ARGS = { path: 'src/index.ts', limit: 42, recursive: true }
const inputSchema = validator.object({ path: validator.string().required(), limit: validator.number().integer().required(), recursive: validator.boolean().required() })
const N = 100000
async function bench(name: string, fn: () => unknown) {
  let best = Infinity
  for (let r = 0; r < 7; r++) { const t = performance.now(); for (let i = 0; i < N; i++) await fn(); best = Math.min(best, (performance.now() - t) / N * 1000) }
  console.log(name.padEnd(30), best.toFixed(3), 'µs')
}
const D = { abortEarly: false }
const opts = { abortEarly: false, convert: false }
async function wrapSpread(o: object) { try { return await inputSchema.validateAsync(ARGS, { ...D, ...o }) } catch (e) { throw new ValidationException(e as any) } }
async function wrapConst() { try { return await inputSchema.validateAsync(ARGS, opts) } catch (e) { throw new ValidationException(e as any) } }
function wrapThen() { return inputSchema.validateAsync(ARGS, opts).catch((e) => { throw new ValidationException(e as any) }) }
for (let k = 0; k < 2; k++) {
await bench('validateAsync const opts', () => inputSchema.validateAsync(ARGS, opts))
await bench('asyncValidateOrThrow', () => asyncValidateOrThrow(inputSchema, ARGS, { convert: false }))
await bench('wrapSpread', () => wrapSpread({ convert: false }))
await bench('wrapConst', () => wrapConst())
await bench('wrapThen', () => wrapThen())
}
