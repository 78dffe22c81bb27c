/**
 * A test worker that dies mid-file fails `npm test` and names the file.
 *
 * Runs vitest, with the project's configuration, on a fixture whose test
 * SIGKILLs its own worker. The fixture config ignores unhandled errors, so
 * vitest's own "Worker exited unexpectedly" error cannot fail the run: only
 * the lost-worker reporter registered in vitest.config.ts can.
 */
import { execa } from 'execa'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '..')

/** The parent run's vitest variables would make the child think it is a worker. */
function childEnv(): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' }
  for (const key of Object.keys(env)) if (key.startsWith('VITEST') || key === 'TEST' || key === 'NODE_ENV') env[key] = undefined
  return env
}

describe('a lost test worker', () => {
  it('fails the run with a message naming the file and its unreported tests', async () => {
    const run = await execa(process.execPath, [resolve(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'spec/fixtures/lost_worker/vitest.config.ts'], {
      cwd: ROOT,
      env: childEnv(),
      extendEnv: false,
      reject: false,
      timeout: 120_000,
    })
    expect(run.exitCode, run.stdout + run.stderr).toBe(1)
    expect(run.stderr).toContain('LOST TEST WORKER: 1 spec file(s) did not report all their tests')
    expect(run.stderr).toMatch(/killed_worker\.fixture\.ts: 3 test\(s\) never reported a result: "runs before the loss", "kills its own worker"/)
    // The file whose worker lived is not blamed.
    expect(run.stderr).not.toContain('survivor.fixture.ts')
  }, 150_000)
})
