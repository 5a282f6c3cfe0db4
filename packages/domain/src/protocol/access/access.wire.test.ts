import { describe, expect, it } from 'vitest'
import {
  AccessItemSchema,
  AccessListSchema,
  AmountSchema,
  IncomingAccessSchema,
  LimitsSchema,
  OutgoingAccessSchema,
  QuoteAccessSchema,
} from './access.wire'

const usd = { value: '500', assetCode: 'USD', assetScale: 2 }
const wallet = 'https://ilp.interledger-test.dev/alice'
const receiver = 'https://ilp.interledger-test.dev/incoming-payments/45a0d0ee-26dc-4c66-89e0-01fbf93156f7'

// auth-server.yaml post-request example "creating and reading recurring fixed payment".
const outgoingExample = {
  type: 'outgoing-payment',
  actions: ['create', 'read'],
  identifier: wallet,
  limits: { receiver, interval: 'R12/2019-08-24T14:15:22Z/P1M', debitAmount: usd },
}
// auth-server.yaml post-request example "creating and reading incoming payments".
const incomingExample = {
  type: 'incoming-payment',
  actions: ['create', 'read'],
  identifier: 'http://ilp.interledger-test.dev/bob',
}
const quoteExample = { type: 'quote', actions: ['create', 'read'] }

const firstMessage = (r: { success: boolean; error?: { issues: { message: string }[] } }) => r.error?.issues[0]?.message

describe('AmountSchema', () => {
  it.each([['0'], ['1'], ['500'], ['18446744073709551615']])('accepts value %j', (value) => {
    expect(AmountSchema.safeParse({ ...usd, value }).success).toBe(true)
  })

  it.each([
    ['18446744073709551616', 'one above uint64 max'],
    ['99999999999999999999', 'twenty nines'],
    ['100000000000000000000', 'twenty-one digits'],
    ['-1', 'negative'],
    ['+1', 'explicit sign'],
    ['1.5', 'fraction'],
    ['1e3', 'exponent'],
    ['', 'empty'],
    [' 1', 'leading space'],
    ['01', 'leading zero'],
    ['00', 'two zeros'],
    ['0x10', 'hex'],
    ['１', 'full-width digit'],
    [500, 'a number'],
    [null, 'null'],
  ])('refuses value %j (%s)', (value, _why) => {
    expect(AmountSchema.safeParse({ ...usd, value }).success).toBe(false)
  })

  it.each([
    ['18446744073709551616', 'must not exceed 18446744073709551615'],
    ['-1', 'must be an unsigned 64-bit integer as a decimal string'],
    [1000, 'must be a string of digits'],
  ])('explains why value %j is refused', (value, message) => {
    expect(firstMessage(AmountSchema.safeParse({ ...usd, value }))).toBe(message)
  })

  it.each([[0], [2], [255]])('accepts assetScale %j', (assetScale) => {
    expect(AmountSchema.safeParse({ ...usd, assetScale }).success).toBe(true)
  })

  it.each([[-1], [256], [1.5], ['2'], [null]])('refuses assetScale %j', (assetScale) => {
    expect(AmountSchema.safeParse({ ...usd, assetScale }).success).toBe(false)
  })

  it.each([[''], [3], [null]])('refuses assetCode %j', (assetCode) => {
    expect(AmountSchema.safeParse({ ...usd, assetCode }).success).toBe(false)
  })

  it.each([['USD'], ['EUR'], ['X'], ['USDC'], ['1INCH'], ['ABCDEFGHIJ012345']])('accepts the asset code %j', (assetCode) => {
    expect(AmountSchema.safeParse({ ...usd, assetCode }).success).toBe(true)
  })

  // Printed after the amount on the consent screen: nothing that could read as more of the sentence.
  it.each([
    ['usd'],
    ['Usd'],
    ['US D'],
    ['USD '],
    ['USD to Mallory every day'],
    ['USD\n'],
    ['ABCDEFGHIJ0123456'],
    ['US-D'],
    ['ÜSD'],
    ['ＵＳＤ'],
    ['USD\u202e'],
  ])('refuses the asset code %j (docs/protocol.md §6)', (assetCode) => {
    const parsed = AmountSchema.safeParse({ ...usd, assetCode })
    expect(parsed.success).toBe(false)
    expect(firstMessage(parsed)).toBe('must be 1 to 16 upper-case letters or digits')
  })

  it.each([['value'], ['assetCode'], ['assetScale']])('requires %s', (field) => {
    const amount: Record<string, unknown> = { ...usd }
    delete amount[field]
    const r = AmountSchema.safeParse(amount)
    expect(r.success).toBe(false)
    expect(r.error?.issues[0]?.path).toEqual([field])
    expect(firstMessage(r)).toBe('is required')
  })

  it('refuses unknown fields', () => {
    const r = AmountSchema.safeParse({ ...usd, currency: 'USD' })
    expect(r.success).toBe(false)
    expect(firstMessage(r)).toBe('unknown field "currency" in amount')
  })

  it('does not echo odd field names', () => {
    const r = AmountSchema.safeParse({ ...usd, '<script>': 1 })
    expect(firstMessage(r)).toBe('unknown field in amount')
  })
})

