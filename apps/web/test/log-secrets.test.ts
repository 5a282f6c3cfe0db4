// Secrets never in logs (docs/protocol.md §8.9): a full run of every flow and some failures with
// LOG_LEVEL=debug, then the server's whole output (stdout and stderr) is searched for every secret issued or used.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IDP_SECRET, INTROSPECTION_SECRET } from '@gnap/test-support'
import { openStore } from '@gnap/domain/kernel'
import { createOwner, issueOwnerLink } from '@gnap/domain/operator'
import { consent, finishParams, outgoingAccess, sleep, startWorld, type World } from './support/world'
import { incomingAccess, signedRequest, type IssuedToken, type SignedInput } from './support/raw-http'

let w: World
/** Every secret this file issued or used, by kind. */
const secrets: { kind: string; value: string }[] = []
const remember = (kind: string, value: string | null | undefined) => {
  if (!value) throw new Error(`no ${kind} to remember`)
  secrets.push({ kind, value })
}

beforeAll(async () => {
  w = await startWorld({ LOG_LEVEL: 'debug' })
  remember('introspection secret', INTROSPECTION_SECRET)
  remember('identity-provider secret', IDP_SECRET)
})

afterAll(async () => {
  await w?.stop()
})

/** A signed request whose Signature header (and its bare base64) is remembered as a secret. */
async function signed(input: SignedInput): Promise<Response> {
  const init = await signedRequest(w.key, input)
  const signature = (init.headers as Record<string, string>).signature ?? ''
  remember('Signature header', signature)
  remember('signature bytes', /:([^:]+):/.exec(signature)?.[1])
  return fetch(input.url, init)
}

interface GrantAnswer {
  access_token?: IssuedToken
  continue: { access_token: { value: string }; uri: string }
  interact?: { redirect: string; finish: string }
}

async function grant(body: unknown): Promise<GrantAnswer> {
  const res = await signed({ method: 'POST', url: w.server.url, body })
  expect(res.status).toBe(200)
  const answer = (await res.json()) as GrantAnswer
  remember('continuation token', answer.continue.access_token.value)
  if (answer.access_token) remember('access token', answer.access_token.value)
  return answer
}

async function interactive(choice: 'accept' | 'reject') {
  const answer = await grant({
    access_token: { access: [outgoingAccess('https://wallet.example/alice')] },
    client: w.walletAddress,
    interact: { start: ['redirect'], finish: finishParams() },
  })
  const flow = await consent(w.server, answer.interact!.redirect, choice)
  remember('session cookie', flow.cookie.split('=')[1])
  remember('interaction nonce', flow.nonce)
  const location = new URL(flow.finish.headers.get('location') ?? '')
  if (choice === 'accept') {
    remember('interact_ref', location.searchParams.get('interact_ref'))
    remember('finish hash', location.searchParams.get('hash'))
  }
  return { answer, flow, interactRef: location.searchParams.get('interact_ref') }
}

const introspect = (token: string, secret = INTROSPECTION_SECRET) =>
  fetch(`${w.server.url}introspect`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
    body: JSON.stringify({ access_token: token }),
  })

