// Two instances of the server on one database, started as `pnpm two-instances` starts them
// (@gnap/test-support's instances: the launcher, one worker each): every race is decided by the database, so the protocol's
// promises hold when competing requests land on different instances. Both instances share one AUTH_SERVER_URL, as
// behind a proxy: clients sign the public URL, requests go to either port. The last suite runs the script itself.
// The same suite runs on one SQLite file shared by the two instances' processes, as `pnpm start` shares it between
// its workers, and on one PostgreSQL database when MULTI_INSTANCE_PG_URL names a PostgreSQL server (CI
// sets it through `pnpm test`; skipped otherwise).
import { spawn } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHash } from 'node:crypto'
import { openStore } from '@gnap/domain/kernel'
import { adminQuery, databaseUrl, generateClientKey, signedHeadersWithNonce, startWalletAddressServer } from '@gnap/domain/testing'
import { freePort, IDP_SECRET, INTROSPECTION_SECRET, root, startInstances, testServerEnv, type Instance } from '@gnap/test-support'
import { outgoingAccess, sleep } from './support/world'
import { signedRequest, type IssuedToken } from './support/raw-http'

const pgAdmin = process.env.MULTI_INSTANCE_PG_URL
if (!pgAdmin) console.log('[multi-instance] MULTI_INSTANCE_PG_URL not set: the two-instance PostgreSQL tests are skipped')

interface Store {
  label: string
  skip: boolean
  /** Makes the empty database and names it (the instances migrate it). */
  create(): Promise<string>
  drop(): Promise<void>
}

const pgName = `gnap_multi_${randomBytes(5).toString('hex')}`
let sqliteDir = ''
const stores: Store[] = [
  {
    label: 'one SQLite file',
    skip: false,
    create: () => {
      sqliteDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gnap-multi-'))
      return Promise.resolve(`file:${path.join(sqliteDir, 'gnap.db')}`)
    },
    drop: () => {
      if (sqliteDir) fs.rmSync(sqliteDir, { recursive: true, force: true })
      return Promise.resolve()
    },
  },
  {
    label: 'one PostgreSQL database',
    skip: !pgAdmin,
    create: async () => {
      await adminQuery(pgAdmin!, `CREATE DATABASE "${pgName}"`)
      return databaseUrl(pgAdmin!, pgName)
    },
    drop: () => adminQuery(pgAdmin!, `DROP DATABASE IF EXISTS "${pgName}" WITH (FORCE)`).then(() => undefined),
  },
]

