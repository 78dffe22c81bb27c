/**
 * The text file the read-range figures page through: `bytes` of 80-byte log
 * lines (13,421,772 lines in 1 GiB), written once under the bench temp
 * folder and reused, with a `.complete` marker written last.
 *
 * @module
 */
import { existsSync } from 'node:fs'
import { mkdir, open, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { BENCH_TMP } from './fixtures.js'

/** One line of the file (80 bytes). */
export const LOG_LINE = 'INFO 2026-01-01T00:00:00.000Z worker-3 processed item 123456 in 42 ms status=ok\n'

/** The sandbox root the file lives in. */
export const READ_LINES_ROOT = path.join(BENCH_TMP, 'read-lines-root')

/** The file's name inside {@link READ_LINES_ROOT} for a given size. */
export function linesFileName(bytes: number): string {
  return `lines-${bytes}.log`
}

/**
 * Lines the range figure asks for: 5,000,000–5,000,100 of 1 GiB, scaled
 * down with the file in `--quick` so the range stays at the same place.
 */
export function rangeFor(bytes: number): { offset: number; limit: number } {
  return { offset: Math.round((5_000_000 * bytes) / 2 ** 30), limit: 101 }
}

/** Make the file unless a complete one is there; resolves with its path. */
export async function linesFile(bytes: number, log: (m: string) => void): Promise<string> {
  const file = path.join(READ_LINES_ROOT, linesFileName(bytes))
  const marker = `${file}.complete`
  if (existsSync(marker)) return file
  log(`generating ${file} (${bytes} bytes of ${Buffer.byteLength(LOG_LINE)}-byte lines, once)`)
  await mkdir(READ_LINES_ROOT, { recursive: true })
  await rm(file, { force: true })
  const block = Buffer.from(LOG_LINE.repeat(8192))
  const handle = await open(file, 'w')
  try {
    let written = 0
    while (written + block.length <= bytes) written += (await handle.write(block)).bytesWritten
    const rest = Math.floor((bytes - written) / Buffer.byteLength(LOG_LINE))
    await handle.write(Buffer.from(LOG_LINE.repeat(rest)))
  } finally {
    await handle.close()
  }
  await writeFile(marker, new Date().toISOString())
  return file
}
