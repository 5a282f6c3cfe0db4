// Crash safety: concurrent loops of signed requests (grant requests, interactive grants continued with
// their interact_ref, rotations, revocations, cancels) against the server as `pnpm start` runs it (the launcher and
// its worker, one process group); the whole group is SIGKILLed in the middle of the load, restarted on the same
// database, and the database is checked: integrity, the protocol's invariants (no token both rotated and live, no
// grant issued twice), and that every answer a client got (200/204) is what the database holds. Ten kill cycles on
// SQLite, and ten on PostgreSQL when a PostgreSQL server is named (support/databases.ts).
//
// A SIGKILL of the server's processes cannot lose a commit on its own: what was written is in the OS's page cache.
// Surviving a power loss or an OS crash is what SQLite's synchronous=FULL is for (docs/protocol.md §9).
//
// The server runs with its default group commit (docs/operating.md, Storage): on SQLite, writes that arrive
// together share one commit, each in a savepoint; the metrics read before each kill show that batches of more than
// one transaction were committed (and so were cut by the kills) during the run.
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateClientKey, startWalletAddressServer } from '@gnap/domain/testing'
import { freePort, INTROSPECTION_SECRET, startInstance, testServerEnv, type Instance } from '@gnap/test-support'
import { consent, finishParams, outgoingAccess, sleep, type ClientKey } from './support/world'
import { incomingAccess, signedFetch, type IssuedToken } from './support/raw-http'
import { freshDatabase, providers, type Provider, type TestDatabase } from './support/databases'

const CYCLES = 10
// No rate limit in the way of the load; a one-second wait between interaction and continue.
const ENV = { RATE_LIMIT_GRANTS_PER_MINUTE: '0', RATE_LIMIT_GRANTS_PER_MINUTE_PER_IP: '0', WAIT_SECONDS: '1' }

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex')
const lastSegment = (url: string) => new URL(url).pathname.split('/').pop() ?? ''

interface Token {
  value: string
  managementId: string
  continueId: string
}

/** What the clients were told, over all cycles: only answers they received count. */
const newTold = () => ({
  /** Every token value a 200 handed out. */
  issued: [] as Token[],
  /** Rotations answered 200: the old value is dead, the new one its successor. */
  rotated: [] as { from: Token; to: Token }[],
  /** Token revocations answered 204. */
  revoked: [] as Token[],
  /** Interactive grants continued to a token (200). */
  interactiveIssued: 0,
  /** Grant cancels answered 204 (continue ids). */
  cancelled: new Set<string>(),
  /** Tokens and grants an unanswered request (cut by the kill) may have changed: no claim about them. */
  uncertainTokens: new Set<string>(),
  uncertainGrants: new Set<string>(),
})
type Told = ReturnType<typeof newTold>

