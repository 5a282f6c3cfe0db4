import { describe, expect, it } from 'vitest'
import { canonicalWalletAddress } from './canonical-wallet-address'
import { parseGrantRequest } from '../grant/grant.wire'
import { parseIntrospectRequest } from '../access-token/access-token.wire'
import { gnapError } from '../../testing/deps'

describe('canonicalWalletAddress', () => {
  it.each([
    ['https://wallet.example/alice', 'https://wallet.example/alice'],
    ['https://WALLET.EXAMPLE/alice', 'https://wallet.example/alice'],
    ['HTTPS://wallet.example/alice', 'https://wallet.example/alice'],
    ['https://wallet.example:443/alice', 'https://wallet.example/alice'],
    ['http://wallet.example:80/alice', 'http://wallet.example/alice'],
    ['https://wallet.example/alice/', 'https://wallet.example/alice'],
    ['https://wallet.example/', 'https://wallet.example'],
    ['https://wallet.example/./alice', 'https://wallet.example/alice'],
    ['https://wallet.example/x/../alice', 'https://wallet.example/alice'],
    ['https://wallet.example/x/%2e%2E/alice', 'https://wallet.example/alice'],
    ['https://wallet.example/%61lice', 'https://wallet.example/alice'],
    ['https://wallet.example/al%7eice', 'https://wallet.example/al~ice'],
    ['https://wallet.example/a%2fb%c3%a4', 'https://wallet.example/a%2Fb%C3%A4'],
    ['https://wallet.example/ä', 'https://wallet.example/%C3%A4'],
    ['https://wället.example/alice', 'https://xn--wllet-gra.example/alice'],
    ['https://wallet.example:8443/alice', 'https://wallet.example:8443/alice'],
  ])('writes %s as %s, and that form as itself', (input, canonical) => {
    expect(canonicalWalletAddress(input)).toBe(canonical)
    expect(canonicalWalletAddress(canonical)).toBe(canonical)
  })

  it.each([
    'https://wallet.example/alice?',
    'https://wallet.example/alice?x=1',
    'https://wallet.example/alice#',
    'https://wallet.example/alice#me',
    'https://user@wallet.example/alice',
    'https://user:pw@wallet.example/alice',
    'https:///alice',
    'ftp://wallet.example/alice',
    '/alice',
    'https://wallet.example/al ice',
    ' https://wallet.example/alice',
    'https://wallet.example/alice\n',
  ])('refuses %j', (input) => {
    expect(canonicalWalletAddress(input)).toBeNull()
  })
})

const access = (identifier: string) => [{ type: 'outgoing-payment', actions: ['create'], identifier }]

describe('identifiers where requests are parsed', () => {
  it('a grant request carries its identifiers in the canonical form', () => {
    const parsed = parseGrantRequest({
      access_token: { access: access('https://WALLET.example:443/x/../alice/') },
      client: 'https://Wallet.Example/app/',
    })
    expect(parsed.access[0]).toMatchObject({ identifier: 'https://wallet.example/alice' })
  })

  it('refuses two items that differ only in the spelling of their identifier', () => {
    const items = [...access('https://wallet.example/alice'), ...access('https://WALLET.example/alice')]
    expect(() => parseGrantRequest({ access_token: { access: items }, client: 'https://wallet.example/app' })).toThrow(
      expect.objectContaining({ ...gnapError('invalid_request', 400), message: expect.stringContaining('unique') }),
    )
  })

  it.each(['https://wallet.example/alice?', 'https://wallet.example/alice#x', 'https://u@wallet.example/alice'])(
    'refuses an identifier with a query, fragment or credentials (%s): 400 invalid_request',
    (identifier) => {
      expect(() => parseGrantRequest({ access_token: { access: access(identifier) }, client: 'https://wallet.example/app' })).toThrow(
        expect.objectContaining(gnapError('invalid_request', 400)),
      )
      expect(() => parseIntrospectRequest({ access_token: 'x', access: access(identifier) })).toThrow(
        expect.objectContaining(gnapError('invalid_request', 400)),
      )
    },
  )

  it('an introspection request names its identifiers in the canonical form', () => {
    expect(parseIntrospectRequest({ access_token: 'x', access: access('https://WALLET.example/alice/') }).access).toEqual(
      access('https://wallet.example/alice'),
    )
  })
})
