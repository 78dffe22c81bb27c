import { execFile, spawn, spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import ts from 'typescript'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest'
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
    // An alias (`typescript-current`) is fetched under its real name.
    const real = typeof entry.name === 'string' ? entry.name : name
    const resolved = entry.resolved ?? `${REGISTRY}${real}/-/${real.split('/').pop()}-${String(entry.version)}.tgz`
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

/**
 * The consumer's own development dependencies: Node's types, for a strict
 * compile with `"types": ["node"]`; zod, for a typed tool; and the current
 * TypeScript. That one is this repository's devDependency alias
 * `typescript-current` (`npm:typescript@7.0.2`), so the lockfile fixes its
 * version and integrity and `npm ci` caches it like every other package; the
 * repository itself keeps building with 5.9 (typedoc needs it).
 */
const CONSUMER_DEV = ['@types/node', 'undici-types', 'zod', 'typescript-current']

/** The consumer's dependency on `name`, as the repository's lockfile pins it (an alias as `npm:<real>@<version>`). */
function pinned(name: string, packages: Record<string, { version: string; name?: string }>): string {
  const entry = packages[`node_modules/${name}`]
  if (!entry) throw new Error(`package-lock.json has no hoisted node_modules/${name}`)
  return entry.name === undefined ? entry.version : `npm:${entry.name}@${entry.version}`
}

/** The consumer's environment: no NODE_OPTIONS of this test runner's. */
const CONSUMER_ENV = { ...process.env, NODE_OPTIONS: '' }

/**
 * A consumer's source: a zod-typed tool, run through its executor, and every
 * entry's declarations loaded (so all are checked). The two `@ts-expect-error`
 * lines are the inference proof: a wrong argument type compiles only when the
 * arguments are `any`, and then the unused directive is the error.
 */
const CONSUMER_SOURCE = `import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { z } from 'zod'
import { Tool, createDispatchContext, createTools } from 'toolsmith'
import type * as artifacts from 'toolsmith/artifacts'
import type * as core from 'toolsmith/core'
import type * as internal from 'toolsmith/internal'
import { createMcpServer, type McpSdkServer } from 'toolsmith/mcp'
import type * as providers from 'toolsmith/providers'
import type * as runner from 'toolsmith/runner'
import type * as tools from 'toolsmith/tools'

const root = process.argv[2] ?? process.cwd()

const note = new Tool({
  name: 'note',
  description: 'Append a line to a file, some times over',
  inputSchema: z.object({ file: z.string(), line: z.string(), times: z.number().int().min(1).default(1) }),
  handler: async ({ file, line, times }) => {
    // @ts-expect-error times is a number (the schema's output type), not a string
    const wrong: string = times
    await writeFile(join(root, file), \`\${line}\\n\`.repeat(times), { flag: 'a' })
    return \`\${file}: \${times} line(s)\`
  },
})

const ctx = createDispatchContext()
const call = note.executor(ctx)

/** Never called: a wrong argument type for the executor. */
export function misuse(): Promise<string> {
  // @ts-expect-error times must be a number (the schema's input type)
  return call({ file: 'notes.txt', line: 'x', times: 'twice' })
}

const said = String(await call({ file: 'notes.txt', line: 'hello', times: 2 }))
const refused = await call({ file: 'notes.txt', line: 'x', times: 0 }).then(() => 'ran', (error: { code?: string }) => error.code)
const { read } = createTools({ rootDir: root })
await read.executor(ctx)({ path: 'notes.txt' })
process.stdout.write(JSON.stringify({ said, read: await readFile(join(root, 'notes.txt'), 'utf8'), refused }))

export const serve: (tools: Parameters<typeof createMcpServer>[0]) => McpSdkServer = (list) => createMcpServer(list, { name: 'consumer', version: '1.0.0' })
export type Loaded = [typeof artifacts, typeof core, typeof internal, typeof providers, typeof runner, typeof tools]
`

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
    const repoLock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string; name?: string }> }
    const dependencies: Record<string, string> = { toolsmith: `file:${tarball}` }
    for (const name of CONSUMER_DEV) dependencies[name] = pinned(name, repoLock.packages)
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

  // The bundle checks a client's answer to an approval question with its own
  // JSON Schema validator (scripts/cli_sdk_shims.mjs): an answer that breaks
  // the question's schema is refused, a well-formed one lets the call run.
  it('asks the client before a write from the installed bin, and checks the answer against the question', async () => {
    const root = trackedMkdtemp(join(tmpdir(), 'toolsmith-newcomer-ask-'))
    const child = spawn(join(project, 'node_modules/.bin/toolsmith'), ['mcp', '--root', root, '--policy', join(ROOT, 'examples/policy.json')], {
      cwd: project,
      stdio: ['pipe', 'pipe', 'ignore'],
      env: { ...process.env, NODE_OPTIONS: '' },
    })
    onTestFinished(() => void child.kill('SIGKILL'))
    type Line = { id?: number; method?: string; result?: { isError?: boolean; content?: { text: string }[] } }
    const lines: Line[] = []
    let buffer = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk
      for (let end = buffer.indexOf('\n'); end !== -1; end = buffer.indexOf('\n')) {
        lines.push(JSON.parse(buffer.slice(0, end)) as Line)
        buffer = buffer.slice(end + 1)
      }
    })
    const waitFor = async (match: (line: Line) => boolean): Promise<Line> => {
      for (let seen = 0; ; ) {
        const found = lines.slice(seen).find(match)
        if (found !== undefined) return found
        seen = lines.length
        await new Promise((done) => setTimeout(done, 50))
      }
    }
    const send = (message: object): void => void child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`)
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: { elicitation: { form: {} } }, clientInfo: { name: 'newcomer', version: '1' } } })
    await waitFor((line) => line.id === 1)
    send({ method: 'notifications/initialized' })

    // `remember` is a boolean in the question's schema: a string breaks it.
    send({ id: 2, method: 'tools/call', params: { name: 'write', arguments: { path: 'README.md', content: 'first' } } })
    const first = await waitFor((line) => line.method === 'elicitation/create')
    send({ id: first.id, result: { action: 'accept', content: { remember: 'yes' } } })
    const refused = await waitFor((line) => line.id === 2 && line.method === undefined)
    expect(refused.result?.isError).toBe(true)
    expect(refused.result?.content?.[0]?.text).toMatch(/does not match requested schema/)
    expect(existsSync(join(root, 'README.md'))).toBe(false)

    send({ id: 3, method: 'tools/call', params: { name: 'write', arguments: { path: 'README.md', content: 'second' } } })
    const second = await waitFor((line) => line.method === 'elicitation/create' && line.id !== first.id)
    send({ id: second.id, result: { action: 'accept', content: { remember: false } } })
    expect((await waitFor((line) => line.id === 3 && line.method === undefined)).result).toMatchObject({ content: [{ text: 'ok' }] })
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toBe('second')
  }, 120_000)

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

  // The README's settings for a consumer: strict, nodenext, Node's types named
  // (TypeScript 6 and later load no @types package by default) and
  // skipLibCheck OFF, with the MCP SDK absent: every declaration the entries
  // reach is checked, so one naming an optional peer's types fails here.
  describe('a consumer project with a zod-typed tool', () => {
    beforeAll(() => {
      const tsconfig = {
        compilerOptions: {
          strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', types: ['node'], skipLibCheck: false,
          rootDir: 'src', outDir: 'out',
        },
        include: ['src/**/*.ts'],
      }
      mkdirSync(join(project, 'src'), { recursive: true })
      writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(tsconfig))
      writeFileSync(join(project, 'src/consumer.ts'), CONSUMER_SOURCE)
    })

    it('compiles with the current TypeScript (strict, skipLibCheck off, no MCP SDK installed), then runs', async () => {
      // No optional peer in the tree: their types cannot be what makes the declarations check.
      for (const peer of ['@modelcontextprotocol', 'ai', 'pg', 'better-sqlite3', '@opentelemetry']) {
        expect(existsSync(join(project, 'node_modules', peer)), peer).toBe(false)
      }
      const tsc = join(project, 'node_modules/typescript-current/bin/tsc')
      const version = await run(process.execPath, [tsc, '--version'], { cwd: project, env: CONSUMER_ENV })
      expect(version.stdout).toMatch(/^Version 7\./)
      expect((await compile(tsc, [])).trim()).toBe('')
      // The emitted JavaScript runs: the zod tool through its executor, then the built-in
      // `read` over the file it wrote, in a real folder.
      const root = trackedMkdtemp(join(tmpdir(), 'toolsmith-consumer-root-'))
      const { stdout } = await run(process.execPath, ['out/consumer.js', root], { cwd: project, env: CONSUMER_ENV })
      expect(JSON.parse(stdout)).toEqual({ said: 'notes.txt: 2 line(s)', read: 'hello\nhello\n', refused: 'E_INVALID_TOOL_ARGS' })
    }, 180_000)

    it('compiles with TypeScript 5.9 too (the version this repository builds with)', async () => {
      expect((await compile(join(ROOT, 'node_modules/typescript/bin/tsc'), ['--noEmit'])).trim()).toBe('')
    }, 180_000)

    it('fails to compile when the schema does not type the arguments', async () => {
      // The same source with a schema that infers nothing (`any`): the
      // handler's expect-error directive is then unused, and that is an
      // error. This is what the directive proves in the compiles above.
      const untyped = CONSUMER_SOURCE.replace("import { z } from 'zod'", "import { z as typed } from 'zod'\nconst z = { ...typed, object: (shape: object): any => typed.object(shape as never) }")
      const directive = untyped.split('\n').findIndex((line) => line.includes('@ts-expect-error times is a number')) + 1
      writeFileSync(join(project, 'src/untyped.ts'), untyped)
      try {
        const output = await compile(join(project, 'node_modules/typescript-current/bin/tsc'), ['--noEmit'])
        expect(output.match(/error TS\d+/g), output).toEqual(['error TS2578'])
        expect(output).toContain(`src/untyped.ts(${directive},5): error TS2578: Unused '@ts-expect-error' directive`)
      } finally {
        rmSync(join(project, 'src/untyped.ts'))
      }
    }, 180_000)

    /** Runs `tsc -p tsconfig.json` in the consumer; its output (diagnostics), whether it failed or not. */
    async function compile(tsc: string, extra: readonly string[]): Promise<string> {
      return run(process.execPath, [tsc, '-p', 'tsconfig.json', ...extra], { cwd: project, env: CONSUMER_ENV }).then(
        ({ stdout }) => stdout,
        (error: { stdout?: string }) => `failed: ${error.stdout ?? String(error)}`,
      )
    }
  })
})
