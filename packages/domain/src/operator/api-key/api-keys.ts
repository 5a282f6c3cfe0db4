import { randomBytes } from 'node:crypto'
import { z } from 'zod'
import type { Deps } from '../../protocol/deps'
import type { SqlRunner } from '../../kernel/db/sql'
import { rateLimited } from '../../kernel/errors'
import { hashSecret, secretMatches } from '../../kernel/secrets'
import { hitRateLimit } from '../../kernel/rate-limit/rate-limit'
import { insertAuditEntry } from '../audit/audit.repo'
import { ConsoleError } from '../admin/console-error'
import { ADMIN_ROLES, roleAllows, type AdminRole, type ConsoleActor } from '../admin/roles'
import { CreateApiKeyInputSchema } from './api-key-input'
import { isLiveTenant } from '../tenant/list-tenants'
import {
  findApiKeyById,
  insertApiKey,
  listApiKeyRows,
  liveApiKeyNamed,
  liveApiKeysCreatedBy,
  markApiKeyRevoked,
  touchApiKey,
  type ApiKeyCreator,
  type ApiKeyRow,
  type ApiKeyWithCreator,
} from './api-key.repo'

// API keys of back ends (docs/protocol.md §2.18): `gnap_ak_<id>_<secret>`, the id a random 64-bit handle that finds
// the row, the secret 256 random bits. Only SHA-256 of the whole key is stored: for a key this random a slow hash
// adds nothing (nobody can guess 2^256 values, however fast each guess), and a fast one costs nothing per call.

const KEY_SHAPE = /^gnap_ak_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/

/** How often at most a key's last use is written: a busy back end does not write a row per call. */
export const API_KEY_LAST_USE_PRECISION_SECONDS = 60

export { CreateApiKeyInputSchema }

export const ApiKeyIdInputSchema = z.strictObject({ id: z.string().regex(/^[0-9a-f]{16}$/, 'not an API key id') })

export type ApiKeyStatus = 'active' | 'expired' | 'revoked'

/** The key's creator as they are now: a key of a disabled or deleted (or unknown) creator is refused. */
export type ApiKeyCreatorStatus = 'active' | 'disabled' | 'deleted'

/** What the console lists about a key: never the key, never its hash. */
export interface ApiKeyView {
  id: string
  name: string
  role: AdminRole
  prefix: string
  /** The creator's email when the key was created. */
  createdBy: string
  creatorStatus: ApiKeyCreatorStatus
  /**
   * The role a call with the key acts with now: the lower of the key's and its creator's current role; null while
   * no call is accepted (not active, or the creator disabled or deleted).
   */
  actsAs: AdminRole | null
  createdAt: Date
  expiresAt: Date | null
  lastUsedAt: Date | null
  revokedAt: Date | null
  status: ApiKeyStatus
  /** The one tenant it is bound to (docs/protocol.md §2.21); null: every tenant. */
  tenantId: string | null
}

/** How the audit log and the logs name a key's calls. */
export const apiKeyLabel = (name: string): string => `api key "${name}"`

const knownRole = (role: string): AdminRole | null => ((ADMIN_ROLES as readonly string[]).includes(role) ? (role as AdminRole) : null)

const creatorStatusOf = (creator: ApiKeyCreator | null): ApiKeyCreatorStatus =>
  creator === null ? 'deleted' : creator.disabledAt === null ? 'active' : 'disabled'

/**
 * The role a key acts with (docs/security.md, "API keys answer to their creator"): the lower of its own and its
 * creator's current role; null when its creator is disabled, deleted or unknown, or either role is not one we know.
 */
function cappedRole(key: ApiKeyWithCreator): AdminRole | null {
  const own = knownRole(key.role)
  const creators = key.creator && key.creator.disabledAt === null ? knownRole(key.creator.role) : null
  if (own === null || creators === null) return null
  return roleAllows(creators, own) ? own : creators
}

function view(row: ApiKeyWithCreator, now: Date): ApiKeyView {
  const status: ApiKeyStatus = row.revokedAt ? 'revoked' : row.expiresAt && row.expiresAt <= now ? 'expired' : 'active'
  return {
    id: row.id,
    name: row.name,
    role: knownRole(row.role) ?? 'viewer',
    prefix: row.prefix,
    createdBy: row.createdBy,
    creatorStatus: creatorStatusOf(row.creator),
    actsAs: status === 'active' ? cappedRole(row) : null,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    lastUsedAt: row.lastUsedAt,
    revokedAt: row.revokedAt,
    status,
    tenantId: row.tenantId,
  }
}

/**
 * Creates a key. The key is in the answer only: the caller shows it once, and only its hash is kept.
 * @throws ConsoleError bad_request for an expiry in the past or a tenant that is unknown or deleted, conflict for the
 *   name of a key in use
 */
