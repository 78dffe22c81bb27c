/**
 * The few pieces of the WebAssembly binary format that the kit's
 * hand-assembled SIMD modules need (the spool's newline scanner, the JSON
 * string escaper), and compiling such a module once per process.
 *
 * The modules are written out instruction by instruction, with the text
 * format beside each line, rather than loaded from a `.wasm` file: nothing
 * to bundle, nothing to fetch, and the bytes can be read in review.
 *
 * @module
 */

/**
 * Unsigned LEB128, as the binary format encodes sizes, counts, indexes and
 * memory offsets.
 *
 * @param value - A non-negative 32-bit integer.
 * @returns Its bytes.
 * @internal
 */
export function leb(value: number): number[] {
  const out: number[] = []
  do {
    let byte = value & 0x7f
    value >>>= 7
    if (value !== 0) byte |= 0x80
    out.push(byte)
  } while (value !== 0)
  return out
}

/**
 * `i32.const value`: the immediate is *signed* LEB128, so a value whose top
 * written bit (0x40) is set needs one more byte than {@link leb} gives.
 *
 * @param value - A 32-bit integer.
 * @returns The instruction's bytes.
 * @internal
 */
export function i32Const(value: number): number[] {
  const out: number[] = [0x41]
  for (;;) {
    const byte = value & 0x7f
    value >>= 7
    const done = (value === 0 && (byte & 0x40) === 0) || (value === -1 && (byte & 0x40) !== 0)
    out.push(done ? byte : byte | 0x80)
    if (done) return out
  }
}

/**
 * A section: its id, then its body's size and the body.
 *
 * @param id - The section id (1 type, 3 function, 5 memory, 7 export, 10 code…).
 * @param body - The section's bytes.
 * @returns The section's bytes.
 * @internal
 */
export function section(id: number, body: number[]): number[] {
  return [id, ...leb(body.length), ...body]
}

/**
 * A name (of an export): its length, then its characters (ASCII here).
 *
 * @param text - The name.
 * @returns Its bytes.
 * @internal
 */
export function name(text: string): number[] {
  return [...leb(text.length), ...Array.from(text, (c) => c.charCodeAt(0))]
}

/**
 * One function's entry in the code section: its size, its local
 * declarations, its code, and the closing `end`.
 *
 * @param locals - The local declarations, count first (`[0x02, 0x01, I32, 0x01, V128]`).
 * @param code - The instructions.
 * @returns The entry's bytes.
 * @internal
 */
export function functionBody(locals: number[], code: number[]): number[] {
  const body = [...locals, ...code, 0x0b]
  return [...leb(body.length), ...body]
}

/** The module header: `\0asm`, version 1. */
export const WASM_HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]

/** Value type `i32`. */
export const I32 = 0x7f
/** Value type `v128` (SIMD). */
export const V128 = 0x7b

/** The slice of the WebAssembly API used here (this project's TypeScript libs do not declare it). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object
  Instance: new (module: object) => { exports: Record<string, unknown> }
}

/**
 * Compile `bytes` once (the caller caches the result), or `null` where the
 * engine cannot; each {@link instantiate} of it gets its own memory.
 *
 * @param bytes - The module.
 * @returns The compiled module, or `null`.
 * @internal
 */
export function compileSimd(bytes: Uint8Array): object | null {
  const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly
  if (wasm === undefined) return null
  try {
    return new wasm.Module(bytes)
  } catch {
    // No SIMD (or no WebAssembly at all, as under --jitless).
    return null
  }
}

/**
 * A new instance of a module {@link compileSimd} compiled.
 *
 * @param module - The compiled module.
 * @returns Its exports.
 * @internal
 */
export function instantiate(module: object): Record<string, unknown> {
  const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly!
  return new wasm.Instance(module).exports
}
