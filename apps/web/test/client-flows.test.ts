// The whole lifecycle driven by the real Open Payments client SDK against `next start`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isFinalizedGrant, isPendingGrant, type Grant, type PendingGrant } from '@interledger/open-payments'
import { consent, expectedHash, finishParams, introspect, outgoingAccess, rejection, sleep, startWorld, type World } from './support/world'

let w: World

beforeAll(async () => {
  w = await startWorld()
})

afterAll(async () => {
  await w?.stop()
})

async function interactiveGrant(identifier = 'https://wallet.example/alice') {
  const finish = finishParams()
  const access = [outgoingAccess(identifier)]
  const grant = await w.client.grant.request({ url: w.server.url }, { access_token: { access }, interact: { start: ['redirect'], finish } })
  if (!isPendingGrant(grant)) throw new Error('expected a pending grant')
  return { grant, finish, access }
}

async function approveAndContinue(pending: PendingGrant, clientNonce: string) {
  const { finish } = await consent(w.server, pending.interact.redirect)
  expect(finish.status).toBe(302)
  const back = new URL(finish.headers.get('location') ?? '')
  const interactRef = back.searchParams.get('interact_ref') ?? ''
  expect(back.searchParams.get('hash')).toBe(expectedHash(clientNonce, pending.interact.finish, interactRef, w.server.url))
  await sleep((pending.continue.wait ?? 0) * 1000)
  const grant = await w.client.grant.continue(
    { url: pending.continue.uri, accessToken: pending.continue.access_token.value },
    { interact_ref: interactRef },
  )
  return { grant: grant as Grant, interactRef }
}

describe('non-interactive grants', () => {
  it('issues an incoming-payment token at once, which introspects active with its client', async () => {
    const grant = await w.client.grant.request(
      { url: w.server.url },
      { access_token: { access: [{ type: 'incoming-payment', actions: ['create', 'read', 'list'] }] } },
    )
    if (!isFinalizedGrant(grant) || !grant.access_token) throw new Error('expected an issued grant')
    const token = grant.access_token
    expect(token.expires_in).toBe(600)
    expect(token.manage.startsWith(`${w.server.url}token/`)).toBe(true)
    expect(token.manage).not.toContain(token.value)
    expect(token.access).toEqual([{ type: 'incoming-payment', actions: ['create', 'read', 'list'] }])
    expect(grant.continue.uri.startsWith(`${w.server.url}continue/`)).toBe(true)

    const seen = await introspect(w.server, token.value, [{ type: 'incoming-payment', actions: ['read'] }])
    expect(seen.body).toMatchObject({ active: true, client: { walletAddress: w.walletAddress } })
    expect(seen.body.access).toEqual([{ type: 'incoming-payment', actions: ['create', 'read', 'list'] }])
  })

  it('cannot mint a second token by polling an issued grant', async () => {
    const grant = await w.client.grant.request({ url: w.server.url }, { access_token: { access: [{ type: 'quote', actions: ['create', 'read'] }] } })
    if (!isFinalizedGrant(grant)) throw new Error('expected a finalized grant')
    const e = await rejection(w.client.grant.continue({ url: grant.continue.uri, accessToken: grant.continue.access_token.value }))
    expect(e.status).toBe(401)
    expect(e.code).toBe('request_denied')
  })
})

