import { execFile } from 'node:child_process'
import ts from 'typescript'
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { beforeAll, describe, expect, it } from 'vitest'
import { trackedMkdtemp } from './support/temp_dirs.js'

const ROOT = resolve(import.meta.dirname, '..')
const run = promisify(execFile)
const NPM_ENV = { ...process.env, NODE_OPTIONS: '', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' }

/** The README's first TypeScript snippet: what a newcomer pastes first. */
function firstSnippet(): string {
  const match = /```ts\n([\s\S]*?)```/.exec(readFileSync(join(ROOT, 'README.md'), 'utf8'))
  if (!match) throw new Error('README.md has no ```ts snippet')
  // The snippet is TypeScript (its tool is typed): a newcomer's build strips the types, so does this.
  return ts.transpileModule(match[1]!, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText
}

/**
 * A lockfile for the newcomer project: toolsmith from the tarball, its
 * runtime dependencies pinned as this repository's lockfile pins them. Offline,
 * npm can only resolve what its cache holds, and `npm ci` here caches the
 * tarballs but not the registry's metadata a range needs: with the versions
 * and integrities written down, the install needs the tarballs only.
 */
function lockFor(tarball: string, dependencies: Record<string, string>): object {
  const repoLock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, Record<string, unknown>> }
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>
  const packages: Record<string, unknown> = { '': { name: 'newcomer', version: '1.0.0', dependencies } }
  for (const [path, entry] of Object.entries(repoLock.packages)) {
    if (path === '' || entry.dev === true || entry.link === true) continue
    if (entry.devOptional === true && entry.optional !== true) continue
    packages[path] = entry
  }
  const { version, license, bin, engines, peerDependencies, peerDependenciesMeta } = pkg
  packages['node_modules/toolsmith'] = {
    version, resolved: `file:${tarball}`, license, bin, engines, peerDependencies, peerDependenciesMeta,
    dependencies: pkg.dependencies,
  }
  return { name: 'newcomer', version: '1.0.0', lockfileVersion: 3, requires: true, packages }
}

// A newcomer's path, end to end: the package is packed as npm would publish
// it, installed from the tarball into an empty project with no network (the
// npm cache only), and used from there by name.
describe('installable outside this repository (issue 12)', () => {
  let project: string

  beforeAll(async () => {
    // Built and packed from a staging copy, so the repository's dist/ is never touched mid-suite.
    const staging = trackedMkdtemp(join(tmpdir(), 'toolsmith-pack-'))
    for (const file of ['package.json', 'README.md']) copyFileSync(join(ROOT, file), join(staging, file))
    await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(staging, 'dist')], { cwd: ROOT })
    // The same two steps as `npm run build`: tsc, then the bundled entry points.
    await run(process.execPath, [join(ROOT, 'scripts/bundle_entries.mjs'), '--outdir', join(staging, 'dist')], { cwd: ROOT })
    await run('npm', ['pack', '--ignore-scripts', '--silent'], { cwd: staging, env: NPM_ENV })
    const tarball = readdirSync(staging).find((f) => f.endsWith('.tgz'))
    if (!tarball) throw new Error('npm pack wrote no tarball')

    project = trackedMkdtemp(join(tmpdir(), 'toolsmith-newcomer-'))
    copyFileSync(join(staging, tarball), join(project, tarball))
    const dependencies = { toolsmith: `file:${tarball}` }
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'newcomer', version: '1.0.0', private: true, type: 'module', dependencies }))
    writeFileSync(join(project, 'package-lock.json'), JSON.stringify(lockFor(tarball, dependencies)))
    await run('npm', ['install', '--offline', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: project, env: NPM_ENV })
  }, 240_000)

  it("runs the README's first snippet by importing 'toolsmith'", async () => {
    mkdirSync(join(project, 'src'), { recursive: true })
    writeFileSync(join(project, 'src/first.mjs'), firstSnippet())
    const { stdout } = await run(process.execPath, ['src/first.mjs'], { cwd: project, env: { ...process.env, NODE_OPTIONS: '' } })
    // The snippet's listener prints: toolName callId durationMs isError.
    expect(stdout).toMatch(/^weather [0-9a-f]{64} [\d.]+ false\n$/)
  })

  it('runs toolsmith --help from the installed bin', async () => {
    const { stdout } = await run(join(project, 'node_modules/.bin/toolsmith'), ['--help'], { cwd: project, env: { ...process.env, NODE_OPTIONS: '' } })
    expect(stdout).toMatch(/^Usage: toolsmith <command> \[options\]/)
  })

  it('resolves the subpath entries by name, and they share the root classes', async () => {
    const script = `
      const root = await import('toolsmith')
      const tools = await import('toolsmith/tools')
      const mcp = await import('toolsmith/mcp')
      process.stdout.write(String(root.createTools === tools.createTools && root.createMcpServer === mcp.createMcpServer))`
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: project, env: { ...process.env, NODE_OPTIONS: '' } })
    expect(stdout).toBe('true')
  })
})
