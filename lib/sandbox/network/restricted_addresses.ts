/**
 * Addresses the allowlist proxy refuses to connect to unless the host was
 * listed exactly: the machine itself, private networks, link-local and
 * cloud metadata addresses, in every spelling that names one of them.
 *
 * @module
 */
import { BlockList, isIP } from 'node:net'

/** Why an address is restricted. */
export type RestrictedKind = 'loopback' | 'private' | 'link-local' | 'metadata' | 'unspecified' | 'multicast' | 'reserved'

/** The instance metadata services of the clouds (AWS, GCP, Azure, OpenStack…; AWS's IPv6 one). */
const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200'])

const RANGES: ReadonlyArray<readonly [RestrictedKind, string, number, 'ipv4' | 'ipv6']> = [
  ['unspecified', '0.0.0.0', 8, 'ipv4'],
  ['private', '10.0.0.0', 8, 'ipv4'],
  // Carrier-grade NAT: private to the provider, and where some clouds put their services.
  ['private', '100.64.0.0', 10, 'ipv4'],
  ['loopback', '127.0.0.0', 8, 'ipv4'],
  ['link-local', '169.254.0.0', 16, 'ipv4'],
  ['private', '172.16.0.0', 12, 'ipv4'],
  ['reserved', '192.0.0.0', 24, 'ipv4'],
  // Documentation (RFC 5737) and the retired 6to4 relay anycast: never a real destination.
  ['reserved', '192.0.2.0', 24, 'ipv4'],
  ['reserved', '192.88.99.0', 24, 'ipv4'],
  ['private', '192.168.0.0', 16, 'ipv4'],
  ['reserved', '198.18.0.0', 15, 'ipv4'],
  ['reserved', '198.51.100.0', 24, 'ipv4'],
  ['reserved', '203.0.113.0', 24, 'ipv4'],
  ['multicast', '224.0.0.0', 4, 'ipv4'],
  ['reserved', '240.0.0.0', 4, 'ipv4'],
  ['unspecified', '::', 128, 'ipv6'],
  ['loopback', '::1', 128, 'ipv6'],
  // Discard-only (RFC 6666), benchmarking, ORCHID and documentation prefixes.
  ['reserved', '100::', 64, 'ipv6'],
  ['reserved', '2001:2::', 48, 'ipv6'],
  ['reserved', '2001:10::', 28, 'ipv6'],
  ['reserved', '2001:20::', 28, 'ipv6'],
  ['reserved', '2001:db8::', 32, 'ipv6'],
  ['reserved', '3fff::', 20, 'ipv6'],
  ['private', 'fc00::', 7, 'ipv6'],
  // NAT64 local-use prefix (RFC 8215): translated to whatever IPv4 network the operator chose.
  ['private', '64:ff9b:1::', 48, 'ipv6'],
  ['link-local', 'fe80::', 10, 'ipv6'],
  // Site-local (deprecated by RFC 3879, still routed inside some sites).
  ['private', 'fec0::', 10, 'ipv6'],
  ['multicast', 'ff00::', 8, 'ipv6'],
]

const LISTS = new Map<RestrictedKind, BlockList>()
for (const [kind, network, prefix, family] of RANGES) {
  let list = LISTS.get(kind)
  if (list === undefined) LISTS.set(kind, (list = new BlockList()))
  list.addSubnet(network, prefix, family)
}

/**
 * The canonical text of an IPv6 address (RFC 5952: lower case, zeros
 * compressed), so `64:ff9b:0:0:0:0:a00:1` and `64:ff9b::a00:1` compare alike.
 * A zone (`%eth0`) is kept, after the canonical address.
 *
 * @param address - An IPv6 address (no brackets).
 * @returns Its canonical form, or the input in lower case when it cannot be parsed.
 * @internal
 */
export function canonicalIPv6(address: string): string {
  const { bare, zone } = splitZone(address)
  try {
    return `${new URL(`http://[${bare}]/`).hostname.slice(1, -1)}${zone === undefined ? '' : `%${zone.toLowerCase()}`}`
  } catch {
    return address.toLowerCase()
  }
}

/** `fe80::1%eth0` → the address and its zone (interface); a zone says which link, not which host. */
function splitZone(address: string): { bare: string; zone: string | undefined } {
  const at = address.indexOf('%')
  return at < 0 ? { bare: address, zone: undefined } : { bare: address.slice(0, at), zone: address.slice(at + 1) }
}

/** The eight 16-bit words of a canonical IPv6 address (hex only, at most one `::`). */
function ipv6Words(canonical: string): number[] | undefined {
  const [head, tail, extra] = canonical.split('::')
  if (extra !== undefined) return undefined
  const words = (text: string | undefined): number[] => (text ? text.split(':').map((word) => Number.parseInt(word, 16)) : [])
  const front = words(head)
  const back = words(tail)
  const gap = 8 - front.length - back.length
  if (tail === undefined ? gap !== 0 : gap < 1) return undefined
  const all = [...front, ...new Array<number>(tail === undefined ? 0 : gap).fill(0), ...back]
  return all.every((word) => Number.isInteger(word) && word >= 0 && word <= 0xffff) ? all : undefined
}

