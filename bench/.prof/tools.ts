import { readFile, writeFile } from 'node:fs/promises'
import { createDispatchContext, createTools } from '../../lib/index.js'
const which = process.argv[2]
const N = Number(process.argv[3] ?? 200)
const ctx = createDispatchContext()
if (which === 'read') {
  const r = createTools({ rootDir: '/tmp/toolsmith-bench/read-root' }).read.executor(ctx)
  for (let i = 0; i < N; i++) await r({ path: 'file.txt' })
} else if (which === 'bash') {
  const b = createTools({ rootDir: '/tmp/toolsmith-bench/bash-root', allowNetwork: true }).bash.executor(ctx)
  for (let i = 0; i < N; i++) await b({ cmd: 'true' })
} else if (which === 'edit') {
  const e = createTools({ rootDir: '/tmp/toolsmith-bench/edit-root' }).edit.executor(ctx)
  const patch = await readFile('/tmp/toolsmith-bench/edit-root/change.diff', 'utf8')
  const orig = await readFile('/tmp/toolsmith-bench/read-root/file.txt', 'utf8')
  const { numberedText } = await import('../fixtures.js')
  const o = numberedText(3000, 50)
  for (let i = 0; i < N; i++) { await writeFile('/tmp/toolsmith-bench/edit-root/subject.txt', o); await e({ path: 'subject.txt', patch }) }
} else if (which === 'grep') {
  const g = createTools({ rootDir: '/tmp/toolsmith-bench/grep-tree-1000-20000000' }).grep.executor(ctx)
  for (let i = 0; i < N; i++) await g({ pattern: 'needle_7f3a' })
}
