/**
 * Generated inputs, made once under os.tmpdir() and reused by later runs:
 * regenerating 100 MB on every run would cost more than the figure itself.
 * A `.complete` marker written last means a half-built tree from a killed
 * run is rebuilt, not measured.
 *
 * @module
 */
import { existsSync } from 'node:fs'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'

/** Directory for every bench fixture and sandbox root. */
export const BENCH_TMP = path.join(os.tmpdir(), 'toolsmith-bench')

/** A deterministic pseudo-random generator (mulberry32): same tree every time. */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const WORDS = ['const', 'value', 'return', 'import', 'export', 'function', 'await', 'result', 'config', 'handler', 'string', 'number', 'options', 'error', 'stream', 'buffer', 'index', 'length', 'module', 'default']

/** The word the grep figure searches for: planted on about one line in 2,000. */
export const GREP_NEEDLE = 'needle_7f3a'

/** Source-like text of about `bytes` bytes; `needleEvery` plants the needle. */
function sourceText(rand: () => number, bytes: number, needleEvery: number): string {
  const lines: string[] = []
  let size = 0
  while (size < bytes) {
    const n = 4 + Math.floor(rand() * 10)
    let line = '  '.repeat(Math.floor(rand() * 4))
    for (let i = 0; i < n; i++) line += WORDS[Math.floor(rand() * WORDS.length)]! + (i % 3 === 2 ? '(' : ' ')
    if (rand() * needleEvery < 1) line += ` // ${GREP_NEEDLE}`
    lines.push(line)
    size += line.length + 1
  }
  return `${lines.join('\n')}\n`
}

/** Shape of the grep tree. */
export interface TreeSpec {
  files: number
  totalBytes: number
}

/**
 * A tree of `files` files totalling about `totalBytes`, in 50 directories of
 * 10 subdirectories, e.g. 5,000 files of 20 KB on average.
 *
 * @returns The tree's root.
 */
export async function grepTree(spec: TreeSpec, log: (m: string) => void): Promise<string> {
  const root = path.join(BENCH_TMP, `grep-tree-${spec.files}-${spec.totalBytes}`)
  if (existsSync(path.join(root, '.complete'))) return root
  log(`generating grep tree: ${spec.files} files, ${(spec.totalBytes / 1e6).toFixed(0)} MB under ${root} (once)`)
  await rm(root, { recursive: true, force: true })
  const rand = random(42)
  const average = spec.totalBytes / spec.files
  for (let i = 0; i < spec.files; i++) {
    const dir = path.join(root, `pkg${i % 50}`, `mod${Math.floor(i / 50) % 10}`)
    if (i < 500) await mkdir(dir, { recursive: true })
    const size = Math.round(average * (0.5 + rand()))
    await writeFile(path.join(dir, `file${i}.ts`), sourceText(rand, size, 2_000))
  }
  await writeFile(path.join(root, '.complete'), new Date().toISOString())
  return root
}

/** A text file of about `bytes` bytes whose lines are all distinct (so patch hunks match in one place only). */
export function numberedText(lines: number, width: number): string {
  const out: string[] = []
  const rand = random(7)
  for (let i = 0; i < lines; i++) {
    let line = `line ${String(i).padStart(6, '0')}:`
    while (line.length < width - 1) line += ` ${WORDS[Math.floor(rand() * WORDS.length)]}`
    out.push(line.slice(0, width - 1))
  }
  return `${out.join('\n')}\n`
}
