/**
 * What a `read` call does: the whole file, or a line range streamed, with
 * the note that says how to continue. Loaded by the first call (see
 * `loadReadRun` in `read.ts`).
 *
 * @module
 */
import { isAscii, isUtf8 } from 'node:buffer'
import { E_TOOL_BINARY_FILE, E_TOOL_FILE_TOO_LARGE } from '../exceptions.js'
import type { ToolCallInfo } from '../core/tool.js'
import { fitText, headBoundary, truncationMarker } from '../sandbox/process/capture.js'
import { openRegularFile, readRegularFile, readUncheckedTarget } from '../sandbox/files/read_file.js'
import { toToolError } from '../sandbox/files/fs_errors.js'
import { assertFilePathInput, resolveInRoot, type ResolvedPath } from '../sandbox/files/paths.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import { assertAsJudged, assertSingleName, judgedPathOf, type JudgedPath } from '../sandbox/files/judged_path.js'
import { BINARY_SNIFF_BYTES, readLineRange } from './read_lines.js'
import { rangeNote } from './read_notes.js'
import type { ReadArgs } from './builtin_args.js'

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
 * The `read` tool's handler, as a function of its sandbox: what `ReadTool`
 * runs after validation.
 *
 * @param sandbox - The sandbox whose root and limits apply.
 * @param args - Validated args.
 * @param call - The call (a permission gate's judged path rides on it).
 * @returns The file's text, or the requested lines with their note.
 * @internal
 */
export async function readFileHandler(sandbox: Sandbox, { path, offset, limit, lineNumbers }: ReadArgs, call: ToolCallInfo): Promise<string> {
  const cap = sandbox.maxOutputBytes
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
