/**
 * Descriptors the host process inherited without close-on-exec never reach
 * a command: with a system bash they are closed in the child before the
 * program runs (so the child sees nothing at their numbers), in the OS
 * sandbox, in the opt-out, and for grep's rg.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { removeTrackedDirs, trackedMkdtemp } from '../support/temp_dirs.js'

afterAll(() => removeTrackedDirs())

const hasSystemBash = ['/usr/bin/bash', '/bin/bash'].some((file) => fs.existsSync(file))

/**
 * Run `script` in a Node process that inherited `/dev/null` at fds 20 … 59
 * (40 descriptors). After a gap: Node marks a contiguous run of descriptors
 * from 0 close-on-exec at startup (`uv_disable_stdio_inheritance`), not
 * those beyond the first closed number.
 */
function inHostWithForty(root: string, script: string): Promise<string> {
  const file = path.join(root, 'host.mts')
  fs.writeFileSync(file, script)
  const devNull = fs.openSync('/dev/null', 'r')
  const stdio: Array<'ignore' | 'pipe' | 'inherit' | number> = ['ignore', 'pipe', 'inherit']
  while (stdio.length < 20) stdio.push('ignore')
  for (let fd = 20; fd < 60; fd++) stdio.push(devNull)
  const child = spawn(process.execPath, ['--import', 'tsx', file], { stdio })
  fs.closeSync(devNull)
  let out = ''
  child.stdout!.on('data', (chunk) => (out += chunk))
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', () => resolve(out))
  })
}

describe('inherited descriptors', () => {
  it.skipIf(!hasSystemBash)('40 inherited descriptors are closed in the child: a command sees only 0–2 (OS sandbox, opt-out)', async () => {
    const root = fs.realpathSync(trackedMkdtemp('toolsmith-fds-'))
    const barrel = path.resolve('lib/index.ts')
    const script = `
      import { createTools, createDispatchContext } from ${JSON.stringify(barrel)}
      const ls = { cmd: 'sh', args: ['-c', 'ls /proc/self/fd | sort -n | tr "\\\\n" " "'] }
      const run = async (tools) => { try { return String(await tools.bash.executor(createDispatchContext())(ls)) } catch (e) { return String(e.cause?.code ?? e) } }
      console.log('os: ' + await run(createTools({ rootDir: ${JSON.stringify(root)} })))
      console.log('optout: ' + await run(createTools({ rootDir: ${JSON.stringify(root)}, isolation: { filesystem: false } })))
      const { inheritableDescriptors } = await import(${JSON.stringify(path.resolve('lib/sandbox/process/descriptors.ts'))})
      console.log('host: ' + inheritableDescriptors().length)
    `
    const out = await inHostWithForty(root, script)
    // The host really held the 40 (else the spec proves nothing); a test runner may add its own.
    expect(Number(/^host: (\d+)$/m.exec(out)?.[1])).toBeGreaterThanOrEqual(40)
    // ls's own descriptors: 0, 1, 2 and the listing's (3), nothing else (no /dev/null left at 20 … 59).
    expect(out).toMatch(/^os: 0 1 2 3 $/m)
    expect(out).toMatch(/^optout: 0 1 2 3 $/m)
  })

  it.skipIf(!hasSystemBash)("grep's rg runs without them too", async () => {
    const root = fs.realpathSync(trackedMkdtemp('toolsmith-fds-'))
    fs.mkdirSync(path.join(root, 'tree'))
    fs.writeFileSync(path.join(root, 'tree', 'a.txt'), 'needle\n')
    const barrel = path.resolve('lib/index.ts')
    const script = `
      import { createTools, createDispatchContext } from ${JSON.stringify(barrel)}
      const tools = createTools({ rootDir: ${JSON.stringify(path.join(root, 'tree'))} })
      console.log('grep: ' + JSON.stringify(String(await tools.grep.executor(createDispatchContext())({ pattern: 'needle' }))))
    `
    const out = await inHostWithForty(root, script)
    expect(out).toMatch(/^grep: "a\.txt:1:needle\\n"$/m)
  })
})
