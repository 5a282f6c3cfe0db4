// Error rows of docs/protocol.md §2.7–§2.10 (interaction start and finish in the browser, the identity-provider API)
// over raw HTTP against `next start`.
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IDP_SECRET, INTROSPECTION_SECRET } from '@gnap/test-support'
import { consent, sleep, startWorld, type World } from './support/world'
import { checkResponse } from './support/spec'
import {
  approvedGrant,
  continueRequest,
  expectGnapError,
  expectNoLeaks,
  expectOk,
  pendingGrant,
  seenDescriptions,
  type PendingGrant,
} from './support/raw-http'

let w: World
const secrets: string[] = [INTROSPECTION_SECRET, IDP_SECRET]

beforeAll(async () => {
  w = await startWorld()
})

afterAll(async () => {
  await w?.stop()
})

async function pending(world: World, opts: { finish?: boolean } = {}): Promise<PendingGrant> {
  const g = await pendingGrant(world, opts)
  secrets.push(g.continueToken)
  return g
}

const grantUrl = (world: World, g: { interactionId: string; asNonce: string }) => `${world.server.url}grant/${g.interactionId}/${g.asNonce}`
const startUrl = (world: World, g: { interactionId: string; asNonce: string }) => `${world.server.url}interact/${g.interactionId}/${g.asNonce}`
const finishUrl = (world: World, g: { interactionId: string; asNonce: string }) => `${startUrl(world, g)}/finish`
const unknown = () => ({ interactionId: randomUUID(), asNonce: 'ABCDEF0123456789' })

function lookup(world: World, g: { interactionId: string; asNonce: string }, secret: string | null = IDP_SECRET): Promise<Response> {
  return fetch(grantUrl(world, g), { headers: secret === null ? {} : { 'x-idp-secret': secret } })
}

function choose(world: World, g: { interactionId: string; asNonce: string }, choice: string, secret: string | null = IDP_SECRET): Promise<Response> {
  return fetch(`${grantUrl(world, g)}/${choice}`, { method: 'POST', headers: secret === null ? {} : { 'x-idp-secret': secret } })
}

/** What a browser sends as Accept when a person opens a link: it gets pages (docs/protocol.md §2.8 "Pages or JSON"). */
const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }

/** The owner's browser opening interact.redirect: returns the answer and the session cookie it set, if any. */
async function start(world: World, g: PendingGrant, headers: Record<string, string> = {}) {
  const res = await fetch(g.redirect, { redirect: 'manual', headers: { ...BROWSER, ...headers } })
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
  if (cookie) secrets.push(cookie.split('=')[1] ?? '')
  return { res, cookie }
}

function finish(world: World, g: { interactionId: string; asNonce: string }, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(finishUrl(world, g), { redirect: 'manual', headers: { ...BROWSER, ...headers } })
}

/** A browser failure: an HTML page with this status, no redirect. */
async function expectPage(url: string, res: Response, status: number): Promise<void> {
  const text = await res.clone().text()
  expect(res.status, `GET ${url} answered ${res.status} ${text.slice(0, 200)}`).toBe(status)
  expect(res.headers.get('content-type') ?? '').toMatch(/^text\/html/)
  expect(res.headers.get('location')).toBeNull()
  expect(text.toLowerCase()).toContain('<!doctype html>')
  await checkResponse('GET', url, res)
  seenDescriptions.push(text)
}

/** A 403 page, no redirect, whose one link goes to the client's finish URI carrying `result` (and nothing more). */
async function expectPageWithLink(url: string, res: Response, params: Record<string, string>): Promise<void> {
  const text = await res.clone().text()
  await expectPage(url, res, 403)
  const hrefs = [...text.matchAll(/<a [^>]*href="([^"]*)"/g)].map((m) => (m[1] ?? '').replaceAll('&amp;', '&'))
  expect(hrefs).toHaveLength(1)
  const link = new URL(hrefs[0] ?? '')
  expect(`${link.origin}${link.pathname}`).toBe('https://client.example/finish')
  expect(Object.fromEntries(link.searchParams)).toEqual(params)
}

