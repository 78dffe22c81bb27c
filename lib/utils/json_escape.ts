/**
 * Escaping UTF-8 bytes the way `JSON.stringify` escapes a string's
 * characters, 16 bytes per step, so that a long string's callId does not
 * wait for Node 20's `JSON.stringify` (≈ 4 ms per MB: V8 11 escapes strings
 * slowly; CHANGELOG.md, "Performance history", callId).
 *
 * The module is a few dozen WebAssembly instructions, written out below
 * (with the text format beside each line) and compiled once per process.
 * Where WebAssembly SIMD is not available (`--jitless`, an old engine),
 * {@link jsonEscaper} returns `undefined` and the caller keeps
 * `JSON.stringify`.
 *
 * What `JSON.stringify` does to a well-formed string, byte by byte of its
 * UTF-8: `"` → `\"`, `\` → `\\`, the controls 0x08, 0x09, 0x0a, 0x0c, 0x0d
 * → `\b \t \n \f \r`, every other byte below 0x20 → `\u00xx` (lowercase
 * hex), every other byte (0x7f and all of 0x80–0xff, so every multi-byte
 * character) unchanged. Lone surrogates are the caller's concern: UTF-8 has
 * no form for them (`TextEncoder` writes U+FFFD, `JSON.stringify` writes
 * `\udxxx`), hence {@link JsonEscaper.sawEF}.
 *
 * @module
 */
import { I32, V128, WASM_HEADER, compileSimd, functionBody, i32Const, instantiate, leb, name, section } from './wasm_binary.js'

/** Bytes of UTF-8 the escaper takes at a time. */
export const ESCAPE_WINDOW_BYTES = 64 * 1024

// Memory layout. The input window has 32 bytes of slack after it: a block's
// 16-byte loads may start up to 16 bytes before its end and run past it
// (those bytes are never used). The output takes at most 6 bytes per input
// byte (`\u00xx`), plus 16 for the last whole-block store.
const TABLE = ESCAPE_WINDOW_BYTES + 32 // 0x60 entries of 8 bytes: the escape, its length in byte 7
const FLAG = TABLE + 0x60 * 8 // i32: 1 when the last call saw a 0xEF byte
const OUT = ESCAPE_WINDOW_BYTES + 1024
const OUT_BYTES = 6 * ESCAPE_WINDOW_BYTES + 16
const PAGES = Math.ceil((OUT + OUT_BYTES) / 65536)