describe.each(providers)('crash safety on %s: SIGKILL of the process group under load, restart on the same database', (provider: Provider) => {
  const told: Told = newTold()

  let wallets: Awaited<ReturnType<typeof startWalletAddressServer>>
  let key: ClientKey
  let walletAddress: string
  let server: Instance | undefined
  let db: TestDatabase
  /** The same port at every restart, so the clients' wallet address keeps naming this server. */
  let port: number
  let metricsPort: number
  const start = () => startInstance({ port, env: testServerEnv({ DATABASE_URL: db.url, ...ENV, METRICS_PORT: String(metricsPort) }) })
  /** SQLite's group commit over the run, read from the metrics just before each kill. */
  const commits = { batches: 0, transactions: 0 }
  const countCommits = async () => {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
    const read = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? 0)
    commits.batches += read('gnap_sqlite_commit_batches_total')
    commits.transactions += read('gnap_sqlite_batched_transactions_total')
  }

  beforeAll(async () => {
    db = await freshDatabase(provider, 'crash')
    port = await freePort()
    metricsPort = await freePort()
    wallets = await startWalletAddressServer({})
    key = generateClientKey('crash-key')
    server = await start()
    walletAddress = wallets.addClient('crash', { publicName: 'Crash App', keys: [key.jwk], authServer: server.url })
  })

  afterAll(async () => {
    await server?.stop()
    await wallets?.close()
    await db?.drop()
  })

  /**
   * Runs the load loops until the server dies under them; returns request and answer counts. `onFirstAnswer` is
   * called at the first answer, `onInteractiveIssued` when an interactive grant was continued to a token.
   */
  async function load(srv: Instance, live: Token[], hooks: { onFirstAnswer: () => void; onInteractiveIssued: () => void }) {
    let stopped = false
    const counts = { sent: 0, answered: 0, cut: 0 }
    const pick = () => (live.length ? live.splice(Math.floor(Math.random() * live.length), 1)[0]! : null)

    /** One request; null when the kill cut it (before or while the answer arrived): its outcome is unknown. */
    async function call(send: () => Promise<Response>): Promise<{ status: number; body: unknown } | null> {
      counts.sent++
      try {
        const res = await send()
        const text = await res.text()
        if (counts.answered++ === 0) hooks.onFirstAnswer()
        return { status: res.status, body: text ? JSON.parse(text) : null }
      } catch {
        counts.cut++
        stopped = true
        return null
      }
    }

    const grant = async () => {
      const res = await call(() =>
        signedFetch(key, { method: 'POST', url: srv.url, body: { access_token: { access: incomingAccess }, client: walletAddress } }),
      )
      if (res?.status !== 200) return
      const body = res.body as { access_token: IssuedToken; continue: { uri: string; access_token: { value: string } } }
      const t = { value: body.access_token.value, managementId: lastSegment(body.access_token.manage), continueId: lastSegment(body.continue.uri) }
      continueTokens.set(t.continueId, body.continue.access_token.value)
      told.issued.push(t)
      live.push(t)
    }

    const interactive = async () => {
      const res = await call(() =>
        signedFetch(key, {
          method: 'POST',
          url: srv.url,
          body: {
            access_token: { access: [outgoingAccess('https://wallet.example/alice')] },
            client: walletAddress,
            interact: { start: ['redirect'], finish: finishParams() },
          },
        }),
      )
      if (res?.status !== 200) return
      const g = res.body as { interact: { redirect: string }; continue: { uri: string; access_token: { value: string } } }
      let ref: string | null
      try {
        const { finish } = await consent(srv, g.interact.redirect)
        ref = new URL(finish.headers.get('location') ?? '').searchParams.get('interact_ref')
      } catch {
        stopped = true
        return
      }
      await sleep(1050)
      const continueId = lastSegment(g.continue.uri)
      told.uncertainGrants.add(continueId)
      const issued = await call(() =>
        signedFetch(key, { method: 'POST', url: g.continue.uri, token: g.continue.access_token.value, body: { interact_ref: ref } }),
      )
      if (issued === null) return
      told.uncertainGrants.delete(continueId)
      expect(issued.status).toBe(200)
      const body = issued.body as { access_token: IssuedToken }
      const t = { value: body.access_token.value, managementId: lastSegment(body.access_token.manage), continueId }
      told.interactiveIssued++
      told.issued.push(t)
      live.push(t)
      hooks.onInteractiveIssued()
    }

    const rotate = async () => {
      const t = pick()
      if (!t) return sleep(20)
      told.uncertainTokens.add(t.value)
      const res = await call(() => signedFetch(key, { method: 'POST', url: `${srv.url}token/${t.managementId}`, token: t.value }))
      if (res === null) return
      told.uncertainTokens.delete(t.value)
      if (res.status !== 200) return // the grant was cancelled meanwhile: 404
      const body = res.body as { access_token: IssuedToken }
      const next = { value: body.access_token.value, managementId: lastSegment(body.access_token.manage), continueId: t.continueId }
      told.issued.push(next)
      told.rotated.push({ from: t, to: next })
      live.push(next)
    }

    const revoke = async () => {
      const t = pick()
      if (!t) return sleep(20)
      told.uncertainTokens.add(t.value)
      const res = await call(() => signedFetch(key, { method: 'DELETE', url: `${srv.url}token/${t.managementId}`, token: t.value }))
      if (res === null) return
      told.uncertainTokens.delete(t.value)
      expect(res.status).toBe(204)
      told.revoked.push(t)
    }

    const cancel = async () => {
      const t = pick()
      if (!t) return sleep(20)
      const continueToken = continueTokens.get(t.continueId)
      if (!continueToken) return void live.push(t) // an interactive grant: its continuation token is not kept here
      told.uncertainGrants.add(t.continueId)
      const res = await call(() => signedFetch(key, { method: 'DELETE', url: `${srv.url}continue/${t.continueId}`, token: continueToken }))
      if (res === null) return
      told.uncertainGrants.delete(t.continueId)
      if (res.status === 204) told.cancelled.add(t.continueId)
    }

    const loop = async (step: () => Promise<unknown>, pause = 0) => {
      while (!stopped) {
        await step()
        if (pause) await sleep(pause)
      }
    }
    await Promise.all([
      loop(grant),
      loop(grant),
      loop(interactive),
      loop(interactive),
      loop(rotate),
      loop(rotate),
      loop(revoke, 30),
      loop(cancel, 60),
    ])
    return counts
  }

  /** Continuation tokens of non-interactive grants, so the cancel loop can cancel them. */
  const continueTokens = new Map<string, string>()

  /** The database after a restart: integrity, the protocol's invariants, and every answer the clients got. */
  async function checkDatabase() {
    const store = await db.open()
    try {
      const one = async (sql: string, params: (string | null)[] = []): Promise<unknown> => {
        const [row] = await store.sql.all<Record<string, unknown>>(sql, params)
        return row ? Object.values(row)[0] : undefined
      }
      const count = async (sql: string) => Number(await one(sql))
      // SQLite checks its pages and indexes; PostgreSQL has no such check without an extension, so every table is
      // read through (a damaged page fails the scan).
      const tables = ['Grant', 'AccessItem', 'AccessToken', 'Interaction', 'SignatureNonce', 'Owner', 'Session', 'RateLimit']
      const integrity =
        provider === 'sqlite'
          ? await one('PRAGMA integrity_check')
          : (await Promise.all(tables.map((t) => count(`SELECT COUNT(*) AS "n" FROM "${t}"`)))).every((n) => n >= 0)
            ? 'ok'
            : 'failed'
      const violations = {
        issuedWithoutToken: await count(`SELECT COUNT(*) AS "n" FROM "Grant" g WHERE g."state" = 'finalized' AND g."finalizedReason" = 'issued'
        AND NOT EXISTS (SELECT 1 FROM "AccessToken" t WHERE t."grantId" = g."id")`),
        rotatedWithoutOneSuccessor: await count(`SELECT COUNT(*) AS "n" FROM "AccessToken" t WHERE t."state" = 'rotated'
        AND (SELECT COUNT(*) FROM "AccessToken" s WHERE s."previousId" = t."id") <> 1`),
        // A token with a successor that is not marked rotated: rotated and live at once.
        successorOfLiveToken: await count(
          `SELECT COUNT(*) AS "n" FROM "AccessToken" s JOIN "AccessToken" p ON p."id" = s."previousId" WHERE p."state" <> 'rotated'`,
        ),
        tokenWithoutGrant: await count(
          `SELECT COUNT(*) AS "n" FROM "AccessToken" t LEFT JOIN "Grant" g ON g."id" = t."grantId" WHERE g."id" IS NULL`,
        ),
        usedRefWithoutToken: await count(`SELECT COUNT(*) AS "n" FROM "Interaction" i JOIN "Grant" g ON g."id" = i."grantId"
        WHERE i."refUsedAt" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "AccessToken" t WHERE t."grantId" = g."id")`),
        liveTokenOfRevokedGrant: await count(`SELECT COUNT(*) AS "n" FROM "AccessToken" t JOIN "Grant" g ON g."id" = t."grantId"
        WHERE t."state" = 'active' AND g."finalizedReason" = 'revoked'`),
        // Every grant here asks for one token: two chains of tokens on one grant is a grant issued twice.
        grantIssuedTwice: await count(`SELECT COUNT(*) AS "n" FROM (SELECT t."grantId" FROM "AccessToken" t WHERE t."previousId" IS NULL
        GROUP BY t."grantId" HAVING COUNT(*) > 1) x`),
      }
      const counts = {
        grants: await count('SELECT COUNT(*) AS "n" FROM "Grant"'),
        tokens: await count('SELECT COUNT(*) AS "n" FROM "AccessToken"'),
        rotated: await count(`SELECT COUNT(*) AS "n" FROM "AccessToken" WHERE "state" = 'rotated'`),
        revoked: await count(`SELECT COUNT(*) AS "n" FROM "AccessToken" WHERE "state" = 'revoked'`),
      }

      type Row = { id: string; state: string; previousId: string | null; continueId: string; finalizedReason: string | null }
      const row = async (t: Token) =>
        (
          await store.sql.all<Row>(
            `SELECT t."id", t."state", t."previousId", g."continueId", g."finalizedReason" FROM "AccessToken" t JOIN "Grant" g ON g."id" = t."grantId"
           WHERE t."valueHash" = $1`,
            [sha256(t.value)],
          )
        )[0]
      const mismatches: string[] = []
      for (const t of told.issued) {
        const r = await row(t)
        if (!r) mismatches.push(`issued token missing (${t.managementId})`)
        else if (r.continueId !== t.continueId) mismatches.push(`token on another grant (${t.managementId})`)
      }
      for (const { from, to } of told.rotated) {
        const a = await row(from)
        const b = await row(to)
        if (a?.state !== 'rotated' || b?.previousId !== a.id) mismatches.push(`rotation not held (${from.managementId} → ${to.managementId})`)
      }
      for (const t of told.revoked) if ((await row(t))?.state !== 'revoked') mismatches.push(`revocation not held (${t.managementId})`)
      for (const c of told.cancelled) {
        if ((await one(`SELECT "finalizedReason" FROM "Grant" WHERE "continueId" = $1`, [c])) !== 'revoked') mismatches.push(`cancel not held (${c})`)
      }
      return { integrity, violations, counts, mismatches }
    } finally {
      await store.close()
    }
  }

  /** Tokens the clients hold as live, with no unanswered request about them or their grant. */
  function believedLive(live: Token[]): Token[] {
    return live.filter((t) => !told.uncertainTokens.has(t.value) && !told.uncertainGrants.has(t.continueId) && !told.cancelled.has(t.continueId))
  }

  it(`keeps the database whole and every answer given, over ${CYCLES} kill cycles`, async () => {
    let live: Token[] = []
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      const srv = server!
      // Kill at a random moment up to 1 s after the cycle's first interactive grant was continued to a token (it
      // takes over a second after the first answer, for its wait; a fresh server loads each route on its first
      // request), so every cycle has one through interaction whatever the machine's speed: eight loops have requests
      // in flight at any moment, the other interactive loop's among them. SIGKILL goes to the whole process group.
      let onFirstAnswer!: () => void
      let onInteractiveIssued!: () => void
      const answering = new Promise<void>((resolve) => (onFirstAnswer = resolve))
      const interacted = new Promise<void>((resolve) => (onInteractiveIssued = resolve))
      const killing = Promise.race([Promise.all([answering, interacted]), sleep(20_000)])
        .then(() => sleep(Math.random() * 1000))
        .then(countCommits)
        .then(() => srv.kill('SIGKILL'))
      const loadStarted = Date.now()
      const interactiveBefore = told.interactiveIssued
      const counts = await load(srv, live, { onFirstAnswer, onInteractiveIssued })
      await killing
      const loadMs = Date.now() - loadStarted

      server = await start()
      const result = await checkDatabase()
      console.log(
        `${provider} crash cycle ${cycle}: killed after ${loadMs} ms; ${counts.sent} requests sent, ${counts.answered} answered, ${counts.cut} cut by SIGKILL; ` +
          `database ${JSON.stringify(result.counts)}; integrity_check ${String(result.integrity)}; ` +
          `invariant violations ${JSON.stringify(result.violations)}; answers not held ${result.mismatches.length} of ` +
          `${told.issued.length} tokens (${told.interactiveIssued} through interaction), ${told.rotated.length} rotations, ` +
          `${told.revoked.length} revocations, ${told.cancelled.size} cancels`,
      )
      expect(result.integrity).toBe('ok')
      expect(
        Object.values(result.violations).every((n) => n === 0),
        JSON.stringify(result.violations),
      ).toBe(true)
      expect(result.mismatches).toEqual([])
      expect(counts.cut).toBeGreaterThan(0)
      expect(told.interactiveIssued, 'interactive grants continued in this cycle').toBeGreaterThan(interactiveBefore)

      // Through the restarted server: the tokens the clients hold as live still work.
      const introspect = async (t: Token) => {
        const res = await fetch(`${server!.url}introspect`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${INTROSPECTION_SECRET}` },
          body: JSON.stringify({ access_token: t.value }),
        })
        return ((await res.json()) as { active: boolean }).active
      }
      for (const t of believedLive(live).slice(0, 20)) expect(await introspect(t), `live ${t.managementId}`).toBe(true)
      // A value rotated away or revoked with an answer stays dead.
      for (const t of [...told.rotated.slice(-10).map((r) => r.from), ...told.revoked.slice(-10)]) {
        expect(await introspect(t), `dead ${t.managementId}`).toBe(false)
      }
      live = believedLive(live)
    }
    expect(told.issued.length).toBeGreaterThan(CYCLES * 5)
    expect(told.rotated.length).toBeGreaterThan(0)
    expect(told.interactiveIssued).toBeGreaterThan(0)
    expect(told.revoked.length).toBeGreaterThan(0)
    console.log(`${provider} group commit over the run: ${commits.transactions} write transactions in ${commits.batches} commits`)
    // Under group commit, some commits carried more than one transaction (PostgreSQL groups its flushes itself).
    if (provider === 'sqlite') expect(commits.transactions).toBeGreaterThan(commits.batches)
  }, 150_000)
})