/** A redirect to the client's finish URI carrying `result` (and nothing that would let it continue). */
function expectFinishRedirect(res: Response, params: Record<string, string>): URL {
  expect(res.status).toBe(302)
  const location = new URL(res.headers.get('location') ?? '')
  expect(`${location.origin}${location.pathname}`).toBe('https://client.example/finish')
  for (const [k, v] of Object.entries(params)) expect(location.searchParams.get(k)).toBe(v)
  expect(location.searchParams.get('hash')).toBeNull()
  expect(location.searchParams.get('interact_ref')).toBeNull()
  return location
}

const json = { accept: 'application/json' }

describe('GET /grant/{id}/{nonce} (identity provider lookup)', () => {
  it('refuses a wrong, missing or different-length x-idp-secret with 401 invalid_request', async () => {
    const g = await pending(w)
    for (const secret of [
      null,
      '',
      'wrong',
      IDP_SECRET.toUpperCase(),
      `${IDP_SECRET}x`,
      IDP_SECRET.slice(0, -1),
      'x'.repeat(4096),
      INTROSPECTION_SECRET,
    ]) {
      const description = await expectGnapError('GET', grantUrl(w, g), await lookup(w, g, secret), 401, 'invalid_request')
      expect(description).not.toContain(IDP_SECRET)
    }
    // The secret is checked first: an unknown interaction with a bad secret is still 401.
    const u = unknown()
    await expectGnapError('GET', grantUrl(w, u), await lookup(w, u, 'wrong'), 401, 'invalid_request')
  })

  it('answers an unknown interaction, or a wrong nonce, with 404 unknown_interaction', async () => {
    const g = await pending(w)
    const u = unknown()
    await expectGnapError('GET', grantUrl(w, u), await lookup(w, u), 404, 'unknown_interaction')
    const wrongNonce = { interactionId: g.interactionId, asNonce: `${g.asNonce}0` }
    await expectGnapError('GET', grantUrl(w, wrongNonce), await lookup(w, wrongNonce), 404, 'unknown_interaction')
  })

  it('answers the interaction of a revoked grant with 404 unknown_interaction', async () => {
    const g = await pending(w)
    expect((await continueRequest(w, g, { method: 'DELETE' })).status).toBe(204)
    await expectGnapError('GET', grantUrl(w, g), await lookup(w, g), 404, 'unknown_interaction')
  })
})

