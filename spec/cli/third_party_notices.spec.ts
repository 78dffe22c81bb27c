/**
 * The `toolsmith` command is one bundle that carries its dependencies' code
 * (the MCP SDK, joi, execa, diff, zod…): their licenses travel with it in
 * `dist/cli/THIRD_PARTY_NOTICES.md`, written by the build from esbuild's own
 * list of the bundle's inputs.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { trackedMkdtemp } from '../support/temp_dirs.js'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

function manifestOf(name: string): { version: string; license: string } {
  return JSON.parse(readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8'))
}

describe('the CLI bundle’s third-party notices', () => {
  let notices: string
  let headings: string[]
  beforeAll(() => {
    const out = trackedMkdtemp(path.join(os.tmpdir(), 'toolsmith-notices-'))
    execFileSync(process.execPath, [path.join(ROOT, 'scripts/bundle_entries.mjs'), '--outdir', out], { cwd: ROOT, stdio: 'pipe', timeout: 180_000 })
    notices = readFileSync(path.join(out, 'cli/THIRD_PARTY_NOTICES.md'), 'utf8')
    headings = notices.split('\n').filter((line) => line.startsWith('## '))
  }, 200_000)

  it.each(['@modelcontextprotocol/server', '@modelcontextprotocol/core', 'zod', 'joi', '@hapi/hoek', 'execa', 'diff'])(
    '%s: named with the bundled version and license, and its license text included',
    (name) => {
      const { version, license } = manifestOf(name)
      expect(headings).toContain(`## ${name} ${version} (${license})`)
      const licenseFile = ['LICENSE', 'LICENSE.md', 'license'].map((f) => path.join(ROOT, 'node_modules', name, f)).find((f) => {
        try {
          return readFileSync(f, 'utf8').length > 0
        } catch {
          return false
        }
      })
      expect(licenseFile, `${name} has a license file`).toBeDefined()
      expect(notices).toContain(readFileSync(licenseFile as string, 'utf8').trim())
    },
  )

  it('lists nothing the bundle leaves to node_modules (optional peers, ripgrep)', () => {
    for (const name of ['ai', 'better-sqlite3', 'pg', '@opentelemetry/api', '@vscode/ripgrep']) {
      expect(headings.filter((h) => h.startsWith(`## ${name} `))).toEqual([])
    }
  })

  it('each package once per bundled version, sorted by name', () => {
    expect(new Set(headings).size).toBe(headings.length)
    const names = headings.map((h) => h.slice(3, h.lastIndexOf(' (')).replace(/ \S+$/, ''))
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)))
    expect(headings.length).toBeGreaterThan(10)
  })
})
