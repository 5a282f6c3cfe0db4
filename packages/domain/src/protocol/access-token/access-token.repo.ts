import type { SqlRunner } from '../../kernel/db/sql'
import type { AccessToken } from '../../kernel/db/generated/client'
import { hashSecret, isId, newId, newSecret } from '../../kernel/secrets'
import { rowToAccessItem, type AccessItemRow } from '../access/access.repo'
import type { AccessItem } from '../access/access.wire'
import type { FinalizedReason, GrantState, GrantStatus } from '../grant/grant-state'
import { JOIN_TENANT, LIVE_TENANT } from '../tenant/tenant.repo'

// Tokens are read and written on every rotation, introspection and issuance: these functions are one prepared
// statement each through the hot paths' SQL runner (kernel/db/sql.ts), in SQL both databases share. Rows keep the model's
// shape and types.

export interface IssuedToken {
  id: string
  managementId: string
  /** The value, returned to the client once and never stored. */
  value: string
  expiresIn: number
}

/** Inserts a live token for a grant; `previousId` links a rotation's successor to its predecessor. */
export async function insertAccessToken(
  tx: SqlRunner,
  input: { grantId: string; expiresIn: number; now: Date; previousId?: string },
): Promise<IssuedToken> {
  const value = newSecret()
  const id = newId()
  const managementId = newId()
  const expiresAt = new Date(input.now.getTime() + input.expiresIn * 1000)
  await tx.run(
    `INSERT INTO "AccessToken" ("id", "grantId", "managementId", "valueHash", "state", "expiresIn", "expiresAt", "createdAt", "previousId")
     VALUES ($1, $2, $3, $4, 'active', $5, $6, $7, $8)`,
    [id, input.grantId, managementId, hashSecret(value), input.expiresIn, expiresAt, input.now, input.previousId ?? null],
  )
  return { id, managementId, value, expiresIn: input.expiresIn }
}

/** A token with the grant fields authentication and the liveness checks read. */
export type TokenWithGrant = AccessToken & { grant: GrantStatus & { id: string; client: string; clientJwk: string | null } }

type TokenJoinRow = AccessToken & {
  grantClient: string
  grantClientJwk: string | null
  grantState: GrantState
  grantFinalizedReason: FinalizedReason | null
}

const withGrant = ({ grantClient, grantClientJwk, grantState, grantFinalizedReason, ...token }: TokenJoinRow): TokenWithGrant => ({
  ...token,
  grant: { id: token.grantId, client: grantClient, clientJwk: grantClientJwk, state: grantState, finalizedReason: grantFinalizedReason },
})

const TOKEN_WITH_GRANT = `
  SELECT t.*, g."client" AS "grantClient", g."clientJwk" AS "grantClientJwk", g."state" AS "grantState", g."finalizedReason" AS "grantFinalizedReason"
  FROM "AccessToken" t JOIN "Grant" g ON g."id" = t."grantId"`

/**
 * A token by its management id, with its grant and whether the grant's client is blocked (one statement). None for a
 * token of a deleted tenant's grant (docs/protocol.md §2.21).
 */
export async function findTokenByManagementId(db: SqlRunner, managementId: string): Promise<(TokenWithGrant & { clientBlocked: boolean }) | null> {
  if (!isId(managementId)) return null
  const rows = await db.all<TokenJoinRow & { blockedClient: string | null }>(
    `SELECT t.*, g."client" AS "grantClient", g."clientJwk" AS "grantClientJwk", g."state" AS "grantState", g."finalizedReason" AS "grantFinalizedReason", b."client" AS "blockedClient"
     FROM "AccessToken" t JOIN "Grant" g ON g."id" = t."grantId" LEFT JOIN "ClientBlock" b ON b."client" = g."client" ${JOIN_TENANT}
     WHERE t."managementId" = $1 AND ${LIVE_TENANT}`,
    [managementId],
  )
  if (!rows[0]) return null
  const { blockedClient, ...row } = rows[0]
  return { ...withGrant(row), clientBlocked: blockedClient !== null }
}

/** What introspection reads about a token (docs/protocol.md §2.6): its liveness, its grant and the grant's access. */
export interface IntrospectedToken {
  state: string
  expiresAt: Date
  grant: GrantStatus & { id: string; client: string; clientJwk: string | null; access: readonly AccessItem[] }
}

type IntrospectionRow = Partial<AccessItemRow> & {
  state: string
  expiresAt: Date
  grantId: string
  grantClient: string
  grantClientJwk: string | null
  grantState: GrantState
  grantFinalizedReason: FinalizedReason | null
}

// Introspection's one statement: the token by its hash, its grant, the grant's access items (one row per item, in
// request order, through the (grantId, position) index) (docs/protocol.md §2.6). An unknown token gives no row, and so
// does a token of a deleted tenant's grant (§2.21).
const INTROSPECTION = `
  SELECT t."state", t."expiresAt", t."grantId", g."client" AS "grantClient", g."clientJwk" AS "grantClientJwk", g."state" AS "grantState",
    g."finalizedReason" AS "grantFinalizedReason", a."type", a."actions", a."identifier", a."limits"
  FROM "AccessToken" t JOIN "Grant" g ON g."id" = t."grantId"
  LEFT JOIN "AccessItem" a ON a."grantId" = t."grantId"
  ${JOIN_TENANT}
  WHERE t."valueHash" = $1 AND ${LIVE_TENANT}
  ORDER BY a."position" ASC`

/**
 * A grant's access items never change once written (access.repo.ts), so each process turns a grant's rows into its
 * wire form once and keeps the result; the oldest entries are dropped beyond this many grants.
 */
