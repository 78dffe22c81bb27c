/**
 * The read-range memory figures' operations (see figures/read_range.ts),
 * each run in a fresh child process: `read` by line range and a whole-file
 * `read` of a file over the limit, against `sed -n` and `wc -l` on the same
 * file.
 *
 * @module
 */
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { createDispatchContext, createTools } from '../../lib/index.js'
import { LOG_LINE, READ_LINES_ROOT, linesFileName, rangeFor } from '../read_fixture.js'
import type { Scenario } from './scenarios.js'

/** Run a program with stdout piped into this process (as the tool's text is); resolves with that text. */
function output(file: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'ignore'] })
    const chunks: Buffer[] = []
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk))
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(new Error(`${file} exited ${code}`))))
  })
}

/** A 1 MiB copy of the file's lines for the rehearsal (modules loaded, JIT warm). */
function rehearsalFile(): string {
  const name = 'rehearsal.log'
  writeFileSync(path.join(READ_LINES_ROOT, name), LOG_LINE.repeat(Math.floor(2 ** 20 / Buffer.byteLength(LOG_LINE))))
  return name
}

function readTool() {
  return createTools({ rootDir: READ_LINES_ROOT }).read.executor(createDispatchContext())
}

function sedRange(bytes: number): string[] {
  const { offset, limit } = rangeFor(bytes)
  return ['-n', `${offset},${offset + limit - 1}p`, path.join(READ_LINES_ROOT, linesFileName(bytes))]
}

export const readScenarios: Record<string, Scenario> = {
  'read-range:baseline': {
    async prepare(bytes) {
      await output('sed', ['-n', '100,200p', path.join(READ_LINES_ROOT, rehearsalFile())])
      return async () => {
        if ((await output('sed', sedRange(bytes))).length !== 101 * LOG_LINE.length) throw new Error('sed printed another range')
      }
    },
  },
  'read-range:subject': {
    async prepare(bytes) {
      const read = readTool()
      await read({ path: rehearsalFile(), offset: 100, limit: 101 })
      return async () => {
        const text = String(await read({ path: linesFileName(bytes), ...rangeFor(bytes) }))
        if (text.length !== 101 * LOG_LINE.length) throw new Error('read returned another range')
      }
    },
  },
  'read-head:baseline': {
    async prepare(bytes) {
      await output('wc', ['-l', path.join(READ_LINES_ROOT, rehearsalFile())])
      return async () => {
        await output('wc', ['-l', path.join(READ_LINES_ROOT, linesFileName(bytes))])
      }
    },
  },
  'read-head:subject': {
    async prepare(bytes) {
      const read = readTool()
      await read({ path: rehearsalFile() })
      return async () => {
        const text = String(await read({ path: linesFileName(bytes) }))
        if (!text.includes('continue with offset:')) throw new Error('read of a file over the limit gave no note')
      }
    },
  },
}
