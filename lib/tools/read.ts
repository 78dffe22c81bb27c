/**
 * `read`: the text of one file inside the sandbox.
 *
 * @module
 */
import { isAscii, isUtf8 } from 'node:buffer'
import { E_TOOL_BINARY_FILE, E_TOOL_FILE_TOO_LARGE } from '../exceptions.js'
import { Tool } from '../core/tool.js'
import { validator, type ObjectSchema } from '../validation.js'
import { fitText, headBoundary, truncationMarker } from '../sandbox/process/capture.js'
import { openRegularFile, readRegularFile, readUncheckedTarget } from '../sandbox/files/files.js'
import { toToolError } from '../sandbox/files/fs_errors.js'
import { assertFilePathInput, resolveInRoot, type ResolvedPath } from '../sandbox/files/paths.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import { assertAsJudged, assertSingleName, judgedPathOf, type JudgedPath } from '../sandbox/files/judged_path.js'
import { BINARY_SNIFF_BYTES, readLineRange } from './read_lines.js'
import { rangeNote } from './read_notes.js'

/** Arguments of `read`. */
export interface ReadArgs {
  /** File path, relative to the sandbox root or absolute inside it. */
  path: string
  /** First line to return, 1-based. Default: 1. */
  offset?: number
  /** How many lines to return. Default: to the end of the file (within `maxOutputBytes`). */
  limit?: number
  /** Prefix each line with its number and a tab, like `cat -n`. Default: false. */
  lineNumbers?: boolean
}

export { BINARY_SNIFF_BYTES }

/**
 * When a file over the limit is read without a range, how many bytes past
 * what is shown `read` scans to count its lines for the note (≈ 25 ms on a
 * 2-core VM); a larger file's note gives a lower bound and an estimate.
 */
export const LINE_COUNT_SCAN_BYTES = 32 * 2 ** 20

/** Bytes of `maxOutputBytes` kept free for the note that follows a cut (notes are ≈ 120–250 bytes). */
const NOTE_ROOM = 320

/**
 * At least this much is kept free, whatever the limit: the shortest note,
 * `[… continue with offset: N …]`, is at most 47 bytes.
 */
const SHORT_NOTE_ROOM = 48

const readSchema: ObjectSchema<ReadArgs> = validator.object<ReadArgs>({
  // Empty strings are allowed here so the tool answers TOOL_PATH_INVALID itself.
  path: validator.string().allow('').required().description('File path, relative to the sandbox root (or absolute inside it)'),
  // max: the JSON Schema says what joi's number.unsafe rule enforces anyway, so clients see the same bound.
  offset: validator.number().integer().min(1).max(Number.MAX_SAFE_INTEGER).description('First line to return, 1-based (default 1)'),
  limit: validator.number().integer().min(1).max(Number.MAX_SAFE_INTEGER).description('How many lines to return (default: to the end of the file, within the byte limit)'),
  lineNumbers: validator.boolean().description('Prefix each line with its number and a tab, like `cat -n` (default false)'),
})

/**
 * Decode file bytes as UTF-8 text, refusing binary content.
 *
 * @param bytes - The file's bytes (at most the limit).
 * @param remainder - Bytes past the limit that were not read.
 * @param limit - `maxOutputBytes`.
 * @param input - The path, for messages.
 * @returns The text, cut on a character boundary with a marker when needed.
 * @throws {@link toolsmith/core!E_TOOL_BINARY_FILE} when a NUL byte appears in the first 8 KiB.
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
 * The built-in `read` tool: returns a UTF-8 text file's content, whole or by
 * line range.
 *
 * @remarks
 * `offset` (first line, 1-based) and `limit` (line count) select lines; the
 * file is streamed, so a range of a 1 GiB file costs one pass up to the
 * range and a fixed 1 MiB buffer. Without them a file within
 * `maxOutputBytes` comes back whole, exactly as it is; a larger one comes
 * back as its first lines that fit, followed by a note (`[… … …]` on its own
 * line) with the file's line count and the `offset` to continue from. A
 * range cut by the limit ends with such a note too; a range past the end of
 * the file returns only a note saying how many lines the file has.
 * `lineNumbers: true` prefixes each line with its number and a tab, like
 * `cat -n`.
 *
 * Refuses, with an `E_TOOL_*` error: paths outside the root
 * (`TOOL_PATH_ESCAPE`), missing files (`TOOL_FILE_NOT_FOUND`), directories,
 * FIFOs, sockets and devices (`TOOL_NOT_A_FILE`, without ever blocking) and
 * files with a NUL byte in their first 8 KiB (`TOOL_BINARY_FILE`). Invalid
 * UTF-8 is decoded with U+FFFD. The result is never over `maxOutputBytes`.
 * `sideEffect: false`, `idempotent: true`.
 *
 * @example
 * ```ts
 * const read = new ReadTool(new Sandbox({ rootDir: '/srv/work' }))
 * await read.executor(createDispatchContext())({ path: 'README.md' })
 * await read.executor(createDispatchContext())({ path: 'big.log', offset: 5_000_000, limit: 100 })
 * ```
 */
