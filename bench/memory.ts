/**
 * Parent side of the memory figures: each sample is a fresh child process.
 *
 * @module
 */
import { spawn } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Measurement } from './harness.js'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const CHILD = path.join(ROOT, 'bench/children/main.ts')

/** Run scenario `name` at `bytes` in a new Node process; resolves with its `{ ms, rssMB }`. */
export function inChild(name: string, bytes: number): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', CHILD, name, String(bytes)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) => {
      const last = out.trim().split('\n').pop() ?? ''
      if (code !== 0) return reject(new Error(`child ${name} exited with ${code}`))
      try {
        const parsed = JSON.parse(last) as { ms: number; rssMB: number }
        resolve({ ms: parsed.ms, rssMB: parsed.rssMB })
      } catch {
        reject(new Error(`child ${name} printed no result: ${last.slice(0, 200)}`))
      }
    })
  })
}
