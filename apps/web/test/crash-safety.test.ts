// Crash safety: concurrent loops of signed requests (grant requests, interactive grants continued with
// their interact_ref, rotations, revocations, cancels) against `next start`; the server is SIGKILLed in the middle,
// restarted on the same SQLite file, and the file is checked: integrity, the protocol's invariants, and that every
// answer a client got (200/204) is what the database holds. Three kill cycles.
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateClientKey, startWalletAddressServer } from '@gnap/domain/testing'
import { INTROSPECTION_SECRET, startServer, type RunningServer } from '@gnap/test-support'
import { consent, finishParams, outgoingAccess, sleep, type ClientKey } from './support/world'
import { incomingAccess, signedFetch, type IssuedToken } from './support/raw-http'
import { withDb } from './support/db'

const CYCLES = 3
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
const told = {
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
}

let wallets: Awaited<ReturnType<typeof startWalletAddressServer>>
let key: ClientKey
let walletAddress: string
let server: RunningServer | undefined
let dbFile: string

beforeAll(async () => {
  wallets = await startWalletAddressServer({})
  key = generateClientKey('crash-key')
  server = await startServer(ENV)
  dbFile = server.dbFile
  walletAddress = wallets.addClient('crash', { publicName: 'Crash App', keys: [key.jwk], authServer: server.url })
})

afterAll(async () => {
  await server?.stop()
  await wallets?.close()
})

