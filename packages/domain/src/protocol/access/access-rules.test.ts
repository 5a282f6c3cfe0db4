import { describe, expect, it } from 'vitest'
import { canonicalJson, matchAccess, needsInteraction } from './access-rules'
import type { AccessItem } from './access.wire'

const wallet = 'https://ilp.interledger-test.dev/alice'
const otherWallet = 'https://ilp.interledger-test.dev/bob'
const receiver = 'https://ilp.interledger-test.dev/bob/incoming-payments/48884225-b393-4872-90de-1b737e2491c2'
const usd = { value: '500', assetCode: 'USD', assetScale: 2 }

const incoming = (actions: AccessItem['actions'], identifier?: string): AccessItem =>
  ({ type: 'incoming-payment', actions, ...(identifier ? { identifier } : {}) }) as AccessItem
const quote = (actions: AccessItem['actions']): AccessItem => ({ type: 'quote', actions }) as AccessItem
const outgoing = (
  actions: AccessItem['actions'],
  identifier = wallet,
  limits?: Extract<AccessItem, { type: 'outgoing-payment' }>['limits'],
): AccessItem => ({ type: 'outgoing-payment', actions, identifier, ...(limits ? { limits } : {}) }) as AccessItem

describe('needsInteraction (docs/protocol.md §6 interaction rule)', () => {
  const defaults = { incomingPaymentInteraction: false, quoteInteraction: false, listAllInteraction: true }

  it.each([
    ['incoming-payment, defaults', [incoming(['create', 'read'])], defaults, false],
    ['quote, defaults', [quote(['create'])], defaults, false],
    ['incoming-payment + quote, defaults', [incoming(['create']), quote(['create', 'read-all'])], defaults, false],
    ['outgoing-payment, defaults', [outgoing(['create'])], defaults, true],
    [
      'outgoing-payment, nothing forced',
      [outgoing(['read'])],
      { incomingPaymentInteraction: false, quoteInteraction: false, listAllInteraction: false },
      true,
    ],
    ['one outgoing-payment among others', [incoming(['create']), quote(['create']), outgoing(['read'])], defaults, true],
    ['incoming-payment with INCOMING_PAYMENT_INTERACTION', [incoming(['create'])], { ...defaults, incomingPaymentInteraction: true }, true],
    ['quote unaffected by INCOMING_PAYMENT_INTERACTION', [quote(['create'])], { ...defaults, incomingPaymentInteraction: true }, false],
    ['quote with QUOTE_INTERACTION', [quote(['create'])], { ...defaults, quoteInteraction: true }, true],
    ['incoming-payment unaffected by QUOTE_INTERACTION', [incoming(['create'])], { ...defaults, quoteInteraction: true }, false],
    ['incoming-payment list-all with LIST_ALL_ACCESS_INTERACTION', [incoming(['list-all'])], defaults, true],
    ['incoming-payment list-all without LIST_ALL_ACCESS_INTERACTION', [incoming(['list-all'])], { ...defaults, listAllInteraction: false }, false],
    ['incoming-payment list (not list-all) with LIST_ALL_ACCESS_INTERACTION', [incoming(['list', 'read-all'])], defaults, false],
    ['one list-all item among skipping items', [quote(['create']), incoming(['create', 'list-all'])], defaults, true],
    ['no items', [], defaults, false],
  ])('%s → %s', (_name, items, rules, expected) => {
    expect(needsInteraction(items, rules)).toBe(expected)
  })
})

