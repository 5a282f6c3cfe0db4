import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { AccessItem, Amount } from './access.wire'
import { AccessItemSchema } from './access.wire'
import { describeAccessItem, describeActions, describeInterval, formatAmount } from './describe-access'

const MAX = '18446744073709551615' // uint64 max, the largest value the contract allows

describe('formatAmount', () => {
  it.each([
    // value, assetCode, assetScale, shown
    ['2500', 'USD', 2, '25.00 USD'],
    ['2500', 'USD', 0, '2,500 USD'],
    ['5', 'USD', 3, '0.005 USD'],
    ['5', 'USD', 2, '0.05 USD'],
    ['500', 'USD', 2, '5.00 USD'],
    ['99', 'USD', 2, '0.99 USD'],
    ['100', 'USD', 2, '1.00 USD'],
    ['999', 'USD', 3, '0.999 USD'],
    ['1000', 'USD', 3, '1.000 USD'],
    ['0', 'USD', 0, '0 USD'],
    ['0', 'USD', 2, '0.00 USD'],
    ['0', 'XRP', 9, '0.000000000 XRP'],
    ['999', 'JPY', 0, '999 JPY'],
    ['1000', 'JPY', 0, '1,000 JPY'],
    ['999999', 'JPY', 0, '999,999 JPY'],
    ['1000000', 'JPY', 0, '1,000,000 JPY'],
    ['123456789', 'USD', 2, '1,234,567.89 USD'],
    ['100000000', 'EUR', 2, '1,000,000.00 EUR'],
    ['1234567890', 'MXN', 4, '123,456.7890 MXN'],
    ['1000000000000000000', 'ETH', 18, '1.000000000000000000 ETH'],
    ['1', 'ETH', 18, '0.000000000000000001 ETH'],
    ['1234567890123456789', 'ETH', 18, '1.234567890123456789 ETH'],
    [MAX, 'USD', 0, '18,446,744,073,709,551,615 USD'],
    [MAX, 'USD', 2, '184,467,440,737,095,516.15 USD'],
    [MAX, 'ETH', 18, '18.446744073709551615 ETH'],
    [MAX, 'X', 19, '1.8446744073709551615 X'],
    [MAX, 'X', 20, '0.18446744073709551615 X'],
    ['1', 'X', 255, `0.${'0'.repeat(254)}1 X`],
    ['0', 'X', 255, `0.${'0'.repeat(255)} X`],
    [MAX, 'X', 255, `0.${'0'.repeat(255 - MAX.length)}${MAX} X`],
  ])('%s %s at scale %i → %s', (value, assetCode, assetScale, shown) => {
    expect(formatAmount({ value, assetCode, assetScale })).toBe(shown)
  })

  it('keeps every digit: removing the separators gives back the value, scaled exactly', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: BigInt(MAX) }), fc.integer({ min: 0, max: 255 }), (v, scale) => {
        const shown = formatAmount({ value: v.toString(), assetCode: 'USD', assetScale: scale })
        expect(shown).toMatch(/^\d{1,3}(,\d{3})*(\.\d+)? USD$/)
        const number = shown.replace(/ USD$/, '')
        const [whole = '', fraction = ''] = number.replace(/,/g, '').split('.')
        expect(fraction.length).toBe(scale)
        expect(BigInt(whole + fraction)).toBe(v)
      }),
    )
  })

  it.each([
    ['1.5', 2],
    ['-1', 2],
    ['12', -1],
    ['12', 1.5],
  ])('shows a value it cannot scale (%s at scale %s) as given instead of throwing', (value, assetScale) => {
    expect(formatAmount({ value, assetCode: 'USD', assetScale } as Amount)).toBe(`${value} USD`)
  })
})