const ACCESS_CACHE_GRANTS = 10_000
const accessCache = new Map<string, readonly AccessItem[]>()

function accessOf(grantId: string, rows: IntrospectionRow[]): readonly AccessItem[] {
  let items = accessCache.get(grantId)
  if (items) return items
  items = Object.freeze(
    rows.filter((r): r is IntrospectionRow & AccessItemRow => typeof r.type === 'string').map((r) => deepFreeze(rowToAccessItem(r))),
  )
  if (accessCache.size >= ACCESS_CACHE_GRANTS) accessCache.delete(accessCache.keys().next().value as string)
  accessCache.set(grantId, items)
  return items
}

/**
 * Freezes an item and everything in it: introspection answers hand out the cached items themselves (docs/protocol.md
 * §2.6), so nothing that holds an answer can change what the next answer for the grant says.
 */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner)
    Object.freeze(value)
  }
  return value
}

/** The token with this value (by its hash) with its grant and access, in one statement; null when no token has this value. */
export async function findTokenForIntrospection(db: SqlRunner, value: string): Promise<IntrospectedToken | null> {
  const rows = await db.all<IntrospectionRow>(INTROSPECTION, [hashSecret(value)])
  const first = rows[0]
  if (!first) return null
  return {
    state: first.state,
    expiresAt: first.expiresAt,
    grant: {
      id: first.grantId,
      client: first.grantClient,
      clientJwk: first.grantClientJwk,
      state: first.grantState,
      finalizedReason: first.grantFinalizedReason,
      access: accessOf(first.grantId, rows),
    },
  }
}

/** Marks a token rotated only if it is still live; false for the loser of a race (docs/protocol.md §2.4 step 5). */
export async function markRotated(tx: SqlRunner, id: string, now: Date): Promise<boolean> {
  const count = await tx.run(`UPDATE "AccessToken" SET "state" = 'rotated', "rotatedAt" = $1 WHERE "id" = $2 AND "state" = 'active'`, [now, id])
  return count === 1
}

/**
 * Revokes the live tokens given: one token, or the tokens of a grant. Tokens already rotated or revoked keep their
 * state and first time. The number revoked.
 */
export function revokeLiveTokens(tx: SqlRunner, where: { grantId: string } | { id: string }, now: Date): Promise<number> {
  const [column, value] = 'grantId' in where ? ['grantId', where.grantId] : ['id', where.id]
  return tx.run(`UPDATE "AccessToken" SET "state" = 'revoked', "revokedAt" = $1 WHERE "${column}" = $2 AND "state" = 'active'`, [now, value])
}

/**
 * Revokes the live tokens of every grant of a client (its wallet address as stored), in one statement, as
 * revokeLiveTokens does. The grant id of each token revoked, so each grant's event counts its own.
 */
export async function revokeLiveTokensOfClient(tx: SqlRunner, client: string, now: Date): Promise<string[]> {
  const rows = await tx.all<{ grantId: string }>(
    `UPDATE "AccessToken" SET "state" = 'revoked', "revokedAt" = $1
      WHERE "state" = 'active' AND "grantId" IN (SELECT "id" FROM "Grant" WHERE "client" = $2)
     RETURNING "grantId"`,
    [now, client],
  )
  return rows.map((r) => r.grantId)
}

export const isTokenExpired = (t: { expiresAt: Date }, now: Date): boolean => now.getTime() >= t.expiresAt.getTime()

const placeholders = (n: number) => Array.from({ length: n }, (_, i) => `$${i + 1}`).join(', ')

/** One way of dying before the cutoff: its column's own index gives the first `take` in the order they died. */
const deadBy = (column: 'expiresAt' | 'rotatedAt' | 'revokedAt') =>
  `SELECT "id", "createdAt" FROM (SELECT "id", "createdAt" FROM "AccessToken" WHERE "${column}" < $1 ORDER BY "${column}" ASC LIMIT $2) AS "${column}"`

/**
 * Up to `take` tokens dead before `$1`, oldest first among those found: the first `take` of each way of dying, each read
 * from its own index (AccessToken_expiresAt_state_idx, AccessToken_rotatedAt_idx, AccessToken_revokedAt_idx), never a
 * walk of the table, so a run's cost follows the dead rows and not the live ones (docs/operating.md, retention).
 * Whenever `take` or more tokens are dead, it gives `take` of them: fewer means none is left.
 */
export const DEAD_TOKENS_SQL = `SELECT "id" FROM (${deadBy('expiresAt')} UNION ${deadBy('rotatedAt')} UNION ${deadBy('revokedAt')}) AS "dead"
  ORDER BY "createdAt" ASC, "id" ASC LIMIT $2`

/** Ids of up to `take` tokens dead (expired, rotated or revoked) before `cutoff` (DEAD_TOKENS_SQL). */
export async function findDeadTokenIds(db: SqlRunner, cutoff: Date, take: number): Promise<string[]> {
  const rows = await db.all<{ id: string }>(DEAD_TOKENS_SQL, [cutoff, take])
  return rows.map((r) => r.id)
}

/** Deletes these tokens, first setting the `previousId` of their successors to null; the number deleted. */
export async function deleteTokens(tx: SqlRunner, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0
  await tx.run(`UPDATE "AccessToken" SET "previousId" = NULL WHERE "previousId" IN (${placeholders(ids.length)})`, ids)
  return tx.run(`DELETE FROM "AccessToken" WHERE "id" IN (${placeholders(ids.length)})`, ids)
}
