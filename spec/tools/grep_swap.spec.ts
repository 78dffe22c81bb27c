/**
 * `grep` over a tree in which a directory keeps being swapped for a symlink
 * to a folder outside the root while rg walks it. rg walks by path and the
 * kernel follows the symlink it meets, so without the search jail some
 * calls returned the canary. On a busy 2-core machine: 24 of 1,500
 * one-at-a-time calls with `inner` swapped, 17 of 1,500 with `a/inner`;
 * four at a time, as here, 10 of 168 and 3 of 140 calls in the 20 s budget.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { call, makeFixture, startDirectorySwapper, type Fixture } from './helpers.js'

let fx: Fixture

beforeEach(() => {
  fx = makeFixture()
})
afterEach(() => fx.cleanup())

/** At most this many calls per depth, and no more once this many milliseconds have passed. */
const CALLS = 1500
const BUDGET_MS = 20_000

describe('grep: a directory swapped for a symlink out of the root while rg walks', () => {
  for (const swapped of ['inner', 'a/inner']) {
    it(`returns nothing from outside the root (${swapped} swapped, the root searched)`, async () => {
      fs.mkdirSync(path.join(fx.root, swapped), { recursive: true })
      fs.writeFileSync(path.join(fx.root, swapped, 'secret.txt'), 'INSIDE\n')
      for (let i = 0; i < 5; i++) fs.writeFileSync(path.join(fx.root, `f${i}.txt`), 'INSIDE too\n')
      const swapper = startDirectorySwapper(fx, swapped)
      await swapper.ready
      const leaks: string[] = []
      let calls = 0
      let found = 0
      let flips = 0
      const deadline = Date.now() + BUDGET_MS
      try {
        while (calls < CALLS && Date.now() < deadline) {
          // Four at once, like a model's parallel calls; a refusal (rg met the
          // swap and failed) is fine, but not in its output or message either.
          const batch = Array.from({ length: 4 }, () =>
            call(fx.tools.grep, { pattern: 'CANARY|INSIDE', path: '.' }).then(
              (text) => {
                if (String(text).includes('CANARY')) leaks.push(String(text))
                else if (String(text).includes(`${swapped}/secret.txt:1:INSIDE`)) found++
              },
              (error: { cause?: { code?: string; message?: string; details?: unknown } }) => {
                const cause = error.cause
                if (typeof cause?.code !== 'string' || !cause.code.startsWith('TOOL_')) throw error
                const seen = JSON.stringify([cause.message, cause.details])
                if (seen.includes('CANARY')) leaks.push(seen)
              },
            ),
          )
          await Promise.all(batch)
          calls += batch.length
        }
      } finally {
        flips = await swapper.stop()
      }
      expect(leaks.slice(0, 3), `${leaks.length} of ${calls} calls leaked`).toEqual([])
      expect(flips).toBeGreaterThan(0)
      // The swapped directory was searched, not skipped, while it was in place.
      expect(found).toBeGreaterThan(0)
    }, 60_000)
  }
})
