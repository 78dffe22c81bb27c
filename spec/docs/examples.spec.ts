import { execFile } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const EXAMPLES = join(ROOT, 'docs/examples')
const run = promisify(execFile)

// What each example must print: the facts its guide promises, so an example
// that runs but shows the wrong thing fails too.
const EXPECTED: Record<string, string[]> = {
  'custom_tool.ts': ['result: 69.8°F', 'result: queued "build is green"', 'rejected: E_INVALID_TOOL_ARGS', '"to" must be one of'],
  'artifacts_paging.ts': ['[8 matches in 200000 lines]', 'step 50000 ERROR disk full', 'continue with artifact_cat start=201'],
  'tools_tour.ts': [
    'write → "ok"',
    'read → "export const hi = \\"hi\\"\\n"',
    'grep → "src/greet.ts:1:',
    'escape → TOOL_PATH_ESCAPE',
    'outside → TOOL_COMMAND_FAILED: `touch` exited with code 1. Output:',
    'network → ECONNREFUSED | [toolsmith] Note: this sandbox has no network',
    'bad patch → TOOL_PATCH_FAILED',
    'failure → TOOL_COMMAND_FAILED',
  ],
  'permissions.ts': [
    'write .env → TOOL_DENIED: Permission denied for write ".env": rules[5] ("secrets stay secret") denies it',
    'write src/../.env → TOOL_DENIED',
    'write src/a.ts → "ok"',
    'asked: write README.md (default)',
    'decision: write allow by remembered (default)',
    'git reset --hard → TOOL_DENIED',
  ],
  'output_schema.ts': [
    'result: {"city":"Oslo","tempC":21.5,"hourly":[]}',
    'rejected: E_INVALID_TOOL_OUTPUT: Tool "forecast" returned a result its output schema rejects: "tempC" must be a number',
    'structuredContent: {"city":"Oslo","tempC":21.5,"hourly":[]}',
    'gemini response: ["city","tempC"]',
  ],
  'standard_schema.ts': [
    'result: It is 21°C in Oslo for 1 day(s)',
    'rejected: E_INVALID_TOOL_ARGS: Invalid arguments for tool "weather": "city": Invalid input: expected string, received number',
    'openai parameters: {"type":"object","properties":{"city":{"type":"string","minLength":1,"description":"City name"}',
  ],
  'providers_ai_sdk.ts': ["'It is 21°C in Oslo'"],
  'providers_anthropic.ts': ['"input_schema"', '"tool_result"'],
  'providers_gemini.ts': ['"functionDeclarations"'],
  'providers_mcp.ts': ['read {"title":"Read","readOnlyHint":true', 'bash {"title":"Bash","readOnlyHint":false,"destructiveHint":true', 'TOOL_PATH_ESCAPE', 'isError: true'],
  'providers_openai.ts': ['"type": "function"'],
  'runner_openai.ts': ['answer: It is 21°C in Oslo.'],
  'runner_retries.ts': ['attempt 2 sees:', 'charge_card', 'not charging again'],
  'runner_workers.ts': ['workers agree on every result: true', 'side effects: 3 (one per invoice)'],
  'runner_turn.ts': ['(spooled)', 'artifact_grep', '[6 matches in 3000 lines]'],
}

// A guide's example that no longer runs is a bug: run every one as a user would.
describe('docs/examples', () => {
  const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.ts'))
  it('has examples, each with expectations here', () => {
    expect(files.length).toBeGreaterThan(0)
    expect(files.filter((f) => !(f in EXPECTED))).toEqual([])
  })
  for (const file of files) {
    it(`${file} runs, exits 0 and prints what its guide promises`, async () => {
      const { stdout } = await run(process.execPath, ['--import', 'tsx', join(EXAMPLES, file)], {
        cwd: ROOT,
        timeout: 120_000,
      })
      for (const fact of EXPECTED[file] ?? []) expect(stdout).toContain(fact)
    }, 150_000)
  }
})
