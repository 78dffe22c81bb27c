import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['spec/**/*.spec.ts'],
    setupFiles: ['spec/support/setup.ts'],
    // Specs spawn real processes and touch real files; a shared 2-core CI
    // machine needs generous per-test time, never tight timing assertions.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A worker that dies mid-file (SIGKILL, OOM killer, a stray group kill)
    // must fail the run and name the file, not drop its tests from the counts.
    reporters: ['default', './spec/support/lost_worker_reporter.ts'],
  },
})