describe('matchAccess (docs/protocol.md §6 introspection matching)', () => {
  const limits = { receiver, interval: 'R12/2019-08-24T14:15:22Z/P1M', debitAmount: usd }
  // Same limits, keys written in another order.
  const limitsReordered = {
    debitAmount: { assetScale: 2, assetCode: 'USD', value: '500' },
    interval: 'R12/2019-08-24T14:15:22Z/P1M',
    receiver,
  }

  it.each<[string, AccessItem[], AccessItem[], AccessItem[]]>([
    ['same item', [outgoing(['create', 'read'])], [outgoing(['create', 'read'])], [outgoing(['create', 'read'])]],
    ['subset of actions', [outgoing(['create', 'read', 'list'])], [outgoing(['read'])], [outgoing(['create', 'read', 'list'])]],
    ['read satisfied by read-all', [incoming(['read-all'])], [incoming(['read'])], [incoming(['read-all'])]],
    ['list satisfied by list-all', [incoming(['list-all'])], [incoming(['list'])], [incoming(['list-all'])]],
    ['read-all not satisfied by read', [incoming(['read'])], [incoming(['read-all'])], []],
    ['list-all not satisfied by list', [incoming(['list'])], [incoming(['list-all'])], []],
    ['missing action', [quote(['read'])], [quote(['create'])], []],
    ['one of two actions missing', [quote(['read'])], [quote(['read', 'create'])], []],
    ['other type', [quote(['create'])], [incoming(['create'])], []],
    ['limits deep-equal', [outgoing(['create'], wallet, limits)], [outgoing(['create'], wallet, limits)], [outgoing(['create'], wallet, limits)]],
    [
      'limits deep-equal, keys in another order',
      [outgoing(['create'], wallet, limits)],
      [outgoing(['create'], wallet, limitsReordered)],
      [outgoing(['create'], wallet, limits)],
    ],
    [
      'limits differ',
      [outgoing(['create'], wallet, limits)],
      [outgoing(['create'], wallet, { ...limits, debitAmount: { ...usd, value: '501' } })],
      [],
    ],
    ['limits requested, none granted', [outgoing(['create'])], [outgoing(['create'], wallet, limits)], []],
    ['limits requested as a subset of granted', [outgoing(['create'], wallet, limits)], [outgoing(['create'], wallet, { receiver })], []],
    [
      'no limits requested, granted has limits',
      [outgoing(['create'], wallet, limits)],
      [outgoing(['create'])],
      [outgoing(['create'], wallet, limits)],
    ],
    ['identifier equal', [incoming(['read'], wallet)], [incoming(['read'], wallet)], [incoming(['read'], wallet)]],
    ['identifier differs', [outgoing(['read'], wallet)], [outgoing(['read'], otherWallet)], []],
    ['identifier only granted', [incoming(['read'], wallet)], [incoming(['read'])], [incoming(['read'], wallet)]],
    ['identifier only requested', [incoming(['read'])], [incoming(['read'], wallet)], [incoming(['read'])]],
    [
      'first granted item of the type decides, even when a later one would match',
      [incoming(['create'], wallet), incoming(['read'], wallet)],
      [incoming(['read'])],
      [],
    ],
    ['first granted item of the type is returned', [quote(['create', 'read']), quote(['read'])], [quote(['read'])], [quote(['create', 'read'])]],
    [
      'order of the requested items, unmatched skipped',
      [outgoing(['create']), incoming(['read']), quote(['create'])],
      [quote(['create']), incoming(['complete']), outgoing(['create'])],
      [quote(['create']), outgoing(['create'])],
    ],
    ['nothing requested', [quote(['create'])], [], []],
    ['nothing granted', [], [quote(['create'])], []],
  ])('%s', (_name, granted, requested, expected) => {
    expect(matchAccess(granted, requested)).toEqual(expected)
  })

  it('returns the stored item, not the requested one', () => {
    const stored = incoming(['read-all', 'create'], wallet)
    const [match] = matchAccess([stored], [incoming(['read'])])
    expect(match).toBe(stored)
  })

  it('returns a granted item once when two requested items match it', () => {
    const stored = quote(['create', 'read'])
    expect(matchAccess([stored], [quote(['create']), quote(['read'])])).toEqual([stored])
  })
})

describe('canonicalJson', () => {
  it.each([
    ['sorts keys at every depth', { b: 1, a: { d: [2, 1], c: null } }, '{"a":{"c":null,"d":[2,1]},"b":1}'],
    ['keeps array order', [{ y: 1, x: 2 }, 3], '[{"x":2,"y":1},3]'],
    ['leaves out undefined properties', { a: 1, b: undefined }, '{"a":1}'],
    ['keeps a "__proto__" key as data', JSON.parse('{"__proto__":{"x":1},"a":2}') as unknown, '{"__proto__":{"x":1},"a":2}'],
    ['scalars', 'x', '"x"'],
  ])('%s', (_name, value, expected) => {
    expect(canonicalJson(value)).toBe(expected)
  })

  it('is equal for objects that differ only in key order', () => {
    expect(canonicalJson({ a: 1, b: [1, 2] })).toBe(canonicalJson({ b: [1, 2], a: 1 }))
    expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }))
  })
})
