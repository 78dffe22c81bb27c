/**
 * The memory-figure operations, each run in a fresh child process by
 * children/main.ts. Every scenario gets a small rehearsal first so module
 * loading and JIT warm-up are not counted as the operation's growth.
 *
 * @module
 */
import { spawn } from 'node:child_process'
import { createWriteStream, mkdirSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import path from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { FileSpoolStore, createDispatchContext, createTools } from '../../lib/index.js'
import { BENCH_TMP } from '../fixtures.js'
import { networkScenarios } from './network_scenarios.js'
import { readScenarios } from './read_scenarios.js'

/** A scenario: rehearse at a small size, then run at full size. */
export interface Scenario {
  prepare(bytes: number): Promise<() => Promise<void>>
}

const CHUNK = 64 * 1024

/**
 * `bytes` of log-like text lines as a web ReadableStream, in fresh 64 KiB
 * chunks: reusing one buffer would hide a store that keeps every chunk.
 */
export function textStream(bytes: number): ReadableStream<Uint8Array> {
  const line = 'INFO 2026-01-01T00:00:00.000Z worker-3 processed item 123456 in 42 ms status=ok\n'
  const template = Buffer.from(line.repeat(Math.ceil(CHUNK / line.length) + 1)).subarray(0, CHUNK)
  let sent = 0
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= bytes) return controller.close()
      const size = Math.min(CHUNK, bytes - sent)
      controller.enqueue(Buffer.from(template.subarray(0, size)))
      sent += size
    },
  })
}

function sh(script: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', script], { stdio: 'ignore' })
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`sh exited ${code}`))))
  })
}

const rootDir = path.join(BENCH_TMP, 'memory-root')

export const scenarios: Record<string, Scenario> = {
  ...readScenarios,
  ...networkScenarios,
  'bash-output:baseline': {
    async prepare(bytes) {
      await sh(`head -c 1048576 /dev/zero > /dev/null`)
      return () => sh(`head -c ${bytes} /dev/zero > /dev/null`)
    },
  },
  // Not the kit: the cheapest way for any Node process to receive the output (read and drop).
  'bash-output:floor': {
    async prepare(bytes) {
      const run = (n: number) =>
        new Promise<void>((resolve, reject) => {
          const child = spawn('head', ['-c', String(n), '/dev/zero'], { stdio: ['ignore', 'pipe', 'ignore'] })
          child.stdout.on('data', () => undefined)
          child.on('error', reject)
          child.on('close', () => resolve())
        })
      await run(1_048_576)
      return () => run(bytes)
    },
  },
  'bash-output:subject': {
    async prepare(bytes) {
      mkdirSync(rootDir, { recursive: true })
      const bash = createTools({ rootDir }).bash.executor(createDispatchContext())
      const run = async (n: number) => {
        const output = String(await bash({ cmd: 'head', args: ['-c', String(n), '/dev/zero'] }))
        if (!output.includes('bytes truncated')) throw new Error('bash output was not capped')
      }
      await run(1_048_576)
      return () => run(bytes)
    },
  },
  'spool:baseline': {
    async prepare(bytes) {
      const dir = path.join(BENCH_TMP, `spool-baseline-${process.pid}`)
      mkdirSync(dir, { recursive: true })
      const file = path.join(dir, 'out.bin')
      const run = async (n: number) => {
        await pipeline(Readable.fromWeb(textStream(n) as import('node:stream/web').ReadableStream), createWriteStream(file))
      }
      await run(1_048_576)
      return async () => {
        await run(bytes)
        await rm(dir, { recursive: true, force: true })
      }
    },
  },
  'spool:subject': {
    async prepare(bytes) {
      const dir = path.join(BENCH_TMP, `spool-subject-${process.pid}`)
      const store = new FileSpoolStore({ dir })
      await store.write('rehearsal', textStream(1_048_576))
      return async () => {
        const reader = await store.write('bench', textStream(bytes))
        const stored = await reader.byteLength()
        if (stored !== bytes) throw new Error(`spool holds ${stored} bytes, not ${bytes}`)
        await rm(dir, { recursive: true, force: true })
      }
    },
  },
}
