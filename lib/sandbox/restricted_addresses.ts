/**
 * Addresses the allowlist proxy refuses to connect to unless the host was
 * listed exactly: the machine itself, private networks, link-local and
 * cloud metadata addresses.
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
  ['private', '192.168.0.0', 16, 'ipv4'],
  ['reserved', '198.18.0.0', 15, 'ipv4'],
  ['multicast', '224.0.0.0', 4, 'ipv4'],
  ['reserved', '240.0.0.0', 4, 'ipv4'],
  ['unspecified', '::', 128, 'ipv6'],
  ['loopback', '::1', 128, 'ipv6'],
  ['private', 'fc00::', 7, 'ipv6'],
  // NAT64 local-use prefix (RFC 8215): translated to whatever IPv4 network the operator chose.
  ['private', '64:ff9b:1::', 48, 'ipv6'],
  ['link-local', 'fe80::', 10, 'ipv6'],
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
 *
 * @param address - An IPv6 address (no brackets).
 * @returns Its canonical form, or the input when it cannot be parsed.
 * @internal
 */
export function canonicalIPv6(address: string): string {
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1)
  } catch {
    return address.toLowerCase()
  }
}

/** The IPv4 address an IPv6 one carries (IPv4-mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`), if any. */
function embeddedIPv4(address: string): string | undefined {
  const lower = canonicalIPv6(address)
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower)
  if (dotted) return dotted[1]
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower)
  if (!hex) return undefined
  const high = Number.parseInt(hex[1]!, 16)
  const low = Number.parseInt(hex[2]!, 16)
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`
}

/**
 * Classify an address.
 *
 * @param address - An IPv4 or IPv6 address (no brackets).
 * @returns Why it is restricted, or `undefined` for a public address.
 * @internal
 */
export function restrictedKind(address: string): RestrictedKind | undefined {
  const family = isIP(address)
  if (family === 0) return 'reserved'
  const inner = family === 6 ? embeddedIPv4(address) : undefined
  if (inner !== undefined) return restrictedKind(inner)
  const type = family === 4 ? 'ipv4' : 'ipv6'
  if (METADATA.has(family === 6 ? canonicalIPv6(address) : address)) return 'metadata'
  for (const [kind, list] of LISTS) if (list.check(address, type)) return kind
  return undefined
}
