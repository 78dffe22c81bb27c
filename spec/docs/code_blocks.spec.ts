/**
 * Every TypeScript code block of README.md and docs/*.md compiles under the
 * project's `--strict` settings (issue 11, "What to build" 2).
 *
 * Each block becomes its own module: names it uses from toolsmith are
 * imported for it (`toolsmith` resolves to `lib/index.ts`), and the few
 * names the guides take as given (`weather`, `ctx`, `tools`, `runner`…) are
 * declared once below with their real types. A block opts out only with a
 * visible first line `// not compiled: <why>`.
 */
import { readFileSync, readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import * as toolsmith from '../../lib/index.js'

const ROOT = resolve(import.meta.dirname, '../..')
const OPT_OUT = /^\/\/ not compiled: \S/

/** What the guides take as given, with real types. */
const GIVEN = `
import type * as T from 'toolsmith'
import type { ChatCompletionMessageFunctionToolCall } from 'openai/resources/chat/completions'
import type { LanguageModelV3 } from '@ai-sdk/provider'
import type { ModelMessage } from 'ai'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
declare global {
  const client: Client
  const weather: T.Tool
  const forecast: T.Tool
  const ctx: T.DispatchContext
  const tools: ReturnType<typeof T.createTools>
  const call: ChatCompletionMessageFunctionToolCall
  const rootDir: string
  const runId: string
  const nodeId: string
  const iteration: number
  const attempt: number
  const callId: string
  const prompt: string
  const signal: AbortSignal
  const model: T.TurnModel
  const languageModel: LanguageModelV3
  const runner: T.TurnRunner
  const journal: T.ToolCallJournal
  const row: T.ToolCallRow
  const sideEffect: boolean
  const idempotent: boolean
  const policy: T.PermissionPolicy
  const root: string
  const history: ModelMessage[]
  const shop: { order(sku: string, options: { idempotencyKey: string }): Promise<string> }
}
export {}
`
const GIVEN_NAMES = new Set([...GIVEN.matchAll(/^\s+const (\w+):/gm)].map((m) => m[1]!))

interface Block {
  id: string
  file: string
  line: number
  code: string
}

function blocks(): Block[] {
  const files = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]
  return files.flatMap((file) => {
    const text = readFileSync(join(ROOT, file), 'utf8')
    return [...text.matchAll(/^```(?:ts|typescript)\n([\s\S]*?)^```/gm)].map((m) => {
      const line = text.slice(0, m.index).split('\n').length
      return { id: `${file}:${line}`, file, line, code: m[1]! }
    })
  })
}

/** The toolsmith names a block uses without importing or declaring them. */
function importsFor(code: string): string {
  // The root re-exports the subpath entries (but internal), which list the names.
  const entries = ['core', 'artifacts', 'tools', 'providers', 'mcp', 'runner']
    .map((entry) => readFileSync(join(ROOT, 'lib/entries', `${entry}.ts`), 'utf8'))
    .join('\n')
  const types = new Set([...entries.matchAll(/\btype (\w+),?$/gm)].map((m) => m[1]!))
  const values = new Set(Object.keys(toolsmith))
  const imported = new Set([...code.matchAll(/import\s*(?:type\s*)?\{([^}]*)\}/g)].flatMap((m) => m[1]!.split(',').map((n) => n.trim().split(/\s+as\s+/).pop()!)))
  const declared = new Set([
    ...[...code.matchAll(/\b(?:const|let|var|function|class|type|interface)\s+(\w+)/g)].map((m) => m[1]!),
    ...[...code.matchAll(/\b(?:const|let|var)\s*\{([^}]*)\}\s*=/g)].flatMap((m) => m[1]!.split(',').map((n) => n.split(':').pop()!.trim())),
  ])
  const used = new Set([...code.matchAll(/\b[A-Za-z_$][\w$]*\b/g)].map((m) => m[0]))
  const wanted = [...used].filter((n) => !imported.has(n) && !declared.has(n) && !GIVEN_NAMES.has(n))
  const names = [...wanted.filter((n) => values.has(n)), ...wanted.filter((n) => !values.has(n) && types.has(n)).map((n) => `type ${n}`)]
  return names.length ? `import { ${names.join(', ')} } from 'toolsmith'\n` : ''
}

function compile(list: Block[]): Map<string, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'))
    },
  })!
  const options: ts.CompilerOptions = {
    ...config.options,
    noEmit: true,
    baseUrl: ROOT,
    paths: { toolsmith: ['lib/index.ts'], 'toolsmith/*': ['lib/entries/*.ts'] },
  }
  const virtual = new Map<string, string>([[join(ROOT, 'docs/__blocks__/given.ts'), GIVEN]])
  const byPath = new Map<string, Block>()
  list.forEach((block, i) => {
    const path = join(ROOT, `docs/__blocks__/block_${i}.ts`)
    virtual.set(path, `${importsFor(block.code)}${block.code}\nexport {}\n`)
    byPath.set(path, block)
  })
  const host = ts.createCompilerHost(options)
  const getSourceFile = host.getSourceFile.bind(host)
  host.getSourceFile = (name, version, onError, shouldCreate) => {
    const text = virtual.get(resolve(name))
    return text === undefined ? getSourceFile(name, version, onError, shouldCreate) : ts.createSourceFile(name, text, version, true)
  }
  const fileExists = host.fileExists.bind(host)
  host.fileExists = (name) => virtual.has(resolve(name)) || fileExists(name)
  const readFile = host.readFile.bind(host)
  host.readFile = (name) => virtual.get(resolve(name)) ?? readFile(name)
  const program = ts.createProgram([...virtual.keys()], options, host)
  const errors = new Map<string, string[]>(list.map((b) => [b.id, []]))
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const block = diagnostic.file ? byPath.get(resolve(diagnostic.file.fileName)) : undefined
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')
    if (!block) {
      if (diagnostic.file && virtual.has(resolve(diagnostic.file.fileName))) throw new Error(`the given names do not compile: ${text}`)
      continue
    }
    const { line } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start ?? 0)
    const offset = importsFor(block.code) ? 1 : 0
    errors.get(block.id)!.push(`${block.file}:${block.line + line - offset + 1}: TS${diagnostic.code} ${text}`)
  }
  return errors
}

describe('TypeScript code blocks of the guides', () => {
  const all = blocks()
  const compiled = all.filter((b) => !OPT_OUT.test(b.code))
  const errors = compile(compiled)

  it('finds the blocks, and every opt-out says why on its first line', () => {
    expect(all.length).toBeGreaterThan(20)
    for (const block of all.filter((b) => b.code.startsWith('// not compiled'))) expect(block.code).toMatch(OPT_OUT)
    expect(compiled.length).toBeGreaterThan(all.length - 5)
  })

  it.each(compiled.map((b) => [b.id, b] as const))('%s compiles', (id) => {
    expect(errors.get(id)).toEqual([])
  })
})
