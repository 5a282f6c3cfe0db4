import { describe, expect, it } from 'vitest'
import { LOOPBACK_NETWORKS, isAllowedAddressText, parseIpAddress, parseNetwork } from './outbound-address'

const none: never[] = []
const loopback = LOOPBACK_NETWORKS.map(parseNetwork)

/** The host a URL's parser hands the connection: what an outbound fetch of this URL would connect to. */
const hostOf = (url: string) => new URL(url).hostname

describe('which addresses an outbound fetch may reach (docs/protocol.md §4.3)', () => {
  it.each([
    // Public unicast
    ['8.8.8.8', true],
    ['93.184.215.14', true],
    ['2606:4700:4700::1111', true],
    ['[2a00:1450:4001:82b::200e]', true],
    // Loopback, every spelling
    ['127.0.0.1', false],
    ['127.255.255.254', false],
    ['::1', false],
    ['[::1]', false],
    ['0:0:0:0:0:0:0:1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['[::ffff:7f00:1]', false],
    // IPv4-compatible (deprecated), NAT64, 6to4 and Teredo forms embed an IPv4 address: refused
    ['::127.0.0.1', false],
    ['::7f00:1', false],
    ['64:ff9b::7f00:1', false],
    ['2002:7f00:1::', false],
    ['2001:0:7f00:1::', false],
    // RFC 1918, CGNAT, link-local, unique-local, multicast, unspecified, broadcast, documentation, reserved
    ['10.0.0.1', false],
    ['172.16.5.4', false],
    ['192.168.1.1', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:192.168.1.1', false],
    ['100.64.0.1', false],
    ['169.254.169.254', false],
    ['::ffff:169.254.169.254', false],
    ['fe80::1', false],
    ['fc00::1', false],
    ['fd12:3456::1', false],
    ['224.0.0.1', false],
    ['ff02::1', false],
    ['0.0.0.0', false],
    ['0.1.2.3', false],
    ['::', false],
    ['255.255.255.255', false],
    ['192.0.2.1', false],
    ['198.51.100.1', false],
    ['203.0.113.1', false],
    ['2001:db8::1', false],
    ['198.18.0.1', false],
    ['240.0.0.1', false],
    ['fec0::1', false],
    ['100::1', false],
    // Not an address at all
    ['localhost', false],
    ['wallet.example', false],
    ['', false],
  ])('%s → %s', (address, allowed) => {
    expect(isAllowedAddressText(address, none)).toBe(allowed)
  })

  it.each([
    ['http://2130706433/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://0x7f000001/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://017700000001/', '127.0.0.1'],
    ['http://127.0.0.1./', '127.0.0.1'],
    ['http://[::ffff:127.0.0.1]/', '127.0.0.1'],
    ['http://[0:0:0:0:0:ffff:7f00:1]/', '127.0.0.1'],
    ['http://167772161/', '10.0.0.1'],
    ['http://[::1]/', '::1'],
  ])('the URL %s connects to %s, which is refused', (url, address) => {
    expect(parseIpAddress(hostOf(url))?.toString()).toBe(address)
    expect(isAllowedAddressText(hostOf(url), none)).toBe(false)
  })

  it('lets the allowed networks through, and nothing next to them', () => {
    expect(isAllowedAddressText('127.0.0.1', loopback)).toBe(true)
    expect(isAllowedAddressText('::ffff:127.0.0.1', loopback)).toBe(true)
    expect(isAllowedAddressText('::1', loopback)).toBe(true)
    expect(isAllowedAddressText('10.0.0.1', loopback)).toBe(false)

    const internal = ['10.20.0.0/16', 'fd00:1234::/32'].map(parseNetwork)
    expect(isAllowedAddressText('10.20.3.4', internal)).toBe(true)
    expect(isAllowedAddressText('::ffff:10.20.3.4', internal)).toBe(true)
    expect(isAllowedAddressText('10.21.0.1', internal)).toBe(false)
    expect(isAllowedAddressText('fd00:1234::5', internal)).toBe(true)
    expect(isAllowedAddressText('fd00:1235::5', internal)).toBe(false)
    expect(isAllowedAddressText('127.0.0.1', internal)).toBe(false)
    // An IPv4-mapped network is the IPv4 network it maps; a single address is a /32.
    expect(isAllowedAddressText('192.168.7.9', ['::ffff:192.168.0.0/112'].map(parseNetwork))).toBe(true)
    expect(isAllowedAddressText('192.168.7.9', ['192.168.7.9'].map(parseNetwork))).toBe(true)
    expect(isAllowedAddressText('192.168.7.10', ['192.168.7.9'].map(parseNetwork))).toBe(false)
  })

  it.each(['10.0.0.0/33', 'fd00::/129', 'wallet.example', '10.0.0.0/', ''])('refuses %j as a network', (text) => {
    expect(() => parseNetwork(text)).toThrow()
  })
})
