/**
 * The fair floors: each tool's work done the cheapest way plain Node
 * allows, with nothing of the kit, so a ratio against them is exactly what
 * the kit adds (issue 17). Figures share them so that every floor of the
 * same operation is the same code.
 *
 * @module
 */
import { spawn } from 'node:child_process'
import * as crypto from 'node:crypto'
import { constants } from 'node:fs'
import { open, rename } from 'node:fs/promises'
import path from 'node:path'

/** `crypto.hash` (Node ≥ 20.12), as the kit's `sha256Hex` uses it; `createHash` only where it is missing. */
export function oneShotSha256(text: string): string {
  return typeof crypto.hash === 'function' ? crypto.hash('sha256', text, 'hex') : crypto.createHash('sha256').update(text).digest('hex')
}

let sequence = 0

/**
 * The floor of a durable atomic replace: a fresh temp file beside the
 * target, one write, `fdatasync`, close, rename over the target. No path
 * checks, no mode copy, no directory `fsync`.
 */
export async function durableWrite(file: string, data: string | Uint8Array): Promise<void> {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${++sequence}.tmp`)
  const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o666)
  try {
    // A string is encoded by the write itself, as `fs.writeFile` would.
    if (typeof data === 'string') await handle.write(data)
    else await handle.write(data)
    await handle.datasync()
  } finally {
    await handle.close()
  }
  await rename(temp, file)
}

/**
 * Spawn a program the way the kit does (no shell, stdout and stderr piped
 * into this process and drained), and wait for it to close. `inputs` are
 * extra descriptors fed and closed right after the spawn (the seccomp
 * program bwrap reads), as the kit hands them over.
 */
export function spawnDrained(
  file: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; inputs?: ReadonlyArray<{ fd: number; data: Uint8Array }> } = {},
): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const stdio: Array<'ignore' | 'pipe'> = ['ignore', 'pipe', 'pipe']
    for (const { fd } of options.inputs ?? []) {
      while (stdio.length < fd) stdio.push('ignore')
      stdio[fd] = 'pipe'
    }
    const child = spawn(file, args, { cwd: options.cwd, env: options.env, stdio })
    for (const { fd, data } of options.inputs ?? []) {
      const stream = child.stdio[fd] as NodeJS.WritableStream & { destroy(): void }
      stream.on('error', () => undefined)
      stream.end(data, () => stream.destroy())
    }
    child.stdout?.on('data', () => undefined)
    child.stderr?.on('data', () => undefined)
    child.on('error', reject)
    child.on('close', (code) => resolve(code))
  })
}
