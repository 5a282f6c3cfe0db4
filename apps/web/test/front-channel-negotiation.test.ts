// Pages or JSON on the browser endpoints (docs/protocol.md §2.8 "Pages or JSON"), over raw HTTP against `next start`:
// GET /interact/{id}/{nonce} and GET /interact/{id}/{nonce}/finish answer an HTML page only to a caller whose Accept
// prefers text/html (a browser's real header), and the GNAP JSON error body of id-provider.yaml, with the same
// status, to every other caller: one asking for JSON, one sending `*/*`, one sending no Accept at all. A success
// (the redirect into the consent screen) is the same for all.
import http from 'node:http'
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assertMatchesSpec } from '@gnap/domain/testing'
import { startWorld, type World } from './support/world'
import { pendingGrant, signedFetch, type PendingGrant } from './support/raw-http'

/** What Chromium and Firefox send when a person opens a link. */
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'

let w: World

beforeAll(async () => {
  // Without IDENTITY_SERVER_URL, a started interaction goes to the built-in consent screen.
  w = await startWorld({ IDENTITY_SERVER_URL: undefined })
})

afterAll(async () => {
  await w?.stop()
})

interface Got {
  status: number
  type: string
  location: string | undefined
  body: string
}

/** A GET with exactly these headers (node:http, which adds no Accept of its own, unlike fetch). */
function get(url: string, headers: Record<string, string>): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: res.headers['content-type'] ?? '',
          location: res.headers.location,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      )
      res.on('error', reject)
    })
    req.on('error', reject)
  })
}

/** The callers: each with its Accept header (none for the last), and whether it must get a page. */
const callers: { name: string; headers: Record<string, string>; page: boolean }[] = [
  { name: "a browser's Accept", headers: { accept: BROWSER }, page: true },
  { name: 'Accept: text/html', headers: { accept: 'text/html' }, page: true },
  { name: 'Accept: application/json', headers: { accept: 'application/json' }, page: false },
  { name: 'Accept: */*', headers: { accept: '*/*' }, page: false },
  { name: 'JSON preferred by q-value', headers: { accept: 'text/html;q=0.5, application/json' }, page: false },
  { name: 'HTML refused by q=0', headers: { accept: 'text/html;q=0, */*' }, page: false },
  { name: 'no Accept at all', headers: {}, page: false },
]

const startUrl = (g: { interactionId: string; asNonce: string }) => `${w.server.url}interact/${g.interactionId}/${g.asNonce}`

/** A pending grant the client then cancelled: its interaction link is dead (403 invalid_interaction). */
async function cancelledGrant(): Promise<PendingGrant> {
  const g = await pendingGrant(w)
  const res = await signedFetch(w.key, { method: 'DELETE', url: g.continueUri, token: g.continueToken })
  expect(res.status).toBe(204)
  return g
}

/** Every failing case of both endpoints, with the status and contract code each answers. */
const cases: { name: string; url: () => Promise<string>; path: string; status: number; code: string }[] = [
  {
    name: 'start, unknown interaction',
    url: () => Promise.resolve(startUrl({ interactionId: randomUUID(), asNonce: 'ABCDEF0123456789' })),
    path: '/interact/{id}/{nonce}',
    status: 400,
    code: 'unknown_interaction',
  },
  {
    name: 'start, cancelled grant',
    url: async () => startUrl(await cancelledGrant()),
    path: '/interact/{id}/{nonce}',
    status: 403,
    code: 'invalid_interaction',
  },
  {
    name: 'finish, unknown interaction',
    url: () => Promise.resolve(`${startUrl({ interactionId: randomUUID(), asNonce: 'ABCDEF0123456789' })}/finish`),
    path: '/interact/{id}/{nonce}/finish',
    status: 404,
    code: 'unknown_interaction',
  },
  {
    name: 'finish, without the interaction session',
    url: async () => `${startUrl(await pendingGrant(w))}/finish`,
    path: '/interact/{id}/{nonce}/finish',
    status: 401,
    code: 'invalid_request',
  },
]

describe.each(cases)('$name', ({ url, path, status, code }) => {
  it.each(callers)('answers $name with the same status, as a page or as JSON', async ({ headers, page }) => {
    const target = await url()
    const got = await get(target, headers)
    expect(got.status).toBe(status)
    expect(got.location).toBeUndefined()
    if (page) {
      expect(got.type).toMatch(/^text\/html/)
      expect(got.body.toLowerCase()).toContain('<!doctype html>')
      return
    }
    expect(got.type).toBe('application/json')
    const body = JSON.parse(got.body) as { error: { code: string; description: string } }
    expect(body.error.code).toBe(code)
    expect(body.error.description.length).toBeGreaterThan(0)
    expect(Object.keys(body)).toEqual(['error'])
    assertMatchesSpec('id-provider', path, 'GET', got.status, body)
  })
})

describe('a live interaction', () => {
  it.each(callers)('redirects $name into the consent screen, setting the interaction session', async ({ headers }) => {
    const g = await pendingGrant(w)
    const got = await get(startUrl(g), headers)
    expect(got.status).toBe(302)
    expect(got.location).toBe(`${startUrl(g)}/consent`)
  })
})
