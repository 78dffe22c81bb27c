/**
 * The bubblewrap probe has a synchronous form (the sandbox's first command)
 * and an asynchronous one (`toolsmith mcp` runs it while the MCP SDK loads):
 * both must reach the same verdict, on the real bwrap and on bwraps that
 * fail the way real machines do (no user namespaces, no network namespace,
 * no seccomp). Each probe runs in a fresh process: the verdict is cached per
 * process.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { trackedMkdtemp } from '../support/temp_dirs.js'

const PROBE = new URL('../../lib/sandbox/os/bubblewrap_probe.ts', import.meta.url).href

interface Verdict {
  bwrap: string | null
  available: boolean
  network: boolean
  reason: string | null
  seccomp: { enabled: boolean; reason: string | null }
  program: string | null
}

function probe(kind: 'sync' | 'async', env: Record<string, string> = {}): Verdict {
  const script = `
    const { probeBubblewrap, probeBubblewrapAsync } = await import(${JSON.stringify(PROBE)})
    const s = ${kind === 'sync' ? 'probeBubblewrap()' : 'await probeBubblewrapAsync()'}
    // A second call answers from the cache, whichever form asks.
    if (probeBubblewrap() !== s || (await probeBubblewrapAsync()) !== s) throw new Error('not cached')
    process.stdout.write(JSON.stringify({
      bwrap: s.bwrap ?? null, available: s.available, network: s.network, reason: s.reason ?? null,
      seccomp: { enabled: s.seccomp.enabled, reason: s.seccomp.reason ?? null },
      program: s.seccompProgram === undefined ? null : Buffer.from(s.seccompProgram).toString('base64'),
    }))
  `
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 60_000,
  })
  expect(result.status, result.stderr).toBe(0)
  return JSON.parse(result.stdout) as Verdict
}

/** A stand-in bwrap: a shell script that fails when its arguments match `failWhen` (an egrep pattern). */
function fakeBwrap(failWhen: string, message: string): string {
  const dir = trackedMkdtemp(path.join(os.tmpdir(), 'toolsmith-fake-bwrap-'))
  const file = path.join(dir, 'bwrap')
  writeFileSync(
    file,
    [
      '#!/bin/sh',
      // Read the seccomp program like bwrap does, so the writer never sees a closed pipe.
      'case " $* " in *" --seccomp "*) cat >/dev/null ;; esac',
      `if printf '%s\\n' "$*" | grep -Eq -- '${failWhen}'; then echo '${message}' >&2; exit 1; fi`,
      'exit 0',
      '',
    ].join('\n'),
  )
  chmodSync(file, 0o755)
  return file
}

describe('bubblewrap probe: the asynchronous form agrees with the synchronous one', () => {
  it('on the real bwrap', () => {
    const sync = probe('sync')
    expect(probe('async')).toEqual(sync)
    expect(sync.available).toBe(true)
  })

  it('with bwrap missing', () => {
    const env = { TOOLSMITH_BWRAP: '/nonexistent/bwrap' }
    const sync = probe('sync', env)
    expect(probe('async', env)).toEqual(sync)
    expect(sync).toMatchObject({ available: false, reason: 'TOOLSMITH_BWRAP=/nonexistent/bwrap is not an executable' })
  })

  it('when no namespace can be created: unavailable, with bwrap’s own words', () => {
    const env = { TOOLSMITH_BWRAP: fakeBwrap('.', 'bwrap: No permissions to create a new namespace') }
    const sync = probe('sync', env)
    expect(probe('async', env)).toEqual(sync)
    expect(sync.available).toBe(false)
    expect(sync.reason).toContain('cannot create its namespaces here (bwrap: No permissions to create a new namespace)')
  })

  it('when only the network namespace is refused: available without network', () => {
    const env = { TOOLSMITH_BWRAP: fakeBwrap('--unshare-net', 'bwrap: loopback: Failed RTM_NEWADDR') }
    const sync = probe('sync', env)
    expect(probe('async', env)).toEqual(sync)
    expect(sync).toMatchObject({ available: true, network: false, reason: 'bwrap cannot create a network namespace here: bwrap: loopback: Failed RTM_NEWADDR' })
  })

  it('when the seccomp filter is refused: available, filter off, saying why', () => {
    const env = { TOOLSMITH_BWRAP: fakeBwrap('--seccomp', 'bwrap: prctl(PR_SET_SECCOMP): Invalid argument') }
    const sync = probe('sync', env)
    expect(probe('async', env)).toEqual(sync)
    expect(sync).toMatchObject({ available: true, network: true, program: null })
    expect(sync.seccomp).toEqual({ enabled: false, reason: 'bwrap cannot install a seccomp filter here: bwrap: prctl(PR_SET_SECCOMP): Invalid argument' })
  })
})