describe.each(stores.filter((s) => !s.skip))('two instances on $label', (store) => {
  let dbUrl: string
  let a: Instance
  let b: Instance
  let wallets: Awaited<ReturnType<typeof startWalletAddressServer>>
  const key = generateClientKey('key-1')
  let walletAddress: string
  /** The public base URL both instances answer for (instance a's), as a proxy in front would make it. */
  let base: string

  beforeAll(async () => {
    dbUrl = await store.create()
    // Migrates, then starts both; AUTH_SERVER_URL of both is instance a's URL.
    // WAIT_SECONDS 3: long enough that a burst of polls all arrive before the answered one's wait has passed again.
    ;[a, b] = (await startInstances({ databaseUrl: dbUrl, env: testServerEnv({ WAIT_SECONDS: '3' }) })) as [Instance, Instance]
    base = a.url
    wallets = await startWalletAddressServer({})
    walletAddress = wallets.addClient('app', { publicName: 'Test App', keys: [key.jwk], authServer: base })
  })

  afterAll(async () => {
    await a?.stop()
    await b?.stop()
    await wallets?.close()
    await store.drop().catch(() => undefined)
  })

  /** The same request sent to instance a or b: signed for the public URL, delivered to that instance's port. */
  const on = (server: Instance, publicUrl: string) => publicUrl.replace(base, server.url)
  const send = async (server: Instance, input: Parameters<typeof signedRequest>[1]) => fetch(on(server, input.url), await signedRequest(key, input))

  async function issuedToken(): Promise<{ token: IssuedToken; continueUri: string; continueToken: string }> {
    const res = await send(a, {
      method: 'POST',
      url: base,
      body: { access_token: { access: [{ type: 'incoming-payment', actions: ['read'] }] }, client: walletAddress },
    })
    expect(res.status).toBe(200)
    const body = (await res.json()) as { access_token: IssuedToken; continue: { uri: string; access_token: { value: string } } }
    return { token: body.access_token, continueUri: body.continue.uri, continueToken: body.continue.access_token.value }
  }

  async function introspect(server: Instance, value: string): Promise<boolean> {
    const res = await fetch(`${server.url}introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${INTROSPECTION_SECRET}` },
      body: JSON.stringify({ access_token: value }),
    })
    return ((await res.json()) as { active: boolean }).active
  }

  it('lets exactly one of 40 concurrent rotations of one token win, split across both instances', async () => {
    const { token } = await issuedToken()
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => send(i % 2 ? b : a, { method: 'POST', url: token.manage, token: token.value })),
    )
    const statuses = answers.map((r) => r.status)
    expect(statuses.filter((s) => s === 200)).toHaveLength(1)
    expect(statuses.filter((s) => s === 404)).toHaveLength(39)
    const winner = (await answers.find((r) => r.status === 200)!.json()) as { access_token: IssuedToken }
    expect(await introspect(b, winner.access_token.value)).toBe(true)
    expect(await introspect(a, token.value)).toBe(false)
  })

  it('issues exactly one token for 20 concurrent continuations with one interact_ref across both instances', async () => {
    const finish = { method: 'redirect', uri: 'https://client.example/finish', nonce: randomUUID() }
    const res = await send(a, {
      method: 'POST',
      url: base,
      body: {
        access_token: { access: [outgoingAccess('https://wallet.example/alice')] },
        client: walletAddress,
        interact: { start: ['redirect'], finish },
      },
    })
    const pending = (await res.json()) as { interact: { redirect: string }; continue: { uri: string; access_token: { value: string }; wait: number } }
    // The owner: starts on instance a, the identity provider answers instance b, the browser finishes on a.
    const start = await fetch(on(a, pending.interact.redirect), { redirect: 'manual' })
    const idp = new URL(start.headers.get('location') ?? '')
    const [interactId, nonce] = [idp.searchParams.get('interactId'), idp.searchParams.get('nonce')]
    const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
    expect((await fetch(`${b.url}grant/${interactId}/${nonce}/accept`, { method: 'POST', headers: { 'x-idp-secret': IDP_SECRET } })).status).toBe(202)
    const finished = await fetch(`${a.url}interact/${interactId}/${nonce}/finish`, { redirect: 'manual', headers: { cookie } })
    const interactRef = new URL(finished.headers.get('location') ?? '').searchParams.get('interact_ref') ?? ''
    expect(interactRef).not.toBe('')
    await sleep(pending.continue.wait * 1000)
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        send(i % 2 ? b : a, {
          method: 'POST',
          url: pending.continue.uri,
          token: pending.continue.access_token.value,
          body: { interact_ref: interactRef },
        }),
      ),
    )
    const statuses = answers.map((r) => r.status)
    expect(statuses.filter((s) => s === 200)).toHaveLength(1)
    expect(statuses.filter((s) => s === 401)).toHaveLength(19)
  })

  it('answers exactly one of 10 concurrent polls across both instances once wait has passed; the others are too_fast', async () => {
    const res = await send(a, {
      method: 'POST',
      url: base,
      body: { access_token: { access: [outgoingAccess('https://wallet.example/alice')] }, client: walletAddress, interact: { start: ['redirect'] } },
    })
    const pending = (await res.json()) as { continue: { uri: string; access_token: { value: string }; wait: number } }
    const polls = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => ({
        server: i % 2 ? b : a,
        init: await signedRequest(key, { method: 'POST', url: pending.continue.uri, token: pending.continue.access_token.value }),
      })),
    )
    await sleep(pending.continue.wait * 1000)
    const answers = await Promise.all(polls.map(({ server, init }) => fetch(on(server, pending.continue.uri), init)))
    const statuses = answers.map((r) => r.status).sort()
    expect(statuses).toEqual([200, ...Array<number>(9).fill(400)])
    const codes = await Promise.all(
      answers.filter((r) => r.status === 400).map(async (r) => ((await r.json()) as { error: { code: string } }).error.code),
    )
    expect(new Set(codes)).toEqual(new Set(['too_fast']))
  })

  it('refuses on one instance a signature nonce already used on the other', async () => {
    const { token } = await issuedToken()
    // The SDK sends no nonce; a client that does gets replay protection shared by every instance.
    const headers = await signedHeadersWithNonce(key, {
      method: 'DELETE',
      url: token.manage,
      headers: { authorization: `GNAP ${token.value}` },
      nonce: randomUUID(),
    })
    expect((await fetch(on(a, token.manage), { method: 'DELETE', headers })).status).toBe(204)
    const replay = await fetch(on(b, token.manage), { method: 'DELETE', headers })
    expect(replay.status).toBe(401)
    expect(((await replay.json()) as { error: { description: string } }).error.description).toContain('nonce')
  })

  it('leaves no live token when a revoke on one instance races a rotation on the other', async () => {
    for (let round = 0; round < 5; round++) {
      const g = await issuedToken()
      const [rotated, cancelled] = await Promise.all([
        send(a, { method: 'POST', url: g.token.manage, token: g.token.value }),
        send(b, { method: 'DELETE', url: g.continueUri, token: g.continueToken }),
      ])
      expect(cancelled.status).toBe(204)
      expect(await introspect(a, g.token.value)).toBe(false)
      if (rotated.status === 200) {
        const next = (await rotated.json()) as { access_token: IssuedToken }
        expect(await introspect(b, next.access_token.value)).toBe(false)
      } else {
        expect(rotated.status).toBe(404)
      }
    }
  })

  it('keeps answering on one instance when the other is killed mid-load, losing no answer that was a 200', async () => {
    const chains = await Promise.all(Array.from({ length: 6 }, () => issuedToken()))
    const answered: string[] = chains.map((c) => c.token.value)
    let killed = false
    const deadline = Date.now() + 4000
    const loops = chains.map(async (chain, n) => {
      let current = chain.token
      for (let i = 0; Date.now() < deadline; i++) {
        const target = !killed && (i + n) % 2 ? b : a
        try {
          const res = await send(target, { method: 'POST', url: current.manage, token: current.value })
          if (res.status !== 200) break // the held value was rotated by a request whose answer was lost
          current = ((await res.json()) as { access_token: IssuedToken }).access_token
          answered.push(current.value)
        } catch {
          // the killed instance: no answer, so nothing promised
        }
      }
    })
    await sleep(1500)
    await b.kill('SIGKILL')
    killed = true
    await Promise.all(loops)
    expect(await introspect(a, (await issuedToken()).token.value)).toBe(true)

    const store = await openStore(dbUrl)
    const db = store.prisma
    try {
      const sha = (v: string) => createHash('sha256').update(v).digest('hex')
      for (const value of answered) {
        const row = await db.accessToken.findUnique({ where: { valueHash: sha(value) }, include: { next: true } })
        expect(row, 'a token answered with 200 is in the database').not.toBeNull()
        expect(row!.state === 'active' || (row!.state === 'rotated' && row!.next !== null)).toBe(true)
      }
      expect(await db.accessToken.count({ where: { state: 'rotated', next: null } })).toBe(0)
      expect(await db.grant.count({ where: { state: 'finalized', finalizedReason: 'issued', accessTokens: { none: {} } } })).toBe(0)
    } finally {
      await store.close()
    }
    expect(answered.length).toBeGreaterThan(chains.length)
  })
})

