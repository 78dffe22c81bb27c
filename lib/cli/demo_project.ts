/**
 * The demo project, embedded: what `toolsmith demo` copies when the package
 * was installed without `examples/` (npm ships `dist/` only). A spec keeps it
 * identical to `examples/demo-project/`.
 *
 * @module
 */
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Path → content of every file of the demo project. */
export const DEMO_PROJECT_FILES: Readonly<Record<string, string>> = {
  "README.md": "# demo-project\n\nA tiny module with one bug, used by `toolsmith demo`: the demo's scripted\nagent reads `src/stats.js`, greps for the loop, fixes it with `edit`, and runs\n`node --test test/stats.test.js` with `bash`. Run the tests yourself with\n`npm test` (two fail until the bug is fixed).\n",
  "package.json": "{\n  \"name\": \"toolsmith-demo-project\",\n  \"private\": true,\n  \"type\": \"module\",\n  \"scripts\": {\n    \"test\": \"node --test test/stats.test.js\"\n  }\n}\n",
  "src/stats.js": "// Small statistics helpers.\n\n/**\n * The sum of a list of numbers.\n * @param {number[]} values\n * @returns {number}\n */\nexport function sum(values) {\n  let total = 0\n  for (let i = 1; i < values.length; i++) {\n    total += values[i]\n  }\n  return total\n}\n\n/**\n * The arithmetic mean of a list of numbers (0 for an empty list).\n * @param {number[]} values\n * @returns {number}\n */\nexport function mean(values) {\n  return values.length === 0 ? 0 : sum(values) / values.length\n}\n",
  "test/stats.test.js": "import assert from 'node:assert/strict'\nimport { test } from 'node:test'\nimport { mean, sum } from '../src/stats.js'\n\ntest('sum adds every value', () => {\n  assert.equal(sum([1, 2, 3]), 6)\n})\n\ntest('mean averages every value', () => {\n  assert.equal(mean([2, 4, 6]), 4)\n})\n\ntest('mean of nothing is 0', () => {\n  assert.equal(mean([]), 0)\n})\n",
}

/**
 * Where `examples/demo-project` is in a source checkout (`lib/cli` and
 * `dist/cli` both sit two levels below the package root).
 *
 * @returns The folder, or `undefined` when this install has no examples.
 */
export function demoProjectSource(): string | undefined {
  const dir = fileURLToPath(new URL('../../examples/demo-project/', import.meta.url))
  return existsSync(join(dir, 'package.json')) ? dir : undefined
}

/**
 * Copy the demo project into `target`.
 *
 * @param target - An empty or missing folder.
 * @returns Where the files came from: the examples folder, or `'embedded'`.
 */
export function copyDemoProject(target: string): string {
  const source = demoProjectSource()
  if (source) {
    cpSync(source, target, { recursive: true })
    return source
  }
  for (const [path, content] of Object.entries(DEMO_PROJECT_FILES)) {
    const file = join(target, path)
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, content)
  }
  return 'embedded'
}
