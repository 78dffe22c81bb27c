import { spawn } from 'node:child_process'
import { execa } from 'execa'
const N = 100
function sp(opts: object) { return new Promise<void>((res, rej) => { const c = spawn('/usr/bin/true', [], { stdio: 'ignore', ...opts }); c.on('error', rej); c.on('close', () => res()) }) }
function spPipe(opts: object) { return new Promise<void>((res, rej) => { const c = spawn('/usr/bin/true', [], { stdio: ['ignore', 'pipe', 'pipe'], ...opts }); c.stdout!.on('data', () => {}); c.stderr!.on('data', () => {}); c.on('error', rej); c.on('close', () => res()) }) }
const env = { PATH: '/usr/bin:/bin', HOME: '/tmp', LANG: 'C.UTF-8' }
const arms: Record<string, () => Promise<unknown>> = {
  'spawn ignore': () => sp({}),
  'spawn pipes': () => spPipe({}),
  'spawn pipes detached env': () => spPipe({ detached: true, env }),
  'execa like tool': () => execa('/usr/bin/true', [], { cwd: '/tmp', env, extendEnv: false, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', buffer: false, detached: true, cleanup: false, reject: false, windowsHide: true }),
}
for (let round = 0; round < 3; round++) for (const [name, fn] of Object.entries(arms)) {
  const t = performance.now(); for (let i = 0; i < N; i++) await fn()
  console.log(name.padEnd(28), ((performance.now() - t) / N).toFixed(2), 'ms')
}