describe.skipIf(!pgAdmin)('pnpm two-instances', () => {
  const dbName = `gnap_cli_${randomBytes(5).toString('hex')}`
  afterAll(async () => {
    await adminQuery(pgAdmin!, `DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch(() => undefined)
  })

  it('migrates the database, serves it on both ports and stops both instances on SIGINT', async () => {
    await adminQuery(pgAdmin!, `CREATE DATABASE "${dbName}"`)
    const ports = [await freePort(), await freePort()]
    const child = spawn(
      path.join(root, 'node_modules/.bin/tsx'),
      [path.join(root, 'apps/web/scripts/two-instances.ts'), '--ports', ports.join(',')],
      {
        cwd: root,
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          ...testServerEnv({ DATABASE_URL: databaseUrl(pgAdmin!, dbName), AUTH_SERVER_URL: `http://127.0.0.1:${ports[0]}/` }),
        } as Record<string, string | undefined> as NodeJS.ProcessEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let output = ''
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    try {
      await new Promise<void>((resolve, reject) => {
        const onData = (d: Buffer) => {
          output += d.toString()
          if (output.includes('ready; Ctrl-C stops both')) resolve()
        }
        child.stdout.on('data', onData)
        child.stderr.on('data', onData)
        void exited.then((code) => reject(new Error(`two-instances exited (${code}) before it was ready:\n${output}`)))
      })
      for (const port of ports) expect(output).toContain(`http://127.0.0.1:${port}/`)
      const admin = new URL(pgAdmin!)
      if (admin.password) expect(output, 'the database password is never printed').not.toContain(`${admin.username}:${admin.password}@`)
      // Introspection reads the migrated tables: an unknown token is inactive on both instances.
      for (const port of ports) {
        const res = await fetch(`http://127.0.0.1:${port}/introspect`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${INTROSPECTION_SECRET}` },
          body: JSON.stringify({ access_token: 'NOT-A-TOKEN' }),
        })
        expect(res.status).toBe(200)
        expect(await res.json()).toEqual({ active: false })
      }
    } finally {
      child.kill('SIGINT')
    }
    expect(await exited).toBe(0)
    for (const port of ports) await expect(fetch(`http://127.0.0.1:${port}/introspect`)).rejects.toThrow()
  })
})
