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
  },
})
