/**
 * grep over a large tree: the tool should cost what ripgrep costs, plus a
 * spawn's worth of bookkeeping.
 *
 * @module
 */
import { rgPath } from '@vscode/ripgrep'
import { createDispatchContext, createTools } from '../../lib/index.js'
import { GREP_NEEDLE, grepTree } from '../fixtures.js'
import { interleave, metric, timed } from '../harness.js'
import { makeRow, type Figure } from '../figure.js'
import { runProgram } from '../process_helpers.js'

/** DESIGN.md's flags, so the baseline does exactly the tool's search. */
const RG_FLAGS = ['--no-config', '-n', '-H', '--no-heading', '-e', GREP_NEEDLE, '--', '.']

export const grepFigure: Figure = {
  id: 'grep',
  title: 'grep tool over a 5,000-file / 100 MB tree',
  async run(config) {
    const spec = config.quick ? { files: 1_000, totalBytes: 20_000_000 } : { files: 5_000, totalBytes: 100_000_000 }
    const root = await grepTree(spec, config.log)
    const grep = createTools({ rootDir: root }).grep.executor(createDispatchContext())
    const direct = await runProgram(rgPath, RG_FLAGS, { cwd: root, collect: true })
    const viaTool = String(await grep({ pattern: GREP_NEEDLE }))
    const lines = (text: string) => text.split('\n').filter(Boolean).length
    if (direct.code !== 0 || lines(direct.stdout) !== lines(viaTool)) {
      throw new Error(`tool and rg disagree: ${lines(viaTool)} vs ${lines(direct.stdout)} matching lines`)
    }
    const samples = await interleave(
      {
        baseline: () => timed(() => runProgram(rgPath, RG_FLAGS, { cwd: root, collect: true })),
        subject: () => timed(() => grep({ pattern: GREP_NEEDLE })),
      },
      { warmup: 2, samples: config.quick ? 5 : 11 },
    )
    return [
      makeRow({
        id: 'grep',
        figure: config.quick ? `grep tool over ${spec.files} files / ${spec.totalBytes / 1e6} MB (quick)` : this.title,
        subject: 'grep.executor(ctx)({ pattern })',
        baseline: `rg ${RG_FLAGS.join(' ')} (same binary, spawned directly)`,
        unit: 'ms',
        subjectValues: metric(samples.subject, 'ms'),
        baselineValues: metric(samples.baseline, 'ms'),
        target: { kind: 'ratio', max: 1.1 },
        note: `${lines(direct.stdout)} matching lines; tree in ${root}${config.quick ? '; quick: 1,000 files / 20 MB instead of 5,000 / 100 MB' : ''}`,
      }),
    ]
  },
}
