/**
 * Bounded output: keep the head (and optionally the tail) of a byte stream
 * of any length in constant memory, and render it as text of at most
 * `limit` UTF-8 bytes with an explicit `[… N bytes truncated …]` marker.
 *
 * @module
 */

/**
 * The marker that replaces omitted bytes.
 *
 * @param omitted - How many bytes were left out.
 * @returns The marker text, on a line of its own.
 * @internal
 */
export function truncationMarker(omitted: number): string {
  return `\n[… ${omitted} bytes truncated …]\n`
}

/**
 * The largest `n ≤ end` such that `bytes[0, n)` ends on a UTF-8 character boundary.
 *
 * @internal
 */
export function headBoundary(bytes: Uint8Array, end: number): number {
  let n = Math.min(end, bytes.length)
  // A continuation byte (10xxxxxx) at n means n splits a character: step back to its lead byte.
  while (n > 0 && n < bytes.length && (bytes[n]! & 0xc0) === 0x80) n--
  return n
}

/**
 * The smallest `n ≥ start` such that `bytes[n, …)` starts on a UTF-8 character boundary.
 *
 * @internal
 */
export function tailBoundary(bytes: Uint8Array, start: number): number {
  let n = Math.max(0, start)
  while (n < bytes.length && (bytes[n]! & 0xc0) === 0x80) n++
  return n
}

/** Where a capture keeps bytes once its limit is reached. */
export type CaptureMode = 'head' | 'headTail'

/**
 * Collects a byte stream of any length in at most `2 × limit` bytes of memory.
 *
 * @internal
 */
export class BoundedCapture {
  readonly #limit: number
  readonly #mode: CaptureMode
  readonly #headLimit: number
  readonly #tailLimit: number
  #head: Buffer[] = []
  #headBytes = 0
  // The tail lives in one ring of `tailLimit` bytes, allocated on first use:
  // each chunk is copied into it once, and no buffer is allocated per chunk.
  #ring: Buffer | undefined
  #ringStart = 0
  #tailBytes = 0
  #total = 0
  #lines: number | undefined

  /**
   * @param limit - Largest rendered size, in UTF-8 bytes.
   * @param mode - `head` keeps the start; `headTail` keeps both ends.
   * @param countLines - Also count the line feeds of everything pushed, kept or not.
   */
  constructor(limit: number, mode: CaptureMode, countLines = false) {
    this.#limit = limit
    this.#mode = mode
    if (countLines) this.#lines = 0
    this.#headLimit = mode === 'head' ? limit : Math.ceil(limit / 2)
    this.#tailLimit = mode === 'head' ? 0 : limit - this.#headLimit
  }

  /** Bytes seen so far, kept or not. */
  get totalBytes(): number {
    return this.#total
  }

  /** Line feeds seen so far, kept or not; `undefined` unless asked for. */
  get totalLines(): number | undefined {
    return this.#lines
  }

