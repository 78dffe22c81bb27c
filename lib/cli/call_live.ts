/**
 * `toolsmith call bash` on a terminal (or with `--stream`): the command's
 * output is printed as it arrives, and what the result adds at the end (the
 * kit's notes) after it.
 *
 * @module
 */
import type { Writable } from 'node:stream'
import type { ToolOutputChunk } from '../core/dispatch_context.js'

/**
 * Echoes a call's output chunks to stdout (both of the command's streams:
 * the printed text is what the result would have printed), remembering
 * what it showed so the result is not printed twice.
 */
export class LiveEcho {
  readonly #out: Writable
  readonly #cap: number
  #shown = ''
  #overflow = false
  #any = false
  #atLineStart = true

  /**
   * @param out - Where to print (stdout).
   * @param cap - The most characters to remember: the tool's `maxOutputBytes`
   *   (an output longer than that is cut in the result anyway).
   */
  constructor(out: Writable, cap: number) {
    this.#out = out
    this.#cap = cap
  }

  /** Whether any chunk was printed. */
  get printedAny(): boolean {
    return this.#any
  }

  /**
   * Print a chunk now.
   *
   * @param chunk - From the context's `onToolOutput`.
   */
  readonly write = (chunk: ToolOutputChunk): void => {
    if (this.#out.destroyed) return
    this.#any = true
    // Not awaited: the chunk arrives in a stream event. process.stdout on a
    // terminal, a file or (on Linux) a pipe writes synchronously, so nothing piles up.
    this.#out.write(chunk.text)
    this.#atLineStart = chunk.text.endsWith('\n')
    if (this.#overflow) return
    if (this.#shown.length + chunk.text.length > this.#cap) {
      this.#overflow = true
      this.#shown = ''
    } else {
      this.#shown += chunk.text
    }
  }

  /**
   * What of the call's final output was not printed yet: the whole of it
   * when nothing streamed; what follows the streamed text (the kit's notes)
   * when the output starts with it; otherwise (the output was cut, or is
   * too long to compare) only the trailing `[toolsmith]` note lines.
   *
   * @param final - The result text, or a failed command's `details.output`.
   * @returns The text still to print.
   */
  rest(final: string): string {
    if (!this.#any) return final
    if (!this.#overflow && final.startsWith(this.#shown)) return final.slice(this.#shown.length)
    const lines = final.split('\n')
    if (lines.at(-1) === '') lines.pop()
    let first = lines.length
    while (first > 0 && lines[first - 1]!.startsWith('[toolsmith] ')) first--
    if (first === lines.length) return ''
    return `${this.#atLineStart ? '' : '\n'}${lines.slice(first).join('\n')}\n`
  }
}
