// Which X-Forwarded-For entry is the caller (docs/protocol.md §7): proxies append, so only the right-hand entries are
// theirs; a caller can write anything to the left. No server is needed: this is the one function that decides it.
import { describe, expect, it } from 'vitest'
import { callerIp } from '../src/server/edge/caller-ip'

const request = (xff?: string) => new Request('http://127.0.0.1/', xff === undefined ? {} : { headers: { 'x-forwarded-for': xff } })
const behind = (hops: number) => ({ trustProxy: true, trustedProxyHops: hops })

describe('callerIp', () => {
  it('without TRUST_PROXY the address is unknown, whatever the header says', () => {
    expect(callerIp(request('203.0.113.7'), { trustProxy: false, trustedProxyHops: 1 })).toBeNull()
  })

  it('behind one proxy takes the right-most entry: a forged left-most entry is ignored', () => {
    expect(callerIp(request('1.2.3.4, 9.9.9.9'), behind(1))).toBe('9.9.9.9')
    expect(callerIp(request('198.51.100.9, 1.2.3.4, 9.9.9.9'), behind(1))).toBe('9.9.9.9')
    expect(callerIp(request('9.9.9.9'), behind(1))).toBe('9.9.9.9')
  })

  it('behind two proxies takes the second entry from the right', () => {
    expect(callerIp(request('1.2.3.4, 203.0.113.7, 10.0.0.2'), behind(2))).toBe('203.0.113.7')
    // Fewer entries than hops: the left-most there is.
    expect(callerIp(request('203.0.113.7'), behind(2))).toBe('203.0.113.7')
  })

  it('reads IPv6 and repeated header lines, and refuses what is no address', () => {
    expect(callerIp(request('1.2.3.4, 2001:DB8::1'), behind(1))).toBe('2001:db8::1')
    const twoLines = new Request('http://127.0.0.1/', {
      headers: [
        ['x-forwarded-for', '1.2.3.4'],
        ['x-forwarded-for', '9.9.9.9'],
      ],
    })
    expect(callerIp(twoLines, behind(1))).toBe('9.9.9.9')
    expect(callerIp(request('1.2.3.4, not-an-address'), behind(1))).toBeNull()
    expect(callerIp(request(''), behind(1))).toBeNull()
    expect(callerIp(request(), behind(1))).toBeNull()
  })
})
