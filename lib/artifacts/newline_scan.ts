/**
 * Counting and finding `\n` bytes in bulk, 16 bytes per step, for the
 * spool's line index: `Buffer.indexOf` once per line is one native call per
 * line (12.8 million per GiB of 84-byte lines), and no JavaScript loop over
 * bytes comes close to SIMD.
 *
 * The module is a few dozen WebAssembly instructions, written out below
 * (with the text format beside each line) and compiled once per process.
 * Where WebAssembly SIMD is not available (`--jitless`, an old engine),
 * {@link newlineScanner} returns `undefined` and the caller keeps its
 * `indexOf` loop.
 *
 * @module
 */
import { I32, V128, WASM_HEADER, compileSimd, functionBody, instantiate, leb, name, section } from '../utils/wasm_binary.js'

/** Bytes the scanner works on at a time: chunks are copied into its memory window by window. */
export const SCAN_WINDOW_BYTES = 64 * 1024

/** The scanner: copy bytes in with {@link NewlineScanner.load}, then ask. */
export interface NewlineScanner {
  /**
   * Copy `bytes` (at most {@link SCAN_WINDOW_BYTES}) into the window; later
   * positions are indexes into them.
   */
  load(bytes: Uint8Array): void
  /** How many `\n` lie in `[start, end)` of the window. */
  count(start: number, end: number): number
  /** Where the `n`-th (1-based) `\n` at or after `start`, before `end`, lies; `-1` when there are fewer. */
  nth(start: number, end: number, n: number): number
}

// count(start, end) -> i32; locals: 2 total, 3 splat
const COUNT = [
  0x41, 0x0a, 0xfd, 0x0f, 0x21, 0x03, //                     (local.set $splat (i8x16.splat (i32.const 10)))
  0x02, 0x40, 0x03, 0x40, //                                 (block (loop
  0x20, 0x00, 0x41, 0x10, 0x6a, 0x20, 0x01, 0x4b, 0x0d, 0x01, // (br_if 1 (i32.gt_u (i32.add $start 16) $end))
  0x20, 0x02, //                                                (local.get $total)
  0x20, 0x00, 0xfd, 0x00, 0x00, 0x00, 0x20, 0x03, 0xfd, 0x23, // (i8x16.eq (v128.load $start) $splat)
  0xfd, 0x64, 0x69, 0x6a, 0x21, 0x02, //                         i8x16.bitmask i32.popcnt i32.add (local.set $total)
  0x20, 0x00, 0x41, 0x10, 0x6a, 0x21, 0x00, //                   (local.set $start (i32.add $start 16))
  0x0c, 0x00, 0x0b, 0x0b, //                                     (br 0)))
  0x02, 0x40, 0x03, 0x40, //                                 (block (loop   ;; the last < 16 bytes
  0x20, 0x00, 0x20, 0x01, 0x4f, 0x0d, 0x01, //                   (br_if 1 (i32.ge_u $start $end))
  0x20, 0x02, 0x20, 0x00, 0x2d, 0x00, 0x00, 0x41, 0x0a, 0x46, 0x6a, 0x21, 0x02, // $total += (load8_u $start) == 10
  0x20, 0x00, 0x41, 0x01, 0x6a, 0x21, 0x00, //                   (local.set $start (i32.add $start 1))
  0x0c, 0x00, 0x0b, 0x0b, //                                     (br 0)))
  0x20, 0x02, //                                             (local.get $total)
]

