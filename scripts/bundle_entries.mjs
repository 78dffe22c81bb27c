// After `tsc`: re-emit the package's entry points (the root and
// `entries/*`) as ESM bundles that share chunks, over tsc's files of the
// same names. Importing 'toolsmith' then resolves a handful of files instead
// of ≈ 100 modules, which is most of its import time (bench figure `import`).
// Shared chunks keep one copy of every class across the entries, so
// `instanceof` agrees between 'toolsmith' and 'toolsmith/tools'. Packages
// stay external; the CLI (dist/cli) keeps tsc's per-file output.
import { chmodSync, existsSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const outIndex = process.argv.indexOf('--outdir')
const outdir = outIndex === -1 ? path.join(root, 'dist') : path.resolve(process.argv[outIndex + 1])
const entries = readdirSync(path.join(root, 'lib/entries')).filter((f) => f.endsWith('.ts')).map((f) => path.join(root, 'lib/entries', f))

await build({
  entryPoints: [path.join(root, 'lib/index.ts'), ...entries],
  outbase: path.join(root, 'lib'),
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
})

// tsc writes files without the execute bit; the CLI is the package's `bin`,
// and `npx toolsmith` in this repository runs it in place (an install from
// the registry or a tarball would set the bit itself).
const cli = path.join(root, 'dist/cli/main.js')
if (existsSync(cli)) chmodSync(cli, 0o755)
