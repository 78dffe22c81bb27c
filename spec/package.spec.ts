import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as barrel from '../lib/index.js'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const run = promisify(execFile)

// The names the design and issue 2 promise at the package root.
const CORE_NAMES = [
  'validator',
  'validateOrThrow',
  'asyncValidateOrThrow',
  'ValidationException',
  'BaseException',
  'createException',
  'E_INVALID_INITIAL_TOOL_VALUE',
  'E_INVALID_TOOL_ARGS',
  'E_TOOL_DOWNSTREAM_ERROR',
  'E_TOOL_ALREADY_REGISTERED',
  'E_NOT_A_SPOOL_READER',
  'E_INVALID_INITIAL_REGISTRY_VALUE',
  'E_INVALID_INITIAL_TOOL_CALL_VALUE',
  'E_NOT_CANONICALIZABLE',
  'canonicalStringify',
  'sha256Hex',
  'Tool',
  'defineTool',
  'getDefinedToolMetadata',
  'createDispatchContext',
  'Registry',
  'ToolRegistry',
  'ToolCall',
  'InMemorySpoolStore',
  'FileSpoolStore',
  'SpooledArtifact',
  'SpooledJsonArtifact',
  'SpooledMarkdownArtifact',
  'ArtifactTool',
]

describe('package surface', () => {
  it('exports every core name from lib/index.ts', () => {
    const missing = CORE_NAMES.filter((name) => !(name in barrel))
    expect(missing).toEqual([])
  })

  describe('the compiled build', () => {
    // Compile into a folder inside node_modules so the build resolves the
    // project's dependencies exactly as an installed package would.
    let outDir: string
    beforeAll(async () => {
      outDir = await mkdtemp(join(ROOT, 'node_modules/.toolsmith-build-'))
      await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', outDir], {
        cwd: ROOT,
      })
    }, 180_000)
    afterAll(async () => {
      if (outDir) await rm(outDir, { recursive: true, force: true })
    })

    it('exports the same names as the source barrel', async () => {
      const built = (await import(pathToFileURL(join(outDir, 'index.js')).href)) as Record<string, unknown>
      expect(Object.keys(built).sort()).toEqual(Object.keys(barrel).sort())
      expect(typeof built.Tool).toBe('function')
    })

    it('package.json exports point at dist with types', async () => {
      const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'))
      expect(pkg.type).toBe('module')
      expect(pkg.exports['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' })
      expect(pkg.bin.toolsmith).toBe('./dist/cli/main.js')
    })
  })
})
