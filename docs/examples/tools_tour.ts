/**
 * A tour of the five built-in tools in a throw-away sandbox, refusals included.
 *
 *   npx tsx docs/examples/tools_tour.ts
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createDispatchContext, createTools, errorSummary } from 'toolsmith'

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolsmith-demo-'))
const { read, write, edit, grep, bash } = createTools({ rootDir: root, timeoutMs: 10_000 })
const ctx = createDispatchContext({
  onToolExecutionStart: (e) => console.log('start', e.toolName, JSON.stringify(e.args)),
})

/** Run a tool and print its result, or its error as `CODE: message`. */
async function show(name: string, run: () => Promise<unknown>): Promise<void> {
  try {
    console.log(name, '→', JSON.stringify(await run()))
  } catch (error) {
    console.log(name, '→', errorSummary((error as Error).cause ?? error).split('\n')[0])
  }
}

try {
  await show('write', () => write.executor(ctx)({ path: 'src/greet.ts', content: 'export const hi = "hello"\n' }))
  await show('edit', () =>
    edit.executor(ctx)({ path: 'src/greet.ts', patch: '@@ -1 +1 @@\n-export const hi = "hello"\n+export const hi = "hi"\n' }),
  )
  await show('read', () => read.executor(ctx)({ path: 'src/greet.ts' }))
  await show('grep', () => grep.executor(ctx)({ pattern: 'hi' }))
  await show('bash', () => bash.executor(ctx)({ cmd: 'sh', args: ['-c', 'ls -R | head -5'] }))
  // Refusals
  await show('escape', () => read.executor(ctx)({ path: '../../etc/passwd' }))
  // bash runs in the OS sandbox: the host is read-only, and the network is cut by the kernel.
  await show('outside', () => bash.executor(ctx)({ cmd: 'touch', args: ['/usr/local/owned'] }))
  await show('network', async () => {
    try {
      return await bash.executor(ctx)({ cmd: 'node', args: ['-e', "require('net').connect(9, '127.0.0.1').on('error', (e) => { console.log(e.code); process.exit(1) })"] })
    } catch (error) {
      // The kit adds one line to a failure that looks like a network access.
      throw new Error(String((error as { cause?: { details?: { output?: string } } }).cause?.details?.output).trim().split('\n').join(' | '))
    }
  })
  await show('bad patch', () => edit.executor(ctx)({ path: 'src/greet.ts', patch: '@@ -1 +1 @@\n-nope\n+x\n' }))
  await show('failure', () => bash.executor(ctx)({ cmd: 'sh', args: ['-c', 'echo boom >&2; exit 2'] }))
} finally {
  fs.rmSync(root, { recursive: true, force: true })
}