describe('POST /grant/{id}/{nonce}/{choice} (identity provider decision)', () => {
  it('refuses a wrong or missing x-idp-secret with 401 invalid_interaction, before looking at the choice', async () => {
    // The lookups above sent 9 wrong secrets from loopback, whose socket address has 10 a minute before 429
    // (docs/protocol.md §2.6): these 4 go to a server of its own (not a pooled one, whose database other files
    // shared: its own counts) rather than wait up to a minute for the next window. Any setting makes it its own.
    const own = await startWorld({ IDP_SECRET })
    try {
      const g = await pending(own)
      for (const secret of [null, 'wrong', `${IDP_SECRET}x`]) {
        await expectGnapError('POST', `${grantUrl(own, g)}/accept`, await choose(own, g, 'accept', secret), 401, 'invalid_interaction')
      }
      await expectGnapError('POST', `${grantUrl(own, g)}/maybe`, await choose(own, g, 'maybe', 'wrong'), 401, 'invalid_interaction')
      // Nothing was decided: the interaction is still pending.
      expect((await expectOk<{ state: string }>('GET', grantUrl(own, g), await lookup(own, g))).state).toBe('PENDING')
    } finally {
      await own.stop()
    }
  }, 90_000)

  it('refuses a choice other than accept or reject with 400 invalid_request', async () => {
    const g = await pending(w)
    for (const choice of ['maybe', 'ACCEPT', 'approve']) {
      await expectGnapError('POST', `${grantUrl(w, g)}/${choice}`, await choose(w, g, choice), 400, 'invalid_request')
    }
  })

  it('answers an unknown interaction with 404 unknown_interaction', async () => {
    const u = unknown()
    await expectGnapError('POST', `${grantUrl(w, u)}/accept`, await choose(w, u, 'accept'), 404, 'unknown_interaction')
    const g = await pending(w)
    const wrongNonce = { interactionId: g.interactionId, asNonce: 'ABCDEF0123456789' }
    await expectGnapError('POST', `${grantUrl(w, wrongNonce)}/accept`, await choose(w, wrongNonce, 'accept'), 404, 'unknown_interaction')
  })

  it('refuses a second decision with 400 invalid_interaction; the first one stands', async () => {
    const g = await pending(w)
    expect((await choose(w, g, 'accept')).status).toBe(202)
    for (const choice of ['accept', 'reject']) {
      await expectGnapError('POST', `${grantUrl(w, g)}/${choice}`, await choose(w, g, choice), 400, 'invalid_interaction')
    }
    expect((await expectOk<{ state: string }>('GET', grantUrl(w, g), await lookup(w, g))).state).toBe('APPROVED')
  })

  it('answers a decision on a cancelled or rejected grant with 401 user_denied', async () => {
    const cancelled = await pending(w)
    expect((await continueRequest(w, cancelled, { method: 'DELETE' })).status).toBe(204)
    await expectGnapError('POST', `${grantUrl(w, cancelled)}/accept`, await choose(w, cancelled, 'accept'), 401, 'user_denied')

    const rejected = await pending(w)
    expect((await consent(w.server, rejected.redirect, 'reject')).finish.status).toBe(302)
    await expectGnapError('POST', `${grantUrl(w, rejected)}/accept`, await choose(w, rejected, 'accept'), 401, 'user_denied')
  })

  it('answers a decision on an issued grant with 400 invalid_interaction', async () => {
    const g = await approvedGrant(w)
    secrets.push(g.continueToken)
    await sleep(1000)
    const issued = await expectOk<{ access_token: { value: string } }>(
      'POST',
      g.continueUri,
      await continueRequest(w, g, { body: { interact_ref: g.interactRef } }),
    )
    secrets.push(issued.access_token.value)
    await expectGnapError('POST', `${grantUrl(w, g)}/reject`, await choose(w, g, 'reject'), 400, 'invalid_interaction')
  })
})