/** Runs the load loops until the server dies under them; returns request and answer counts. */
async function load(srv: RunningServer, live: Token[]) {
  let stopped = false
  const counts = { sent: 0, answered: 0, cut: 0 }
  const pick = () => (live.length ? live.splice(Math.floor(Math.random() * live.length), 1)[0]! : null)

  /** One request; null when the kill cut it (before or while the answer arrived): its outcome is unknown. */
  async function call(send: () => Promise<Response>): Promise<{ status: number; body: unknown } | null> {
    counts.sent++
    try {
      const res = await send()
      const text = await res.text()
      counts.answered++
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
  await Promise.all([loop(grant), loop(grant), loop(interactive), loop(interactive), loop(rotate), loop(rotate), loop(revoke, 30), loop(cancel, 60)])
  return counts
}

/** Continuation tokens of non-interactive grants, so the cancel loop can cancel them. */
const continueTokens = new Map<string, string>()

function checkDatabase(file: string) {
  return withDb(file, (db) => {
    const one = (sql: string, ...params: unknown[]) =>
      db
        .prepare(sql)
        .pluck()
        .get(...params)
    const integrity = one('PRAGMA integrity_check')
    const issuedWithoutToken = one(`SELECT COUNT(*) FROM "Grant" g WHERE g.state = 'finalized' AND g.finalizedReason = 'issued'
      AND NOT EXISTS (SELECT 1 FROM "AccessToken" t WHERE t.grantId = g.id)`)
    const rotatedWithoutOneSuccessor = one(`SELECT COUNT(*) FROM "AccessToken" t WHERE t.state = 'rotated'
      AND (SELECT COUNT(*) FROM "AccessToken" s WHERE s.previousId = t.id) <> 1`)
    const successorOfLiveToken = one(`SELECT COUNT(*) FROM "AccessToken" s JOIN "AccessToken" p ON p.id = s.previousId WHERE p.state <> 'rotated'`)
    const tokenWithoutGrant = one(`SELECT COUNT(*) FROM "AccessToken" t LEFT JOIN "Grant" g ON g.id = t.grantId WHERE g.id IS NULL`)
    const usedRefWithoutToken = one(`SELECT COUNT(*) FROM "Interaction" i JOIN "Grant" g ON g.id = i.grantId WHERE i.refUsedAt IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM "AccessToken" t WHERE t.grantId = g.id)`)
    const liveTokenOfRevokedGrant = one(`SELECT COUNT(*) FROM "AccessToken" t JOIN "Grant" g ON g.id = t.grantId
      WHERE t.state = 'active' AND g.finalizedReason = 'revoked'`)
    const counts = {
      grants: one('SELECT COUNT(*) FROM "Grant"') as number,
      tokens: one('SELECT COUNT(*) FROM "AccessToken"') as number,
      rotated: one(`SELECT COUNT(*) FROM "AccessToken" WHERE state = 'rotated'`) as number,
      revoked: one(`SELECT COUNT(*) FROM "AccessToken" WHERE state = 'revoked'`) as number,
    }

    type Row = { id: string; state: string; previousId: string | null; continueId: string; finalizedReason: string | null }
    const byHash = db.prepare(
      `SELECT t.id, t.state, t.previousId, g.continueId, g.finalizedReason FROM "AccessToken" t JOIN "Grant" g ON g.id = t.grantId WHERE t.valueHash = ?`,
    )
    const row = (t: Token) => byHash.get(sha256(t.value)) as Row | undefined
    const mismatches: string[] = []
    for (const t of told.issued) {
      const r = row(t)
      if (!r) mismatches.push(`issued token missing (${t.managementId})`)
      else if (r.continueId !== t.continueId) mismatches.push(`token on another grant (${t.managementId})`)
    }
    for (const { from, to } of told.rotated) {
      const a = row(from)
      const b = row(to)
      if (a?.state !== 'rotated' || b?.previousId !== a.id) mismatches.push(`rotation not held (${from.managementId} → ${to.managementId})`)
    }
    for (const t of told.revoked) if (row(t)?.state !== 'revoked') mismatches.push(`revocation not held (${t.managementId})`)
    const grantByContinue = db.prepare(`SELECT finalizedReason FROM "Grant" WHERE continueId = ?`).pluck()
    for (const c of told.cancelled) if (grantByContinue.get(c) !== 'revoked') mismatches.push(`cancel not held (${c})`)
    return {
      integrity,
      violations: {
        issuedWithoutToken,
        rotatedWithoutOneSuccessor,
        successorOfLiveToken,
        tokenWithoutGrant,
        usedRefWithoutToken,
        liveTokenOfRevokedGrant,
      },
      counts,
      mismatches,
    }
  })
}

/** Tokens the clients hold as live, with no unanswered request about them or their grant. */
function believedLive(live: Token[]): Token[] {
  return live.filter((t) => !told.uncertainTokens.has(t.value) && !told.uncertainGrants.has(t.continueId) && !told.cancelled.has(t.continueId))
}

describe('crash safety: SIGKILL under load, restart on the same file', () => {
  it(`keeps the database whole and every answer given, over ${CYCLES} kill cycles`, async () => {
    let live: Token[] = []
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      const srv = server!
      // Kill at a random moment 2.5 to 4 s into the load (an interactive grant takes over a second, for its wait):
      // eight loops have requests in flight at any moment.
      const killing = sleep(2500 + Math.random() * 1500).then(() => srv.kill('SIGKILL'))
      const loadStarted = Date.now()
      const counts = await load(srv, live)
      await killing
      const loadMs = Date.now() - loadStarted

      server = await startServer(ENV, { dbFile })
      wallets.addClient('crash', { publicName: 'Crash App', keys: [key.jwk], authServer: server.url })
      const result = checkDatabase(dbFile)
      console.log(
        `crash cycle ${cycle}: killed after ${loadMs} ms; ${counts.sent} requests sent, ${counts.answered} answered, ${counts.cut} cut by SIGKILL; ` +
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

      // Through the restarted server: the tokens the clients hold as live still work.
      const held = believedLive(live).slice(0, 40)
      for (const t of held) {
        const res = await fetch(`${server.url}introspect`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${INTROSPECTION_SECRET}` },
          body: JSON.stringify({ access_token: t.value }),
        })
        expect(await res.json(), t.managementId).toMatchObject({ active: true })
      }
      live = believedLive(live)
    }
    expect(told.issued.length).toBeGreaterThan(CYCLES * 20)
    expect(told.rotated.length).toBeGreaterThan(0)
    expect(told.interactiveIssued).toBeGreaterThan(0)
    expect(told.revoked.length).toBeGreaterThan(0)
  }, 180_000)
})
