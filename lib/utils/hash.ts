/**
 * Hashing on `node:crypto`.
 *
 * @module
 */
import * as crypto from 'node:crypto'

// One-shot `crypto.hash` (Node ≥ 20.12) skips the Hash object that
// `createHash` allocates: about half the cost of hashing a callId's few
// hundred bytes. Looked up, not imported by name, so older Node 20 still loads.
const oneShotHash = typeof crypto.hash === 'function' ? crypto.hash : undefined

/**
 * SHA-256 of a string (as UTF-8) or of bytes, as 64 lowercase hex digits.
 *
 * @param data - The text or bytes to hash.
 * @returns The hex digest.
 */
export function sha256Hex(data: string | Uint8Array): string {
  if (oneShotHash !== undefined) return oneShotHash('sha256', data, 'hex')
  return crypto.createHash('sha256').update(data).digest('hex')
}