describe('GET /interact/{id}/{nonce} (interaction start)', () => {
  it('answers an unknown interaction with a 400 page, or 400 unknown_interaction JSON to a JSON caller', async () => {
    const u = unknown()
    await expectPage(startUrl(w, u), await fetch(startUrl(w, u), { redirect: 'manual', headers: BROWSER }), 400)
    await expectGnapError('GET', startUrl(w, u), await fetch(startUrl(w, u), { redirect: 'manual', headers: json }), 400, 'unknown_interaction')
    const g = await pending(w)
    const wrongNonce = { interactionId: g.interactionId, asNonce: `${g.asNonce}0` }
    await expectPage(startUrl(w, wrongNonce), await fetch(startUrl(w, wrongNonce), { redirect: 'manual', headers: BROWSER }), 400)
  })

  it('binds an httpOnly, SameSite=Lax session cookie and forwards the stored client name, not the query', async () => {
    const g = await pending(w)
    const link = new URL(g.redirect)
    link.searchParams.set('clientName', 'Evil App')
    const res = await fetch(link, { redirect: 'manual' })
    expect(res.status).toBe(302)
    const cookie = res.headers.get('set-cookie') ?? ''
    secrets.push((cookie.split(';')[0] ?? '').split('=')[1] ?? '')
    expect(cookie).toMatch(/HttpOnly/i)
    expect(cookie).toMatch(/SameSite=Lax/i)
    expect(new URL(res.headers.get('location') ?? '').searchParams.get('clientName')).toBe('Test App')
  })

  it('answers a finalized grant with a 403 page and no redirect, or 403 invalid_interaction JSON', async () => {
    const g = await pending(w)
    expect((await continueRequest(w, g, { method: 'DELETE' })).status).toBe(204)
    await expectPage(startUrl(w, g), (await start(w, g)).res, 403)
    await expectGnapError('GET', startUrl(w, g), (await start(w, g, json)).res, 403, 'invalid_interaction')
  })

  it('answers a finished interaction with a 403 page', async () => {
    const g = await approvedGrant(w)
    secrets.push(g.continueToken)
    await expectPage(startUrl(w, g), (await start(w, g)).res, 403)
  })

  it('sends an already decided interaction back to the finish URI with result=invalid_interaction, or a 403 page without one', async () => {
    const g = await pending(w)
    const first = await start(w, g)
    expect(first.res.status).toBe(302)
    expect((await choose(w, g, 'accept')).status).toBe(202)
    const again = await start(w, g, { cookie: first.cookie })
    expectFinishRedirect(again.res, { result: 'invalid_interaction', message: 'interaction already decided' })
    expect(again.cookie).toBe('')
    // Another browser (no cookie of this interaction) is not redirected: a page with a link (no open redirect).
    await expectPageWithLink(startUrl(w, g), (await start(w, g)).res, { result: 'invalid_interaction', message: 'interaction already decided' })

    const polled = await pending(w, { finish: false })
    expect((await choose(w, polled, 'reject')).status).toBe(202)
    await expectPage(startUrl(w, polled), (await start(w, polled)).res, 403)
  })
})

describe('GET /interact/{id}/{nonce}/finish (interaction finish)', () => {
  it('answers an unknown interaction with a 404 page, or 404 unknown_interaction JSON', async () => {
    const u = unknown()
    await expectPage(finishUrl(w, u), await finish(w, u), 404)
    await expectGnapError('GET', finishUrl(w, u), await finish(w, u, json), 404, 'unknown_interaction')
  })

  it('answers a browser without the session cookie of this interaction with a 401 page', async () => {
    const g = await pending(w)
    const { cookie } = await start(w, g)
    expect(cookie).not.toBe('')
    expect((await choose(w, g, 'accept')).status).toBe(202)
    const other = await pending(w)
    const { cookie: otherCookie } = await start(w, other)

    await expectPage(finishUrl(w, g), await finish(w, g), 401)
    await expectPage(finishUrl(w, g), await finish(w, g, { cookie: otherCookie }), 401)
    await expectPage(finishUrl(w, g), await finish(w, g, { cookie: 'gnap_interaction=forged' }), 401)
    await expectGnapError('GET', finishUrl(w, g), await finish(w, g, json), 401, 'invalid_request')

    // None of these used up the finish: the right browser still completes it.
    const done = await finish(w, g, { cookie })
    expect(done.status).toBe(302)
    expect(new URL(done.headers.get('location') ?? '').searchParams.get('interact_ref')).not.toBeNull()
  })

  it('sends a still pending interaction back with result=grant_invalid, or a 401 page without a finish URI', async () => {
    const g = await pending(w)
    const { cookie } = await start(w, g)
    expectFinishRedirect(await finish(w, g, { cookie }), { result: 'grant_invalid' })

    const polled = await pending(w, { finish: false })
    const { cookie: polledCookie } = await start(w, polled)
    await expectPage(finishUrl(w, polled), await finish(w, polled, { cookie: polledCookie }), 401)
  })

  it('answers a replayed finish URL with a 404 page and no Location, before and after the token was issued', async () => {
    const g = await approvedGrant(w)
    secrets.push(g.continueToken)
    await expectPage(g.finishUrl, await finish(w, g, { cookie: g.cookie }), 404)

    await sleep(1000)
    const issued = await expectOk<{ access_token: { value: string } }>(
      'POST',
      g.continueUri,
      await continueRequest(w, g, { body: { interact_ref: g.interactRef } }),
    )
    secrets.push(issued.access_token.value)
    await expectPage(g.finishUrl, await finish(w, g, { cookie: g.cookie }), 404)
    await expectGnapError('GET', g.finishUrl, await finish(w, g, { cookie: g.cookie, ...json }), 404, 'unknown_interaction')
  })

  it('answers the finish of a cancelled grant with a 404 page', async () => {
    const g = await pending(w)
    const { cookie } = await start(w, g)
    expect((await choose(w, g, 'accept')).status).toBe(202)
    expect((await continueRequest(w, g, { method: 'DELETE' })).status).toBe(204)
    await expectPage(finishUrl(w, g), await finish(w, g, { cookie }), 404)
  })
})

