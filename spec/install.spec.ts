import { execFile, spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import ts from 'typescript'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { beforeAll, describe, expect, it } from 'vitest'
import { trackedMkdtemp } from './support/temp_dirs.js'

const ROOT = resolve(import.meta.dirname, '..')
const run = promisify(execFile)
/** The registry npm is configured with (the lockfile's tarball addresses are written against it). */
const REGISTRY = spawnSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' }).stdout.trim().replace(/\/?$/, '/')

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
 * runtime dependencies (and `extra`, the consumer's own) pinned as this
 * repository's lockfile pins them. With the versions, integrities and
 * tarball URLs written down, the install needs the tarballs only (`npm ci`
 * here caches them), not the registry's metadata a range needs. The entries are the
 * closure of the package's `dependencies`, walked from package.json rather
 * than read off the lockfile's `dev` flags, so an optional peer the
 * repository installs for its own specs stays out of the newcomer's tree.
 */
function lockFor(tarball: string, dependencies: Record<string, string>, extra: readonly string[]): object {
  const repoLock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, Record<string, unknown>> }
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>
  const packages: Record<string, unknown> = { '': { name: 'newcomer', version: '1.0.0', dependencies } }
  const queue = [...Object.keys(pkg.dependencies as Record<string, string>), ...extra]
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    const path = `node_modules/${name}`
    if (path in packages) continue
    const entry = repoLock.packages[path]
    if (!entry) throw new Error(`package-lock.json has no hoisted ${path}`)
    // This repository's lockfile omits `resolved`; without it npm asks the registry where the tarball is.
    const resolved = entry.resolved ?? `${REGISTRY}${name}/-/${name.split('/').pop()}-${String(entry.version)}.tgz`
    packages[path] = { ...entry, resolved }
    queue.push(...Object.keys((entry.dependencies ?? {}) as object), ...Object.keys((entry.optionalDependencies ?? {}) as object))
  }
  const { version, license, bin, engines, peerDependencies, peerDependenciesMeta } = pkg
  packages['node_modules/toolsmith'] = {
    version, resolved: `file:${tarball}`, license, bin, engines, peerDependencies, peerDependenciesMeta,
    dependencies: pkg.dependencies,
  }
  return { name: 'newcomer', version: '1.0.0', lockfileVersion: 3, requires: true, packages }
}

/** What `npm pack --json` reports for one tarball (the fields the budget reads). */
interface PackReport {
  size: number
  unpackedSize: number
  files: { path: string }[]
}

/**
 * The tarball's budget, from its measured size with headroom (1.35 MB packed,
 * 4.75 MB unpacked, 474 files when set; 1.9 MB of it is the CLI's minified
 * bundle, which carries the MCP SDK so `toolsmith mcp` needs no peer): a
 * dependency bundled by mistake, or source maps coming back, fails here
 * rather than in a user's install.
 */
const PACK_BUDGET = { packedBytes: 1_500_000, unpackedBytes: 5_300_000 }

/** The consumer's own development dependencies: Node's types, for a strict compile with `"types": ["node"]`. */
const CONSUMER_DEV = ['@types/node', 'undici-types']

