import { spawnSync } from 'node:child_process'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import * as root from '../lib/index.js'
import * as internal from '../lib/entries/internal.js'

const ROOT = resolve(import.meta.dirname, '..')

/**
 * Every runtime name `lib/index.ts` exported on main before issue 12 (151),
 * taken from `Object.keys(await import('lib/index.ts'))` at the branch point.
 * Code outside depends on them: each stays importable from 'toolsmith'.
 */
const PUBLIC_BEFORE_ISSUE_12 = [
  'ArtifactTool', 'BaseException', 'BashTool', 'DEFAULT_ARTIFACT_OUTPUT_LIMITS',
  'DEFAULT_JOURNAL_MAX_OUTPUT_BYTES', 'DEFAULT_READ_ONLY_PATHS', 'DEFAULT_TOOL_RESULT_MAX_BYTES',
  'DEFAULT_UNREADABLE_PATHS', 'E_ARTIFACT_QUERY_FAILED', 'E_INVALID_INITIAL_REGISTRY_VALUE',
  'E_INVALID_INITIAL_TOOL_CALL_VALUE', 'E_INVALID_INITIAL_TOOL_VALUE', 'E_INVALID_OPTIONS',
  'E_INVALID_TOOL_ARGS', 'E_NOT_A_SPOOL_READER', 'E_NOT_A_TOOL', 'E_NOT_CANONICALIZABLE',
  'E_OPTIONAL_DEPENDENCY_MISSING', 'E_TOOL_ABORTED', 'E_TOOL_ALREADY_REGISTERED', 'E_TOOL_BINARY_FILE',
  'E_TOOL_COMMAND_FAILED', 'E_TOOL_COMMAND_NOT_FOUND', 'E_TOOL_CONTENT_TOO_LARGE', 'E_TOOL_DOWNSTREAM_ERROR',
  'E_TOOL_FILE_NOT_FOUND', 'E_TOOL_FILE_TOO_LARGE', 'E_TOOL_GIT_REMOTE_DISABLED', 'E_TOOL_GREP_FAILED',
  'E_TOOL_IO_ERROR', 'E_TOOL_NETWORK_DISABLED', 'E_TOOL_NOT_A_FILE', 'E_TOOL_NOT_REGISTERED',
  'E_TOOL_PATCH_FAILED', 'E_TOOL_PATCH_TOO_LARGE', 'E_TOOL_PATH_ESCAPE', 'E_TOOL_PATH_INVALID',
  'E_TOOL_SANDBOX_UNAVAILABLE', 'E_TOOL_TIMEOUT', 'E_TURN_ABORTED', 'EditTool', 'FileSpoolReader',
  'FileSpoolStore', 'GIT_REMOTE_SUBCOMMANDS', 'GrepTool', 'InMemorySpoolStore', 'JSON_SCHEMA_DIALECT',
  'JsonlJournal', 'MAX_OUTPUT_BYTES_LIMIT', 'MAX_TIMEOUT_MS', 'MemorySpoolReader', 'NETWORK_EXECUTABLES',
  'REDACTION_FAILED', 'ReadTool', 'Registry', 'Sandbox', 'SpooledArtifact', 'SpooledJsonArtifact',
  'SpooledMarkdownArtifact', 'SqliteJournal', 'TOOL_CALL_ROW_FIELDS', 'TOOL_NAME_RULES', 'Tool', 'ToolCall',
  'ToolNameMap', 'ToolRegistry', 'TurnRunner', 'ValidationException', 'WriteTool', 'anthropicModel',
  'assertOfflineCommand', 'asyncValidateOrThrow', 'bash', 'canonicalStringify', 'copyMessages',
  'createCallContext', 'createDispatchContext', 'createException', 'createMcpServer', 'createTools',
  'defineTool', 'describeCause', 'dropOptionalNulls', 'edit', 'errorSummary', 'errorToJson',
  'fromAnthropicResponse', 'fromGeminiResponse', 'fromOpenAIChatResponse', 'geminiModel',
  'getDefinedToolMetadata', 'grep', 'isSpoolReader', 'isToolDescription', 'openAIChatModel', 'outputToJson',
  'read', 'scriptedModel', 'sha256Hex', 'toAiSdkTools', 'toAnthropicMessages', 'toAnthropicTool',
  'toAnthropicTools', 'toGeminiContents', 'toGeminiFunctionDeclaration', 'toGeminiFunctionDeclarations',
  'toGeminiSchema', 'toJsonSchema', 'toMcpTool', 'toMcpTools', 'toOpenAIChatMessages',
  'toOpenAIResponsesTool', 'toOpenAIResponsesTools', 'toOpenAIStrictSchema', 'toOpenAITool', 'toOpenAITools',
  'toToolDescription', 'toolDefinition', 'toolInputSchema', 'toolList', 'toolResultToText', 'tools',
  'validateOrThrow', 'validator', 'write',
]