// escape(end) -> out length. The input is [0, end), the output starts at OUT.
// locals: 1 in, 2 out, 3 mask, 4 k, 5 pos, 6 len, 7 entry (i32);
//         8 v, 9 ef seen, 10 ctl, 11 quote, 12 backslash, 13 ef splat (v128)
const ESCAPE = [
  ...i32Const(OUT), 0x21, 0x02, //                              (local.set $out (i32.const OUT))
  0x41, 0x20, 0xfd, 0x0f, 0x21, 0x0a, //                        (local.set $ctl (i8x16.splat (i32.const 0x20)))
  0x41, 0x22, 0xfd, 0x0f, 0x21, 0x0b, //                        (local.set $quote (i8x16.splat (i32.const 0x22)))
  0x41, 0xdc, 0x00, 0xfd, 0x0f, 0x21, 0x0c, //                  (local.set $bslash (i8x16.splat (i32.const 0x5c)))
  0x41, 0xef, 0x01, 0xfd, 0x0f, 0x21, 0x0d, //                  (local.set $ef (i8x16.splat (i32.const 0xef)))
  0x02, 0x40, 0x03, 0x40, //                                    (block (loop   ;; one block of 16 bytes per turn
  0x20, 0x01, 0x20, 0x00, 0x4f, 0x0d, 0x01, //                    (br_if 1 (i32.ge_u $in $end))
  0x20, 0x01, 0xfd, 0x00, 0x00, 0x00, 0x21, 0x08, //              (local.set $v (v128.load $in))
  0x20, 0x09, 0x20, 0x08, 0x20, 0x0d, 0xfd, 0x23, 0xfd, 0x50, 0x21, 0x09, // (local.set $seen (v128.or $seen (i8x16.eq $v $ef)))
  0x20, 0x08, 0x20, 0x0a, 0xfd, 0x26, //                          (i8x16.lt_u $v $ctl)
  0x20, 0x08, 0x20, 0x0b, 0xfd, 0x23, 0xfd, 0x50, //              (v128.or … (i8x16.eq $v $quote))
  0x20, 0x08, 0x20, 0x0c, 0xfd, 0x23, 0xfd, 0x50, //              (v128.or … (i8x16.eq $v $bslash))
  0xfd, 0x64, 0x21, 0x03, //                                      (local.set $mask (i8x16.bitmask …))   ;; bytes to escape
  0x20, 0x00, 0x20, 0x01, 0x6b, 0x22, 0x06, //                    (local.tee $len (i32.sub $end $in))
  0x41, 0x10, 0x49, 0x04, 0x40, //                                (if (i32.lt_u … 16) (then   ;; the last, short block
  0x20, 0x03, 0x41, 0x01, 0x20, 0x06, 0x74, 0x41, 0x01, 0x6b, 0x71, 0x21, 0x03, // (local.set $mask (i32.and $mask (i32.sub (i32.shl 1 $len) 1)))
  0x05, 0x41, 0x10, 0x21, 0x06, 0x0b, //                          ) (else (local.set $len (i32.const 16))))
  0x20, 0x03, 0x45, 0x04, 0x40, //                                (if (i32.eqz $mask) (then   ;; clean: copied whole
  0x20, 0x02, 0x20, 0x08, 0xfd, 0x0b, 0x00, 0x00, //                (v128.store $out $v)
  0x20, 0x02, 0x20, 0x06, 0x6a, 0x21, 0x02, //                      (local.set $out (i32.add $out $len))
  0x05, //                                                        ) (else   ;; per byte to escape: the clean run before it, then its escape
  0x41, 0x00, 0x21, 0x05, //                                        (local.set $pos (i32.const 0))
  0x03, 0x40, //                                                    (loop
  0x20, 0x03, 0x68, 0x21, 0x04, //                                    (local.set $k (i32.ctz $mask))
  0x20, 0x02, 0x20, 0x01, 0x20, 0x05, 0x6a, 0xfd, 0x00, 0x00, 0x00, 0xfd, 0x0b, 0x00, 0x00, // (v128.store $out (v128.load (i32.add $in $pos)))
  0x20, 0x02, 0x20, 0x04, 0x20, 0x05, 0x6b, 0x6a, 0x21, 0x02, //      (local.set $out (i32.add $out (i32.sub $k $pos)))
  0x20, 0x01, 0x20, 0x04, 0x6a, 0x2d, 0x00, 0x00, 0x41, 0x03, 0x74, 0x21, 0x07, // (local.set $entry (i32.shl (i32.load8_u (i32.add $in $k)) 3))
  0x20, 0x02, 0x20, 0x07, 0x29, 0x00, ...leb(TABLE), 0x37, 0x00, 0x00, // (i64.store $out (i64.load offset=TABLE $entry))
  0x20, 0x02, 0x20, 0x07, 0x2d, 0x00, ...leb(TABLE + 7), 0x6a, 0x21, 0x02, // (local.set $out (i32.add $out (i32.load8_u offset=TABLE+7 $entry)))
  0x20, 0x04, 0x41, 0x01, 0x6a, 0x21, 0x05, //                        (local.set $pos (i32.add $k 1))
  0x20, 0x03, 0x20, 0x03, 0x41, 0x01, 0x6b, 0x71, 0x22, 0x03, 0x0d, 0x00, // (br_if 0 (local.tee $mask (i32.and $mask (i32.sub $mask 1))))
  0x0b, //                                                          )
  0x20, 0x02, 0x20, 0x01, 0x20, 0x05, 0x6a, 0xfd, 0x00, 0x00, 0x00, 0xfd, 0x0b, 0x00, 0x00, // (v128.store $out (v128.load (i32.add $in $pos)))
  0x20, 0x02, 0x20, 0x06, 0x20, 0x05, 0x6b, 0x6a, 0x21, 0x02, //    (local.set $out (i32.add $out (i32.sub $len $pos)))
  0x0b, //                                                        ))
  0x20, 0x01, 0x20, 0x06, 0x6a, 0x21, 0x01, //                    (local.set $in (i32.add $in $len))
  0x0c, 0x00, 0x0b, 0x0b, //                                      (br 0)))
  0x41, 0x00, 0x20, 0x09, 0xfd, 0x53, 0x36, 0x00, ...leb(FLAG), // (i32.store offset=FLAG (i32.const 0) (v128.any_true $seen))
  0x20, 0x02, ...i32Const(OUT), 0x6b, //                        (i32.sub $out (i32.const OUT))
]

