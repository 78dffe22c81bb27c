/**
 * edit applying a 100-hunk patch to a 150 KB file, against GNU patch on the
 * same file and patch.
 *
 * @module
 */
import { existsSync, mkdirSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { createTwoFilesPatch } from 'diff'
import { createDispatchContext, createTools } from '../../lib/index.js'
import { BENCH_TMP, numberedText } from '../fixtures.js'
import { interleave, metric, timed } from '../harness.js'
import { makeRow, skippedRow, type Figure } from '../figure.js'
import { runProgram } from '../process_helpers.js'

const GNU_PATCH = '/usr/bin/patch'
const TITLE = 'edit: 100-hunk patch on a 150 KB file'

/** Change one line in every `every`: far enough apart that no two hunks merge. */
function modified(original: string, hunks: number): string {
  const lines = original.split('\n')
  const every = Math.floor((lines.length - 1) / hunks)
  for (let h = 0; h < hunks; h++) {
    const i = h * every + Math.floor(every / 2)
    lines[i] = lines[i]!.toUpperCase()
  }
  return lines.join('\n')
}

export const editFigure: Figure = {
  id: 'edit',
  title: TITLE,
  async run(config) {
    const target = { kind: 'ratio', max: 1.0 } as const
    if (!existsSync(GNU_PATCH)) return [skippedRow('edit', TITLE, target, `${GNU_PATCH} is missing (apt-get install patch)`)]
    const rootDir = path.join(BENCH_TMP, 'edit-root')
    mkdirSync(rootDir, { recursive: true })
    const original = numberedText(3_000, 50) // 150,000 bytes
    const expected = modified(original, 100)
    const patch = createTwoFilesPatch('subject.txt', 'subject.txt', original, expected)
    const hunkCount = (patch.match(/^@@ /gm) ?? []).length
    if (hunkCount !== 100) throw new Error(`generated patch has ${hunkCount} hunks, not 100`)
    const subjectFile = path.join(rootDir, 'subject.txt')
    const baselineFile = path.join(rootDir, 'baseline.txt')
    const patchFile = path.join(rootDir, 'change.diff')
    await writeFile(patchFile, patch)
    const edit = createTools({ rootDir }).edit.executor(createDispatchContext())
    const patchArgs = ['--silent', '--batch', '--forward', '--no-backup-if-mismatch', '-i', patchFile, baselineFile]

    // The file is restored before every run, outside the timed region.
    const subject = async () => {
      await writeFile(subjectFile, original)
      return timed(() => edit({ path: 'subject.txt', patch }))
    }
    const baseline = async () => {
      await writeFile(baselineFile, original)
      return timed(async () => {
        const result = await runProgram(GNU_PATCH, patchArgs)
        if (result.code !== 0) throw new Error(`patch exited with ${result.code}`)
      })
    }
    await subject()
    await baseline()
    if ((await readFile(subjectFile, 'utf8')) !== expected) throw new Error('edit tool produced the wrong file')
    if ((await readFile(baselineFile, 'utf8')) !== expected) throw new Error('GNU patch produced the wrong file')

    const samples = await interleave({ baseline, subject }, { warmup: 3, samples: config.quick ? 7 : 21 })
    return [
      makeRow({
        id: 'edit',
        figure: TITLE,
        subject: "edit.executor(ctx)({ path, patch })",
        baseline: `GNU patch ${patchArgs.slice(0, 4).join(' ')} (process spawn included)`,
        unit: 'ms',
        subjectValues: metric(samples.subject, 'ms'),
        baselineValues: metric(samples.baseline, 'ms'),
        target,
        note: `${Buffer.byteLength(original)} bytes, ${hunkCount} hunks, ${Buffer.byteLength(patch)}-byte patch`,
      }),
    ]
  },
}
