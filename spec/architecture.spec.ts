import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const LIB = resolve(dirname(fileURLToPath(import.meta.url)), '../lib')

/**
 * The layers, bottom first. A file may import its own folder and any folder
 * of a LOWER rank, never one of the same or a higher rank: type-only imports
 * count too (they tie the layers together as much as value imports do).
 * `contracts` holds the interfaces two layers share (the artifact brand and
 * shape), so neither has to import the other.
 */
const RANKS: Record<string, number> = {
  base: 0, // lib/validation.ts, lib/exceptions.ts, utils/, contracts/
  telemetry: 0, // OpenTelemetry spans: called by core's call path, so it imports nothing of the kit's
  // The journal contract and its stores sit under core: the call pipeline
  // (core: `tool.executor(ctx)`) records every call through them.
  journal: 1,
  shell: 1, // the shell word splitter and wrapper table: read by sandbox/ (network guard) and permissions/ (rules)
  core: 2,
  sandbox: 2, // os/, network/, files/, process/ and the one verb (sandbox.ts); a nested folder takes its top folder's rank
  artifacts: 3,
  permissions: 3, // policy and gate: over core (the gate interface) and sandbox (paths); shell words are in shell/, below both
  tools: 4,
  providers: 5, // shared schema and naming code, and providers/<name>/ (tool definitions + model adapter)
  runner: 6,
  surfaces: 6, // MCP server and AI SDK tools: beside runner/ (neither imports the other), over providers/
  cli: 7,
  entries: 8, // lib/index.ts and lib/entries/*: the public entry points
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return path.endsWith('.ts') ? [path] : []
  })
}

/** Every relative import and re-export of a file, `import type` and `export type` included. */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const found: string[] = []
  const pattern = /^\s*(?:import|export)\s+(?:type\s+)?[^'"]*?from\s+['"](\.[^'"]+)['"]|^\s*import\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/gm
  for (const match of text.matchAll(pattern)) {
    const spec = match[1] ?? match[2] ?? match[3]
    if (spec) found.push(resolve(dirname(file), spec.replace(/\.js$/, '.ts')))
  }
  return found
}

/** Every import cycle of the files under `root`, as `a.ts -> b.ts -> a.ts` lines. */
function findCycles(root: string): string[] {
  const files = sourceFiles(root)
  const graph = new Map(files.map((f) => [f, [...new Set(imports(f))]]))
  const state = new Map<string, 'visiting' | 'done'>()
  const cycles: string[] = []
  const visit = (file: string, stack: string[]): void => {
    if (state.get(file) === 'done') return
    if (state.get(file) === 'visiting') {
      cycles.push([...stack.slice(stack.indexOf(file)), file].map((f) => relative(root, f)).join(' -> '))
      return
    }
    state.set(file, 'visiting')
    for (const next of graph.get(file) ?? []) visit(next, [...stack, file])
    state.set(file, 'done')
  }
  for (const file of files) visit(file, [])
  return cycles
}

function layerOf(root: string, file: string): string {
  const parts = relative(root, file).split(sep)
  if (parts.length === 1) return parts[0] === 'index.ts' ? 'entries' : 'base'
  return parts[0] === 'utils' || parts[0] === 'contracts' ? 'base' : parts[0]!
}

/** Every import from a file to a folder of the same or a higher layer. */
function findUpwardImports(root: string): string[] {
  return sourceFiles(root).flatMap((file) => {
    const from = layerOf(root, file)
    return imports(file)
      .filter((target) => {
        const to = layerOf(root, target)
        if (to === from) return false
        return (RANKS[to] ?? Infinity) >= (RANKS[from] ?? -Infinity)
      })
      .map((target) => `${relative(root, file)} (${from}) -> ${relative(root, target)} (${layerOf(root, target)})`)
  })
}

const scratch: string[] = []
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true })
})

/** A throwaway lib/ with the given files, to show the checks can fail. */
function plantedLib(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'toolsmith-arch-'))
  scratch.push(root)
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true })
    writeFileSync(join(root, name), text)
  }
  return root
}

describe('architecture', () => {
  it('every folder of lib/ has a layer', () => {
    const folders = readdirSync(LIB).filter((entry) => statSync(join(LIB, entry)).isDirectory())
    const unranked = folders.filter((folder) => !['utils', 'contracts'].includes(folder) && RANKS[folder] === undefined)
    expect(unranked).toEqual([])
  })

  it('has no import cycle in lib/, type-only imports included', () => {
    expect(findCycles(LIB)).toEqual([])
  })

  it('no layer imports a layer above it or beside it (type-only imports included)', () => {
    expect(findUpwardImports(LIB)).toEqual([])
  })

  it('every relative import resolves to a file in lib/', () => {
    const files = sourceFiles(LIB)
    const missing = files.flatMap((f) =>
      imports(f)
        .filter((target) => !files.includes(target))
        .map((target) => `${relative(LIB, f)} -> ${relative(LIB, target)}`),
    )
    expect(missing).toEqual([])
  })

  it('the cycle check fails on a planted cycle made of type-only imports', () => {
    const root = plantedLib({
      'core/a.ts': "import type { B } from './b.js'\nexport interface A { b?: B }\n",
      'core/b.ts': "export type { A } from './a.js'\nimport type { A } from './a.js'\nexport interface B { a?: A }\n",
    })
    expect(findCycles(root)).toEqual(['core/a.ts -> core/b.ts -> core/a.ts'])
  })

  it('the layer check fails on a planted type-only import of artifacts from core', () => {
    const root = plantedLib({
      'core/tool.ts': "import type { SpooledArtifact } from '../artifacts/spooled_artifact.js'\nexport type R = SpooledArtifact\n",
      'artifacts/spooled_artifact.ts': 'export class SpooledArtifact {}\n',
    })
    expect(findUpwardImports(root)).toEqual(['core/tool.ts (core) -> artifacts/spooled_artifact.ts (artifacts)'])
  })
})
