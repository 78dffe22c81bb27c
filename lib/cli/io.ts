/**
 * Where the `toolsmith` command writes: injectable so the program can run
 * in-process as well as from the terminal.
 *
 * @module
 */
import type { Readable, Writable } from 'node:stream'
import util from 'node:util'

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

/**
 * What a piece of output says, which picks its colour: `error` red,
 * `warning` yellow (warnings and denials), `ok` green, `dim` for secondary
 * text (hints, durations).
 */
export type Tone = 'error' | 'warning' | 'ok' | 'dim'

const STYLES = { error: 'red', warning: 'yellow', ok: 'green', dim: 'dim' } as const

/**
 * Whether text written to `stream` is coloured: `FORCE_COLOR` decides when
 * set (`0` or `false` off, anything else on); else a non-empty `NO_COLOR`
 * turns colour off; else colour is on when the stream is a terminal (and
 * `TERM` is not `dumb`).
 *
 * @param stream - Where the text goes.
 * @param env - The environment (default: `process.env`).
 * @returns Whether to colour.
 */
export function colourOn(stream: Writable, env: NodeJS.ProcessEnv = process.env): boolean {
  // FORCE_COLOR wins over NO_COLOR, as in Node's own `getColorDepth` and in chalk.
  const force = env.FORCE_COLOR
  if (force !== undefined) return force !== '0' && force !== 'false'
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  return (stream as { isTTY?: boolean }).isTTY === true && env.TERM !== 'dumb'
}

/**
 * Colour `text` for `stream` by its tone, or leave it as is when
 * {@link colourOn} says no. Used sparingly: errors, denials, the odd hint.
 *
 * @param stream - Where the text goes (its terminal-ness decides).
 * @param tone - What the text says.
 * @param text - The text.
 * @param env - The environment (default: `process.env`).
 * @returns The text, with colour codes when colour is on.
 */
export function paint(stream: Writable, tone: Tone, text: string, env: NodeJS.ProcessEnv = process.env): string {
  // util.styleText exists from Node 20.12; older releases print plain text.
  // The decision is made above (validateStream: false): Node's own check
  // looks at process.stdout, not the stream the text is written to, and
  // counts an empty NO_COLOR as set.
  const styleText = (util as { styleText?: typeof util.styleText }).styleText
  if (typeof styleText !== 'function' || text === '' || !colourOn(stream, env)) return text
  return styleText(STYLES[tone], text, { validateStream: false })
}
