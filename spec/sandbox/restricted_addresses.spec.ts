/**
 * The allowlist proxy's address check: every spelling of a loopback,
 * private, link-local, metadata or reserved address gets its class, and
 * the proxy applies it to a literal address exactly as the program wrote it
 * (zone suffix, brackets, any case). A pure function: nothing here opens a
 * connection or resolves a name (`decide` on an address literal does
 * neither).
 *
 * The check is internal (the proxy is its only caller), so it is imported
 * from its module rather than the public barrel.
 */
import { describe, expect, it } from 'vitest'
import { NetworkAllowlist, normalizeHost } from '../../lib/sandbox/network/network_allowlist.js'
import { NetworkProxy } from '../../lib/sandbox/network/network_proxy.js'
import { canonicalIPv6, restrictedKind, type RestrictedKind } from '../../lib/sandbox/network/restricted_addresses.js'

type Row = readonly [spelling: string, kind: RestrictedKind | undefined]

/** Spellings the check got right already; kept so a rewrite cannot lose them. */
const KNOWN: readonly Row[] = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['0000:0000::0001', 'loopback'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['0:0:0:0:0:ffff:7f00:1', 'loopback'],
  ['::FFFF:7F00:0001', 'loopback'],
  ['::1%lo', 'loopback'],
  ['::ffff:7f00:1%lo', 'loopback'],
  ['64:ff9b::127.0.0.1', 'loopback'],
  ['64:ff9b:0:0:0:0:a00:1', 'private'],
  ['64:ff9b:1::7f00:1', 'private'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['::', 'unspecified'],
  ['10.1.2.3', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  // Carrier-grade NAT (RFC 6598): kept private, because clouds put services there (100.100.100.200).
  ['100.64.0.1', 'private'],
  ['100.127.255.255', 'private'],
  ['fd12:3456::1', 'private'],
  ['169.254.0.1', 'link-local'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['169.254.169.254', 'metadata'],
  ['100.100.100.200', 'metadata'],
  ['fd00:ec2::254', 'metadata'],
  ['::ffff:169.254.169.254', 'metadata'],
  ['198.18.0.1', 'reserved'],
  ['198.19.255.255', 'reserved'],
  ['192.0.0.8', 'reserved'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'reserved'],
  ['224.0.0.1', 'multicast'],
  ['ff02::1', 'multicast'],
  ['not an address', 'reserved'],
  // Public addresses stay public, whatever their spelling.
  ['8.8.8.8', undefined],
  ['1.1.1.1', undefined],
  ['100.128.0.1', undefined],
  ['172.32.0.1', undefined],
  ['2606:4700:4700::1111', undefined],
  ['2606:4700:4700:0:0:0:0:1111', undefined],
  ['::ffff:8.8.8.8', undefined],
  ['64:ff9b::8.8.8.8', undefined],
]

/** Spellings the check missed: each of these rows failed before. */
const MISSED: readonly Row[] = [
  // A zone suffix on an address that carries an IPv4 one.
  ['64:ff9b::7f00:1%lo', 'loopback'],
  ['64:ff9b::a00:1%eth0', 'private'],
  // IPv4-compatible ::a.b.c.d (deprecated): the IPv4 address decides, and a public one is still refused.
  ['::7f00:1', 'loopback'],
  ['::127.0.0.1', 'loopback'],
  ['0:0:0:0:0:0:7f00:1', 'loopback'],
  ['::a9fe:a9fe', 'metadata'],
  ['::10.0.0.1', 'private'],
  ['::8.8.8.8', 'reserved'],
  // IPv4-translated ::ffff:0:a.b.c.d (SIIT, RFC 2765).
  ['::ffff:0:7f00:1', 'loopback'],
  ['::ffff:0:127.0.0.1', 'loopback'],
  ['0:0:0:0:ffff:0:c0a8:101', 'private'],
  ['::ffff:0:8.8.8.8', 'reserved'],
  // 6to4 (RFC 3056): tunnelled to the IPv4 address in the second and third words.
  ['2002:7f00:1::', 'loopback'],
  ['2002:7f00:0001:0:0:0:0:1', 'loopback'],
  ['2002:a9fe:a9fe::1', 'metadata'],
  ['2002:c0a8:101::1', 'private'],
  // Teredo (RFC 4380): the client's IPv4 address, every bit inverted, in the last two words.
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'],
  ['2001:0000:4136:E378:8000:63BF:F5FF:FFFE', 'private'],
  ['2001:0:7f00:1::f7f7:f7f7', 'loopback'], // a loopback server, a public client
  // IPv4 in the forms inet_aton (getaddrinfo, curl) reads.
  ['127.1', 'loopback'],
  ['0x7f.1', 'loopback'],
  ['0x7F000001', 'loopback'],
  ['2130706433', 'loopback'],
  ['0177.0.0.1', 'loopback'],
  ['017700000001', 'loopback'],
  ['0', 'unspecified'],
  ['10.1', 'private'],
  ['0xa9.0xfe.0xa9.0xfe', 'metadata'],
  ['2852039166', 'metadata'],
  // Other IPv6 prefixes that are never a public destination.
  ['fec0::1', 'private'],
  ['100::1', 'reserved'],
  ['2001:db8::1', 'reserved'],
  ['3fff::1', 'reserved'],
  ['2001:2::1', 'reserved'],
  // Documentation ranges of IPv4 (RFC 5737).
  ['192.0.2.1', 'reserved'],
  ['198.51.100.7', 'reserved'],
  ['203.0.113.9', 'reserved'],
]

describe('restrictedKind: every spelling of an address gets its class', () => {
  it.each(KNOWN)('%s → %s', (spelling, kind) => {
    expect(restrictedKind(spelling)).toBe(kind)
  })

  it.each(MISSED)('%s → %s', (spelling, kind) => {
    expect(restrictedKind(spelling)).toBe(kind)
  })

  it('6to4 and Teredo addresses that carry public IPv4 addresses stay public', () => {
    expect(restrictedKind('2002:808:808::1')).toBeUndefined()
    // Server 8.8.8.8, client 8.8.8.8 (inverted: f7f7:f7f7).
    expect(restrictedKind('2001:0:808:808::f7f7:f7f7')).toBeUndefined()
  })

  it('a malformed IPv4 form is refused as reserved, never read as a public address', () => {
    for (const text of ['0x', '127..1', '1.2.3.4.5', '08.1.1.1', '4294967296', '256.1.1.1', '1.2.3.256']) {
      expect(restrictedKind(text)).toBe('reserved')
    }
  })

  it('canonicalIPv6 keeps a zone after the canonical address', () => {
    expect(canonicalIPv6('0:0::FFFF:7F00:0001%lo')).toBe('::ffff:7f00:1%lo')
    expect(canonicalIPv6('64:FF9B::127.0.0.1')).toBe('64:ff9b::7f00:1')
  })
})

describe('the allowlist proxy applies the check to an address literal as the program wrote it', () => {
  const proxy = new NetworkProxy(new NetworkAllowlist(['*']))
  // As CONNECT and absolute-URL requests pass their host on: brackets and case as written.
  it.each([
    ['[64:ff9b::7f00:1%lo]', 'loopback'],
    ['[::7F00:1]', 'loopback'],
    ['[::ffff:0:7f00:1]', 'loopback'],
    ['[::ffff:0:127.0.0.1]', 'loopback'],
    ['[2002:7f00:1::]', 'loopback'],
    ['[2001:0:4136:e378:8000:63bf:80ff:fffe]', 'loopback'],
    ['[::a9fe:a9fe]', 'metadata'],
    ['[FEC0::1]', 'private'],
  ])('with "*", %s is refused as a %s address before any connection', async (host, kind) => {
    const verdict = await proxy.decide(normalizeHost(host), 80, 'CONNECT')
    expect(verdict.allowed).toBe(false)
    expect(verdict.reason).toContain(`resolves to a ${kind} address`)
  })

  it('an exact entry still allows the address it names', async () => {
    const exact = new NetworkProxy(new NetworkAllowlist(['::7f00:1']))
    const verdict = await exact.decide(normalizeHost('[::7f00:1]'), 80, 'CONNECT')
    expect(verdict).toMatchObject({ allowed: true, rule: '::7f00:1' })
  })
})
