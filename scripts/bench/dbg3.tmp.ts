import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path'; import { randomUUID } from 'node:crypto'
import { migrateFile } from '../../packages/domain/src/testing/test-db'
import { openDb } from '../../packages/domain/src/db/client'
import { Prisma } from '../../packages/domain/src/db/generated/client'
import { findTokenByManagementId, insertAccessToken, markRotated } from '../../packages/domain/src/access-token/access-token.repo'
import { seedTokens } from './lib/seed'
async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gnap-dbg-')); const f = path.join(dir, 'b.db'); migrateFile(f)
  seedTokens(f, 1000, 100)
  const db = await openDb(`file:${f}`)
  const tok = await db.accessToken.findFirstOrThrow({ where: { state: 'active' } })
  const rows = await db.$queryRaw<any[]>`SELECT t.*, g."client", g."state" AS "grantState", g."finalizedReason" FROM "AccessToken" t JOIN "Grant" g ON g."id" = t."grantId" WHERE t."managementId" = ${tok.managementId}`
  console.log(rows[0], typeof rows[0].expiresIn, rows[0].expiresAt instanceof Date)
  console.log(await findTokenByManagementId(db, tok.managementId))
  const N = 2000
  const time = async (name: string, fn: () => Promise<unknown>) => { for (let i = 0; i < 200; i++) await fn(); const c = process.cpuUsage(); const t = performance.now(); for (let i = 0; i < N; i++) await fn(); const u = process.cpuUsage(c); console.log(name.padEnd(34), ((performance.now() - t) / N).toFixed(3), 'ms wall', ((u.user + u.system) / 1000 / N).toFixed(3), 'ms cpu') }
  await time('queryRaw join', () => db.$queryRaw`SELECT t.*, g."client", g."state" AS "grantState", g."finalizedReason" FROM "AccessToken" t JOIN "Grant" g ON g."id" = t."grantId" WHERE t."managementId" = ${tok.managementId}`)
  await time('queryRaw items', () => db.$queryRaw`SELECT "type", "actions", "identifier", "limits" FROM "AccessItem" WHERE "grantId" = ${tok.grantId} ORDER BY "position"`)
  let prev = tok.id
  await time('interactive tx: prisma update+create', () => db.$transaction(async (tx) => { await markRotated(tx, prev, new Date()); const t = await insertAccessToken(tx, { grantId: tok.grantId, expiresIn: 600, now: new Date(), previousId: prev }); prev = t.id }))
  await time('interactive tx: raw update+insert', () => db.$transaction(async (tx) => { const now = new Date(); const n = await tx.$executeRaw`UPDATE "AccessToken" SET "state" = 'rotated', "rotatedAt" = ${now} WHERE "id" = ${prev} AND "state" = 'active'`; if (n !== 1) throw new Error('x'); const id = randomUUID(); await tx.$executeRaw`INSERT INTO "AccessToken" ("id","grantId","managementId","valueHash","state","expiresIn","expiresAt","createdAt","previousId") VALUES (${id}, ${tok.grantId}, ${randomUUID()}, ${randomUUID()}, 'active', 600, ${now}, ${now}, ${prev})`; prev = id }))
  await time('batch tx: raw insert-if + update', async () => { const now = new Date(); const id = randomUUID(); const [ins, upd] = await db.$transaction([db.$executeRaw`INSERT INTO "AccessToken" ("id","grantId","managementId","valueHash","state","expiresIn","expiresAt","createdAt","previousId") SELECT ${id}, ${tok.grantId}, ${randomUUID()}, ${randomUUID()}, 'active', 600, ${now}, ${now}, ${prev} WHERE EXISTS (SELECT 1 FROM "AccessToken" WHERE "id" = ${prev} AND "state" = 'active')`, db.$executeRaw`UPDATE "AccessToken" SET "state" = 'rotated', "rotatedAt" = ${now} WHERE "id" = ${prev} AND "state" = 'active'`]); if (ins !== 1 || upd !== 1) throw new Error('y'); prev = id })
  await db.$disconnect()
}
main()