export class ReadTool extends Tool<any, ReadArgs> {
  /**
   * @param sandbox - The sandbox whose root and limits apply.
   */
  constructor(sandbox: Sandbox) {
    const cap = sandbox.maxOutputBytes
    super({
      name: 'read',
      description:
        'Read a UTF-8 text file inside the sandbox. `path` is relative to the sandbox root. ' +
        '`offset` (first line, 1-based) and `limit` (number of lines) read part of a file of any size; ' +
        `without them a file over ${cap} bytes returns its first lines and a note with the line count and the offset to continue from. ` +
        '`lineNumbers: true` numbers the lines like `cat -n`. Binary files and directories are refused.',
      inputSchema: readSchema,
      sideEffect: false,
      idempotent: true,
      roles: { path: 'path' },
      handler: async ({ path, offset, limit, lineNumbers }, _ctx, _meta, call) => {
        assertFilePathInput(path)
        const ranged = offset !== undefined || limit !== undefined || lineNumbers === true
        // A permission gate that judged this path for this run hands it over:
        // what is read must be exactly the file it judged.
        // (Taken synchronously: a call without a gate pays no extra await.)
        let judged = judgedPathOf(call, 'path', path)
        if (judged !== undefined && judged.resolution.root !== (await sandbox.realRoot())) judged = undefined
        if (!ranged) {
          // The common case, a whole small file, in the fewest thread-pool
          // jobs: the open and its re-check stand in for the target's lstat.
          const quick = judged?.resolution ?? (await resolveInRoot(sandbox, path, { target: 'open' }))
          sandbox.credentials.assertAllowed(quick, 'read')
          const read = quick.targetUnchecked || judged !== undefined ? await readUncheckedTarget(quick, cap, judged !== undefined) : undefined
          if (read !== undefined) {
            assertSingleName(judged, path, read.stats)
            return decodeText(read.bytes, read.remainder, cap, path)
          }
        }
        const resolved = await resolveInRoot(sandbox, path)
        sandbox.credentials.assertAllowed(resolved, 'read')
        // Resolved again (a range, a large file, or the quick path could not
        // answer): a path that now leads elsewhere than what the gate judged
        // (a symlink or directory swapped in meanwhile) is refused.
        assertAsJudged(judged, resolved)
        if (!ranged && !(resolved.stats?.isFile() && resolved.stats.size > cap)) {
          try {
            const read = await readRegularFile(resolved, cap)
            assertSingleName(judged, path, read.stats)
            return decodeText(read.bytes, read.remainder, cap, path)
          } catch (error) {
            // Grew past the limit between the lstat and the open: page it like any large file.
            if (!(error instanceof E_TOOL_FILE_TOO_LARGE)) throw error
          }
        }
        return await readLines(resolved, { offset, limit, lineNumbers }, cap, judged)
      },
    })
  }
}

/** The line path: a range, numbered lines, or a file over the limit. */
async function readLines(
  resolved: ResolvedPath,
  args: { offset: number | undefined; limit: number | undefined; lineNumbers: boolean | undefined },
  cap: number,
  judged: JudgedPath | undefined,
): Promise<string> {
  const { handle, stats } = await openRegularFile(resolved)
  const offset = args.offset ?? 1
  try {
    assertSingleName(judged, resolved.input, stats)
    const range = await readLineRange(handle, resolved.input, {
      offset,
      limit: args.limit ?? Infinity,
      budget: Math.max(0, cap - Math.min(NOTE_ROOM, Math.max(SHORT_NOTE_ROOM, Math.floor(cap / 2)))),
      numbered: args.lineNumbers === true,
      // Only the whole-file read of a large file promises a line count.
      countBytes: args.offset === undefined && args.limit === undefined ? LINE_COUNT_SCAN_BYTES : 0,
    })
    const separator = range.text === '' || range.text.endsWith('\n') ? '' : '\n'
    const room = cap - Buffer.byteLength(range.text) - separator.length
    const note = rangeNote(range, { offset, limit: args.limit, size: stats.size, cap }, room)
    return note === undefined ? range.text : fitText(`${range.text}${separator}${note}`, cap)
  } catch (error) {
    throw toToolError(error, resolved.input, 'read')
  } finally {
    void handle.close().catch(() => undefined)
  }
}
