import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTestDb } from '../../testing/test-db'
import { rememberSignatureNonce } from './signature-nonce.repo'

let t: Awaited<ReturnType<typeof createTestDb>>
beforeEach(async () => {
  t = await createTestDb()
})
afterEach(() => t.cleanup())

const at = (s: string) => new Date(`2030-01-01T00:${s}.000Z`)

describe('rememberSignatureNonce', () => {
  it('accepts a nonce once within its window, and again only after the window has passed', async () => {
    const sql = t.store.sql
    expect(await rememberSignatureNonce(sql, 'w#k', 'n1', at('05:00'), at('00:00'))).toBe(true)
    expect(await rememberSignatureNonce(sql, 'w#k', 'n1', at('05:30'), at('04:59'))).toBe(false)
    // Another key may use the same nonce.
    expect(await rememberSignatureNonce(sql, 'w#other', 'n1', at('05:00'), at('00:00'))).toBe(true)
    expect(await rememberSignatureNonce(sql, 'w#k', 'n1', at('10:01'), at('05:01'))).toBe(true)
    expect(await rememberSignatureNonce(sql, 'w#k', 'n1', at('10:02'), at('05:02'))).toBe(false)
    const rows = await t.store.prisma.signatureNonce.findMany({ orderBy: { keyRef: 'asc' } })
    expect(rows.map((r) => [r.keyRef, r.expiresAt.toISOString()])).toEqual([
      ['w#k', at('10:01').toISOString()],
      ['w#other', at('05:00').toISOString()],
    ])
  })

  it('lets exactly one of many concurrent uses of a nonce through', async () => {
    const sql = t.store.sql
    const results = await Promise.all(Array.from({ length: 20 }, () => rememberSignatureNonce(sql, 'w#k', 'race', at('05:00'), at('00:00'))))
    expect(results.filter(Boolean)).toHaveLength(1)
  })
})