function moduleBytes(): Uint8Array {
  return new Uint8Array([
    ...WASM_HEADER,
    ...section(1, [0x01, 0x60, 0x01, I32, 0x01, I32]),
    ...section(3, [0x01, 0x00]),
    ...section(5, [0x01, 0x00, ...leb(PAGES)]),
    ...section(7, [0x02, ...name('memory'), 0x02, 0x00, ...name('escape'), 0x00, 0x00]),
    ...section(10, [0x01, ...functionBody([0x02, 0x07, I32, 0x06, V128], ESCAPE)]),
  ])
}

/**
 * The escape of each byte below 0x60 that needs one, as `JSON.stringify`
 * writes it: 8 bytes per entry, the text first, its length in the last.
 */
function escapeTable(): Uint8Array {
  const short: Record<number, string> = { 0x08: 'b', 0x09: 't', 0x0a: 'n', 0x0c: 'f', 0x0d: 'r', 0x22: '"', 0x5c: '\\' }
  const table = new Uint8Array(0x60 * 8)
  for (let byte = 0; byte < 0x60; byte++) {
    const letter = short[byte]
    if (letter === undefined && byte >= 0x20) continue
    const text = letter !== undefined ? `\\${letter}` : `\\u00${byte.toString(16).padStart(2, '0')}`
    for (let i = 0; i < text.length; i++) table[byte * 8 + i] = text.charCodeAt(i)
    table[byte * 8 + 7] = text.length
  }
  return table
}

/** The escaper: write UTF-8 into {@link JsonEscaper.input}, then {@link JsonEscaper.escape}. */
export interface JsonEscaper {
  /** The input window, {@link ESCAPE_WINDOW_BYTES} long (`TextEncoder.encodeInto` writes here). */
  readonly input: Uint8Array
  /**
   * Escape the first `length` bytes of the input.
   *
   * @returns The escaped bytes: a view into the module's memory, valid until the next call.
   */
  escape(length: number): Uint8Array
  /**
   * Whether the last {@link JsonEscaper.escape} may have seen U+FFFD (its
   * UTF-8 begins with 0xEF, which is what this reports, counting only the
   * input's own bytes). `TextEncoder` writes U+FFFD for a lone
   * surrogate, which `JSON.stringify` would have written as `\udxxx`.
   */
  sawEF(): boolean
}

let escaper: JsonEscaper | null | undefined

/**
 * The process's escaper, or `undefined` where WebAssembly SIMD is
 * unavailable. One per process: its calls are synchronous, and nothing
 * else runs between writing the input and reading the output.
 *
 * @returns The escaper.
 * @internal
 */
export function jsonEscaper(): JsonEscaper | undefined {
  if (escaper === undefined) escaper = createEscaper()
  return escaper ?? undefined
}

function createEscaper(): JsonEscaper | null {
  const compiled = compileSimd(moduleBytes())
  if (compiled === null) return null
  const exports = instantiate(compiled) as { memory: { buffer: ArrayBuffer }; escape: (end: number) => number }
  // The memory never grows, so these views stay valid.
  const memory = new Uint8Array(exports.memory.buffer)
  memory.set(escapeTable(), TABLE)
  const input = memory.subarray(0, ESCAPE_WINDOW_BYTES)
  const output = memory.subarray(OUT, OUT + OUT_BYTES)
  const run = exports.escape
  return {
    input,
    escape: (length) => {
      // Past the window the module would read its own table and output.
      if (!(length >= 0 && length <= ESCAPE_WINDOW_BYTES)) throw new RangeError(`escape length ${length} is outside the window`)
      // The last block's load runs up to 15 bytes past the input; what an
      // earlier, longer input left there must not raise the 0xEF flag.
      memory.fill(0, length, length + 16)
      return output.subarray(0, run(length))
    },
    sawEF: () => memory[FLAG] !== 0,
  }
}
