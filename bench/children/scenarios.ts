/**
 * The memory-figure operations, each run in a fresh child process by
 * children/main.ts. Every scenario gets a small rehearsal first so module
 * loading and JIT warm-up are not counted as the operation's growth.
 *
 * @module
 */
import { mkdirSync } from 'node:fs'
import { open, rename, rm } from 'node:fs/promises'
import path from 'node:path'
import { FileSpoolStore, createDispatchContext, createTools } from '../../lib/index.js'
import { BENCH_TMP } from '../fixtures.js'
import { networkScenarios } from './network_scenarios.js'
import { spawnDrained } from '../floors.js'
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

const rootDir = path.join(BENCH_TMP, 'memory-root')

export const scenarios: Record<string, Scenario> = {
  ...readScenarios,
  ...networkScenarios,
  // The floor: the cheapest way for any Node process to receive the output (both pipes read and dropped).
  'bash-output:floor': {
    async prepare(bytes) {
      const run = async (n: number) => {
        if ((await spawnDrained('head', ['-c', String(n), '/dev/zero'])) !== 0) throw new Error('head failed')
      }
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
}

/** Where the spool figures write: the root file system, and tmpfs. */
const SPOOL_PLACES = { spool: BENCH_TMP, 'spool-tmpfs': path.join('/dev/shm', 'toolsmith-bench') } as const

/**
 * The floor of a spool: a `getReader()` loop copying the chunks into two
 * preallocated 256 KiB batches, each full batch written with one
 * `write(2)` while the next fills (one write in flight), then the rename.
 * The store's own I/O scheme, minus the line index, the async generator
 * and the store's bookkeeping. (Handing the chunks to `writev` uncopied,
 * one batch at a time, was slower than the store itself: the store ran at
 * 0.70–0.78× of it in two `--quick` runs at load ≈ 15.)
 */
async function batchedCopy(stream: ReadableStream<Uint8Array>, file: string): Promise<void> {
  const BATCH = 256 * 1024
  const temp = `${file}.tmp`
  const handle = await open(temp, 'w')
  const batches = [Buffer.allocUnsafe(BATCH), Buffer.allocUnsafe(BATCH)]
  let current = 0
  let filled = 0
  let inFlight: Promise<unknown> | undefined
  const flush = async () => {
    await inFlight
    inFlight = handle.write(batches[current]!, 0, filled)
    current ^= 1
    filled = 0
  }
  try {
    const reader = stream.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      let offset = 0
      while (offset < value.length) {
        const n = Math.min(BATCH - filled, value.length - offset)
        batches[current]!.set(value.subarray(offset, offset + n), filled)
        filled += n
        offset += n
        if (filled === BATCH) await flush()
      }
    }
    if (filled > 0) await flush()
    await inFlight
  } finally {
    await inFlight?.catch(() => undefined)
    await handle.close()
  }
  await rename(temp, file)
}

for (const [name, base] of Object.entries(SPOOL_PLACES)) {
  scenarios[`${name}:floor`] = {
    async prepare(bytes) {
      const dir = path.join(base, `spool-floor-${process.pid}`)
      mkdirSync(dir, { recursive: true })
      const file = path.join(dir, 'out.spool')
      await batchedCopy(textStream(1_048_576), file)
      return async () => {
        await batchedCopy(textStream(bytes), file)
        await rm(dir, { recursive: true, force: true })
      }
    },
  }
  scenarios[`${name}:subject`] = {
    async prepare(bytes) {
      const dir = path.join(base, `spool-subject-${process.pid}`)
      const store = new FileSpoolStore({ dir })
      await store.write('rehearsal', textStream(1_048_576))
      return async () => {
        const reader = await store.write('bench', textStream(bytes))
        const stored = await reader.byteLength()
        if (stored !== bytes) throw new Error(`spool holds ${stored} bytes, not ${bytes}`)
        await rm(dir, { recursive: true, force: true })
      }
    },
  }
}