/** Two 16-bit words as a dotted IPv4 address. */
function dotted(high: number, low: number): string {
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`
}

/**
 * The IPv4 addresses an IPv6 address carries, and whether the IPv6 address
 * is only a wrapper (nothing but the IPv4 address decides where it goes).
 * `fallback` is the kind when the carried address is public: forms that are
 * deprecated or never routed publicly are refused anyway.
 */
function carriedIPv4(w: readonly number[]): { inner: string[]; fallback?: RestrictedKind } | undefined {
  const zeros = (from: number, to: number): boolean => w.slice(from, to).every((word) => word === 0)
  const last = dotted(w[6]!, w[7]!)
  // IPv4-mapped ::ffff:a.b.c.d: a dual-stack socket connects to the IPv4 address itself.
  if (zeros(0, 5) && w[5] === 0xffff) return { inner: [last] }
  // IPv4-compatible ::a.b.c.d (deprecated, RFC 4291); :: and ::1 are themselves.
  if (zeros(0, 6) && (w[6] !== 0 || w[7]! > 1)) return { inner: [last], fallback: 'reserved' }
  // IPv4-translated ::ffff:0:a.b.c.d (SIIT, RFC 2765).
  if (zeros(0, 4) && w[4] === 0xffff && w[5] === 0) return { inner: [last], fallback: 'reserved' }
  // NAT64 well-known prefix 64:ff9b::/96 (RFC 6052): the translator connects to the IPv4 address.
  if (w[0] === 0x64 && w[1] === 0xff9b && zeros(2, 6)) return { inner: [last] }
  // 6to4 2002:AABB:CCDD::/48 (RFC 3056): tunnelled to the IPv4 address AABB:CCDD.
  if (w[0] === 0x2002) return { inner: [dotted(w[1]!, w[2]!)] }
  // Teredo 2001:0::/32 (RFC 4380): the client's IPv4 address with every bit inverted, and the server's.
  if (w[0] === 0x2001 && w[1] === 0) return { inner: [dotted(~w[6]! & 0xffff, ~w[7]! & 0xffff), dotted(w[2]!, w[3]!)] }
  return undefined
}

/**
 * An IPv4 address in one of the forms `inet_aton` (and so `getaddrinfo`,
 * curl and browsers) accepts besides a.b.c.d: fewer parts (`127.1`), hex
 * (`0x7f.1`), octal (`0177.0.0.1`) or one number (`2130706433`).
 */
function legacyIPv4(text: string): string | undefined {
  const parts = text.split('.')
  if (parts.length > 4) return undefined
  const values: number[] = []
  for (const part of parts) {
    if (/^0x[0-9a-f]+$/i.test(part)) values.push(Number.parseInt(part.slice(2), 16))
    else if (/^0[0-7]*$/.test(part)) values.push(Number.parseInt(part, 8))
    else if (/^[1-9][0-9]*$/.test(part)) values.push(Number(part))
    else return undefined
  }
  const lastMax = 256 ** (5 - values.length) - 1
  if (values.slice(0, -1).some((v) => v > 255) || values.at(-1)! > lastMax) return undefined
  let number = values.at(-1)!
  for (let i = 0; i < values.length - 1; i++) number += values[i]! * 256 ** (3 - i)
  return [24, 16, 8, 0].map((shift) => Math.floor(number / 2 ** shift) % 256).join('.')
}

/**
 * Classify an address.
 *
 * @remarks
 * Every spelling of one address gets the same answer: a zone suffix
 * (`::1%lo`) is ignored, IPv6 is compared in canonical form (case, leading
 * zeros, `::`, dotted tails), IPv4 also in the forms `inet_aton` reads
 * (`127.1`, `0x7f.1`, `2130706433`, `0177.0.0.1`), and an IPv6 address that
 * carries an IPv4 one (IPv4-mapped, IPv4-compatible, IPv4-translated,
 * NAT64 `64:ff9b::/96`, 6to4, Teredo) is classified by the IPv4 address.
 * Text that is no address at all is `reserved`.
 *
 * @param address - An IPv4 or IPv6 address (no brackets; a zone is allowed).
 * @returns Why it is restricted, or `undefined` for a public address.
 * @internal
 */
export function restrictedKind(address: string): RestrictedKind | undefined {
  const { bare } = splitZone(address)
  const family = isIP(bare)
  if (family === 0) {
    const ipv4 = legacyIPv4(bare)
    return ipv4 === undefined ? 'reserved' : ipv4Kind(ipv4)
  }
  if (family === 4) return ipv4Kind(bare)
  const canonical = canonicalIPv6(bare)
  const words = ipv6Words(canonical)
  if (words === undefined) return 'reserved'
  const carried = carriedIPv4(words)
  if (carried !== undefined) {
    for (const inner of carried.inner) {
      const kind = ipv4Kind(inner)
      if (kind !== undefined) return kind
    }
    if (carried.fallback !== undefined) return carried.fallback
  }
  if (METADATA.has(canonical)) return 'metadata'
  for (const [kind, list] of LISTS) if (list.check(canonical, 'ipv6')) return kind
  return undefined
}

function ipv4Kind(address: string): RestrictedKind | undefined {
  if (METADATA.has(address)) return 'metadata'
  for (const [kind, list] of LISTS) if (list.check(address, 'ipv4')) return kind
  return undefined
}
