// Request ids (docs/protocol.md §2.19): the logger writes the id of the request being served on every line, through
// the request's asynchronous work; a proxy's id is taken only when trusted and of an acceptable shape.
import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createLogger } from '../log'
import { requestIdFor, runWithRequestId } from './request-id'

function capture() {
  const lines: Record<string, unknown>[] = []
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>)
      done()
    },
  })
  return { log: createLogger('info', stream), lines }
}

describe('request ids', () => {
  it('are on every line written while a request is served, after awaits too, and on no other line', async () => {
    const { log, lines } = capture()
    log.info('before')
    await runWithRequestId('req-1', async () => {
      log.info('first')
      await new Promise((r) => setTimeout(r, 1))
      log.info('after a timer')
    })
    log.info('after')
    expect(lines.map((l) => [l.msg, l.requestId])).toEqual([
      ['before', undefined],
      ['first', 'req-1'],
      ['after a timer', 'req-1'],
      ['after', undefined],
    ])
  })

  it('take a trusted proxy’s id of an acceptable shape, and make one otherwise', () => {
    expect(requestIdFor('lb-0123/abc=', true)).toBe('lb-0123/abc=')
    expect(requestIdFor('lb-0123', false)).not.toBe('lb-0123')
    for (const bad of ['', ' ', 'a b', 'x'.repeat(129), 'é', 'a\nb', '<script>']) {
      expect(requestIdFor(bad, true)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    }
    expect(requestIdFor(undefined, true)).not.toBe(requestIdFor(undefined, true))
  })
})