describe('describeInterval', () => {
  // Every duration unit and combinations, each with no end so only the duration varies.
  it.each([
    ['P1Y', 'year'],
    ['P2Y', '2 years'],
    ['P1M', 'month'],
    ['P3M', '3 months'],
    ['P1W', 'week'],
    ['P2W', '2 weeks'],
    ['P1D', 'day'],
    ['P10D', '10 days'],
    ['P1000D', '1,000 days'],
    ['PT1H', 'hour'],
    ['PT12H', '12 hours'],
    ['PT1M', 'minute'],
    ['PT30M', '30 minutes'],
    ['PT90M', '90 minutes'],
    ['PT1S', 'second'],
    ['PT45S', '45 seconds'],
    ['PT1.5S', '1.5 seconds'],
    ['PT1,5S', '1.5 seconds'],
    ['PT0.25S', '0.25 seconds'],
    ['PT0.001S', '0.001 seconds'],
    ['P1Y0M', 'year'],
    ['P0Y1M', 'month'],
    ['P1M10D', '1 month and 10 days'],
    ['P2W3D', '2 weeks and 3 days'],
    ['P1DT12H', '1 day and 12 hours'],
    ['PT1H1M1S', '1 hour, 1 minute and 1 second'],
    ['P1Y2M10DT2H30M', '1 year, 2 months, 10 days, 2 hours and 30 minutes'],
    ['P1Y1M1W1DT1H1M1S', '1 year, 1 month, 1 week, 1 day, 1 hour, 1 minute and 1 second'],
  ])('writes %s as "every %s"', (duration, words) => {
    expect(describeInterval(`R/2026-12-01T00:00:00Z/${duration}`)).toBe(`every ${words} from 1 December 2026, with no end`)
  })

  // docs/protocol.md §6: R<n> = n repetitions after the first period, so n + 1 periods in all; R and R-1 have no end.
  // Form <start>/<duration>: "every D from S, for (n+1)×D"; R0 "during the D from S"; R/R-1 "…, with no end".
  // Form <start>/<end>: R0 "between S and E"; otherwise as above with D = the time from S to E.
  // Form <duration>/<end>: "every D, for (n+1)×D ending E"; R0 "during the D ending E"; R/R-1 "every D, ending E".
  it.each([
    // auth-server.yaml components.schemas.interval.examples
    ['R11/2022-08-24T14:15:22Z/P1M', 'every month from 24 August 2022 at 14:15:22 UTC, for 12 months'],
    [
      'R/2017-03-01T13:00:00Z/2018-05-11T15:30:00Z',
      'every 1 year, 2 months, 10 days, 2 hours and 30 minutes from 1 March 2017 at 13:00 UTC, with no end',
    ],
    ['R-1/P1Y2M10DT2H30M/2022-05-11T15:30:00Z', 'every 1 year, 2 months, 10 days, 2 hours and 30 minutes, ending 11 May 2022 at 15:30 UTC'],
    // <start>/<duration>, what clients send
    ['R12/2026-12-01T00:00:00Z/P1M', 'every month from 1 December 2026, for 13 months'],
    ['R12/2019-08-24T14:15:22Z/P1M', 'every month from 24 August 2019 at 14:15:22 UTC, for 13 months'],
    ['R1/2026-12-01T00:00:00Z/P1M', 'every month from 1 December 2026, for 2 months'],
    ['R1/2026-12-01T00:00:00Z/P2W', 'every 2 weeks from 1 December 2026, for 4 weeks'],
    ['R11/2026-12-01T00:00:00Z/P1M', 'every month from 1 December 2026, for 12 months'],
    ['R12/2026-12-01T00:00:00Z/P2M', 'every 2 months from 1 December 2026, for 26 months'],
    ['R6/2026-12-01T00:00:00Z/P1D', 'every day from 1 December 2026, for 7 days'],
    ['R1/2026-12-01T00:00:00Z/PT12H', 'every 12 hours from 1 December 2026, for 24 hours'],
    ['R1000/2026-12-01T00:00:00Z/PT1M', 'every minute from 1 December 2026, for 1,001 minutes'],
    ['R2/2026-12-01T00:00:00Z/PT1.5S', 'every 1.5 seconds from 1 December 2026, for 4.5 seconds'],
    ['R39/2026-12-01T00:00:00Z/PT1.5S', 'every 1.5 seconds from 1 December 2026, for 60 seconds'],
    [
      'R2/2026-12-01T00:00:00Z/P1Y2M10DT2H30M',
      'every 1 year, 2 months, 10 days, 2 hours and 30 minutes from 1 December 2026, ' + 'for 3 years, 6 months, 30 days, 7 hours and 30 minutes',
    ],
    // A mix of units carries the fixed-size ones upwards; a single unit is simply multiplied (rows above).
    ['R1/2026-12-01T00:00:00Z/PT1H45M', 'every 1 hour and 45 minutes from 1 December 2026, for 3 hours and 30 minutes'],
    ['R1/2026-12-01T00:00:00Z/PT1M30.5S', 'every 1 minute and 30.5 seconds from 1 December 2026, for 3 minutes and 1 second'],
    ['R3/2026-12-01T00:00:00Z/P1DT12H', 'every 1 day and 12 hours from 1 December 2026, for 6 days'],
    ['R3/2026-12-01T00:00:00Z/P1Y3M', 'every 1 year and 3 months from 1 December 2026, for 5 years'],
    ['R1/2026-12-01T00:00:00Z/P1W4D', 'every 1 week and 4 days from 1 December 2026, for 2 weeks and 8 days'],
    ['R9007199254740990/2026-12-01T00:00:00Z/P1D', 'every day from 1 December 2026, for 9,007,199,254,740,991 days'],
    ['R0/2026-12-01T00:00:00Z/P1W', 'during the week from 1 December 2026'],
    ['R0/2026-12-01T00:00:00Z/P2W', 'during the 2 weeks from 1 December 2026'],
    ['R0/2026-12-01T00:00:00Z/P1M10D', 'during the 1 month and 10 days from 1 December 2026'],
    ['R/2026-12-01T00:00:00Z/P1D', 'every day from 1 December 2026, with no end'],
    ['R-1/2026-12-01T00:00:00Z/P1D', 'every day from 1 December 2026, with no end'],
    // <start>/<end>
    ['R0/2026-12-01T00:00:00Z/2026-12-08T00:00:00Z', 'between 1 December 2026 and 8 December 2026'],
    ['R0/2017-03-01T13:00:00Z/2018-05-11T15:30:00Z', 'between 1 March 2017 at 13:00 UTC and 11 May 2018 at 15:30 UTC'],
    ['R3/2026-12-01T00:00:00Z/2026-12-08T00:00:00Z', 'every 7 days from 1 December 2026, for 28 days'],
    ['R1/2026-01-01T00:00:00Z/2026-02-01T00:00:00Z', 'every month from 1 January 2026, for 2 months'],
    ['R-1/2026-01-01T00:00:00Z/2027-01-01T00:00:00Z', 'every year from 1 January 2026, with no end'],
    ['R/2026-01-01T00:00:00Z/2026-01-01T00:00:01.5Z', 'every 1.5 seconds from 1 January 2026, with no end'],
    // <duration>/<end>
    ['R0/P1M/2026-12-01T00:00:00Z', 'during the month ending 1 December 2026'],
    ['R12/P1M/2026-12-01T00:00:00Z', 'every month, for 13 months ending 1 December 2026'],
    ['R2/PT30M/2019-08-24T14:15:22Z', 'every 30 minutes, for 90 minutes ending 24 August 2019 at 14:15:22 UTC'],
    ['R/P1W/2026-12-01T00:00:00Z', 'every week, ending 1 December 2026'],
    ['R-1/P1W/2026-12-01T00:00:00Z', 'every week, ending 1 December 2026'],
  ])('%s → %s', (interval, words) => {
    expect(describeInterval(interval)).toBe(words)
  })

  // Dates are written in UTC; the time is added only when it is not midnight.
  it.each([
    ['2026-12-01T00:00:00Z', '1 December 2026'],
    ['2026-12-01', '1 December 2026'],
    ['20261201T000000Z', '1 December 2026'],
    ['2026-12-01T00:00:00', '1 December 2026'],
    ['2026-12-01T14:15:00Z', '1 December 2026 at 14:15 UTC'],
    ['2026-12-01T14:15Z', '1 December 2026 at 14:15 UTC'],
    ['20261201T141500Z', '1 December 2026 at 14:15 UTC'],
    ['2026-12-01T00:00:30Z', '1 December 2026 at 00:00:30 UTC'],
    ['2026-12-01T09:05:07Z', '1 December 2026 at 09:05:07 UTC'],
    ['2026-12-01T14:15:00.5Z', '1 December 2026 at 14:15:00.500 UTC'],
    ['2026-12-01T23:59:59Z', '1 December 2026 at 23:59:59 UTC'],
    ['2026-12-01T01:30:00+02:00', '30 November 2026 at 23:30 UTC'],
    ['2026-12-31T22:00:00-02:00', '1 January 2027'],
    ['2024-02-29T12:00:00Z', '29 February 2024 at 12:00 UTC'],
    ['2026-01-09T00:00:00Z', '9 January 2026'],
  ])('writes the start %s as "%s"', (start, words) => {
    expect(describeInterval(`R/${start}/P1D`)).toBe(`every day from ${words}, with no end`)
  })

  it.each([
    '',
    'garbage',
    'P1M',
    '2019-08-24T14:15:22Z/P1M',
    'R12/2019-02-30T00:00:00Z/P1M',
    'R12/2019-08-24T14:15:22Z/P0D',
    'R/2018-05-11T15:30:00Z/2017-03-01T13:00:00Z',
    'R12/2019-08-24T14:15:22Z/P99999999Y',
  ])('shows %j as written, prefixed "on the schedule "', (interval) => {
    expect(describeInterval(interval)).toBe(`on the schedule ${interval}`)
  })

  it('never throws, whatever it is given', () => {
    expect(describeInterval(undefined as unknown as string)).toBe('on the schedule undefined')
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(typeof describeInterval(s)).toBe('string')
      }),
    )
  })
})

