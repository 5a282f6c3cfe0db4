// The floor: a bare node:http server doing what a rotation and an introspection must do at the least, on the same
// SQLite file and the same wire: parse the request, one Ed25519 verify with a cached key, one better-sqlite3
// transaction (conditional update + insert) for a rotation; one indexed lookup for an introspection. No framework,
// no ORM, no logging. It checks only what the work needs (it is a measure of the hardware, not a server to run):
// Signature-Input shape, created window, key, signature, token hash, token and grant state.
//
//   PORT=… DATABASE_FILE=… AUTH_SERVER_URL=http://127.0.0.1:PORT/ INTROSPECTION_SECRET=… node floor-server.mjs
import { createHash, createPublicKey, randomBytes, randomUUID, timingSafeEqual, verify } from 'node:crypto'
import { createServer } from 'node:http'
import { createRequire } from 'node:module'
import { fairTurns } from '@gnap/launcher/fair-turns'

const require = createRequire(import.meta.url)
const Database = require('better-sqlite3')

const base = process.env.AUTH_SERVER_URL
const secret = process.env.INTROSPECTION_SECRET
const db = new Database(process.env.DATABASE_FILE, { timeout: 10_000 })
db.pragma('journal_mode = WAL')
db.pragma('synchronous = NORMAL')

const iso = (ms) => new Date(ms).toISOString().replace('Z', '+00:00')
const sha256 = (s) => createHash('sha256').update(s, 'utf8').digest()

const byManagementId = db.prepare(
  `SELECT t.id, t.grantId, t.valueHash, t.state, g.client, g.state AS grantState, g.finalizedReason
     FROM "AccessToken" t JOIN "Grant" g ON g.id = t.grantId WHERE t.managementId = ?`,
)
const byValueHash = db.prepare(
  `SELECT t.state, t.expiresAt, g.id AS grantId, g.client, g.state AS grantState, g.finalizedReason
     FROM "AccessToken" t JOIN "Grant" g ON g.id = t.grantId WHERE t.valueHash = ?`,
)
const accessItems = db.prepare(`SELECT type, actions, identifier, limits FROM "AccessItem" WHERE grantId = ? ORDER BY position`)
const markRotated = db.prepare(`UPDATE "AccessToken" SET state = 'rotated', rotatedAt = ? WHERE id = ? AND state = 'active'`)
const insertToken = db.prepare(
  `INSERT INTO "AccessToken" (id, grantId, managementId, valueHash, state, expiresIn, expiresAt, createdAt, previousId)
   VALUES (?, ?, ?, ?, 'active', ?, ?, ?, ?)`,
)
const rotate = db.transaction((token, now) => {
  if (markRotated.run(iso(now), token.id).changes !== 1) return null
  const value = randomBytes(24).toString('hex').toUpperCase()
  const managementId = randomUUID()
  insertToken.run(randomUUID(), token.grantId, managementId, sha256(value).toString('hex'), 600, iso(now + 600_000), iso(now), token.id)
  return { value, managementId, items: accessItems.all(token.grantId) }
})

// Keys by wallet address and kid: fetched once, then a KeyObject from memory.
const keys = new Map()
async function keyFor(client, kid) {
  const ref = `${client}#${kid}`
  let key = keys.get(ref)
  if (key === undefined) {
    const res = await fetch(`${client}/jwks.json`)
    const jwk = (await res.json()).keys.find((k) => k.kid === kid)
    key = jwk ? createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' }) : null
    keys.set(ref, key)
  }
  return key
}

const SIG_INPUT = /^sig1=\(([^)]*)\);keyid="([^"]+)";created=(\d+)$/
const SIG = /^sig1=:([A-Za-z0-9+/=]+):$/

function send(res, status, body) {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}
const denied = (res, status = 401) => send(res, status, { error: { code: 'invalid_client', description: 'refused' } })

const toItem = (r) => ({
  type: r.type,
  actions: JSON.parse(r.actions),
  ...(r.identifier !== null ? { identifier: r.identifier } : {}),
  ...(r.limits !== null ? { limits: JSON.parse(r.limits) } : {}),
})

async function handleRotation(req, res, managementId) {
  const auth = /^GNAP (\S+)$/.exec(req.headers.authorization ?? '')
  const input = SIG_INPUT.exec(req.headers['signature-input'] ?? '')
  const sig = SIG.exec(req.headers.signature ?? '')
  if (!auth || !input || !sig) return denied(res)
  const now = Date.now()
  if (Math.abs(now / 1000 - Number(input[3])) > 300) return denied(res)
  const token = byManagementId.get(managementId)
  if (!token || token.state !== 'active' || token.grantState !== 'finalized' || token.finalizedReason !== 'issued') {
    return send(res, 404, { error: { code: 'invalid_rotation', description: 'no live token' } })
  }
  const key = await keyFor(token.client, input[2])
  if (!key) return denied(res)
  const lines = [`"@method": POST`, `"@target-uri": ${base}token/${managementId}`]
  if (input[1].includes('"authorization"')) lines.push(`"authorization": ${req.headers.authorization}`)
  lines.push(`"@signature-params": (${input[1]});keyid="${input[2]}";created=${input[3]}`)
  if (!verify(null, Buffer.from(lines.join('\n')), key, Buffer.from(sig[1], 'base64'))) return denied(res)
  const presented = sha256(auth[1])
  if (!timingSafeEqual(presented, Buffer.from(token.valueHash, 'hex'))) return denied(res)
  const next = rotate(token, now)
  if (!next) return send(res, 404, { error: { code: 'invalid_rotation', description: 'no live token' } })
  send(res, 200, {
    access_token: { value: next.value, manage: `${base}token/${next.managementId}`, expires_in: 600, access: next.items.map(toItem) },
  })
}

function handleIntrospection(req, res, body) {
  const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')
  if (!bearer || !timingSafeEqual(sha256(bearer[1]), sha256(secret))) return denied(res)
  let value
  try {
    value = JSON.parse(body).access_token
  } catch {
    return send(res, 400, { error: { code: 'invalid_request', description: 'bad body' } })
  }
  if (typeof value !== 'string') return send(res, 400, { error: { code: 'invalid_request', description: 'bad body' } })
  const token = byValueHash.get(sha256(value).toString('hex'))
  if (
    !token ||
    token.state !== 'active' ||
    Date.parse(token.expiresAt) <= Date.now() ||
    token.grantState !== 'finalized' ||
    token.finalizedReason !== 'issued'
  ) {
    return send(res, 200, { active: false })
  }
  send(res, 200, { active: true, grant: token.grantId, access: [], client: { walletAddress: token.client } })
}

// With the same fair event-loop turns as our workers (@gnap/launcher/fair-turns, compiled: plain node runs this file), so that at 256 connections it
// keeps accepting them as they do.
const server = createServer(
  fairTurns((req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const url = req.url ?? '/'
      Promise.resolve()
        .then(() => {
          if (req.method === 'POST' && url.startsWith('/token/')) return handleRotation(req, res, url.slice('/token/'.length))
          if (req.method === 'POST' && url === '/introspect') return handleIntrospection(req, res, body)
          send(res, 404, { error: { code: 'invalid_request', description: 'not here' } })
        })
        .catch((e) => send(res, 500, { error: { code: 'request_denied', description: String(e) } }))
    })
  }),
)
server.keepAliveTimeout = 60_000
server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('floor server listening'))
process.on('SIGTERM', () => server.close(() => process.exit(0)))
