/**
 * The `isolation` option of `Sandbox`: it can only switch namespaces off, the
 * `isolation` getter reports what is really enforced, and the network guard
 * applies whatever the option says.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { Sandbox, createTools } from '../../lib/index.js'
import { call, failure, makeFixture, waitGone } from '../tools/helpers.js'

const machine = (() => {
  const ok = (flags: string[]) =>
    process.platform === 'linux' && spawnSync('unshare', [...flags, '--', '/bin/sh', '-c', 'exit 0'], { stdio: 'ignore' }).status === 0
  return { network: ok(['--map-root-user', '--net']), pid: ok(['--map-root-user', '--pid', '--fork', '--kill-child']) }
})()

describe('Sandbox isolation option', () => {
  type Option = { filesystem?: boolean; network?: boolean; pid?: boolean }
  const combinations: [boolean, Option | undefined][] = []
  for (const allowNetwork of [false, true]) {
    for (const option of [undefined, {}, { network: false }, { pid: false }, { network: false, pid: false }, { network: true, pid: true }]) {
      combinations.push([allowNetwork, option])
      combinations.push([allowNetwork, { ...option, filesystem: false }])
    }
  }

  it.each(combinations)('allowNetwork %j, isolation %j: the getter reports what is enforced', (allowNetwork, option) => {
    const sandbox = new Sandbox(option === undefined ? { allowNetwork } : { allowNetwork, isolation: option })
    const wantNetwork = !allowNetwork && option?.network !== false
    if (option?.filesystem === false) {
      // The opt-out: unshare's namespaces, each where the kernel allows it.
      expect(sandbox.isolation).toEqual({ filesystem: false, network: wantNetwork && machine.network, pid: option.pid !== false && machine.pid })
    } else {
      // The OS sandbox (bubblewrap is installed here): it always has its own PID namespace.
      expect(sandbox.isolation).toEqual({ filesystem: true, network: wantNetwork, pid: true })
    }
    expect(Object.isFrozen(sandbox.isolation)).toBe(true)
  })

  it('the network guard still refuses curl with isolation: { network: false }', async () => {
    const fx = makeFixture({ isolation: { network: false } })
    try {
      expect((await failure(fx.tools.bash, { cmd: 'curl', args: ['https://example.com'] })).code).toBe('TOOL_NETWORK_DISABLED')
      const both = createTools({ rootDir: fx.root, isolation: { filesystem: false, network: false, pid: false } })
      expect((await failure(both.bash, { cmd: 'sh', args: ['-c', 'curl https://example.com'] })).code).toBe('TOOL_NETWORK_DISABLED')
    } finally {
      fx.cleanup()
    }
  })

  it('with isolation: { pid: false } the command is a direct child, and a timeout still kills its process group', async () => {
    const fx = makeFixture({ isolation: { filesystem: false, network: false, pid: false }, timeoutMs: 3000 })
    try {
      const out = String(await call(fx.tools.bash, { cmd: 'sh', args: ['-c', 'echo $PPID'] }))
      expect(Number(out.trim())).toBe(process.pid)
      const script = 'sleep 300 & echo $! > bg.pid; echo started; wait'
      const timeout = await failure(fx.tools.bash, { cmd: 'sh', args: ['-c', script] })
      expect(timeout.code).toBe('TOOL_TIMEOUT')
      expect(timeout.details.output).toContain('started')
      const background = Number(fs.readFileSync(path.join(fx.root, 'bg.pid'), 'utf8'))
      expect(await waitGone(background)).toBe(true)
    } finally {
      fx.cleanup()
    }
  })
})
