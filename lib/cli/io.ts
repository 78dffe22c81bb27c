/**
 * Where the `toolsmith` command writes: injectable so the program can run
 * in-process as well as from the terminal.
 *
 * @module
 */
import type { Readable, Writable } from 'node:stream'

/** The program's standard streams. */
export interface CliIo {
  /** Results and reports. */
  stdout: Writable
  /** Errors, one line each. */
  stderr: Writable
  /** Input for `call TOOL -`. */
  stdin: Readable
}

/**
 * Write text to a stream and wait until it is flushed. A reader that went
 * away (`EPIPE`) is not an error: there is no one left to tell.
 *
 * @param stream - The stream.
 * @param text - The text (or bytes).
 */
export function writeOut(stream: Writable, text: string | Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    if (stream.destroyed) return resolve()
    stream.write(text, (error) => {
      if (error && (error as NodeJS.ErrnoException).code !== 'EPIPE') reject(error)
      else resolve()
    })
  })
}

/**
 * Read a whole stream as UTF-8.
 *
 * @param stream - The stream.
 * @returns Its text.
 */
export async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk))
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * Collapse whitespace so a message prints as one line.
 *
 * @param text - Any text.
 * @returns The text on one line.
 */
export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim()
}
