// Error rows of docs/protocol.md §2.4–§2.6 (rotate, revoke, introspect) over raw HTTP against `next start`.
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateClientKey } from '@gnap/domain/testing'
import { IDP_SECRET, INTROSPECTION_SECRET } from '@gnap/test-support'
import { introspect, startWorld, type ClientKey, type World } from './support/world'
import {
  continueRequest,
  expectGnapError,
  expectNoLeaks,
  expectOk,
  issuedGrant,
  signedFetch,
  signedRequest,
  type IssuedGrant,
  type IssuedToken,
} from './support/raw-http'

let w: World
const secrets: string[] = [INTROSPECTION_SECRET, IDP_SECRET]

beforeAll(async () => {
  w = await startWorld()
})

afterAll(async () => {
  await w?.stop()
})

async function grant(): Promise<IssuedGrant> {
  const g = await issuedGrant(w)
  secrets.push(g.token.value, g.continueToken)
  return g
}

function manage(
  method: 'POST' | 'DELETE',
  url: string,
  opts: { token?: string | null; key?: ClientKey; body?: unknown; authorization?: string } = {},
): Promise<Response> {
  return signedFetch(opts.key ?? w.key, {
    method,
    url,
    ...(opts.token != null ? { token: opts.token } : {}),
    ...(opts.authorization !== undefined ? { authorization: opts.authorization } : {}),
    ...(opts.body !== undefined ? { body: opts.body } : {}),
  })
}

async function rotate(token: IssuedToken): Promise<IssuedToken> {
  const body = await expectOk<{ access_token: IssuedToken }>('POST', token.manage, await manage('POST', token.manage, { token: token.value }))
  secrets.push(body.access_token.value)
  return body.access_token
}