// A newcomer's path, end to end: the package is packed as npm would publish
// it, installed from the tarball into an empty project (from the npm cache,
// the registry only for what the cache lacks), and used from there by name.
describe('installable outside this repository (issue 12)', () => {
  let project: string
  let pack: PackReport

  beforeAll(async () => {
    // Built and packed from a staging copy, so the repository's dist/ is never touched mid-suite.
    const staging = trackedMkdtemp(join(tmpdir(), 'toolsmith-pack-'))
    for (const file of ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md']) copyFileSync(join(ROOT, file), join(staging, file))
    await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(staging, 'dist')], { cwd: ROOT })
    // The same two steps as `npm run build`: tsc, then the bundled entry points.
    await run(process.execPath, [join(ROOT, 'scripts/bundle_entries.mjs'), '--outdir', join(staging, 'dist')], { cwd: ROOT })
    const packed = await run('npm', ['pack', '--ignore-scripts', '--json'], { cwd: staging, env: NPM_ENV })
    pack = (JSON.parse(packed.stdout) as PackReport[])[0]!
    const tarball = readdirSync(staging).find((f) => f.endsWith('.tgz'))
    if (!tarball) throw new Error('npm pack wrote no tarball')

    project = trackedMkdtemp(join(tmpdir(), 'toolsmith-newcomer-'))
    copyFileSync(join(staging, tarball), join(project, tarball))
    const repoLock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> }
    const dependencies: Record<string, string> = { toolsmith: `file:${tarball}` }
    for (const name of CONSUMER_DEV) dependencies[name] = repoLock.packages[`node_modules/${name}`]!.version
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'newcomer', version: '1.0.0', private: true, type: 'module', dependencies }))
    writeFileSync(join(project, 'package-lock.json'), JSON.stringify(lockFor(tarball, dependencies, CONSUMER_DEV)))
    // Prefer the cache (`npm ci` filled it), and fetch what it lacks: a cache
    // entry npm dropped (it does for one it finds corrupted) must not fail the spec.
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: project, env: NPM_ENV })
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

  // The bin is an esbuild bundle with its dependencies inside (scripts/bundle_entries.mjs),
  // and the specs under spec/cli run the source: this is where the bundle itself serves MCP.
  it('serves MCP from the installed bin: initialize, then tools/list names the five tools', () => {
    const requests = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'newcomer', version: '1.0.0' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ]
    // Input ends after the requests: the server answers them all, then exits 0.
    const result = spawnSync(join(project, 'node_modules/.bin/toolsmith'), ['mcp', '--root', project], {
      cwd: project,
      input: requests.map((request) => `${JSON.stringify(request)}\n`).join(''),
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
      timeout: 120_000,
    })
    expect(result.status, result.stderr).toBe(0)
    const answers = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { id: number; result: { serverInfo?: { name: string }; tools?: { name: string }[] } })
    expect(answers.find((answer) => answer.id === 1)?.result.serverInfo?.name).toBe('toolsmith')
    expect(answers.find((answer) => answer.id === 2)?.result.tools?.map((tool) => tool.name).sort()).toEqual(['bash', 'edit', 'grep', 'read', 'write'])
  }, 150_000)

  it('resolves the subpath entries by name, and they share the root classes', async () => {
    const script = `
      const root = await import('toolsmith')
      const tools = await import('toolsmith/tools')
      const mcp = await import('toolsmith/mcp')
      process.stdout.write(String(root.createTools === tools.createTools && root.createMcpServer === mcp.createMcpServer))`
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: project, env: { ...process.env, NODE_OPTIONS: '' } })
    expect(stdout).toBe('true')
  })

  it('packs within its budget: no source maps, LICENSE and CHANGELOG shipped', () => {
    const paths = pack.files.map((file) => file.path)
    expect(paths.filter((path) => path.endsWith('.map'))).toEqual([])
    expect(paths).toEqual(expect.arrayContaining(['LICENSE', 'CHANGELOG.md', 'README.md', 'package.json', 'dist/index.js', 'dist/index.d.ts']))
    expect(pack.size).toBeLessThan(PACK_BUDGET.packedBytes)
    expect(pack.unpackedSize).toBeLessThan(PACK_BUDGET.unpackedBytes)
  })

  it('installs without the MCP SDK, and serving MCP says how to add it', async () => {
    for (const absent of ['@modelcontextprotocol/server', '@modelcontextprotocol/node', 'hono', 'express']) {
      expect(existsSync(join(project, 'node_modules', absent)), absent).toBe(false)
    }
    const script = `
      const { createMcpServer } = await import('toolsmith/mcp')
      const { createTools } = await import('toolsmith')
      try { createMcpServer(createTools(), { name: 'newcomer', version: '1.0.0' }); process.stdout.write('served') }
      catch (error) { process.stdout.write(JSON.stringify({ code: error.code, message: error.message })) }`
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: project, env: { ...process.env, NODE_OPTIONS: '' } })
    const failure = JSON.parse(stdout) as { code: string; message: string }
    expect(failure.code).toBe('E_OPTIONAL_DEPENDENCY_MISSING')
    expect(failure.message).toContain('npm install @modelcontextprotocol/server @modelcontextprotocol/node')
    // The CLI is another matter: its bundle carries the SDK, so `toolsmith mcp`
    // serves without the peer (the "serves MCP from the installed bin" case above).
  })

  it('compiles a consumer under strict with "types": ["node"], as the README says', async () => {
    // The README's settings for a consumer: strict, Node's types named (TypeScript 6 and later
    // load no @types by default), and skipLibCheck, because the MCP declarations name the SDK's
    // types and the SDK is an optional peer this project did not install.
    const tsconfig = {
      compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', noEmit: true, types: ['node'], skipLibCheck: true },
      include: ['src/**/*.ts'],
    }
    mkdirSync(join(project, 'src'), { recursive: true })
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(tsconfig))
    writeFileSync(
      join(project, 'src/consumer.ts'),
      `import { readFile } from 'node:fs/promises'
import { createTools } from 'toolsmith'
import { createMcpServer } from 'toolsmith/mcp'
const tools = createTools()
const manifest: string = await readFile('package.json', 'utf8')
export const served: typeof createMcpServer = createMcpServer
export const names: string[] = Object.keys(tools).concat(manifest.length > 0 ? [] : ['empty'])
`,
    )
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc')
    const compiled = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project, env: { ...process.env, NODE_OPTIONS: '' } }).catch(
      (error: { stdout?: string }) => ({ stdout: `failed: ${error.stdout ?? String(error)}` }),
    )
    expect(compiled.stdout).toBe('')
  })
})
