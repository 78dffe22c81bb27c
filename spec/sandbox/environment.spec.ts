/**
 * The environment a sandboxed process sees: locale variables pass by their
 * real names only, never by the `LC_` prefix (SSH forwards `LC_*`, so values
 * are smuggled through it).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { call, makeFixture, type Fixture } from '../tools/helpers.js'

const LOCALE_NAMES = [
  'LC_ALL',
  'LC_CTYPE',
  'LC_COLLATE',
  'LC_MESSAGES',
  'LC_NUMERIC',
  'LC_TIME',
  'LC_MONETARY',
  'LC_PAPER',
  'LC_NAME',
  'LC_ADDRESS',
  'LC_TELEPHONE',
  'LC_MEASUREMENT',
  'LC_IDENTIFICATION',
]
const SMUGGLED = ['LC_SECRET_TOKEN', 'LC_TERMINAL_TOKEN', 'LC_', 'lc_all']

let fx: Fixture
let saved: Record<string, string | undefined>

beforeEach(() => {
  fx = makeFixture()
  saved = Object.fromEntries([...LOCALE_NAMES, ...SMUGGLED].map((name) => [name, process.env[name]]))
})

afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
  fx.cleanup()
})

const envOf = async (): Promise<Map<string, string>> => {
  const text = String(await call(fx.tools.bash, { cmd: 'env' }))
  return new Map(
    text
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as [string, string]),
  )
}

describe('sandbox environment: locale variables', () => {
  it('leaves out host variables that merely start with LC_', async () => {
    for (const name of SMUGGLED) process.env[name] = 'leak-4f1c'
    const env = await envOf()
    for (const name of SMUGGLED) expect(env.has(name), name).toBe(false)
    expect([...env.values()].some((value) => value.includes('leak-4f1c'))).toBe(false)
  })

  it('passes every real locale category by name', async () => {
    for (const name of LOCALE_NAMES) process.env[name] = 'C.UTF-8'
    process.env.LC_SECRET_TOKEN = 'leak-4f1c'
    const env = await envOf()
    for (const name of LOCALE_NAMES) expect(env.get(name), name).toBe('C.UTF-8')
    expect(env.has('LC_SECRET_TOKEN')).toBe(false)
  })
})
