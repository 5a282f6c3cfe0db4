// Races through HTTP against `next start`: the database decides every race, never process memory.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { introspect, startWorld, type World } from './support/world'
import { continueRequest, expectOk, issuedGrant, signedRequest, type IssuedToken } from './support/raw-http'

let w: World

beforeAll(async () => {
  w = await startWorld()
})

afterAll(async () => {
  await w?.stop()
})

describe('races over HTTP', () => {
  it('never lets a revoke racing a rotation leave a live token', async () => {
    const outcomes = { rotationWon: 0, revokeWon: 0 }
    for (let round = 0; round < 10; round++) {
      const g = await issuedGrant(w)
      const rotate = await signedRequest(w.key, { method: 'POST', url: g.token.manage, token: g.token.value })
      const [rotated, cancelled] = await Promise.all([fetch(g.token.manage, rotate), continueRequest(w, g, { method: 'DELETE' })])
      expect(cancelled.status).toBe(204)
      // Whichever committed first, nothing of this grant is usable afterwards.
      expect((await introspect(w.server, g.token.value)).body).toEqual({ active: false })
      if (rotated.status === 200) {
        outcomes.rotationWon++
        const { access_token: next } = await expectOk<{ access_token: IssuedToken }>('POST', g.token.manage, rotated)
        expect((await introspect(w.server, next.value)).body).toEqual({ active: false })
      } else {
        outcomes.revokeWon++
        expect(rotated.status).toBe(404)
      }
    }
    expect(outcomes.rotationWon + outcomes.revokeWon).toBe(10)
  })

  it('never gives two concurrent grant requests the same continuation id, token value or management URI', async () => {
    const grants = await Promise.all(Array.from({ length: 40 }, () => issuedGrant(w)))
    const continueUris = new Set(grants.map((g) => g.continueUri))
    const continueTokens = new Set(grants.map((g) => g.continueToken))
    const values = new Set(grants.map((g) => g.token.value))
    const manages = new Set(grants.map((g) => g.token.manage))
    expect([continueUris.size, continueTokens.size, values.size, manages.size]).toEqual([40, 40, 40, 40])
    const active = await Promise.all(grants.map(async (g) => (await introspect(w.server, g.token.value)).body.active))
    expect(active.every(Boolean)).toBe(true)
  })
})
