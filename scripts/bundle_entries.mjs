// After `tsc`: re-emit the package's entry points as ESM bundles, over
// tsc's files of the same names. Importing 'toolsmith' then loads a handful
// of files instead of ≈ 200 modules, which is most of its import time (bench
// figure `import`). Packages stay external there: an application shares them
// with the kit.
//
// Two entries are bundled: the root and `toolsmith/internal` (which exports
// helpers the root does not). The other subpaths (`toolsmith/core`,
// `toolsmith/tools`, …) export only names the root exports too, so each is
// written as one line re-exporting them from the root bundle: one module
// graph, one copy of every class (`instanceof` agrees between 'toolsmith'
// and 'toolsmith/tools'), and few files. Bundling every subpath on its own
// entry instead splits the code into a chunk per combination of entries
// that use it (33 files for the root), and loading and linking that many
// modules cost more than compiling the code they hold. Code that only runs
// a call (`read_run.ts`…, loaded by `import()` on first use) lands in chunks
// of its own, loaded by the first call.
//
// Then the CLI (`dist/cli/main.js`, the package's `bin`), bundled on its own
// with its dependencies inside: a separate program shares no module with an
// application, and resolving and loading joi's, the MCP SDK's and zod's
// hundreds of files was most of `toolsmith mcp`'s start-up (bench row
// `mcp-startup`). Each command stays a chunk of its own, loaded when it runs.
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const outIndex = process.argv.indexOf('--outdir')
const outdir = outIndex === -1 ? path.join(root, 'dist') : path.resolve(process.argv[outIndex + 1])
const BUNDLED_ENTRIES = ['internal.ts']
const entries = readdirSync(path.join(root, 'lib/entries')).filter((f) => f.endsWith('.ts'))

await build({
  entryPoints: [path.join(root, 'lib/index.ts'), ...BUNDLED_ENTRIES.map((f) => path.join(root, 'lib/entries', f))],
  outbase: path.join(root, 'lib'),
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  chunkNames: 'chunks/[name]-[hash]',
  // Comments and whitespace out, syntax shortened, names kept (identifiers
  // are not minified, so stack traces and `constructor.name` read as in the
  // source): V8 scans every byte of a module it loads, and this is ≈ 8 % of
  // what `import 'toolsmith'` costs (bench figure `import`).
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
})

// The other subpaths: their export names (from esbuild's analysis of the
// entry), re-exported from the root bundle. A name the root does not export
// fails the build here rather than at a user's import.
const rootExports = await exportNames(path.join(root, 'lib/index.ts'))
for (const file of entries.filter((f) => !BUNDLED_ENTRIES.includes(f))) {
  const names = await exportNames(path.join(root, 'lib/entries', file))
  const missing = names.filter((name) => !rootExports.includes(name))
  if (missing.length > 0) throw new Error(`lib/entries/${file} exports ${missing.join(', ')}, which the root does not: bundle it on its own (BUNDLED_ENTRIES)`)
  const subpath = file.replace(/\.ts$/, '')
  writeFileSync(
    path.join(outdir, 'entries', `${subpath}.js`),
    `// toolsmith/${subpath}: these bindings of the root entry (one module graph with 'toolsmith').\nexport { ${names.join(', ')} } from '../index.js'\n`,
  )
}

