/**
 * The package version, read from package.json next to `lib/` or `dist/`.
 *
 * @module
 */
import { readFileSync } from 'node:fs'

/**
 * The version in the package's package.json.
 *
 * @returns The version, or `'0.0.0'` when it cannot be read.
 */
export function packageVersion(): string {
  try {
    const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8')
    return String((JSON.parse(text) as { version?: unknown }).version ?? '0.0.0')
  } catch {
    return '0.0.0'
  }
}