export async function createApiKey(
  deps: Deps,
  input: z.input<typeof CreateApiKeyInputSchema> & { actor: ConsoleActor },
): Promise<{ key: string; apiKey: ApiKeyView }> {
  const { name, role, expiresAt, tenantId } = CreateApiKeyInputSchema.parse({
    name: input.name,
    role: input.role,
    expiresAt: input.expiresAt,
    tenantId: input.tenantId,
  })
  const now = deps.clock()
  if (expiresAt && expiresAt <= now) throw new ConsoleError('bad_request', 'the expiry must be in the future')
  const id = randomBytes(8).toString('hex')
  const key = `gnap_ak_${id}_${randomBytes(32).toString('base64url')}`
  const row: ApiKeyRow = {
    id,
    name,
    role,
    prefix: `gnap_ak_${id}`,
    hash: hashSecret(key),
    createdBy: input.actor.label,
    createdById: input.actor.id,
    createdAt: now,
    expiresAt: expiresAt ?? null,
    lastUsedAt: null,
    revokedAt: null,
    // Null: every tenant (docs/protocol.md §2.21).
    tenantId,
  }
  await deps.sql.transaction(async (tx) => {
    if (await liveApiKeyNamed(tx, name)) throw new ConsoleError('conflict', `a key named "${name}" exists: revoke it first or choose another name`)
    if (tenantId !== null && !(await isLiveTenant(tx, tenantId))) {
      throw new ConsoleError('bad_request', `no live tenant has the id "${tenantId}": a key can only be bound to a tenant that exists`)
    }
    await insertApiKey(tx, row)
    await insertAuditEntry(tx, {
      actor: input.actor.label,
      action: 'api-key.create',
      target: `api-key:${id}`,
      detail: `${apiKeyLabel(name)}, role ${role}${expiresAt ? `, expires ${expiresAt.toISOString()}` : ''}${tenantId ? `, bound to tenant ${tenantId}` : ''}`,
      now,
    })
  })
  deps.log.info({ apiKeyId: id, role, tenantId, by: input.actor.id }, 'api key created')
  return { key, apiKey: view({ ...row, creator: { role: input.actor.role, disabledAt: null } }, now) }
}

/** Every key with its status, newest first. */
export async function listApiKeys(deps: Deps): Promise<ApiKeyView[]> {
  const now = deps.clock()
  return (await listApiKeyRows(deps.sql)).map((r) => view(r, now))
}

/**
 * Revokes a key: its next call is refused, on every instance (each call reads the row).
 * @throws ConsoleError not_found for an unknown key, conflict for a key already revoked
 */
export async function revokeApiKey(deps: Deps, input: { id: string; actor: ConsoleActor }): Promise<ApiKeyView> {
  const now = deps.clock()
  const row = await deps.sql.transaction(async (tx) => {
    const found = await findApiKeyById(tx, input.id)
    if (!found) throw new ConsoleError('not_found', 'unknown API key')
    if (!(await markApiKeyRevoked(tx, input.id, now))) throw new ConsoleError('conflict', 'the key was already revoked')
    await auditRevoke(tx, { actor: input.actor, key: found, detail: apiKeyLabel(found.name), now })
    return { ...found, revokedAt: now }
  })
  deps.log.info({ apiKeyId: input.id, by: input.actor.id }, 'api key revoked')
  return view(row, now)
}

const auditRevoke = (tx: SqlRunner, e: { actor: ConsoleActor; key: { id: string }; detail: string; now: Date }) =>
  insertAuditEntry(tx, { actor: e.actor.label, action: 'api-key.revoke', target: `api-key:${e.key.id}`, detail: e.detail, now: e.now })

/**
 * Revokes every live key an administrator created, inside the caller's transaction (disabling them, docs/security.md
 * "API keys answer to their creator"): one `api-key.revoke` audit entry per key, naming why. The number revoked.
 */
export async function revokeApiKeysCreatedBy(
  tx: SqlRunner,
  input: { admin: { id: string; email: string }; actor: ConsoleActor; now: Date },
): Promise<number> {
  let revoked = 0
  for (const key of await liveApiKeysCreatedBy(tx, input.admin.id, input.now)) {
    if (!(await markApiKeyRevoked(tx, key.id, input.now))) continue
    const detail = `${apiKeyLabel(key.name)}; its creator ${input.admin.email} was disabled`
    await auditRevoke(tx, { actor: input.actor, key, detail, now: input.now })
    revoked++
  }
  return revoked
}

/** A presented key that works: who calls, and when the key was last recorded as used. */
export interface ApiKeyCaller {
  actor: ConsoleActor
  lastUsedAt: Date | null
}

/**
 * The caller behind `Authorization: Bearer <key>`: null for anything that is not a live key (not of the key's
 * shape — a session cookie's value never is —, unknown, wrong secret, revoked, expired, its creator disabled,
 * deleted or unknown). The caller acts with the lower of the key's role and its creator's current role (docs/security.md,
 * "API keys answer to their creator"). One read by primary key, the creator joined; the secret is compared in
 * constant time. Writes nothing.
 */
export async function findApiKeyCaller(deps: Deps, presented: string): Promise<ApiKeyCaller | null> {
  const m = KEY_SHAPE.exec(presented)
  if (!m?.[1]) return null
  const row = await findApiKeyById(deps.sql, m[1])
  if (!row || !secretMatches(presented, row.hash)) return null
  const now = deps.clock()
  if (row.revokedAt || (row.expiresAt && row.expiresAt <= now)) return null
  const role = cappedRole(row)
  if (role === null) return null
  return { actor: { kind: 'apiKey', id: row.id, label: apiKeyLabel(row.name), role, tenantId: row.tenantId }, lastUsedAt: row.lastUsedAt }
}

/**
 * Counts one call of a key against its per-minute limit (shared by every instance through the database) and
 * records its last use at most once a minute.
 * @throws GnapError rate limited (429 with Retry-After) over the limit
 */
export async function admitApiKeyCall(deps: Deps, caller: ApiKeyCaller): Promise<void> {
  const now = deps.clock()
  const hit = await hitRateLimit(deps.sql, `api-key:${caller.actor.id}`, deps.config.apiKeyCallsPerMinute, 60, now)
  if (!hit.allowed) {
    deps.metrics.rateLimited('api_key')
    throw rateLimited('too many calls with this API key: slow down', hit.retryAfterSeconds)
  }
  const since = new Date(now.getTime() - API_KEY_LAST_USE_PRECISION_SECONDS * 1000)
  if (caller.lastUsedAt === null || caller.lastUsedAt < since) {
    await touchApiKey(deps.sql, caller.actor.id, now, since)
    caller.lastUsedAt = now
  }
}
