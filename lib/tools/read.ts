/**
 * `read`: the text of one file inside the sandbox.
 *
 * @module
 */
import { isAscii, isUtf8 } from 'node:buffer'
import { E_TOOL_BINARY_FILE } from '../exceptions.js'
import { Tool } from '../core/tool.js'
import { validator, type ObjectSchema } from '../validation.js'
import { fitText, headBoundary, truncationMarker } from '../sandbox/capture.js'
import { readRegularFile } from '../sandbox/files.js'
import { assertFilePathInput, resolveInRoot } from '../sandbox/paths.js'
import type { Sandbox } from '../sandbox/sandbox.js'

/** Arguments of `read`. */
export interface ReadArgs {
  /** File path, relative to the sandbox root or absolute inside it. */
  path: string
}

/** How far into a file `read` looks for a NUL byte to decide it is binary. */
export const BINARY_SNIFF_BYTES = 8192

const readSchema: ObjectSchema<ReadArgs> = validator.object<ReadArgs>({
  // Empty strings are allowed here so the tool answers TOOL_PATH_INVALID itself.
  path: validator.string().allow('').required().description('File path, relative to the sandbox root (or absolute inside it)'),
})

/**
 * Decode file bytes as UTF-8 text, refusing binary content.
 *
 * @param bytes - The file's bytes (at most the limit).
 * @param remainder - Bytes past the limit that were not read.
 * @param limit - `maxOutputBytes`.
 * @param input - The path, for messages.
 * @returns The text, cut on a character boundary with a marker when needed.
 * @throws {@link E_TOOL_BINARY_FILE} when a NUL byte appears in the first 8 KiB.
 * @internal
 */
export function decodeText(bytes: Buffer, remainder: number, limit: number, input: string): string {
  if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
    throw new E_TOOL_BINARY_FILE(`${JSON.stringify(input)} looks binary (it has a NUL byte in its first 8 KiB); read returns text only`, {
      details: { path: input },
    })
  }
  if (remainder === 0 && bytes.length <= limit) {
    // Fast paths, same result as the general one: ASCII decodes identically
    // as latin1 (a plain copy, no UTF-8 decoder), and valid UTF-8 of at most
    // `limit` bytes decodes to a text of exactly that many UTF-8 bytes, so it
    // fits without being measured or re-encoded.
    if (isAscii(bytes)) return bytes.toString('latin1')
    if (isUtf8(bytes)) return bytes.toString('utf8')
  }
  if (remainder === 0) return fitText(bytes.toString('utf8'), limit)
  const total = bytes.length + remainder
  const end = headBoundary(bytes, Math.max(0, limit - Buffer.byteLength(truncationMarker(total))))
  return fitText(bytes.subarray(0, end).toString('utf8') + truncationMarker(total - end).trimEnd(), limit)
}

/**
 * The built-in `read` tool: returns a UTF-8 text file's content.
 *
 * @remarks
 * Refuses, with an `E_TOOL_*` error: paths outside the root
 * (`TOOL_PATH_ESCAPE`), missing files (`TOOL_FILE_NOT_FOUND`), directories,
 * FIFOs, sockets and devices (`TOOL_NOT_A_FILE`, without ever blocking),
 * files whose size is over `maxOutputBytes` (`TOOL_FILE_TOO_LARGE`) and
 * files with a NUL byte in their first 8 KiB (`TOOL_BINARY_FILE`). A file
 * that grows past the limit while being read is cut on a UTF-8 character
 * boundary and marked `[… N bytes truncated …]`. `sideEffect: false`,
 * `idempotent: true`.
 *
 * @example
 * ```ts
 * const read = new ReadTool(new Sandbox({ rootDir: '/srv/work' }))
 * await read.executor(createDispatchContext())({ path: 'README.md' })
 * ```
 */
export class ReadTool extends Tool<any, ReadArgs> {
  /**
   * @param sandbox - The sandbox whose root and limits apply.
   */
  constructor(sandbox: Sandbox) {
    super({
      name: 'read',
      description:
        'Read a UTF-8 text file inside the sandbox and return its content. `path` is relative to the sandbox root. ' +
        `Files over ${sandbox.maxOutputBytes} bytes, binary files and directories are refused: use grep or bash to inspect those.`,
      inputSchema: readSchema,
      sideEffect: false,
      idempotent: true,
      handler: async ({ path }) => {
        assertFilePathInput(path)
        const resolved = await resolveInRoot(sandbox, path)
        const { bytes, remainder } = await readRegularFile(resolved, sandbox.maxOutputBytes)
        return decodeText(bytes, remainder, sandbox.maxOutputBytes, path)
      },
    })
  }
}
