/**
 * Baseline process runs: the plain `child_process` way each tool's work
 * would be done without the kit.
 *
 * @module
 */
import { spawn } from 'node:child_process'

/** Run a program to completion; resolves with its stdout size and exit code. */
export function runProgram(file: string, args: readonly string[], options: { cwd?: string; collect?: boolean } = {}): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: options.cwd, stdio: ['ignore', options.collect ? 'pipe' : 'ignore', 'ignore'] })
    const chunks: Buffer[] = []
    child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(chunks).toString('utf8') }))
  })
}