describe('LimitsSchema', () => {
  it.each([
    ['empty', {}],
    ['receiver only', { receiver }],
    ['http receiver', { receiver: 'http://ilp.interledger-test.dev/incoming-payments/08394f02' }],
    ['short receiver id', { receiver: 'https://ilp.interledger-test.dev/incoming-payments/1' }],
    ['interval only', { interval: 'R11/2022-08-24T14:15:22Z/P1M' }],
    ['debitAmount', { debitAmount: usd }],
    ['receiveAmount', { receiveAmount: usd }],
    ['all but one amount', { receiver, interval: 'R/2017-03-01T13:00:00Z/2018-05-11T15:30:00Z', receiveAmount: usd }],
  ])('accepts %s', (_name, limits) => {
    expect(LimitsSchema.safeParse(limits).success).toBe(true)
  })

  it('refuses both amounts with "only one access amount allowed"', () => {
    const r = LimitsSchema.safeParse({ debitAmount: usd, receiveAmount: usd })
    expect(r.success).toBe(false)
    expect(firstMessage(r)).toBe('only one access amount allowed')
  })

  it.each([
    ['not an incoming payment', 'https://ilp.interledger-test.dev/alice'],
    ['no id after incoming-payments/', 'https://ilp.interledger-test.dev/incoming-payments/'],
    ['ftp scheme', 'ftp://ilp.interledger-test.dev/incoming-payments/1'],
    ['relative', '/incoming-payments/1'],
    ['unparseable host', 'https://exa mple.com/incoming-payments/1'],
    ['whitespace', 'https://example.com/incoming-payments/1 2'],
    ['a number', 1],
  ])('refuses receiver: %s', (_name, value) => {
    expect(LimitsSchema.safeParse({ receiver: value }).success).toBe(false)
  })

  it.each([['P1M'], ['2019-08-24T14:15:22Z/P1M'], ['R12/2019-08-24T14:15:22Z/P0D'], [''], [12]])('refuses interval %j', (interval) => {
    expect(LimitsSchema.safeParse({ interval }).success).toBe(false)
  })

  it('refuses an invalid amount inside limits', () => {
    expect(LimitsSchema.safeParse({ debitAmount: { ...usd, value: '-1' } }).success).toBe(false)
  })

  it('refuses unknown fields', () => {
    expect(LimitsSchema.safeParse({ receiver, maxAmount: usd }).success).toBe(false)
  })
})

