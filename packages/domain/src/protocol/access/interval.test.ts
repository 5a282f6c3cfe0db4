import { describe, expect, it } from 'vitest'
import { isValidInterval, parseInterval } from './interval'

describe('parseInterval', () => {
  // The three examples of auth-server.yaml components.schemas.interval, then what clients send.
  it.each([
    ['R11/2022-08-24T14:15:22Z/P1M', 11, '2022-08-24T14:15:22.000Z', 'P1M', undefined],
    ['R/2017-03-01T13:00:00Z/2018-05-11T15:30:00Z', null, '2017-03-01T13:00:00.000Z', undefined, '2018-05-11T15:30:00.000Z'],
    ['R-1/P1Y2M10DT2H30M/2022-05-11T15:30:00Z', null, undefined, 'P1Y2M10DT2H30M', '2022-05-11T15:30:00.000Z'],
    ['R12/2019-08-24T14:15:22Z/P1M', 12, '2019-08-24T14:15:22.000Z', 'P1M', undefined],
    ['R0/2019-08-24T14:15:22Z/P1D', 0, '2019-08-24T14:15:22.000Z', 'P1D', undefined],
    ['R/2019-08-24T14:15:22Z/PT1H', null, '2019-08-24T14:15:22.000Z', 'PT1H', undefined],
    ['R-1/2019-08-24T14:15:22Z/P1W', null, '2019-08-24T14:15:22.000Z', 'P1W', undefined],
    ['R3/2019-08-24T14:15:22Z/2019-08-25T14:15:22Z', 3, '2019-08-24T14:15:22.000Z', undefined, '2019-08-25T14:15:22.000Z'],
    ['R2/PT30M/2019-08-24T14:15:22Z', 2, undefined, 'PT30M', '2019-08-24T14:15:22.000Z'],
    ['R1/2019-08-24/P1M', 1, '2019-08-24T00:00:00.000Z', 'P1M', undefined],
    ['R1/20190824T141522Z/P1M', 1, '2019-08-24T14:15:22.000Z', 'P1M', undefined],
    ['R1/2019-08-24T14:15:22+02:00/PT1.5S', 1, '2019-08-24T14:15:22.000+02:00', 'PT1.5S', undefined],
  ])('accepts %s', (input, repetitions, start, duration, end) => {
    const parsed = parseInterval(input)
    expect(parsed).not.toBeNull()
    expect(parsed?.repetitions).toBe(repetitions)
    expect(parsed?.start?.toISO() ?? undefined).toBe(start)
    expect(parsed?.duration?.toISO() ?? undefined).toBe(duration)
    expect(parsed?.end?.toISO() ?? undefined).toBe(end)
    expect(isValidInterval(input)).toBe(true)
  })

  it('reads a date without an offset as UTC, not the local zone', () => {
    expect(parseInterval('R1/2019-08-24T10:00:00/P1D')?.start?.toISO()).toBe('2019-08-24T10:00:00.000Z')
  })

  it.each([
    ['', 'empty'],
    ['garbage', 'garbage'],
    ['2019-08-24T14:15:22Z/P1M', 'no R prefix'],
    ['R12/2019-08-24T14:15:22Z', 'no second part'],
    ['R12/2019-08-24T14:15:22Z/P1M/P1M', 'four parts'],
    ['R1.5/2019-08-24T14:15:22Z/P1M', 'fractional repetitions'],
    ['R-2/2019-08-24T14:15:22Z/P1M', 'negative repetitions other than -1'],
    ['R+1/2019-08-24T14:15:22Z/P1M', 'signed repetitions'],
    ['Rx/2019-08-24T14:15:22Z/P1M', 'letters as repetitions'],
    ['R99999999999999999999/2019-08-24T14:15:22Z/P1M', 'repetitions beyond a safe integer'],
    ['r12/2019-08-24T14:15:22Z/P1M', 'lower-case r'],
    [' R12/2019-08-24T14:15:22Z/P1M', 'leading space'],
    ['R12/2019-08-24T14:15:22Z/P1M ', 'trailing space'],
    ['R12/2019-08-24T14:15:22Z/P1Mx', 'trailing junk after duration'],
    ['R12/2019-08-24T14:15:22Zx/P1M', 'trailing junk after date'],
    ['R12/2019-02-30T00:00:00Z/P1M', 'impossible date'],
    ['R12/2019-13-01T00:00:00Z/P1M', 'month 13'],
    ['R12/2019-08-24T25:00:00Z/P1M', 'hour 25'],
    ['R12/14:15/P1M', 'time without a date'],
    ['R12/2019-W01/P1M', 'week date'],
    ['R12/2019/P1M', 'year only'],
    ['R12/2019-08-24T14:15:22Z/P', 'P alone'],
    ['R12/2019-08-24T14:15:22Z/PT', 'PT alone'],
    ['R12/2019-08-24T14:15:22Z/P1DT', 'T without time components'],
    ['R12/2019-08-24T14:15:22Z/P0D', 'zero duration'],
    ['R12/2019-08-24T14:15:22Z/PT0S', 'zero seconds'],
    ['R12/2019-08-24T14:15:22Z/-P1D', 'negative duration'],
    ['R12/2019-08-24T14:15:22Z/P-1D', 'negative component'],
    ['R12/2019-08-24T14:15:22Z/P1.5M', 'fractional months'],
    ['R12/2019-08-24T14:15:22Z/p1m', 'lower-case duration'],
    ['R12/P1M/P1D', 'two durations'],
    ['R/2018-05-11T15:30:00Z/2017-03-01T13:00:00Z', 'end before start'],
    ['R/2018-05-11T15:30:00Z/2018-05-11T15:30:00Z', 'end equal to start'],
    ['R12/2019-08-24T14:15:22Z/P99999999Y', 'end beyond the representable range'],
    ['R12//P1M', 'empty start'],
  ])('refuses %j (%s)', (input) => {
    expect(parseInterval(input)).toBeNull()
    expect(isValidInterval(input)).toBe(false)
  })
})
