import { readFileSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const LIB = resolve(dirname(fileURLToPath(import.meta.url)), '../lib')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return path.endsWith('.ts') ? [path] : []
  })
}

/** Relative imports of a file; `type`-only imports are erased at runtime and so cannot form a load cycle. */
function imports(file: string, { includeTypeOnly }: { includeTypeOnly: boolean }): string[] {
  const text = readFileSync(file, 'utf8')
  const found: string[] = []
  const pattern = /^\s*(import|export)\s+(type\s+)?[^'"]*?from\s+['"](\.[^'"]+)['"]|^\s*import\s+['"](\.[^'"]+)['"]/gm
  for (const match of text.matchAll(pattern)) {
    const typeOnly = Boolean(match[2])
    const spec = match[3] ?? match[4]
    if (!spec || (typeOnly && !includeTypeOnly)) continue
    found.push(resolve(dirname(file), spec.replace(/\.js$/, '.ts')))
  }
  return found
}

const files = sourceFiles(LIB)

describe('architecture', () => {
  it('has no runtime import cycles in lib/', () => {
    const graph = new Map(files.map((f) => [f, imports(f, { includeTypeOnly: false })]))
    const state = new Map<string, 'visiting' | 'done'>()
    const cycles: string[] = []
    const visit = (file: string, stack: string[]): void => {
      if (state.get(file) === 'done') return
      if (state.get(file) === 'visiting') {
        cycles.push([...stack.slice(stack.indexOf(file)), file].map((f) => relative(LIB, f)).join(' -> '))
        return
      }
      state.set(file, 'visiting')
      for (const next of graph.get(file) ?? []) visit(next, [...stack, file])
      state.set(file, 'done')
    }
    for (const file of files) visit(file, [])
    expect(cycles).toEqual([])
  })

  it('every relative import resolves to a file in lib/', () => {
    const missing = files.flatMap((f) =>
      imports(f, { includeTypeOnly: true })
        .filter((target) => !files.includes(target))
        .map((target) => `${relative(LIB, f)} -> ${relative(LIB, target)}`),
    )
    expect(missing).toEqual([])
  })

  it('core imports nothing from tools, providers, runner, sandbox or cli', () => {
    const forbidden = ['tools', 'providers', 'runner', 'sandbox', 'cli'].map((d) => join(LIB, d) + '/')
    const violations = files
      .filter((f) => f.startsWith(join(LIB, 'core') + '/'))
      .flatMap((f) =>
        imports(f, { includeTypeOnly: true })
          .filter((target) => forbidden.some((prefix) => target.startsWith(prefix)))
          .map((target) => `${relative(LIB, f)} -> ${relative(LIB, target)}`),
      )
    expect(violations).toEqual([])
  })
})