describe('POST /token/{id} (rotate)', () => {
  it('refuses a request without Authorization: GNAP with 401 invalid_client', async () => {
    const { token } = await grant()
    await expectGnapError('POST', token.manage, await manage('POST', token.manage), 401, 'invalid_client')
    await expectGnapError('POST', token.manage, await manage('POST', token.manage, { authorization: `Bearer ${token.value}` }), 401, 'invalid_client')
  })

  it('refuses a request without signature headers with 401 invalid_client', async () => {
    const { token } = await grant()
    const res = await fetch(token.manage, { method: 'POST', headers: { authorization: `GNAP ${token.value}` } })
    await expectGnapError('POST', token.manage, res, 401, 'invalid_client')
    expect((await introspect(w.server, token.value)).body.active).toBe(true)
  })

  it('answers an unknown management id with 404 invalid_rotation', async () => {
    const { token } = await grant()
    const url = `${w.server.url}token/${randomUUID()}`
    await expectGnapError('POST', url, await manage('POST', url, { token: token.value }), 404, 'invalid_rotation')
  })

  it('refuses the value of another token of the same client with 401 invalid_client', async () => {
    const a = await grant()
    const b = await grant()
    const description = await expectGnapError(
      'POST',
      a.token.manage,
      await manage('POST', a.token.manage, { token: b.token.value }),
      401,
      'invalid_client',
    )
    expect(description).not.toContain(b.token.value)
    // Neither token moved.
    expect((await introspect(w.server, a.token.value)).body.active).toBe(true)
    expect((await introspect(w.server, b.token.value)).body.active).toBe(true)
  })

  it('refuses a continuation token in place of the access token with 401 invalid_client', async () => {
    const g = await grant()
    await expectGnapError('POST', g.token.manage, await manage('POST', g.token.manage, { token: g.continueToken }), 401, 'invalid_client')
  })

  it('refuses a signature by a key the grant client does not publish under that kid with 401 invalid_client', async () => {
    const { token } = await grant()
    await expectGnapError(
      'POST',
      token.manage,
      await manage('POST', token.manage, { token: token.value, key: generateClientKey(w.key.kid) }),
      401,
      'invalid_client',
    )
    // A kid the client does not publish at all: still 401, since post-token lists no 400 invalid_client.
    await expectGnapError(
      'POST',
      token.manage,
      await manage('POST', token.manage, { token: token.value, key: generateClientKey('not-published') }),
      401,
      'invalid_client',
    )
    expect((await introspect(w.server, token.value)).body.active).toBe(true)
  })

  it('refuses a request body (e.g. key rotation) with 400 invalid_rotation', async () => {
    const { token } = await grant()
    for (const body of [{ key: { proof: 'httpsig', jwk: w.key.jwk } }, {}]) {
      await expectGnapError('POST', token.manage, await manage('POST', token.manage, { token: token.value, body }), 400, 'invalid_rotation')
    }
    expect((await introspect(w.server, token.value)).body.active).toBe(true)
  })

  it('answers a rotated-away token with 404 invalid_rotation', async () => {
    const { token } = await grant()
    await rotate(token)
    await expectGnapError('POST', token.manage, await manage('POST', token.manage, { token: token.value }), 404, 'invalid_rotation')
  })

  it('answers a revoked token, and a token of a revoked grant, with 404 invalid_rotation', async () => {
    const { token } = await grant()
    expect((await manage('DELETE', token.manage, { token: token.value })).status).toBe(204)
    await expectGnapError('POST', token.manage, await manage('POST', token.manage, { token: token.value }), 404, 'invalid_rotation')

    const g = await grant()
    expect((await continueRequest(w, g, { method: 'DELETE' })).status).toBe(204)
    await expectGnapError('POST', g.token.manage, await manage('POST', g.token.manage, { token: g.token.value }), 404, 'invalid_rotation')
  })

  it('lets exactly one of 50 concurrent rotations of one token win; the rest get 404 invalid_rotation', async () => {
    const { token } = await grant()
    const inits = await Promise.all(Array.from({ length: 50 }, () => signedRequest(w.key, { method: 'POST', url: token.manage, token: token.value })))
    const answers = await Promise.all(inits.map((init) => fetch(token.manage, init)))
    const winners = answers.filter((r) => r.status === 200)
    expect(winners).toHaveLength(1)
    for (const res of answers.filter((r) => r.status !== 200)) await expectGnapError('POST', token.manage, res, 404, 'invalid_rotation')
    const { access_token: next } = await expectOk<{ access_token: IssuedToken }>('POST', token.manage, winners[0]!)
    secrets.push(next.value)
    expect(next.value).not.toBe(token.value)
    expect(next.manage).not.toBe(token.manage)
    expect((await introspect(w.server, next.value)).body.active).toBe(true)
    expect((await introspect(w.server, token.value)).body).toEqual({ active: false })
    // The successor rotates in turn.
    await rotate(next)
  })
})

describe('DELETE /token/{id} (revoke)', () => {
  it('answers an unknown management id with 401 invalid_client', async () => {
    const { token } = await grant()
    const url = `${w.server.url}token/${randomUUID()}`
    await expectGnapError('DELETE', url, await manage('DELETE', url, { token: token.value }), 401, 'invalid_client')
  })

  it('refuses a wrong or missing token with 401 invalid_client and revokes nothing', async () => {
    const a = await grant()
    const b = await grant()
    await expectGnapError('DELETE', a.token.manage, await manage('DELETE', a.token.manage, { token: b.token.value }), 401, 'invalid_client')
    await expectGnapError('DELETE', a.token.manage, await manage('DELETE', a.token.manage, { token: 'NOTATOKEN0123456789' }), 401, 'invalid_client')
    await expectGnapError('DELETE', a.token.manage, await manage('DELETE', a.token.manage), 401, 'invalid_client')
    expect((await introspect(w.server, a.token.value)).body.active).toBe(true)
    expect((await introspect(w.server, b.token.value)).body.active).toBe(true)
  })

  it('refuses an unsigned request or an impostor key with 401 invalid_client', async () => {
    const { token } = await grant()
    const unsigned = await fetch(token.manage, { method: 'DELETE', headers: { authorization: `GNAP ${token.value}` } })
    await expectGnapError('DELETE', token.manage, unsigned, 401, 'invalid_client')
    await expectGnapError(
      'DELETE',
      token.manage,
      await manage('DELETE', token.manage, { token: token.value, key: generateClientKey(w.key.kid) }),
      401,
      'invalid_client',
    )
    await expectGnapError(
      'DELETE',
      token.manage,
      await manage('DELETE', token.manage, { token: token.value, key: generateClientKey('not-published') }),
      401,
      'invalid_client',
    )
    expect((await introspect(w.server, token.value)).body.active).toBe(true)
  })

  it('answers 204 again for a revoked token', async () => {
    const { token } = await grant()
    for (let i = 0; i < 2; i++) {
      const res = await manage('DELETE', token.manage, { token: token.value })
      expect(res.status).toBe(204)
      expect(await res.text()).toBe('')
    }
    expect((await introspect(w.server, token.value)).body).toEqual({ active: false })
  })

  it('answers 204 for a rotated token and leaves its successor active', async () => {
    const { token } = await grant()
    const next = await rotate(token)
    expect((await manage('DELETE', token.manage, { token: token.value })).status).toBe(204)
    expect((await introspect(w.server, next.value)).body.active).toBe(true)
    // The successor's own manage URI and value still work.
    await rotate(next)
  })

  it('answers 204 for a token of a revoked grant', async () => {
    const g = await grant()
    expect((await continueRequest(w, g, { method: 'DELETE' })).status).toBe(204)
    expect((await manage('DELETE', g.token.manage, { token: g.token.value })).status).toBe(204)
  })
})

