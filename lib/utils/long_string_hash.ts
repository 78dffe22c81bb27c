/**
 * SHA-256 of a canonical text whose long strings were left out
 * ({@link canonicalStringifyDeferring}), computed without building the
 * text: each long string is encoded window by window into the SIMD
 * escaper's memory, escaped there and fed to an incremental hash. The
 * digest is the one `sha256Hex(canonicalStringify(value))` gives, bit for
 * bit; a `write` of 1 MB no longer waits ≈ 4 ms for `JSON.stringify`, nor
 * builds and flattens a 1 MB string to hash it.
 *
 * @module
 */
import { createHash, type Hash } from 'node:crypto'
import type { DeferredText } from './canonical_json.js'
import { jsonEscaper, type JsonEscaper } from './json_escape.js'

const encoder = new TextEncoder()

/** U+FFFD in UTF-8: what `TextEncoder` writes for a lone surrogate. */
const REPLACEMENT = Buffer.from([0xef, 0xbf, 0xbd])

/**
 * `isWellFormed` (ES2024: Node ≥ 20, not in this project's TypeScript libs).
 * Where it is missing, every string that may hold U+FFFD is escaped by
 * `JSON.stringify` instead: slower, never wrong.
 */
const isWellFormed = (String.prototype as { isWellFormed?: (this: string) => boolean }).isWellFormed

/**
 * The SHA-256 of `deferred.text` with each U+0000 replaced by
 * `JSON.stringify` of the matching string, as 64 lowercase hex digits.
 *
 * @param deferred - The text with placeholders, and its long strings.
 * @returns The hex digest.
 * @internal
 */
export function sha256HexDeferred(deferred: DeferredText): string {
  const { text, strings } = deferred
  const hash = createHash('sha256')
  const escaper = jsonEscaper()
  let from = 0
  for (const string of strings) {
    const at = text.indexOf('\u0000', from)
    hash.update(text.slice(from, at))
    if (escaper === undefined) hash.update(JSON.stringify(string))
    else hashJsonString(hash, string, escaper)
    from = at + 1
  }
  hash.update(text.slice(from))
  return hash.digest('hex')
}

/** Feed `JSON.stringify(string)` to `hash`, escaping its UTF-8 window by window. */
function hashJsonString(hash: Hash, string: string, escaper: JsonEscaper): void {
  hash.update('"')
  let wellFormed: boolean | undefined
  let position = 0
  while (position < string.length) {
    // A substring is a view of the (flat) string, not a copy. encodeInto
    // stops before a character that does not fit whole, so `read` never
    // splits a surrogate pair.
    const { read, written } = encoder.encodeInto(position === 0 ? string : string.substring(position), escaper.input)
    const escaped = escaper.escape(written)
    if (escaper.sawEF() && Buffer.from(escaper.input.buffer, escaper.input.byteOffset, written).indexOf(REPLACEMENT) !== -1) {
      // U+FFFD in the window: a real one, or a lone surrogate that
      // JSON.stringify writes as \udxxx. Asked once per string: for a
      // two-byte string isWellFormed scans it all (≈ 1.2 ms per million
      // characters), which is why it is not asked up front.
      wellFormed ??= isWellFormed?.call(string) === true
      if (!wellFormed) {
        // What was hashed so far is what JSON.stringify writes for it (it
        // differs only at lone surrogates), and `position` is a character
        // boundary: the rest is JSON.stringify of the rest, unquoted.
        const rest = JSON.stringify(position === 0 ? string : string.substring(position))
        hash.update(rest.slice(1, -1))
        break
      }
    }
    hash.update(escaped)
    position += read
  }
  hash.update('"')
}