describe('a full run with LOG_LEVEL=debug', () => {
  it('runs every flow and some failures', async () => {
    // Non-interactive grant, introspection, rotation, revocation, cancel.
    const direct = await grant({ access_token: { access: incomingAccess }, client: w.walletAddress })
    expect((await introspect(direct.access_token!.value)).status).toBe(200)
    const rotated = await signed({ method: 'POST', url: direct.access_token!.manage, token: direct.access_token!.value })
    expect(rotated.status).toBe(200)
    const next = ((await rotated.json()) as { access_token: IssuedToken }).access_token
    remember('access token', next.value)
    expect((await signed({ method: 'DELETE', url: next.manage, token: next.value })).status).toBe(204)
    expect((await signed({ method: 'DELETE', url: direct.continue.uri, token: direct.continue.access_token.value })).status).toBe(204)

    // Interactive grant through the identity-provider API, continued with the interact_ref.
    const approved = await interactive('accept')
    await sleep(1100)
    const issued = await signed({
      method: 'POST',
      url: approved.answer.continue.uri,
      token: approved.answer.continue.access_token.value,
      body: { interact_ref: approved.interactRef },
    })
    expect(issued.status).toBe(200)
    const token = ((await issued.json()) as { access_token: IssuedToken }).access_token
    remember('access token', token.value)
    expect((await introspect(token.value)).status).toBe(200)

    // A denied grant, polled.
    const denied = await interactive('reject')
    await sleep(1100)
    expect((await signed({ method: 'POST', url: denied.answer.continue.uri, token: denied.answer.continue.access_token.value })).status).toBe(401)

    // Failures that carry secrets in what they send.
    const replay = {
      method: 'POST',
      url: approved.answer.continue.uri,
      token: approved.answer.continue.access_token.value,
      body: { interact_ref: approved.interactRef },
    }
    expect((await signed(replay)).status).toBe(401)
    expect((await signed({ ...replay, token: token.value })).status).toBe(401)
    expect((await signed({ method: 'POST', url: direct.access_token!.manage, token: direct.access_token!.value })).status).toBe(404)
    expect((await introspect(token.value, `${INTROSPECTION_SECRET}-wrong`)).status).toBe(401)
    expect(
      (await fetch(`${w.server.url}grant/${approved.flow.interactId}/${approved.flow.nonce}`, { headers: { 'x-idp-secret': `${IDP_SECRET}x` } }))
        .status,
    ).toBe(401)
    const replayedFinish = await fetch(approved.flow.finishUrl, { redirect: 'manual', headers: { cookie: approved.flow.cookie } })
    expect(replayedFinish.status).toBe(404)
    // A token sent where it does not belong, unsigned, and a body that is not JSON but holds a token.
    const unsigned = await fetch(w.server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `GNAP ${token.value}` },
      body: `{"access_token":"${token.value}"`,
    })
    expect(unsigned.status).toBe(400)
    const wrongPlace = await signed({ method: 'DELETE', url: approved.answer.continue.uri, token: token.value })
    expect(wrongPlace.status).toBe(401)

    // An owner's one-time link (docs/protocol.md §7): opened, a refused password, the password set, the used link.
    const store = await openStore(`file:${w.server.dbFile}`)
    try {
      const { id } = await createOwner(store.sql, {
        email: 'erin@example.com',
        name: 'Erin',
        password: 'erin first password',
        walletAddresses: ['https://wallet.example/erin'],
      })
      const link = await issueOwnerLink(store.sql, { ownerId: id, kind: 'invitation', now: new Date(), ttlSeconds: 600, baseUrl: w.server.url })
      remember('set-password link secret', link.url.split('/').pop())
      const newPassword = 'erin chose this one'
      remember('new password', newPassword)
      const form = (password: string) =>
        fetch(link.url, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
          body: new URLSearchParams({ password, confirm: password }).toString(),
        })
      expect((await fetch(link.url)).status).toBe(200)
      expect((await form('short')).status).toBe(400)
      expect((await form(newPassword)).status).toBe(200)
      expect((await form(newPassword)).status).toBe(410)
    } finally {
      await store.close()
    }
  })

  it('wrote log lines at debug level', () => {
    const lines = w.server
      .logs()
      .split('\n')
      .filter((l) => l.startsWith('{'))
    expect(lines.length).toBeGreaterThan(20)
    expect(lines.some((l) => l.includes('"msg":"request"'))).toBe(true)
  })

  it('gave no secret away in the server log, in any encoding', () => {
    const logs = w.server.logs()
    const kinds = new Set(secrets.map((s) => s.kind))
    for (const kind of [
      'access token',
      'continuation token',
      'interact_ref',
      'finish hash',
      'session cookie',
      'interaction nonce',
      'introspection secret',
      'identity-provider secret',
      'Signature header',
      'set-password link secret',
      'new password',
    ]) {
      expect(kinds.has(kind), kind).toBe(true)
    }
    const found: string[] = []
    for (const { kind, value } of secrets) {
      expect(value.length, kind).toBeGreaterThan(8)
      for (const form of new Set([value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)])) {
        if (logs.includes(form)) found.push(`${kind} (${form.slice(0, 6)}…)`)
      }
    }
    console.log(`log secrets: searched ${secrets.length} secrets of ${kinds.size} kinds in ${logs.length} bytes of log; found ${found.length}`)
    expect(found).toEqual([])
  })
})