describe('POST /introspect', () => {
  const url = () => `${w.server.url}introspect`
  const post = (body: string, authorization?: string, type = 'application/json') =>
    fetch(url(), { method: 'POST', headers: { 'content-type': type, ...(authorization !== undefined ? { authorization } : {}) }, body })

  it('refuses a missing or wrong bearer secret with 401 invalid_client', async () => {
    const { token } = await grant()
    const body = JSON.stringify({ access_token: token.value })
    for (const authorization of [
      undefined,
      'Bearer wrong',
      `Bearer ${INTROSPECTION_SECRET}x`,
      `Bearer ${INTROSPECTION_SECRET.slice(0, -1)}`,
      `Basic ${INTROSPECTION_SECRET}`,
      `GNAP ${token.value}`,
      'Bearer',
    ]) {
      const description = await expectGnapError('POST', url(), await post(body, authorization), 401, 'invalid_client')
      expect(description).not.toContain(INTROSPECTION_SECRET)
    }
  })

  it('refuses a body without a string access_token with 400 invalid_request', async () => {
    const bearer = `Bearer ${INTROSPECTION_SECRET}`
    for (const body of [
      '{}',
      '{"access_token":42}',
      '{"access_token":""}',
      '[]',
      '"token"',
      '{"access_token":"x","extra":1}',
      '{"access_token":"x","access":"all"}',
      '{"access_token":',
    ]) {
      await expectGnapError('POST', url(), await post(body, bearer), 400, 'invalid_request')
    }
    await expectGnapError('POST', url(), await fetch(url(), { method: 'POST', headers: { authorization: bearer } }), 400, 'invalid_request')
    await expectGnapError('POST', url(), await post('{"access_token":"x"}', bearer, 'text/plain'), 400, 'invalid_request')
  })

  it('answers an unknown, rotated or revoked token with 200 {active:false}', async () => {
    const unknown = await introspect(w.server, 'NOSUCHTOKEN0123456789')
    expect(unknown).toEqual({ status: 200, body: { active: false } })

    const { token } = await grant()
    const next = await rotate(token)
    expect(await introspect(w.server, token.value)).toEqual({ status: 200, body: { active: false } })
    expect((await manage('DELETE', next.manage, { token: next.value })).status).toBe(204)
    expect(await introspect(w.server, next.value)).toEqual({ status: 200, body: { active: false } })
  })
})

describe('what the errors gave away', () => {
  it('no description or log line contains a token value, continuation token or secret used here', () => {
    expectNoLeaks(w, secrets)
  })

  it('every answer of the server in this file met the contract', () => {
    expect(w.spec.failures).toEqual([])
  })
})