describe('interactive outgoing-payment grant', () => {
  it('runs request, consent, finish hash, continue, rotate, revoke and cancel', async () => {
    const { grant: pending, finish, access } = await interactiveGrant()
    expect(pending.interact.redirect.startsWith(`${w.server.url}interact/`)).toBe(true)
    expect(pending.continue.wait).toBe(1)

    const { grant, interactRef } = await approveAndContinue(pending, finish.nonce)
    expect(isFinalizedGrant(grant)).toBe(true)
    const token = grant.access_token!
    expect(token.access).toEqual(access)
    expect(token.expires_in).toBe(600)
    expect((await introspect(w.server, token.value)).body.active).toBe(true)

    // The interact_ref is good for one use.
    const again = await rejection(
      w.client.grant.continue({ url: pending.continue.uri, accessToken: pending.continue.access_token.value }, { interact_ref: interactRef }),
    )
    expect([again.status, again.code]).toEqual([401, 'too_many_attempts'])

    const rotated = await w.client.token.rotate({ url: token.manage, accessToken: token.value })
    expect(rotated.access_token.value).not.toBe(token.value)
    expect(rotated.access_token.manage).not.toBe(token.manage)
    expect(rotated.access_token.access).toEqual(access)
    expect(rotated.access_token.expires_in).toBe(600)

    // The old value and the old manage URI are dead at once.
    expect((await introspect(w.server, token.value)).body).toEqual({ active: false })
    const stale = await rejection(w.client.token.rotate({ url: token.manage, accessToken: token.value }))
    expect([stale.status, stale.code]).toEqual([404, 'invalid_rotation'])
    expect((await introspect(w.server, rotated.access_token.value)).body.active).toBe(true)

    await w.client.token.revoke({ url: rotated.access_token.manage, accessToken: rotated.access_token.value })
    expect((await introspect(w.server, rotated.access_token.value)).body).toEqual({ active: false })
    // Revoking a revoked token is still a success (RFC 9635 §6.2).
    await w.client.token.revoke({ url: rotated.access_token.manage, accessToken: rotated.access_token.value })

    await w.client.grant.cancel({ url: pending.continue.uri, accessToken: pending.continue.access_token.value })
    const gone = await rejection(
      w.client.grant.continue({ url: pending.continue.uri, accessToken: pending.continue.access_token.value }, { interact_ref: interactRef }),
    )
    expect([gone.status, gone.code]).toEqual([401, 'invalid_continuation'])
  })

  it('revoking an issued grant kills its live token', async () => {
    const { grant: pending, finish } = await interactiveGrant()
    const { grant } = await approveAndContinue(pending, finish.nonce)
    const token = grant.access_token!
    await w.client.grant.cancel({ url: pending.continue.uri, accessToken: pending.continue.access_token.value })
    expect((await introspect(w.server, token.value)).body).toEqual({ active: false })
    const e = await rejection(w.client.token.rotate({ url: token.manage, accessToken: token.value }))
    expect([e.status, e.code]).toEqual([404, 'invalid_rotation'])
  })

  it('tells the client user_denied when the owner denies', async () => {
    const { grant: pending } = await interactiveGrant()
    const { finish } = await consent(w.server, pending.interact.redirect, 'reject')
    expect(finish.status).toBe(302)
    expect(new URL(finish.headers.get('location') ?? '').searchParams.get('result')).toBe('grant_rejected')
    await sleep(1000)
    const e = await rejection(
      w.client.grant.continue({ url: pending.continue.uri, accessToken: pending.continue.access_token.value }, { interact_ref: 'whatever' }),
    )
    expect([e.status, e.code]).toEqual([401, 'user_denied'])
  })

  it('cancels a pending grant, after which its interaction cannot finish', async () => {
    const { grant: pending } = await interactiveGrant()
    await w.client.grant.cancel({ url: pending.continue.uri, accessToken: pending.continue.access_token.value })
    const start = await fetch(pending.interact.redirect, {
      redirect: 'manual',
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    })
    expect(start.status).toBe(403)
    expect(start.headers.get('content-type')).toContain('text/html')
  })

  it('answers a poll of a pending grant with continue and wait', async () => {
    const grant = await w.client.grant.request(
      { url: w.server.url },
      { access_token: { access: [outgoingAccess('https://wallet.example/alice')] }, interact: { start: ['redirect'] } },
    )
    if (!isPendingGrant(grant)) throw new Error('expected a pending grant')
    const early = await rejection(w.client.grant.continue({ url: grant.continue.uri, accessToken: grant.continue.access_token.value }))
    expect([early.status, early.code]).toEqual([400, 'too_fast'])
    await sleep(1000)
    const polled = await w.client.grant.continue({ url: grant.continue.uri, accessToken: grant.continue.access_token.value })
    expect(polled).toMatchObject({ continue: { uri: grant.continue.uri, wait: 1 } })
    expect('access_token' in polled).toBe(false)
  })
})

describe('the contract', () => {
  it('every answer the server gave in these flows met the OpenAPI files', () => {
    expect(w.spec.exchanges.length).toBeGreaterThan(20)
    expect(w.spec.failures).toEqual([])
  })
})
