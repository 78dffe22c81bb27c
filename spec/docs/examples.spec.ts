import { execFile } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const EXAMPLES = join(ROOT, 'docs/examples')
const run = promisify(execFile)

// A guide's example that no longer runs is a bug: run every one as a user would.
describe('docs/examples', () => {
  const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.ts'))
  it('has examples', () => expect(files.length).toBeGreaterThan(0))
  for (const file of files) {
    it(`${file} runs and exits 0`, async () => {
      const { stdout } = await run(process.execPath, ['--import', 'tsx', join(EXAMPLES, file)], {
        cwd: ROOT,
        timeout: 120_000,
      })
      expect(stdout.length).toBeGreaterThan(0)
    })
  }
})
