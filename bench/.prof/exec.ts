import { createHash } from 'node:crypto'
import { Tool, createDispatchContext, validator } from '../../lib/index.js'
const ARGS = { path: 'src/index.ts', limit: 42, recursive: true }
const inputSchema = validator.object({ path: validator.string().required(), limit: validator.number().integer().required(), recursive: validator.boolean().required() })
const tool = new Tool({ name: 'noop', description: 'x', inputSchema, handler: () => 'ok' })
const ex = tool.executor(createDispatchContext())
const mode = process.argv[2]
for (let r = 0; r < 5; r++) {
  const t = performance.now()
  for (let i = 0; i < 50000; i++) {
    if (mode === 'base') { await inputSchema.validateAsync(ARGS, { abortEarly: false, convert: false }); createHash('sha256').update(JSON.stringify({ tool: 'noop', args: ARGS })).digest('hex') }
    else await ex(ARGS)
  }
  console.log(mode, ((performance.now() - t) / 50000 * 1000).toFixed(2), 'µs')
}
