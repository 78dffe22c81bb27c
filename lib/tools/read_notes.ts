/**
 * The note `read` appends when it returns less than the model may think: a
 * cut at the byte limit, or a range past the end of the file. The note says
 * what was shown and the exact `offset` to continue from, so the next call
 * needs no guessing.
 *
 * @module
 */
import type { LineCount, LineRange } from './read_lines.js'

/** What the note needs to know about the call. */
export interface NoteContext {
  /** First line asked for (1 when no offset was given). */
  readonly offset: number
  /** Lines asked for, when a limit was given. */
  readonly limit: number | undefined
  /** File size at open time. */
  readonly size: number
  /** `maxOutputBytes`. */
  readonly cap: number
}

/**
 * The note for a line-range read, or `undefined` when the text is exactly
 * what was asked for (a whole file, a whole range, or a range the file ended
 * inside).
 *
 * @param range - What the scan returned.
 * @param call - The call's range and the file's size.
 * @param room - Bytes left for the note under the limit: the fullest form
 *   that fits is chosen (the shortest keeps only the offset to continue from).
 * @returns One line `[… … …]`, or `undefined`.
 * @internal
 */
export function rangeNote(range: LineRange, call: NoteContext, room = Infinity): string | undefined {
  const notes = rangeNotes(range, call)
  if (notes === undefined) return undefined
  // The fullest form that fits: with a small limit the short ones keep
  // the offset to continue from, which is what paging needs.
  // None fits (cannot happen with the room read keeps free): the shortest, which keeps the offset.
  return notes.find((note) => Buffer.byteLength(note) <= room) ?? notes[notes.length - 1]
}

/** The note's forms, fullest first, or `undefined` when no note is due. */
function rangeNotes(range: LineRange, call: NoteContext): string[] | undefined {
  if (range.stoppedBy === 'budget') return budgetNotes(range, call)
  // Offset 1 of an empty file is the whole (empty) file, not a miss.
  if (range.shown === 0 && range.count !== undefined && call.offset > Math.max(1, range.count.lines)) {
    return [
      `[… offset ${call.offset} is past the end of the file: it has ${range.count.lines} lines (${call.size} bytes) …]`,
      `[… past the end: ${range.count.lines} lines …]`,
    ]
  }
  return undefined
}

function budgetNotes(range: LineRange, call: NoteContext): string[] {
  if (range.cutLine !== undefined) {
    const next = range.cutLine + 1
    return [
      `[… line ${range.cutLine} is longer than read's ${call.cap}-byte limit: only its start is shown; ` +
        `continue with offset: ${next}, or see the rest of line ${range.cutLine} with grep or bash (cut, head -c) …]`,
      `[… line ${range.cutLine} cut at the limit; continue with offset: ${next} …]`,
      `[… continue with offset: ${next} …]`,
    ]
  }
  const last = call.offset + range.shown - 1
  const asked = call.limit === undefined ? '' : ` (asked for ${call.offset}–${call.offset + call.limit - 1})`
  const file = range.count === undefined ? `is ${call.size} bytes` : `has ${countText(range.count, call.size)} lines (${call.size} bytes)`
  return [
    `[… lines ${call.offset}–${last} shown${asked}: read returns at most ${call.cap} bytes and the file ${file}; ` +
      `continue with offset: ${last + 1} and a limit …]`,
    `[… lines ${call.offset}–${last} shown; continue with offset: ${last + 1} …]`,
    `[… continue with offset: ${last + 1} …]`,
  ]
}

function countText(count: LineCount, size: number): string {
  if (count.exact) return String(count.lines)
  // Bounded scan: a lower bound that is certain, and an estimate labelled as one.
  const estimate = count.lines === 0 ? undefined : Math.round(size / (count.scannedBytes / count.lines))
  return `at least ${count.lines} (counted in the first ${count.scannedBytes} bytes${estimate === undefined ? '' : `; about ${estimate} in all`})`
}
