/**
 * The domain allowlist of `allowNetwork: { domains }`: which hosts a
 * sandboxed command may reach through the kit's proxy.
 *
 * @module
 */
import { isIP } from 'node:net'
import { canonicalIPv6 } from './restricted_addresses.js'

/** How one requested host matched the allowlist. */
export interface AllowlistMatch {
  /** The entry that matched, as normalised (`example.com`, `*.example.com`, `*`). */
  readonly entry: string
  /**
   * `true` when the host is listed by itself (not through a wildcard): only
   * then may it resolve to a private, loopback or link-local address.
   */
  readonly exact: boolean
}

/** A host name or `*.` wildcard, as DNS spells it (labels of letters, digits, `-` and `_`). */
const NAME = /^(\*\.)?([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/

/**
 * Normalise a host the way both the list and the requests are compared:
 * lower case, no trailing dot, IPv6 without brackets.
 *
 * @param host - A host name or address.
 * @returns The normalised form.
 * @internal
 */
export function normalizeHost(host: string): string {
  let value = host.trim().toLowerCase()
  if (value.startsWith('[') && value.endsWith(']')) value = value.slice(1, -1)
  if (value.endsWith('.') && isIP(value) === 0) value = value.slice(0, -1)
  // One spelling per IPv6 address: `[0:0::1]` is `::1`.
  if (isIP(value) === 6) value = canonicalIPv6(value)
  return value
}

/**
 * Whether `entry` is a valid allowlist entry: a host name, an IP address,
 * `*.` followed by a host name, or `*` alone (every host that resolves to a
 * public address).
 *
 * @param entry - The entry as given.
 * @returns `true` when it is usable.
 * @internal
 */
export function isValidAllowlistEntry(entry: string): boolean {
  // `*.` is a wildcard missing its domain, not `*` with a trailing dot.
  if (entry.trim() === '*.') return false
  const value = normalizeHost(entry)
  if (value === '*') return true
  if (isIP(value) !== 0) return true
  return value.length <= 253 && NAME.test(value)
}

/**
 * The allowlist of one sandbox.
 *
 * @remarks
 * Entries are exact hosts (`registry.npmjs.org`, `127.0.0.1`), wildcards
 * (`*.github.com` matches `api.github.com` and `a.b.github.com`, never the
 * bare `github.com`) and `*` (any host). Comparison is case-insensitive and
 * ignores a trailing dot. Only an exact entry lets a host resolve to a
 * restricted address (private, loopback, link-local, metadata): the
 * proxy checks that after resolving.
 *
 * @internal
 */
export class NetworkAllowlist {
  /** The normalised entries, in the order given, without duplicates. */
  readonly domains: readonly string[]
  readonly #exact: ReadonlySet<string>
  readonly #suffixes: readonly string[]
  readonly #any: boolean

  /**
   * @param domains - Valid entries (see {@link isValidAllowlistEntry}).
   */
  constructor(domains: readonly string[]) {
    this.domains = Object.freeze([...new Set(domains.map(normalizeHost))])
    this.#exact = new Set(this.domains.filter((d) => !d.startsWith('*')))
    this.#suffixes = this.domains.filter((d) => d.startsWith('*.')).map((d) => d.slice(1))
    this.#any = this.domains.includes('*')
  }

  /**
   * Match a requested host.
   *
   * @param host - The host the program asked for (any case, brackets allowed).
   * @returns The match, or `undefined` when the host is not allowed.
   */
  match(host: string): AllowlistMatch | undefined {
    const value = normalizeHost(host)
    if (this.#exact.has(value)) return { entry: value, exact: true }
    // An address is matched only by itself: `*.example.com` is about names.
    if (isIP(value) === 0) {
      const suffix = this.#suffixes.find((s) => value.endsWith(s) && value.length > s.length)
      if (suffix !== undefined) return { entry: `*${suffix}`, exact: false }
    }
    if (this.#any) return { entry: '*', exact: false }
    return undefined
  }
}