  /**
   * Add a chunk.
   *
   * @param chunk - The bytes (copied: the caller may reuse its buffer).
   */
  push(chunk: Uint8Array): void {
    let data = chunk
    this.#total += data.length
    if (this.#lines !== undefined) {
      for (let at = data.indexOf(0x0a); at !== -1; at = data.indexOf(0x0a, at + 1)) this.#lines++
    }
    const room = this.#headLimit - this.#headBytes
    if (room > 0) {
      const taken = data.subarray(0, room)
      this.#head.push(Buffer.from(taken))
      this.#headBytes += taken.length
      data = data.subarray(taken.length)
    }
    if (data.length === 0 || this.#tailLimit === 0) return
    this.#pushTail(data)
  }

  #pushTail(data: Uint8Array): void {
    const size = this.#tailLimit
    const ring = (this.#ring ??= Buffer.allocUnsafe(size))
    if (data.length >= size) {
      ring.set(data.subarray(data.length - size))
      this.#ringStart = 0
      this.#tailBytes = size
      return
    }
    // Append at the end of what is kept, wrapping around.
    const end = (this.#ringStart + this.#tailBytes) % size
    const first = Math.min(data.length, size - end)
    ring.set(data.subarray(0, first), end)
    if (first < data.length) ring.set(data.subarray(first), 0)
    const kept = this.#tailBytes + data.length
    if (kept > size) {
      this.#ringStart = (this.#ringStart + kept - size) % size
      this.#tailBytes = size
    } else {
      this.#tailBytes = kept
    }
  }

  /** The kept tail, oldest byte first. */
  #tail(): Buffer {
    const ring = this.#ring
    if (ring === undefined || this.#tailBytes === 0) return Buffer.alloc(0)
    const start = this.#ringStart
    const end = start + this.#tailBytes
    if (end <= ring.length) return ring.subarray(start, end)
    return Buffer.concat([ring.subarray(start), ring.subarray(0, end - ring.length)], this.#tailBytes)
  }

  /**
   * Render what was kept as text of at most `limit` UTF-8 bytes.
   *
   * @param options - `cutAtLine`: when truncating the head, end it at a line break.
   * @returns The text, with a marker where bytes were left out.
   */
  render(options: { cutAtLine?: boolean } = {}): string {
    const head = this.#head.length === 1 ? this.#head[0]! : Buffer.concat(this.#head, this.#headBytes)
    const tail = this.#tail()
    if (head.length + tail.length === this.#total) {
      const whole = Buffer.concat([head, tail]).toString('utf8')
      if (Buffer.byteLength(whole) <= this.#limit) return whole
    }
    return renderTruncated(head, tail, this.#total, this.#limit, this.#mode, options.cutAtLine === true)
  }
}

/**
 * Cut a complete text to at most `limit` UTF-8 bytes, keeping its start (and
 * its end in `headTail` mode) and marking the cut.
 *
 * @param text - The text.
 * @param limit - Largest result, in UTF-8 bytes.
 * @param mode - What to keep.
 * @returns `text` itself when it fits.
 * @internal
 */
export function fitText(text: string, limit: number, mode: CaptureMode = 'head'): string {
  // Measure without encoding: the common case (it fits) then costs no copy at all.
  if (Buffer.byteLength(text, 'utf8') <= limit) return text
  const bytes = Buffer.from(text, 'utf8')
  const capture = new BoundedCapture(limit, mode)
  capture.push(bytes)
  return capture.render()
}

function renderTruncated(
  head: Buffer,
  tail: Buffer,
  total: number,
  limit: number,
  mode: CaptureMode,
  cutAtLine: boolean,
): string {
  // Decoding may turn an invalid byte into U+FFFD (3 bytes): re-encode first so sizes are exact.
  const headBytes = Buffer.from(head.toString('utf8'), 'utf8')
  const tailBytes = Buffer.from(tail.toString('utf8'), 'utf8')
  const markerRoom = Buffer.byteLength(truncationMarker(Math.max(total, headBytes.length + tailBytes.length)))
  const room = Math.max(0, limit - markerRoom)
  if (room === 0) return Buffer.from(truncationMarker(total)).subarray(0, limit).toString('utf8')
  const headRoom = mode === 'head' ? room : Math.ceil(room / 2)
  const tailRoom = room - headRoom
  let headEnd = headBoundary(headBytes, headRoom)
  if (cutAtLine) {
    const lastBreak = headBytes.subarray(0, headEnd).lastIndexOf(0x0a)
    if (lastBreak >= 0) headEnd = lastBreak
  }
  const tailStart = tailRoom === 0 ? tailBytes.length : tailBoundary(tailBytes, tailBytes.length - tailRoom)
  const keptHead = headBytes.subarray(0, headEnd)
  const keptTail = tailBytes.subarray(tailStart)
  const omitted = Math.max(1, total - keptHead.length - keptTail.length)
  const marker = truncationMarker(omitted)
  return keptHead.toString('utf8') + (mode === 'head' ? marker.trimEnd() : marker) + keptTail.toString('utf8')
}
