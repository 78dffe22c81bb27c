/**
 * What `import 'toolsmith'` costs a fresh process, against importing joi
 * (its one unavoidable dependency) alone, measured in the same run. Each
 * sample is a new `node` that times its own dynamic import, so module
 * caches never carry over; the package is imported by its name (a
 * self-reference, resolved through `exports` to the built `dist/`).
 *
 * @module
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { interleave, metric } from '../harness.js'
import { makeRow, type Figure } from '../figure.js'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

/** Milliseconds a fresh process spends in `await import(specifier)`. */
function importMs(specifier: string): { ms: number } {
  const script = `const t = performance.now(); await import(${JSON.stringify(specifier)}); process.stdout.write(String(performance.now() - t))`
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } })
  return { ms: Number(out) }
}

export const importTimeFigure: Figure = {
  id: 'import',
  title: "import 'toolsmith' in a fresh process",
  async run(config) {
    if (!existsSync(path.join(ROOT, 'dist/index.js'))) throw new Error('dist/ is missing: run `npm run build` first')
    const samples = await interleave(
      { toolsmith: async () => importMs('toolsmith'), joi: async () => importMs('joi') },
      { warmup: 1, samples: config.quick ? 5 : 15 },
    )
    return [
      makeRow({
        id: 'import-root',
        figure: "import 'toolsmith' (fresh process)",
        subject: "await import('toolsmith') in a new node process (joi, the MCP SDK, diff, the tools' run code and the turn loop load on first use)",
        baseline: "await import('joi') in a new node process",
        unit: 'ms',
        subjectValues: metric(samples.toolsmith, 'ms'),
        baselineValues: metric(samples.joi, 'ms'),
        // The bar: the kit adds at most half of what joi, its one eager dependency, costs.
        target: { kind: 'ratio', max: 1.5 },
        note: 'ms per import, one process per sample',
      }),
    ]
  },
}
