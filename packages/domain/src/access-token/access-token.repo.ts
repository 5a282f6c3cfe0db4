import type { DbTx } from '../db/client'
import type { AccessItem as AccessItemModel, AccessToken } from '../db/generated/client'
import { hashSecret, isId, newId, newSecret } from '../secrets'

// Tokens are read and written on every rotation, introspection and issuance, so these functions send their SQL
// through Prisma's raw queries: one statement each, without the per-call query compilation and result
// interpretation of the model API, which the benchmark's profile showed costing more than the rest of a request
// (issue #7). The SQL is the subset PostgreSQL shares (quoted identifiers, bound parameters; Prisma binds Dates as
// it stores them), and `t.*` keeps the rows the shape of the model. Results are the model's types.

export type AccessTokenState = 'active' | 'rotated' | 'revoked'

export interface IssuedToken {
  id: string
  managementId: string
  /** The value, returned to the client once and never stored. */
  value: string
  expiresIn: number
}

/** Inserts a live token for a grant; `previousId` links a rotation's successor to its predecessor. */
export async function insertAccessToken(
  tx: DbTx,
  input: { grantId: string; expiresIn: number; now: Date; previousId?: string },
): Promise<IssuedToken> {
  const value = newSecret()
  const id = newId()
  const managementId = newId()
  const expiresAt = new Date(input.now.getTime() + input.expiresIn * 1000)
  await tx.$executeRaw`
    INSERT INTO "AccessToken" ("id", "grantId", "managementId", "valueHash", "state", "expiresIn", "expiresAt", "createdAt", "previousId")
    VALUES (${id}, ${input.grantId}, ${managementId}, ${hashSecret(value)}, 'active', ${input.expiresIn}, ${expiresAt}, ${input.now}, ${input.previousId ?? null})`
  return { id, managementId, value, expiresIn: input.expiresIn }
}

/** A token with the grant fields authentication and the liveness checks read. */
export type TokenWithGrant = AccessToken & { grant: { id: string; client: string; state: string; finalizedReason: string | null } }

type TokenJoinRow = AccessToken & { grantClient: string; grantState: string; grantFinalizedReason: string | null }

const withGrant = ({ grantClient, grantState, grantFinalizedReason, ...token }: TokenJoinRow): TokenWithGrant => ({
  ...token,
  grant: { id: token.grantId, client: grantClient, state: grantState, finalizedReason: grantFinalizedReason },
})

/** A grant's access items in request order (rows as stored). */
export function findAccessItemRows(db: DbTx, grantId: string): Promise<AccessItemModel[]> {
  return db.$queryRaw<AccessItemModel[]>`SELECT * FROM "AccessItem" WHERE "grantId" = ${grantId} ORDER BY "position" ASC`
}

export async function findTokenByManagementId(db: DbTx, managementId: string): Promise<TokenWithGrant | null> {
  if (!isId(managementId)) return null
  const rows = await db.$queryRaw<TokenJoinRow[]>`
    SELECT t.*, g."client" AS "grantClient", g."state" AS "grantState", g."finalizedReason" AS "grantFinalizedReason"
    FROM "AccessToken" t JOIN "Grant" g ON g."id" = t."grantId"
    WHERE t."managementId" = ${managementId}`
  return rows[0] ? withGrant(rows[0]) : null
}

/** The token with this value (by its hash), its grant and the grant's access items; null when none. */
export async function findTokenByValue(
  db: DbTx,
  value: string,
): Promise<(AccessToken & { grant: TokenWithGrant['grant'] & { accessItems: AccessItemModel[] } }) | null> {
  const rows = await db.$queryRaw<TokenJoinRow[]>`
    SELECT t.*, g."client" AS "grantClient", g."state" AS "grantState", g."finalizedReason" AS "grantFinalizedReason"
    FROM "AccessToken" t JOIN "Grant" g ON g."id" = t."grantId"
    WHERE t."valueHash" = ${hashSecret(value)}`
  if (!rows[0]) return null
  const token = withGrant(rows[0])
  return { ...token, grant: { ...token.grant, accessItems: await findAccessItemRows(db, token.grantId) } }
}

/** Marks a token rotated only if it is still live; false for the loser of a race (PROTOCOL.md §2.4 step 5). */
export async function markRotated(tx: DbTx, id: string, now: Date): Promise<boolean> {
  const count = await tx.$executeRaw`UPDATE "AccessToken" SET "state" = 'rotated', "rotatedAt" = ${now} WHERE "id" = ${id} AND "state" = 'active'`
  return count === 1
}

/** Revokes the live tokens given; tokens already rotated or revoked keep their state and first time. */
export async function revokeLiveTokens(tx: DbTx, where: { grantId: string } | { id: string }, now: Date): Promise<number> {
  const { count } = await tx.accessToken.updateMany({ where: { ...where, state: 'active' }, data: { state: 'revoked', revokedAt: now } })
  return count
}

export const isTokenExpired = (t: { expiresAt: Date }, now: Date): boolean => now.getTime() >= t.expiresAt.getTime()
