/**
 * The walk behind `bash`'s protected paths, at a bound a spec can reach
 * (the real one is 20,000 folders): what it visits first, what it leaves,
 * and that it says so once. The tool-level behaviour is in
 * protected_paths.spec.ts, through the public barrel.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { DEFAULT_READ_ONLY_PATHS } from '../../lib/index.js'
import { ProtectedPaths } from '../../lib/sandbox/files/protected_paths.js'
import { ProtectedScanner, createdProtectedPaths } from '../../lib/sandbox/files/protected_scan.js'
import { trackedMkdtemp } from '../support/temp_dirs.js'

function tree(dirs: string[]): string {
  const root = fs.realpathSync(trackedMkdtemp(path.join(os.tmpdir(), 'toolsmith-scan-')))
  for (const dir of dirs) fs.mkdirSync(path.join(root, dir), { recursive: true })
  return root
}

describe('ProtectedScanner', () => {
  it('finds protected paths at any depth, does not walk into them, and sees bare repositories by their shape', () => {
    const root = tree(['a/b/c/.git/hooks', 'a/.vscode/deep', 'vendor/lib.git/objects', 'vendor/lib.git/refs', 'x/.github/workflows'])
    fs.writeFileSync(path.join(root, 'vendor/lib.git/HEAD'), 'ref: refs/heads/main\n')
    fs.writeFileSync(path.join(root, '.bashrc'), '')
    const scan = new ProtectedScanner(new ProtectedPaths(DEFAULT_READ_ONLY_PATHS)).scan(root)
    expect(scan.complete).toBe(true)
    expect(Object.fromEntries(scan.found)).toEqual({
      '.bashrc': '**/.bashrc',
      'a/b/c/.git': '**/.git',
      'a/.vscode': '**/.vscode',
      'vendor/lib.git': '**/.git',
    })
  })

  it('stops at its bound, shallow folders first and dependency folders last, and warns once', () => {
    const root = tree(['node_modules/p/.git', 'src/.git', 'a/b/c/d/.vscode'])
    const warnings: string[] = []
    const spy = vi.spyOn(process, 'emitWarning').mockImplementation(((message: string) => void warnings.push(message)) as never)
    try {
      // Root, node_modules' siblings src, a; then a/b — 4 folders: src/.git is found, the rest is past the bound.
      const scanner = new ProtectedScanner(new ProtectedPaths(DEFAULT_READ_ONLY_PATHS), 4)
      const first = scanner.scan(root)
      expect(first.complete).toBe(false)
      expect([...first.found.keys()]).toEqual(['src/.git'])
      scanner.scan(root)
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toMatch(/more than 4 folders/)
      // With room for every folder, node_modules comes last but is walked.
      const all = new ProtectedScanner(new ProtectedPaths(DEFAULT_READ_ONLY_PATHS), 100).scan(root)
      expect([...all.found.keys()]).toEqual(['src/.git', 'a/b/c/d/.vscode', 'node_modules/p/.git'])
    } finally {
      spy.mockRestore()
    }
  })

  it('reads a changed folder again and reports what is new', () => {
    const root = tree(['one/two'])
    const scanner = new ProtectedScanner(new ProtectedPaths(DEFAULT_READ_ONLY_PATHS))
    const before = scanner.scan(root)
    fs.mkdirSync(path.join(root, 'one/two/.idea'))
    fs.writeFileSync(path.join(root, '.envrc'), '')
    expect(createdProtectedPaths(before, scanner.scan(root))).toEqual([
      { path: '.envrc', rule: '**/.envrc' },
      { path: 'one/two/.idea', rule: '**/.idea' },
    ])
  })

  it('a list of plain paths needs no walk: each is there or not', () => {
    const root = tree(['a/b', 'deep/x/.git'])
    const scan = new ProtectedScanner(new ProtectedPaths(['a/b/', '.git'])).scan(root)
    expect(scan).toEqual({ found: new Map([['a/b', 'a/b/']]), complete: true, directories: 0 })
  })
})
