/**
 * write of a 1 MB file, against the floor of a durable atomic replace done
 * by hand: temp file, one write of the string, `fdatasync`, close, rename
 * (bench/floors.ts). What is left is the kit: validation, the callId over
 * the whole content, path checks, the mode copy, the re-checks and the
 * directory `fsync` (docs/tools.md lists each remaining syscall and why).
 *
 * The callId of a call with a long string is hashed on its first read
 * (issue 17): the main row's context has no listener, so it never is. A
 * second row runs the same write through a context whose start listener
 * reads `event.callId`, as a runner's journal or a logger would, so the
 * hash of the content shows.
 *
 * @module
 */
import { mkdirSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { createDispatchContext, createTools } from '../../lib/index.js'
import { BENCH_TMP, numberedText } from '../fixtures.js'
import { durableWrite } from '../floors.js'
import { interleave, metric, timed } from '../harness.js'
import { makeRow, type Figure } from '../figure.js'

export const writeFigure: Figure = {
  id: 'write',
  title: 'write of a 1 MB file',
  async run(config) {
    const rootDir = path.join(BENCH_TMP, 'write-root')
    mkdirSync(rootDir, { recursive: true })
    const content = numberedText(20_000, 50) // 1,000,000 bytes of text
    const subjectFile = path.join(rootDir, 'subject.txt')
    const floorFile = path.join(rootDir, 'floor.txt')
    // 1 MB is over the default 200,000-byte cap: the sandbox allows it explicitly.
    const tool = createTools({ rootDir, maxOutputBytes: 2_000_000 }).write
    const write = tool.executor(createDispatchContext())
    const observedContext = createDispatchContext()
    let callIds = 0
    observedContext.on('toolExecutionStart', (event) => {
      if (event.callId.length === 64) callIds++
    })
    const observed = tool.executor(observedContext)
    await write({ path: 'subject.txt', content })
    await durableWrite(floorFile, content)
    if ((await readFile(subjectFile, 'utf8')) !== content) throw new Error('write produced the wrong file')
    if ((await readFile(floorFile, 'utf8')) !== content) throw new Error('the floor produced the wrong file')
    const samples = await interleave(
      {
        floor: () => timed(() => durableWrite(floorFile, content)),
        subject: () => timed(() => write({ path: 'subject.txt', content })),
        observed: () => timed(() => observed({ path: 'subject.txt', content })),
      },
      { warmup: 3, samples: config.quick ? 9 : 31 },
    )
    return [
      makeRow({
        id: 'write',
        figure: this.title,
        subject: 'write.executor(ctx)({ path, content }) (replacing the file)',
        baseline: 'open temp O_CREAT|O_EXCL + write(string) + fdatasync + close + rename',
        unit: 'ms',
        subjectValues: metric(samples.subject, 'ms'),
        baselineValues: metric(samples.floor, 'ms'),
        target: { kind: 'ratio', max: 1.5 },
        note: `${Buffer.byteLength(content)} bytes; both replace an existing file; nothing reads the callId, so the content is never hashed`,
      }),
      makeRow({
        id: 'write-observed',
        figure: 'write of a 1 MB file, a listener reading the callId',
        subject: 'write.executor(ctx)({ path, content }), ctx with a toolExecutionStart listener reading event.callId (the content is hashed)',
        baseline: 'open temp O_CREAT|O_EXCL + write(string) + fdatasync + close + rename',
        unit: 'ms',
        subjectValues: metric(samples.observed, 'ms'),
        baselineValues: metric(samples.floor, 'ms'),
        target: { kind: 'report' },
        note: `${Buffer.byteLength(content)} bytes; ${callIds} callIds read`,
      }),
    ]
  },
}
