// A grant whose interaction expired before the owner answered (docs/protocol.md §3), over HTTP against `next start`:
// the client's poll and continue get 401 invalid_interaction, its cancel still 204, the interaction link says
// "expired", and the console's REST form lists, shows and counts the grant as expired, never as pending.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openStore, type Store } from '@gnap/domain/kernel'
import { createApiKey } from '@gnap/domain/operator'
import { keyCreator } from '@gnap/domain/testing'
import { sleep, startWorld, type World } from './support/world'
import { serverDeps } from './support/server-deps'
import { continueRequest, expectGnapError, pendingGrant, signedFetch, type PendingGrant } from './support/raw-http'

const EXPIRY_SECONDS = 2

let w: World
let store: Store
let viewerKey: string
let polled: PendingGrant
let redirected: PendingGrant
let untouched: PendingGrant

beforeAll(async () => {
  w = await startWorld({ INTERACTION_EXPIRY_SECONDS: String(EXPIRY_SECONDS), WAIT_SECONDS: '1' })
  store = await openStore(`file:${w.server.dbFile}`)
  viewerKey = (await createApiKey(serverDeps(store, w.server.url), { name: 'viewer', role: 'viewer', actor: await keyCreator(store.sql) })).key
  polled = await pendingGrant(w, { finish: false })
  redirected = await pendingGrant(w)
  untouched = await pendingGrant(w)
  await sleep(EXPIRY_SECONDS * 1000 + 1100)
}, 90_000)

afterAll(async () => {
  await store?.close()
  await w?.stop()
})

const rest = async <T>(method: 'GET' | 'POST', p: string, body?: unknown): Promise<T> => {
  const res = await fetch(`${w.server.url}api/v1${p}`, {
    method,
    headers: { authorization: `Bearer ${viewerKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  expect(res.status, await res.clone().text()).toBe(200)
  return (await res.json()) as T
}

describe("the client after its grant's interaction expired", () => {
  it('gets 401 invalid_interaction to a poll, the first and every later one', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await continueRequest(w, polled)
      await expectGnapError('POST', polled.continueUri, res, 401, 'invalid_interaction')
    }
  })

  it('gets 401 invalid_interaction to a continue with a made-up interaction reference', async () => {
    const res = await signedFetch(w.key, {
      method: 'POST',
      url: redirected.continueUri,
      token: redirected.continueToken,
      body: { interact_ref: 'X'.repeat(16) },
    })
    await expectGnapError('POST', redirected.continueUri, res, 401, 'invalid_interaction')
  })

  it('gets 204 to a cancel, and again', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await signedFetch(w.key, { method: 'DELETE', url: polled.continueUri, token: polled.continueToken })
      expect(res.status).toBe(204)
    }
  })

  it('sends the owner who opens the link too late to a page that says it expired, or JSON to a program', async () => {
    const page = await fetch(redirected.redirect, {
      redirect: 'manual',
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    })
    expect(page.status).toBe(403)
    expect(await page.text()).toContain('Request expired')
    const json = await fetch(redirected.redirect, { redirect: 'manual', headers: { accept: 'application/json' } })
    expect(json.status).toBe(403)
    expect(((await json.json()) as { error: { code: string } }).error.code).toBe('invalid_interaction')
  })
})

describe('the console after the interactions expired', () => {
  type Row = { id: string; status: string; continueId: string }
  const idOf = (g: PendingGrant) => g.continueUri.split('/').pop() ?? ''

  it('lists the grants under the "expired" filter and none under "pending", and shows the grant as expired', async () => {
    const client = { value: w.walletAddress, match: 'exact' }
    const expired = await rest<{ items: Row[] }>('POST', '/grants/search', { filters: { client, state: 'finalized', finalizedReason: 'expired' } })
    expect(expired.items.map((r) => r.continueId).sort()).toEqual([polled, redirected, untouched].map(idOf).sort())
    expect(expired.items.every((r) => r.status === 'expired')).toBe(true)
    const pending = await rest<{ items: Row[] }>('POST', '/grants/search', { filters: { client, state: 'pending' } })
    expect(pending.items).toEqual([])

    const row = expired.items.find((r) => r.continueId === idOf(untouched))
    const detail = await rest<{ status: string; history: { kind: string }[] }>('GET', `/grants/${row?.id ?? ''}`)
    expect(detail.status).toBe('expired')
    expect(detail.history.map((e) => e.kind)).toEqual(['grant-requested', 'grant-expired'])
  })

  it('counts them as expired in the overview, not as pending', async () => {
    const now = Date.now()
    const stats = await rest<{ grants: Record<string, number> }>('POST', '/stats/overview', {
      from: new Date(now - 3_600_000).toISOString(),
      to: new Date(now + 60_000).toISOString(),
    })
    expect(stats.grants).toMatchObject({ pending: 0, expired: 3 })
  })
})
