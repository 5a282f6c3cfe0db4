import { describe, expect, it } from 'vitest'
import { finishHash } from './finish-hash'
import { withQuery } from './front-channel'

// docs/protocol.md §5, the test vector of RFC 9635 §4.2.3.
const vector = {
  clientNonce: 'VJLO6A4CATR0KRO',
  asNonce: 'MBDOFXG4Y5CVJCX821LH',
  interactRef: '4IFWWIKYB2PQ6U56NL1',
  grantEndpoint: 'https://server.example.com/tx',
}

const toBase64Url = (b64: string) => b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')

describe('finishHash (docs/protocol.md §5)', () => {
  it('gives the RFC test vector in standard base64 with padding', () => {
    expect(finishHash(vector)).toBe('x+gguKWTj8rQf7d7i3w3UhzvuJ5bpOlKyAlVpLxBffY=')
  })

  it('is the RFC form once turned into base64url without padding', () => {
    expect(toBase64Url(finishHash(vector))).toBe('x-gguKWTj8rQf7d7i3w3UhzvuJ5bpOlKyAlVpLxBffY')
  })

  it('is URL-encoded in the finish redirect', () => {
    const location = withQuery('https://client.example/finish', { hash: finishHash(vector) })
    expect(location).toBe('https://client.example/finish?hash=x%2BgguKWTj8rQf7d7i3w3UhzvuJ5bpOlKyAlVpLxBffY%3D')
    expect(new URL(location).searchParams.get('hash')).toBe('x+gguKWTj8rQf7d7i3w3UhzvuJ5bpOlKyAlVpLxBffY=')
  })

  it.each([
    ['client nonce', { clientNonce: 'VJLO6A4CATR0KRP' }],
    ['AS nonce', { asNonce: 'MBDOFXG4Y5CVJCX821LI' }],
    ['interact_ref', { interactRef: '4IFWWIKYB2PQ6U56NL2' }],
    ['grant endpoint', { grantEndpoint: 'https://server.example.com/tx/' }],
  ])('changes when the %s changes', (_name, change) => {
    expect(finishHash({ ...vector, ...change })).not.toBe(finishHash(vector))
  })

  it('takes the lines in the order client nonce, AS nonce, interact_ref, grant endpoint', () => {
    const swapped = { ...vector, clientNonce: vector.asNonce, asNonce: vector.clientNonce }
    expect(finishHash(swapped)).not.toBe(finishHash(vector))
  })
})