/** The names an entry module exports (values only: types are gone after esbuild). */
async function exportNames(entry) {
  const result = await build({ entryPoints: [entry], bundle: true, write: false, metafile: true, format: 'esm', platform: 'node', packages: 'external', outdir: path.join(outdir, '.exports'), logLevel: 'warning' })
  return Object.values(result.metafile.outputs).find((output) => output.entryPoint !== undefined).exports.sort()
}

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
//
// The MCP SDK is the exception: `toolsmith mcp` imports its ES module build
// before it builds a server (`importMcpSdk`), and the synchronous accessors
// then return that. Their `require`s of the SDK's CommonJS build are left as
// they are, unbundled: following them would put a second, unprunable copy of
// the SDK (zod whole, ajv) into the bundle, beside the one the command runs.
const PRELOADED = /createRequire\(import\.meta\.url\)\('@modelcontextprotocol\//g
const requireOnFirstUse = {
  name: 'require-on-first-use',
  setup(build) {
    build.onLoad({ filter: /[\\/]lib[\\/].*\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8')
      if (!source.includes('createRequire(')) return undefined
      // Each SDK require must be seen here: one spelled otherwise would bundle a second copy of the SDK without a word.
      const sdkRequires = source.match(/createRequire\(\s*import\.meta\.url\s*\)\s*\(\s*['"`]@modelcontextprotocol\//g)?.length ?? 0
      const preloaded = source.match(PRELOADED)?.length ?? 0
      if (sdkRequires > preloaded) {
        throw new Error(`${args.path}: a require of @modelcontextprotocol/… not written as createRequire(import.meta.url)('@modelcontextprotocol/…') on one line; the CLI bundle would take a second copy of the SDK`)
      }
      const kept = source.replace(PRELOADED, "createRequire(import.meta.url)/* preloaded */('@modelcontextprotocol/")
      return { contents: kept.replaceAll('createRequire(import.meta.url)(', 'require('), loader: 'ts' }
    })
  },
}

// The server SDK's Node shims import its ajv validator (≈ 300 KB bundled,
// compiled at every start-up) as the default JSON Schema validator; the
// server uses one only to check a client's answer to an elicitation (the
// approval prompt). In the CLI that default is the SDK's other validator,
// `@modelcontextprotocol/server/validators/cf-worker` (a seventh the size):
// same interface, same JSON Schema dialects for the prompts the kit sends.
const sdkShims = {
  name: 'mcp-sdk-shims',
  setup(build) {
    build.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({ path: path.join(root, 'scripts/cli_sdk_shims.mjs') }))
  },
}

const cliBuild = await build({
  entryPoints: [path.join(root, 'lib/cli/main.ts')],
  absWorkingDir: root,
  // The inputs, to list the packages the bundle carries (see writeNotices).
  metafile: true,
  plugins: [requireOnFirstUse, sdkShims],
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

writeNotices(cliBuild.metafile, path.join(cliDir, 'THIRD_PARTY_NOTICES.md'))

/**
 * The CLI bundle redistributes other packages' code, and their licenses (MIT,
 * ISC, BSD, Apache-2.0) ask that their notices travel with it: one file names
 * every package whose code esbuild put in the bundle (from the build's own
 * list of inputs, so a new dependency cannot be missed), with the version,
 * the license and the package's license text.
 */
function writeNotices(metafile, file) {
  const packages = new Map()
  for (const input of Object.keys(metafile.inputs)) {
    // The innermost node_modules/<name> (or <@scope/name>) of the path is the package.
    const match = /^(.*node_modules\/((?:@[^/]+\/)?[^/]+))\//.exec(input.replaceAll('\\', '/'))
    if (match) packages.set(match[1], match[2])
  }
  const sections = [...packages]
    .map(([dir, name]) => {
      const absolute = path.join(root, dir)
      const manifest = JSON.parse(readFileSync(path.join(absolute, 'package.json'), 'utf8'))
      const licenseFiles = readdirSync(absolute).filter((f) => /^(licen[cs]e|copying|notice)(\.|$)/i.test(f)).sort()
      if (licenseFiles.length === 0) throw new Error(`${name} is bundled into the CLI but ships no license file: add its notice by hand`)
      const texts = licenseFiles.map((f) => readFileSync(path.join(absolute, f), 'utf8').trim())
      return { name, heading: `## ${name} ${manifest.version} (${manifest.license})`, texts }
    })
    .sort((a, b) => a.name.localeCompare(b.name) || a.heading.localeCompare(b.heading))
  const text = [
    '# Third-party notices: the toolsmith command-line bundle',
    '',
    "`dist/cli/` (the `toolsmith` command) carries the code of the packages below inside its own files; the library's entries import them from `node_modules` instead. Each is listed with the version bundled, its license and its license text. License comments found inside bundled files are kept in the `*.LEGAL.txt` files beside the bundle.",
    '',
    ...sections.flatMap(({ heading, texts }) => [heading, '', ...texts.flatMap((t) => ['```text', t, '```', '']) ]),
  ].join('\n')
  writeFileSync(file, text)
}

// tsc writes files without the execute bit; the CLI is the package's `bin`,
// and `npx toolsmith` in this repository runs it in place (an install from
// the registry or a tarball would set the bit itself).
const cli = path.join(outdir, 'cli/main.js')
if (existsSync(cli)) chmodSync(cli, 0o755)
