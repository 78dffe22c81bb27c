/**
 * `edit` never holds the event loop for long: hunk positions far outside the
 * file are refused before the diff library searches for them, and the
 * search for a hunk's context is bounded. `applyPatch` is synchronous, so
 * the time a call holds the event loop is its number of line comparisons;
 * these specs count them (spec/fixtures/edit_search.ts) instead of timing
 * anything (speed is measured in `npm run bench`). Each call runs in a
 * child process, so an unbounded search is killed instead of freezing the
 * test run.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
// Internal on purpose: the bound itself.
import { SEARCH_COMPARISONS } from '../../lib/tools/unified_diff.js'
import { makeFixture, type Fixture } from './helpers.js'

const CHILD = path.resolve('spec/fixtures/edit_search.ts')
/**
 * Not a speed limit: a hang detector. Every bounded call below finishes in
 * well under a second; an unbounded one (4e8 comparisons, or a search from
 * line 1e20) would not finish at all.
 */
const KILL_AFTER_MS = 60_000

interface Outcome {
  result?: unknown
  code?: string
  message?: string
  details?: Record<string, unknown>
  comparisons: number
}

let fx: Fixture
beforeEach(() => {
  fx = makeFixture()
})
afterEach(() => fx.cleanup())

async function editInChild(file: string, patch: string): Promise<Outcome> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], { stdio: ['pipe', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  child.stdin.end(JSON.stringify({ root: fx.root, path: file, patch }))
  let killed = false
  const timer = setTimeout(() => {
    killed = true
    child.kill('SIGKILL')
  }, KILL_AFTER_MS)
  await new Promise((resolve) => child.on('close', resolve))
  clearTimeout(timer)
  if (killed) throw new Error(`edit did not return within ${KILL_AFTER_MS} ms: its search never ended`)
  const line = stdout.trim().split('\n').at(-1)
  if (!line) throw new Error(`the child printed nothing; stderr: ${stderr.slice(0, 2000)}`)
  return JSON.parse(line) as Outcome
}

const write = (name: string, text: string): void => fs.writeFileSync(path.join(fx.root, name), text)
const read = (name: string): string => fs.readFileSync(path.join(fx.root, name), 'utf8')

describe('edit and the event loop', () => {
  it.each([
    ['a line number past 2^64', '99999999999999999999'],
    ['line 100,000,000', '100000000'],
  ])('refuses a hunk at %s before any search, naming the hunk and the file length', async (_label, line) => {
    write('f.txt', 'alpha\nbeta\n')
    const outcome = await editInChild('f.txt', `@@ -${line},1 +${line},1 @@\n-alpha\n+ALPHA\n`)
    expect(outcome).toMatchObject({ code: 'TOOL_PATCH_FAILED' })
    expect(outcome.message).toContain(`hunk 1 of 1 (@@ -${line},1 +${line},1 @@)`)
    expect(outcome.message).toMatch(/"f\.txt" has 2 lines/)
    expect(outcome.details).toMatchObject({ hunk: 1, hunks: 1, fileLines: 2 })
    // The library walks back from the header's line one comparison at a time: none may be made.
    expect(outcome.comparisons).toBe(0)
    expect(read('f.txt')).toBe('alpha\nbeta\n')
  })

  it('refuses an insertion-only hunk past the end of the file instead of padding the file with blank lines', async () => {
    write('f.txt', 'alpha\nbeta\n')
    const outcome = await editInChild('f.txt', '@@ -10000000,0 +10000001,1 @@\n+gamma\n')
    expect(outcome).toMatchObject({ code: 'TOOL_PATCH_FAILED' })
    expect(outcome.message).toMatch(/hunk 1 of 1 .*"f\.txt" has 2 lines/)
    expect(outcome.comparisons).toBe(0)
    expect(read('f.txt')).toBe('alpha\nbeta\n')
  })

  it('bounds the search for context that repeats all through the file', async () => {
    // 20,000 identical context lines could start at any of 20,000 places, each
    // matching ~20,000 lines before failing on the last: 4e8 comparisons unbounded.
    write('f.txt', 'a\n'.repeat(40_000))
    const patch = `@@ -1,20001 +1,20001 @@\n${' a\n'.repeat(20_000)}-b\n+c\n`
    const outcome = await editInChild('f.txt', patch)
    expect(outcome).toMatchObject({ code: 'TOOL_PATCH_FAILED', details: { searchLimit: SEARCH_COMPARISONS } })
    expect(outcome.message).toMatch(/search limit/)
    // Stopped exactly where the budget ran out: the limit plus one per line
    // the patch expects, plus the comparison that found the budget spent.
    expect(outcome.comparisons).toBe(SEARCH_COMPARISONS + 20_001 + 1)
    expect(read('f.txt')).toBe('a\n'.repeat(40_000))
  })

  it('bounds the search for the hunk to name when a patch does not apply', async () => {
    write('f.txt', 'a\n'.repeat(60_000))
    // Hunk 1 matches at once; hunk 2 is searched for through the whole file, then named.
    const patch = '@@ -1,1 +1,1 @@\n-a\n+b\n@@ -30000,1 +30000,1 @@\n-zzz\n+y\n'
    const outcome = await editInChild('f.txt', patch)
    expect(outcome).toMatchObject({ code: 'TOOL_PATCH_FAILED', details: { hunk: 2, hunks: 2 } })
    expect(outcome.comparisons).toBeGreaterThan(50_000)
    expect(outcome.comparisons).toBeLessThanOrEqual(2 * SEARCH_COMPARISONS + 2 + 2)
    expect(read('f.txt')).toBe('a\n'.repeat(60_000))
  })

  it('still applies a large legitimate patch, and a hunk whose header is thousands of lines off', async () => {
    // 15,000 lines (~150 KB, under the default 200,000-byte limit), 1,499 hunks.
    const lines = Array.from({ length: 15_000 }, (_, i) => `line ${i + 1}`)
    write('f.txt', `${lines.join('\n')}\n`)
    const hunks: string[] = []
    for (let n = 10; n < 15_000; n += 10) hunks.push(`@@ -${n},1 +${n},1 @@\n-line ${n}\n+LINE ${n}\n`)
    const outcome = await editInChild('f.txt', hunks.join(''))
    expect(outcome).toMatchObject({ result: 'ok' })
    // Every hunk where its header says: one comparison per line the patch expects, no search.
    expect(outcome.comparisons).toBe(1_499)
    const expected = lines.map((line, i) => ((i + 1) % 10 === 0 && i + 1 < 15_000 ? line.toUpperCase() : line))
    expect(read('f.txt')).toBe(`${expected.join('\n')}\n`)

    const offBy = await editInChild('f.txt', '@@ -2,3 +2,3 @@\n line 14998\n-line 14999\n+line fourteen thousand nine hundred ninety-nine\n line 15000\n')
    expect(offBy).toMatchObject({ result: 'ok' })
    // Found by walking ~15,000 positions from line 2, within the budget.
    expect(offBy.comparisons).toBeGreaterThan(14_000)
    expect(offBy.comparisons).toBeLessThanOrEqual(SEARCH_COMPARISONS + 3)
    expect(read('f.txt')).toContain('line 14998\nline fourteen thousand nine hundred ninety-nine\nline 15000\n')
  })
})
