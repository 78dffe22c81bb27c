/**
 * Hashing on `node:crypto`.
 *
 * @module
 */
import { createHash } from 'node:crypto'

/**
 * SHA-256 of a string (as UTF-8) or of bytes, as 64 lowercase hex digits.
 *
 * @param data - The text or bytes to hash.
 * @returns The hex digest.
 */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex')
}