describe('describeActions', () => {
  it.each([
    ['incoming-payment', 'create', 'create incoming payments (requests to receive money)'],
    ['incoming-payment', 'complete', 'mark incoming payments as complete'],
    ['incoming-payment', 'read', 'see incoming payments it created'],
    ['incoming-payment', 'read-all', 'see all incoming payments'],
    ['incoming-payment', 'list', 'list incoming payments it created'],
    ['incoming-payment', 'list-all', 'list all incoming payments'],
    ['outgoing-payment', 'create', 'send payments'],
    ['outgoing-payment', 'read', 'see outgoing payments it created'],
    ['outgoing-payment', 'read-all', 'see all outgoing payments'],
    ['outgoing-payment', 'list', 'list outgoing payments it created'],
    ['outgoing-payment', 'list-all', 'list all outgoing payments'],
    ['quote', 'create', 'get quotes'],
    ['quote', 'read', 'see quotes it created'],
    ['quote', 'read-all', 'see all quotes'],
  ] as const)('%s %s → "%s"', (type, action, words) => {
    expect(describeActions(type, [action])).toEqual([words])
  })

  it('lists actions in a fixed order (create first), each once', () => {
    expect(describeActions('incoming-payment', ['list-all', 'read', 'create', 'read'])).toEqual([
      'create incoming payments (requests to receive money)',
      'see incoming payments it created',
      'list all incoming payments',
    ])
  })

  it('shows an action it does not know instead of hiding it', () => {
    expect(describeActions('quote', ['list', 'create'])).toEqual(['get quotes', 'do "list" with quote'])
  })
})