// nth(start, end, n) -> i32; locals: 3 mask, 4 popcount, 5 splat
const NTH = [
  0x41, 0x0a, 0xfd, 0x0f, 0x21, 0x05, //                     (local.set $splat (i8x16.splat (i32.const 10)))
  0x02, 0x40, 0x03, 0x40, //                                 (block (loop
  0x20, 0x00, 0x41, 0x10, 0x6a, 0x20, 0x01, 0x4b, 0x0d, 0x01, // (br_if 1 (i32.gt_u (i32.add $start 16) $end))
  0x20, 0x00, 0xfd, 0x00, 0x00, 0x00, 0x20, 0x05, 0xfd, 0x23, // (i8x16.eq (v128.load $start) $splat)
  0xfd, 0x64, 0x22, 0x03, 0x69, 0x22, 0x04, //                   (local.tee $count (i32.popcnt (local.tee $mask (i8x16.bitmask …))))
  0x20, 0x02, 0x4f, //                                           (i32.ge_u $count $n)
  0x04, 0x40, //                                                 (if (then
  0x02, 0x40, 0x03, 0x40, //                                       (block (loop   ;; drop the n - 1 lowest matches
  0x20, 0x02, 0x41, 0x01, 0x4d, 0x0d, 0x01, //                       (br_if 1 (i32.le_u $n 1))
  0x20, 0x03, 0x20, 0x03, 0x41, 0x01, 0x6b, 0x71, 0x21, 0x03, //     (local.set $mask (i32.and $mask (i32.sub $mask 1)))
  0x20, 0x02, 0x41, 0x01, 0x6b, 0x21, 0x02, //                       (local.set $n (i32.sub $n 1))
  0x0c, 0x00, 0x0b, 0x0b, //                                         (br 0)))
  0x20, 0x00, 0x20, 0x03, 0x68, 0x6a, 0x0f, //                     (return (i32.add $start (i32.ctz $mask)))
  0x0b, //                                                       ))
  0x20, 0x02, 0x20, 0x04, 0x6b, 0x21, 0x02, //                   (local.set $n (i32.sub $n $count))
  0x20, 0x00, 0x41, 0x10, 0x6a, 0x21, 0x00, //                   (local.set $start (i32.add $start 16))
  0x0c, 0x00, 0x0b, 0x0b, //                                     (br 0)))
  0x02, 0x40, 0x03, 0x40, //                                 (block (loop   ;; the last < 16 bytes
  0x20, 0x00, 0x20, 0x01, 0x4f, 0x0d, 0x01, //                   (br_if 1 (i32.ge_u $start $end))
  0x20, 0x00, 0x2d, 0x00, 0x00, 0x41, 0x0a, 0x46, //             (i32.eq (load8_u $start) 10)
  0x04, 0x40, //                                                 (if (then
  0x20, 0x02, 0x41, 0x01, 0x46, 0x04, 0x40, 0x20, 0x00, 0x0f, 0x0b, // (if (i32.eq $n 1) (then (return $start)))
  0x20, 0x02, 0x41, 0x01, 0x6b, 0x21, 0x02, //                     (local.set $n (i32.sub $n 1))
  0x0b, //                                                       ))
  0x20, 0x00, 0x41, 0x01, 0x6a, 0x21, 0x00, //                   (local.set $start (i32.add $start 1))
  0x0c, 0x00, 0x0b, 0x0b, //                                     (br 0)))
  0x41, 0x7f, //                                             (i32.const -1)
]

function moduleBytes(): Uint8Array {
  const pages = (SCAN_WINDOW_BYTES + 16) / 65536 + 1
  return new Uint8Array([
    ...WASM_HEADER,
    ...section(1, [0x02, 0x60, 0x02, I32, I32, 0x01, I32, 0x60, 0x03, I32, I32, I32, 0x01, I32]),
    ...section(3, [0x02, 0x00, 0x01]),
    ...section(5, [0x01, 0x00, ...leb(Math.ceil(pages))]),
    ...section(7, [0x03, ...name('memory'), 0x02, 0x00, ...name('count'), 0x00, 0x00, ...name('nth'), 0x00, 0x01]),
    ...section(10, [
      0x02,
      ...functionBody([0x02, 0x01, I32, 0x01, V128], COUNT),
      ...functionBody([0x02, 0x02, I32, 0x01, V128], NTH),
    ]),
  ])
}

let compiled: object | null | undefined

/**
 * A new scanner with its own memory window, or `undefined` where
 * WebAssembly SIMD is unavailable.
 *
 * @returns The scanner.
 * @internal
 */
export function newlineScanner(): NewlineScanner | undefined {
  if (compiled === undefined) compiled = compileSimd(moduleBytes())
  if (compiled === null) return undefined
  const exports = instantiate(compiled) as {
    memory: { buffer: ArrayBuffer }
    count: (start: number, end: number) => number
    nth: (start: number, end: number, n: number) => number
  }
  // The memory never grows, so this view stays valid.
  const window = new Uint8Array(exports.memory.buffer)
  return {
    load: (bytes) => window.set(bytes, 0),
    count: exports.count,
    nth: exports.nth,
  }
}
