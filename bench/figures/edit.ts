/**
 * edit applying a 100-hunk patch to a 150 KB file, against the same work
 * done in-process with nothing of the kit: `readFile`, the same `diff`
 * library's `parsePatch` + `applyPatch`, and the same durable atomic write
 * (temp file, `fdatasync`, rename; bench/floors.ts).
 *
 * @module
 */
import { mkdirSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { applyPatch, createTwoFilesPatch, parsePatch } from 'diff'
import { createDispatchContext, createTools } from '../../lib/index.js'
import { BENCH_TMP, numberedText } from '../fixtures.js'
import { durableWrite } from '../floors.js'
import { interleave, metric, timed } from '../harness.js'
import { makeRow, type Figure } from '../figure.js'

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
    const rootDir = path.join(BENCH_TMP, 'edit-root')
    mkdirSync(rootDir, { recursive: true })
    const original = numberedText(3_000, 50) // 150,000 bytes
    const expected = modified(original, 100)
    const patch = createTwoFilesPatch('subject.txt', 'subject.txt', original, expected)
    const hunkCount = (patch.match(/^@@ /gm) ?? []).length
    if (hunkCount !== 100) throw new Error(`generated patch has ${hunkCount} hunks, not 100`)
    const subjectFile = path.join(rootDir, 'subject.txt')
    const floorFile = path.join(rootDir, 'floor.txt')
    const edit = createTools({ rootDir }).edit.executor(createDispatchContext())

    // The file is restored before every run, outside the timed region.
    const subject = async () => {
      await writeFile(subjectFile, original)
      return timed(() => edit({ path: 'subject.txt', patch }))
    }
    const floor = async () => {
      await writeFile(floorFile, original)
      return timed(async () => {
        const source = await readFile(floorFile, 'utf8')
        const patched = applyPatch(source, parsePatch(patch)[0]!)
        if (patched === false) throw new Error('diff.applyPatch refused the patch')
        await durableWrite(floorFile, patched)
      })
    }
    await subject()
    await floor()
    if ((await readFile(subjectFile, 'utf8')) !== expected) throw new Error('edit tool produced the wrong file')
    if ((await readFile(floorFile, 'utf8')) !== expected) throw new Error('the floor produced the wrong file')

    const samples = await interleave({ floor, subject }, { warmup: 3, samples: config.quick ? 7 : 21 })
    return [
      makeRow({
        id: 'edit',
        figure: TITLE,
        subject: 'edit.executor(ctx)({ path, patch })',
        baseline: "readFile(file, 'utf8') + diff.applyPatch(text, diff.parsePatch(patch)[0]) + temp file, write, fdatasync, close, rename",
        unit: 'ms',
        subjectValues: metric(samples.subject, 'ms'),
        baselineValues: metric(samples.floor, 'ms'),
        target: { kind: 'ratio', max: 1.2 },
        note: `${Buffer.byteLength(original)} bytes, ${hunkCount} hunks, ${Buffer.byteLength(patch)}-byte patch`,
      }),
    ]
  },
}
