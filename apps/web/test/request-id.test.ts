// Request ids (docs/protocol.md §2.19): every request gets an id, answered in X-Request-Id and carried by every log
// line written while serving it, the domain's included. Behind a trusted proxy (TRUST_PROXY) the proxy's
// X-Request-Id is taken when it has an acceptable shape; otherwise one is made. No error description carries it.
// Followed here through a full flow: grant → interaction → continue → rotate, and a refused rotation; and on the
// introspection listener.
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { INTROSPECTION_SECRET, freePort } from '@gnap/test-support'
import { consent, finishParams, outgoingAccess, sleep, startWorld, type World } from './support/world'
import { signedRequest, type IssuedToken, type SignedInput } from './support/raw-http'

let w: World
let listenerPort: number
beforeAll(async () => {
  listenerPort = await freePort()
  w = await startWorld({ TRUST_PROXY: 'true', INTROSPECTION_PORT: String(listenerPort) })
})
afterAll(async () => {
  await w?.stop()
})

/** A signed request, sent as a trusted proxy would forward it, with `requestId`. */
async function signedWithId(requestId: string, input: SignedInput): Promise<Response> {
  const init = await signedRequest(w.key, input)
  return fetch(input.url, { ...init, headers: { ...(init.headers as Record<string, string>), 'x-request-id': requestId } })
}

/** The server's JSON log lines so far. */
function logLines(): Record<string, unknown>[] {
  return w.server
    .logs()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
}

/** Waits until the server wrote the line `msg` for `requestId` (pino writes asynchronously). */
async function linesOf(requestId: string, until: string): Promise<Record<string, unknown>[]> {
  for (let i = 0; i < 100 && !logLines().some((l) => l.requestId === requestId && l.msg === until); i++) await sleep(50)
  return logLines().filter((l) => l.requestId === requestId)
}

interface GrantAnswer {
  access_token?: IssuedToken
  continue: { access_token: { value: string }; uri: string }
  interact?: { redirect: string; finish: string }
}

describe('request ids', () => {
  it('follows each request of a full flow through its answer and every log line, the domain’s included', async () => {
    const ids = { grant: `lb-${randomUUID()}`, continue: `lb-${randomUUID()}`, rotate: `lb-${randomUUID()}` }

    const grantRes = await signedWithId(ids.grant, {
      method: 'POST',
      url: w.server.url,
      body: {
        access_token: { access: [outgoingAccess(`https://wallet.example/${randomUUID()}`)] },
        client: w.walletAddress,
        interact: { start: ['redirect'], finish: finishParams() },
      },
    })
    expect(grantRes.status).toBe(200)
    expect(grantRes.headers.get('x-request-id')).toBe(ids.grant)
    const grant = (await grantRes.json()) as GrantAnswer
    const { finish } = await consent(w.server, grant.interact!.redirect, 'accept')
    const interactRef = new URL(finish.headers.get('location')!).searchParams.get('interact_ref')!
    // The continuation's wait (WAIT_SECONDS=1 in the tests) before it may be used.
    await sleep(1000)

    const continueRes = await signedWithId(ids.continue, {
      method: 'POST',
      url: grant.continue.uri,
      token: grant.continue.access_token.value,
      body: { interact_ref: interactRef },
    })
    expect(continueRes.status).toBe(200)
    expect(continueRes.headers.get('x-request-id')).toBe(ids.continue)
    const token = ((await continueRes.json()) as GrantAnswer).access_token!

    const rotateRes = await signedWithId(ids.rotate, { method: 'POST', url: token.manage, token: token.value })
    expect(rotateRes.status).toBe(200)
    expect(rotateRes.headers.get('x-request-id')).toBe(ids.rotate)

    // Each request's lines: the domain's own line and the request line, and no line of another request.
    const expected: [keyof typeof ids, string, string][] = [
      ['grant', 'grant pending interaction', '/'],
      ['continue', 'grant issued after interaction', new URL(grant.continue.uri).pathname],
      ['rotate', 'access token rotated', new URL(token.manage).pathname],
    ]
    for (const [step, domainLine, path] of expected) {
      const lines = await linesOf(ids[step], 'request')
      expect(lines.map((l) => l.msg)).toEqual([domainLine, 'request'])
      expect(lines[1]).toMatchObject({ path, status: 200 })
    }
    // Every line written while serving a request carries an id.
    const served = logLines().filter((l) =>
      ['request', 'grant pending interaction', 'interaction finished', 'consent recorded'].includes(String(l.msg)),
    )
    expect(served.length).toBeGreaterThan(4)
    for (const line of served) expect(line.requestId, JSON.stringify(line)).toEqual(expect.any(String))
  })

  it('answers an error with the id in its header, never in its description', async () => {
    const requestId = `lb-${randomUUID()}`
    const res = await signedWithId(requestId, { method: 'POST', url: `${w.server.url}token/${randomUUID()}`, token: 'not-a-token' })
    expect(res.status).toBeGreaterThanOrEqual(400)
    expect(res.headers.get('x-request-id')).toBe(requestId)
    expect(await res.text()).not.toContain(requestId)
    expect((await linesOf(requestId, 'request')).map((l) => l.msg)).toContain('request')
  })

  it('makes its own id when the proxy’s is not of an acceptable shape', async () => {
    for (const sent of ['has spaces in it', 'x'.repeat(129), 'quote"d', '']) {
      const res = await fetch(`${w.server.url}healthz`, { headers: { 'x-request-id': sent } })
      const id = res.headers.get('x-request-id')
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    }
  })

  it('gives the introspection listener’s requests ids too', async () => {
    const requestId = `lb-${randomUUID()}`
    const res = await fetch(`http://127.0.0.1:${listenerPort}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${INTROSPECTION_SECRET}`, 'x-request-id': requestId },
      body: JSON.stringify({ access_token: 'no-such-token' }),
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-request-id')).toBe(requestId)
    expect((await linesOf(requestId, 'request')).map((l) => l.msg)).toEqual(['request'])
    const made = await fetch(`http://127.0.0.1:${listenerPort}/`, { method: 'OPTIONS' })
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
  })
})