describe('access item schemas', () => {
  it.each([
    ['outgoing example', outgoingExample],
    ['outgoing without limits', { type: 'outgoing-payment', actions: ['list-all', 'read-all'], identifier: wallet }],
    ['incoming example', incomingExample],
    ['incoming without identifier', { type: 'incoming-payment', actions: ['create', 'complete', 'read', 'read-all', 'list', 'list-all'] }],
    ['quote example', quoteExample],
    ['quote with every action', { type: 'quote', actions: ['create', 'read', 'read-all'] }],
  ])('accepts %s', (_name, item) => {
    const r = AccessItemSchema.safeParse(item)
    expect(r.success).toBe(true)
    expect(r.data).toEqual(item)
  })

  it.each([
    ['unknown type', { type: 'subject', actions: ['read'] }, 'type must be incoming-payment, outgoing-payment or quote'],
    ['missing type', { actions: ['read'] }, 'type must be incoming-payment, outgoing-payment or quote'],
    ['not an object', 'incoming-payment', 'access item must be an object'],
    ['array as item', [], 'access item must be an object'],
    ['outgoing without identifier', { type: 'outgoing-payment', actions: ['create'] }, 'is required'],
    ['quote with identifier', { ...quoteExample, identifier: wallet }, 'unknown field "identifier" in quote access'],
    ['quote with limits', { ...quoteExample, limits: {} }, 'unknown field "limits" in quote access'],
    ['incoming with limits', { ...incomingExample, limits: {} }, 'unknown field "limits" in incoming-payment access'],
    ['unknown field', { ...outgoingExample, extra: true }, 'unknown field "extra" in outgoing-payment access'],
    ['no actions field', { type: 'quote' }, 'is required'],
    ['empty actions', { type: 'quote', actions: [] }, 'at least one action is required'],
    ['actions not an array', { type: 'quote', actions: 'create' }, 'must be an array of actions'],
    ['duplicate actions', { type: 'quote', actions: ['read', 'read'] }, 'actions must be unique'],
    ['complete on outgoing', { ...outgoingExample, actions: ['complete'] }, 'action not allowed for outgoing-payment'],
    ['list on quote', { type: 'quote', actions: ['list'] }, 'action not allowed for quote'],
    ['unknown action', { ...incomingExample, actions: ['delete'] }, 'action not allowed for incoming-payment'],
    ['relative identifier', { ...incomingExample, identifier: '/bob' }, 'must be an absolute http(s) URL'],
    ['ftp identifier', { ...outgoingExample, identifier: 'ftp://example.com/alice' }, 'must be an absolute http(s) URL'],
    ['identifier without host', { ...outgoingExample, identifier: 'https:///alice' }, 'must be an absolute http(s) URL'],
    ['identifier with a space', { ...outgoingExample, identifier: 'https://example.com/al ice' }, 'must be an absolute http(s) URL'],
    ['identifier not a string', { ...outgoingExample, identifier: 42 }, 'must be a string'],
    ['both amounts', { ...outgoingExample, limits: { debitAmount: usd, receiveAmount: usd } }, 'only one access amount allowed'],
  ])('refuses %s', (_name, item, message) => {
    const r = AccessItemSchema.safeParse(item)
    expect(r.success).toBe(false)
    expect(firstMessage(r)).toBe(message)
  })

  it('keeps the per-type schemas usable on their own', () => {
    expect(IncomingAccessSchema.safeParse(incomingExample).success).toBe(true)
    expect(OutgoingAccessSchema.safeParse(outgoingExample).success).toBe(true)
    expect(QuoteAccessSchema.safeParse(quoteExample).success).toBe(true)
    expect(QuoteAccessSchema.safeParse(incomingExample).success).toBe(false)
  })

  it('reports the path of a nested failure', () => {
    const r = AccessListSchema.safeParse([{ ...outgoingExample, limits: { debitAmount: { ...usd, value: '1.5' } } }])
    expect(r.error?.issues[0]?.path).toEqual([0, 'limits', 'debitAmount', 'value'])
  })
})

describe('AccessListSchema', () => {
  it.each([
    ['one item', [outgoingExample]],
    ['three items of different types', [outgoingExample, incomingExample, quoteExample]],
    ['same type, different actions', [quoteExample, { type: 'quote', actions: ['read-all'] }]],
    ['same actions in another order', [quoteExample, { type: 'quote', actions: ['read', 'create'] }]],
  ])('accepts %s', (_name, list) => {
    expect(AccessListSchema.safeParse(list).success).toBe(true)
  })

  it.each([
    ['empty', [], 'at least one access item is required'],
    ['4 items', [outgoingExample, incomingExample, quoteExample, { type: 'quote', actions: ['read-all'] }], 'at most 3 access items are allowed'],
    ['duplicate items', [quoteExample, quoteExample], 'access items must be unique'],
    [
      'duplicate items with keys in another order',
      [
        outgoingExample,
        {
          limits: { debitAmount: { assetScale: 2, assetCode: 'USD', value: '500' }, interval: outgoingExample.limits.interval, receiver },
          identifier: wallet,
          actions: ['create', 'read'],
          type: 'outgoing-payment',
        },
      ],
      'access items must be unique',
    ],
    ['not an array', { type: 'quote', actions: ['create'] }, 'must be an array of access items'],
  ])('refuses %s', (_name, list, message) => {
    const r = AccessListSchema.safeParse(list)
    expect(r.success).toBe(false)
    expect(firstMessage(r)).toBe(message)
  })
})