describe('describeAccessItem', () => {
  const alice = 'https://ilp.interledger-test.dev/alice'
  const bob = 'http://ilp.interledger-test.dev/bob'
  const receiver = 'https://ilp.interledger-test.dev/bob/incoming-payments/7d3c'
  const usd = (value: string) => ({ value, assetCode: 'USD', assetScale: 2 })

  it.each<[string, AccessItem, { title: string; lines: string[] }]>([
    [
      'outgoing with debitAmount, interval and receiver',
      {
        type: 'outgoing-payment',
        actions: ['create', 'read'],
        identifier: alice,
        limits: { receiver, interval: 'R12/2026-12-01T00:00:00Z/P1M', debitAmount: usd('2500') },
      },
      {
        title: `Send payments from ${alice}`,
        lines: [`Send up to 25.00 USD to ${receiver} every month from 1 December 2026, for 13 months`, 'See outgoing payments it created'],
      },
    ],
    [
      'outgoing as in the auth-server.yaml example (debitAmount and interval)',
      {
        type: 'outgoing-payment',
        actions: ['create', 'read'],
        identifier: alice,
        limits: { interval: 'R12/2019-08-24T14:15:22Z/P1M', debitAmount: usd('500') },
      },
      {
        title: `Send payments from ${alice}`,
        lines: ['Send up to 5.00 USD every month from 24 August 2019 at 14:15:22 UTC, for 13 months', 'See outgoing payments it created'],
      },
    ],
    [
      'outgoing with debitAmount only',
      { type: 'outgoing-payment', actions: ['create'], identifier: alice, limits: { debitAmount: usd('123456789') } },
      { title: `Send payments from ${alice}`, lines: ['Send up to 1,234,567.89 USD in total'] },
    ],
    [
      'outgoing with receiveAmount only',
      {
        type: 'outgoing-payment',
        actions: ['create', 'list'],
        identifier: alice,
        limits: { receiveAmount: { value: '1000', assetCode: 'EUR', assetScale: 2 } },
      },
      {
        title: `Send payments from ${alice}`,
        lines: ['Send payments so the receiver gets up to 10.00 EUR in total', 'List outgoing payments it created'],
      },
    ],
    [
      'outgoing with receiveAmount, receiver and an endless interval',
      {
        type: 'outgoing-payment',
        actions: ['create'],
        identifier: alice,
        limits: { receiver, interval: 'R/2026-12-01T00:00:00Z/P1W', receiveAmount: usd('5') },
      },
      {
        title: `Send payments from ${alice}`,
        lines: [`Send payments to ${receiver} so the receiver gets up to 0.05 USD every week from 1 December 2026, with no end`],
      },
    ],
    [
      'outgoing with debitAmount for one period',
      {
        type: 'outgoing-payment',
        actions: ['create'],
        identifier: alice,
        limits: { interval: 'R0/2026-12-01T00:00:00Z/P1W', debitAmount: usd('10000') },
      },
      { title: `Send payments from ${alice}`, lines: ['Send up to 100.00 USD during the week from 1 December 2026'] },
    ],
    [
      'outgoing without limits',
      { type: 'outgoing-payment', actions: ['create', 'read', 'list'], identifier: alice },
      {
        title: `Send payments from ${alice} with no amount limit`,
        lines: ['Send any amount (no limit)', 'See outgoing payments it created', 'List outgoing payments it created'],
      },
    ],
    [
      'outgoing with limits but no amount (interval and receiver)',
      {
        type: 'outgoing-payment',
        actions: ['create'],
        identifier: alice,
        limits: { receiver, interval: 'R12/2026-12-01T00:00:00Z/P1M' },
      },
      {
        title: `Send payments from ${alice} with no amount limit`,
        lines: [`Send any amount (no limit) to ${receiver} every month from 1 December 2026, for 13 months`],
      },
    ],
    [
      'outgoing that cannot send (no create): limits are not shown',
      {
        type: 'outgoing-payment',
        actions: ['read-all', 'list-all'],
        identifier: alice,
        limits: { debitAmount: usd('2500') },
      },
      {
        title: `See payments sent from ${alice}`,
        lines: ['See all outgoing payments', 'List all outgoing payments'],
      },
    ],
    [
      'incoming with identifier (auth-server.yaml example)',
      { type: 'incoming-payment', actions: ['create', 'read'], identifier: bob },
      {
        title: `Receive payments into ${bob}`,
        lines: ['Create incoming payments (requests to receive money)', 'See incoming payments it created'],
      },
    ],
    [
      'incoming without identifier',
      { type: 'incoming-payment', actions: ['create', 'read', 'complete'] },
      {
        title: 'Receive payments into any wallet address',
        lines: ['Create incoming payments (requests to receive money)', 'Mark incoming payments as complete', 'See incoming payments it created'],
      },
    ],
    [
      'incoming, read and list only',
      { type: 'incoming-payment', actions: ['list-all', 'read-all'], identifier: bob },
      { title: `See payments into ${bob}`, lines: ['See all incoming payments', 'List all incoming payments'] },
    ],
    [
      'incoming, complete without create',
      { type: 'incoming-payment', actions: ['complete'], identifier: bob },
      { title: `Manage payments into ${bob}`, lines: ['Mark incoming payments as complete'] },
    ],
    ['quote', { type: 'quote', actions: ['create', 'read'] }, { title: 'Get quotes', lines: ['Get quotes', 'See quotes it created'] }],
    ['quote, read only', { type: 'quote', actions: ['read-all'] }, { title: 'See quotes', lines: ['See all quotes'] }],
  ])('%s', (_name, item, expected) => {
    // Every row is a valid access item, so these are the descriptions an owner can actually see.
    expect(AccessItemSchema.safeParse(item).success).toBe(true)
    const described = describeAccessItem(item)
    expect(described).toEqual(expected)
    // No protocol words or leaked placeholders in what the owner reads.
    for (const text of [described.title, ...described.lines]) {
      expect(text).not.toMatch(/interval|asset|scale|identifier|limits|undefined|null|NaN|\bR-?\d|\bP\d/i)
    }
  })

  it('shows an unreadable schedule as written rather than failing', () => {
    const item = {
      type: 'outgoing-payment',
      actions: ['create'],
      identifier: alice,
      limits: { interval: 'R12/2019-02-30T00:00:00Z/P1M', debitAmount: usd('500') },
    } as AccessItem
    expect(describeAccessItem(item).lines).toEqual(['Send up to 5.00 USD on the schedule R12/2019-02-30T00:00:00Z/P1M'])
  })
})
