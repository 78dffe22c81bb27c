/**
 * Page through a large tool result with forged artifact tools.
 *
 *   npx tsx docs/examples/artifacts_paging.ts
 */
import { FileSpoolStore, SpooledArtifact, ToolCall, createDispatchContext } from 'toolsmith'

// 1. A tool produced a big output: stream it to disk.
async function* buildLog(): AsyncGenerator<string> {
  for (let i = 1; i <= 200_000; i++) yield `step ${i} ${i % 25_000 === 0 ? 'ERROR disk full' : 'ok'}\n`
}
const store = new FileSpoolStore() // a fresh temp folder
const artifact = await SpooledArtifact.fromResult(buildLog(), { store, id: 'build-log' })
console.log(await artifact.lineCount(), 'lines,', await artifact.byteLength(), 'bytes')

// 2. Record the call that produced it.
const call = new ToolCall({ id: 'call_1', tool: 'bash', args: { cmd: 'make' } }).complete(artifact)

// 3. Forge the paging tools and run them as a model would, through executor(ctx).
const tools = SpooledArtifact.forgeTools([call])
const ctx = createDispatchContext()
const run = (name: string, args: object) => tools.get(name)!.executor(ctx)({ callId: call.checksum, ...args })

console.log(await run('artifact_grep', { pattern: 'ERROR' }))      // 8 hits, with line numbers
console.log(await run('artifact_cat', { start: 49_998, end: 50_002 })) // the lines around one of them
console.log(await run('artifact_tail', { n: 3 }))
const page = (await run('artifact_cat', { start: 1 })) as string      // everything? one bounded page
console.log(page.split('\n').at(-1))                                 // [lines 1-200 of 200000; … continue with artifact_cat start=201]

tools.pruneEphemeral()
await store.clear()
