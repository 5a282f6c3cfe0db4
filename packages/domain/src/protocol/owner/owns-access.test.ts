import { describe, expect, it } from 'vitest'
import { ownsAccess } from './owns-access'

describe('ownsAccess', () => {
  const alice = ['https://wallet.example/alice']
  it.each<[string, boolean, string[], (string | null)[]]>([
    ['the exact wallet address', true, alice, ['https://wallet.example/alice']],
    ['a resource below it', true, alice, ['https://wallet.example/alice/incoming-payments/123']],
    ['the wallet address with a trailing slash', true, alice, ['https://wallet.example/alice/']],
    ['one of several wallet addresses', true, ['https://wallet.example/bob', ...alice], ['https://wallet.example/alice']],
    [
      'every named item owned, across wallet addresses',
      true,
      ['https://wallet.example/alice', 'https://pay.example/al'],
      ['https://wallet.example/alice', 'https://pay.example/al/x'],
    ],
    ['items without identifier beside an owned one', true, alice, [null, 'https://wallet.example/alice', null]],
    ['a longer name with the same prefix (not a path boundary)', false, alice, ['https://wallet.example/alice2']],
    ['a longer name with the same prefix, below it', false, alice, ['https://wallet.example/alice2/incoming-payments']],
    ['a dash after the name', false, alice, ['https://wallet.example/alice-and-bob']],
    ['the parent path', false, alice, ['https://wallet.example']],
    ['another host', false, alice, ['https://wallet.example.evil/alice']],
    ['http instead of https', false, alice, ['http://wallet.example/alice']],
    ['a query string on the wallet address', false, alice, ['https://wallet.example/alice?as=bob']],
    ['dot segments that stay inside the wallet address', true, alice, ['https://wallet.example/alice/x/../incoming-payments']],
    ['the host in upper case', true, alice, ['https://WALLET.example/alice']],
    ['a dot segment up to the parent', false, alice, ['https://wallet.example/alice/..']],
    ['not a URL', false, alice, ['wallet.example/alice']],
    ['dot segments climbing out of the wallet address', false, alice, ['https://wallet.example/alice/../bob']],
    ['encoded dot segments climbing out of the wallet address', false, alice, ['https://wallet.example/alice/%2e%2e/bob']],
    ['one owned and one not', false, alice, ['https://wallet.example/alice', 'https://wallet.example/bob']],
    ['only items without identifier', false, alice, [null, null]],
    ['no items', false, alice, []],
    ['an owner without wallet addresses', false, [], ['https://wallet.example/alice']],
  ])('%s → %s', (_name, expected, walletAddresses, identifiers) => {
    expect(ownsAccess(walletAddresses, identifiers)).toBe(expected)
  })
})
