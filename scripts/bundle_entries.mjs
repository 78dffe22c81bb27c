// After `tsc`: re-emit the package's entry points (the root and
// `entries/*`) as ESM bundles that share chunks, over tsc's files of the
// same names. Importing 'toolsmith' then resolves a handful of files instead
// of ≈ 100 modules, which is most of its import time (bench figure `import`).
// Shared chunks keep one copy of every class across the entries, so
// `instanceof` agrees between 'toolsmith' and 'toolsmith/tools'. Packages
// stay external there: an application shares them with the kit.
//
// Then the CLI (`dist/cli/main.js`, the package's `bin`), bundled on its own
// with its dependencies inside: a separate program shares no module with an
// application, and resolving and loading joi's, the MCP SDK's and zod's
// hundreds of files was most of `toolsmith mcp`'s start-up (bench row
// `mcp-startup`). Each command stays a chunk of its own, loaded when it runs.
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
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

// Left out of the CLI bundle: the optional peers (an application's own copy,
// or absent: the kit loads them on first use and says how to install them),
// and @vscode/ripgrep, which finds its binary next to its own module.
const CLI_EXTERNAL = ['@opentelemetry/api', 'ai', 'better-sqlite3', 'pg', '@vscode/ripgrep']

// esbuild names chunks by content hash and never deletes: drop the last
// build's, so a package ships only the chunks main.js reaches. (tsc's files
// are snake_case, never NAME-HASH8.js.)
const cliDir = path.join(outdir, 'cli')
for (const file of existsSync(cliDir) ? readdirSync(cliDir) : []) {
  if (/-[A-Z0-9]{8}\.js$/.test(file)) rmSync(path.join(cliDir, file))
}

// The library requires its heavy dependencies on first use through
// `createRequire(import.meta.url)('…')` (the MCP SDK, its Node adapter, diff):
// synchronous, and invisible to a bundler, so the entries above keep them out
// of `import 'toolsmith'`. In the CLI they are plain `require('…')` calls,
// which esbuild follows: the package lands in the chunk of the command that
// requires it, and is evaluated on that first call as before. A call of a
// package left external stays a `require` of node_modules (see the banner).
const requireOnFirstUse = {
  name: 'require-on-first-use',
  setup(build) {
    build.onLoad({ filter: /[\\/]lib[\\/].*\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8')
      if (!source.includes('createRequire(import.meta.url)(')) return undefined
      return { contents: source.replaceAll('createRequire(import.meta.url)(', 'require('), loader: 'ts' }
    })
  },
}

await build({
  entryPoints: [path.join(root, 'lib/cli/main.ts')],
  plugins: [requireOnFirstUse],
  // Chunks beside main.js, not in a subfolder: the CLI's modules find
  // package.json and examples/ relative to their own URL, one level below dist/.
  outdir: cliDir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: CLI_EXTERNAL,
  chunkNames: '[name]-[hash]',
  // Minified: the bundle carries its dependencies (the MCP SDK among them),
  // and every user of the library downloads it; names are kept for stack traces.
  minify: true,
  keepNames: true,
  // The bundled packages' license notices, in one file beside the bundle.
  legalComments: 'linked',
  // joi and other CommonJS dependencies `require` Node's built-ins; an ESM
  // bundle has no `require` of its own to give them.
  banner: { js: "import { createRequire as __toolsmithRequire } from 'node:module'\nconst require = __toolsmithRequire(import.meta.url)" },
  logLevel: 'warning',
})

// tsc writes files without the execute bit; the CLI is the package's `bin`,
// and `npx toolsmith` in this repository runs it in place (an install from
// the registry or a tarball would set the bit itself).
const cli = path.join(outdir, 'cli/main.js')
if (existsSync(cli)) chmodSync(cli, 0o755)