describe('an expired interaction (INTERACTION_EXPIRY_SECONDS=1)', () => {
  let x: World
  let notStarted: PendingGrant
  let noFinish: PendingGrant
  let started: PendingGrant & { cookie: string }
  let decided: PendingGrant & { cookie: string }

  beforeAll(async () => {
    x = await startWorld({ INTERACTION_EXPIRY_SECONDS: '1' })
    notStarted = await pending(x)
    noFinish = await pending(x, { finish: false })
    const a = await pending(x)
    started = { ...a, cookie: (await start(x, a)).cookie }
    const d = await pending(x)
    decided = { ...d, cookie: (await start(x, d)).cookie }
    expect((await choose(x, decided, 'accept')).status).toBe(202)
    await sleep(1500)
  })

  afterAll(async () => {
    await x?.stop()
  })

  it('start redirects the browser that started it to the finish URI with result=invalid_interaction, any other to a page with a link, or shows a 403 page without one', async () => {
    expectFinishRedirect((await start(x, started, { cookie: started.cookie })).res, { result: 'invalid_interaction', message: 'interaction expired' })
    await expectPageWithLink(startUrl(x, notStarted), (await start(x, notStarted)).res, {
      result: 'invalid_interaction',
      message: 'interaction expired',
    })
    await expectPageWithLink(startUrl(x, started), (await start(x, started, { cookie: decided.cookie })).res, {
      result: 'invalid_interaction',
      message: 'interaction expired',
    })
    await expectPage(startUrl(x, noFinish), (await start(x, noFinish)).res, 403)
  })

  it('a decision on it is refused with 400 invalid_interaction', async () => {
    await expectGnapError('POST', `${grantUrl(x, started)}/accept`, await choose(x, started, 'accept'), 400, 'invalid_interaction')
  })

  it('finish redirects with result=invalid_interaction, even when the owner had approved in time', async () => {
    expectFinishRedirect(await finish(x, started, { cookie: started.cookie }), { result: 'invalid_interaction', message: 'interaction expired' })
    expectFinishRedirect(await finish(x, decided, { cookie: decided.cookie }), { result: 'invalid_interaction', message: 'interaction expired' })
  })

  it('finalizes its grant as expired: a poll answers 401 invalid_interaction (docs/protocol.md §2.2, §3)', async () => {
    await expectGnapError('POST', noFinish.continueUri, await continueRequest(x, noFinish), 401, 'invalid_interaction')
  })

  it('no description, page or log line of this server gave a secret away, and every answer met the contract', () => {
    expectNoLeaks(
      x,
      secrets.filter((s) => s !== ''),
    )
    expect(x.spec.failures).toEqual([])
  })
})

describe('what the errors gave away', () => {
  it('no description, page or log line contains a continuation token, token value, session or secret used here', () => {
    expectNoLeaks(
      w,
      secrets.filter((s) => s !== ''),
    )
  })

  it('every answer of the server in this file met the contract', () => {
    expect(w.spec.failures).toEqual([])
  })
})
