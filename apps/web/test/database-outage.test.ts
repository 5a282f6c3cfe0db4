// PostgreSQL unreachable under load (docs/protocol.md §9): every request that needs the database is answered 503
// with a GNAP error body and Retry-After, never a 500 and never a stack; once the database is back the same server
// serves again, without a restart. The shared PostgreSQL server stays up: a TCP proxy between this server and it
// drops every connection and refuses new ones, then listens again. Runs when a PostgreSQL server is named.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateClientKey, startWalletAddressServer } from '@gnap/domain/testing'
import { INTROSPECTION_SECRET, startInstance, testServerEnv, type Instance } from '@gnap/test-support'
import { freshDatabase, pgAdminUrl, type TestDatabase } from './support/databases'
import { incomingAccess, signedFetch } from './support/raw-http'
import { startTcpProxy, throughProxy, type TcpProxy } from './support/tcp-proxy'
import { sleep } from './support/world'

if (!pgAdminUrl) console.log('[database-outage] no PostgreSQL server named (TEST_DATABASE_URL): skipped')

describe.skipIf(!pgAdminUrl)('PostgreSQL unreachable under load', () => {
  let db: TestDatabase
  let proxy: TcpProxy
  let server: Instance
  let wallets: Awaited<ReturnType<typeof startWalletAddressServer>>
  const key = generateClientKey('outage-key')
  let walletAddress: string

  beforeAll(async () => {
    db = await freshDatabase('postgresql', 'outage')
    const upstream = new URL(db.url)
    proxy = await startTcpProxy({ host: upstream.hostname, port: Number(upstream.port || 5432) })
    server = await startInstance({
      env: testServerEnv({ DATABASE_URL: throughProxy(db.url, proxy), RATE_LIMIT_GRANTS_PER_MINUTE: '0', RATE_LIMIT_GRANTS_PER_MINUTE_PER_IP: '0' }),
    })
    wallets = await startWalletAddressServer({})
    walletAddress = wallets.addClient('outage', { publicName: 'Outage App', keys: [key.jwk], authServer: server.url })
  })

  afterAll(async () => {
    await server?.stop()
    await proxy?.close()
    await wallets?.close()
    await db?.drop()
  })

  const grant = () => signedFetch(key, { method: 'POST', url: server.url, body: { access_token: { access: incomingAccess }, client: walletAddress } })
  const introspect = (token: string) =>
    fetch(`${server.url}introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${INTROSPECTION_SECRET}` },
      body: JSON.stringify({ access_token: token }),
    })
  const adminSignIn = () =>
    fetch(`${server.url}api/trpc/auth.signIn`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ json: { email: 'ops@example.org', password: 'a long and private password' } }),
    })

  interface Answer {
    what: string
    status: number
    retryAfter: string | null
    type: string
    body: string
  }
  const answer = async (what: string, res: Promise<Response>): Promise<Answer> => {
    const r = await res
    return { what, status: r.status, retryAfter: r.headers.get('retry-after'), type: r.headers.get('content-type') ?? '', body: await r.text() }
  }

  it('answers 503 with a GNAP body and Retry-After while it is gone, and serves again once it is back, without a restart', async () => {
    const before = await grant()
    expect(before.status).toBe(200)
    const token = ((await before.json()) as { access_token: { value: string } }).access_token.value

    // Load before, across and after the cut: four loops of grant requests and introspections.
    let cut = false
    let stop = false
    const during: Answer[] = []
    const loops = Array.from({ length: 4 }, (_, i) =>
      (async () => {
        while (!stop) {
          const a = await answer(i % 2 ? 'introspect' : 'grant', i % 2 ? introspect(token) : grant())
          if (cut) during.push(a)
        }
      })(),
    )
    await sleep(300)
    await proxy.cut()
    cut = true
    await sleep(2000)
    const console503 = await answer('console sign-in', adminSignIn())
    stop = true
    await Promise.all(loops)

    const refused = during.filter((a) => a.status !== 200)
    console.log(`database cut: ${during.length} answers while it was gone, ${refused.length} of them refused`)
    expect(refused.length).toBeGreaterThan(10)
    for (const a of refused) {
      expect(a.status, `${a.what}: ${a.body}`).toBe(503)
      expect(a.retryAfter, a.what).toMatch(/^[1-9][0-9]*$/)
      expect(a.type).toMatch(/^application\/json/)
      expect(JSON.parse(a.body)).toEqual({ error: { code: 'request_denied', description: expect.any(String) } })
      expect(a.body).not.toMatch(/\bat .*\(|ECONN|stack/i)
    }
    expect(console503.status, console503.body).toBe(503)
    expect(console503.retryAfter).toMatch(/^[1-9][0-9]*$/)
    expect(console503.body).not.toMatch(/\bat .*\(|ECONN|stack/i)

    await proxy.restore()
    // Back: the same server answers again within a few tries.
    let recovered: { status: number } | null = null
    for (let i = 0; i < 40 && recovered?.status !== 200; i++) {
      recovered = await grant()
      if (recovered.status !== 200) await sleep(250)
    }
    expect(recovered?.status).toBe(200)
    expect((await (await introspect(token)).json()) as unknown).toMatchObject({ active: true })
    expect(server.logs()).not.toMatch(/died|exited during start-up/)
  }, 60_000)
})