/**
 * The rest of those 151: helpers between layers, no longer on the root (the
 * issue names them as internals). They stay importable from
 * 'toolsmith/internal', with no stability promise.
 */
const INTERNAL_BEFORE_ISSUE_12 = [
  'hasBrand', 'isPlainObject', 'isPromiseLike', 'capJson', 'normaliseRow', 'assertFilter', 'matchesFilter',
  'isUnsafeToRepeat', 'safeJson', 'renderRange', 'appliesTo', 'clipBytes', 'LineIndexBuilder', 'scanLines',
  'readLine', 'spoolChunks', 'SPOOL_CHUNK_BYTES', 'warnIdempotencyKeyUnreachable', 'retryWarning',
  'buildToolSet', 'toolLikeList', 'resolveMaxResultBytes', 'parseJsonPath', 'utf8BoundaryBefore',
  'utf8Prefix', 'redactToolInput',
]

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry)
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : []
  })
}

describe('public surface (issue 12)', () => {
  it('the lists cover all 151 names of before', () => {
    expect(new Set([...PUBLIC_BEFORE_ISSUE_12, ...INTERNAL_BEFORE_ISSUE_12]).size).toBe(151)
  })

  it.each(PUBLIC_BEFORE_ISSUE_12)('%s is still exported from the root', (name) => {
    expect(Object.keys(root)).toContain(name)
    expect((root as Record<string, unknown>)[name]).toBeDefined()
  })

  it.each(INTERNAL_BEFORE_ISSUE_12)('%s moved from the root to toolsmith/internal', (name) => {
    expect(Object.keys(root)).not.toContain(name)
    expect((internal as Record<string, unknown>)[name]).toBeDefined()
  })

  it('only the root uses export *, and only to re-export the subpath entries (but internal)', () => {
    // Each entry lists its names explicitly; the root is their union, so a
    // public name is written down once and tsc rejects a name two entries both export.
    const starred = sourceFiles(join(ROOT, 'lib')).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/^\s*export \*.*$/gm)].map((m) => `${file.slice(ROOT.length + 1)}: ${m[0].trim()}`),
    )
    expect(starred).toEqual(
      ['core', 'artifacts', 'tools', 'providers', 'mcp', 'runner'].map((entry) => `lib/index.ts: export * from './entries/${entry}.js'`),
    )
  })

  it('every subpath entry (but internal) exports only names the root exports, the same objects', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown> }
    const subpaths = Object.keys(pkg.exports).filter((k) => k.startsWith('./') && k !== './package.json')
    expect(subpaths.sort()).toEqual(['./artifacts', './core', './internal', './mcp', './providers', './runner', './tools'])
    const union = new Set<string>()
    for (const subpath of subpaths.filter((s) => s !== './internal')) {
      const entry = (await import(join(ROOT, 'lib/entries', `${subpath.slice(2)}.ts`))) as Record<string, unknown>
      for (const [name, value] of Object.entries(entry)) {
        expect((root as Record<string, unknown>)[name], `${subpath} ${name}`).toBe(value)
        union.add(name)
      }
    }
    // Together the areas are the root: nothing public is reachable from the root only.
    expect([...union].sort()).toEqual(Object.keys(root).sort())
  })

  it('importing the root loads no package (joi neither: spec/core/lazy_joi.spec.ts); the MCP SDK loads on the first createMcpServer', () => {
    const hook = `data:text/javascript,${encodeURIComponent(`
      export async function resolve(specifier, context, next) {
        const result = await next(specifier, context)
        const m = result.url.match(/node_modules\\/((?:@[^/]+\\/)?[^/]+)/)
        if (m) process.stderr.write('LOADED ' + m[1] + '\\n')
        return result
      }`)}`
    const script = `
      import { register, createRequire } from 'node:module'
      register(${JSON.stringify(hook)})
      const m = await import(${JSON.stringify(join(ROOT, 'lib/index.ts'))})
      const sdk = () => Object.keys(createRequire(import.meta.url).cache).filter((k) => k.includes('@modelcontextprotocol')).length
      process.stdout.write(JSON.stringify({ before: sdk() }))
      m.createMcpServer([], { name: 'n', version: '1' })
      process.stdout.write(JSON.stringify({ after: sdk() }))`
    const child = spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), '--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    })
    expect(child.status, child.stderr).toBe(0)
    const loaded = new Set([...child.stderr.matchAll(/^LOADED (\S+)$/gm)].map((m) => m[1]))
    expect([...loaded]).toEqual([])
    expect(child.stdout).toContain('{"before":0}')
    expect(child.stdout).toMatch(/"after":[1-9]/)
  })
})
