/**
 * Cutting UTF-8 text to a byte budget without splitting a character: shared by
 * every layer that caps output (journal previews, artifact pages, provider
 * result text).
 *
 * @module
 */

/**
 * The largest index `<= index` that starts a UTF-8 character in `bytes` (or
 * `bytes.length` when `index` is past the end), so `bytes.subarray(0, n)`
 * never ends mid-character.
 *
 * @param bytes - UTF-8 bytes.
 * @param index - The wanted cut position.
 * @returns A cut position on a character boundary.
 */
export function utf8BoundaryBefore(bytes: Uint8Array, index: number): number {
  if (index >= bytes.length) return bytes.length
  let cut = Math.max(0, index)
  // Step back over continuation bytes (10xxxxxx).
  while (cut > 0 && (bytes[cut]! & 0xc0) === 0x80) cut--
  return cut
}

/**
 * Cut a string to at most `maxBytes` UTF-8 bytes without splitting a character.
 *
 * @param text - Any string.
 * @param maxBytes - The byte budget.
 * @returns The longest prefix that fits (`text` itself when it fits).
 */
export function utf8Prefix(text: string, maxBytes: number): string {
  // Cheap exit first: most texts fit, and byteLength does not allocate.
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text
  const bytes = Buffer.from(text, 'utf8')
  return bytes.subarray(0, utf8BoundaryBefore(bytes, maxBytes)).toString('utf8')
}
