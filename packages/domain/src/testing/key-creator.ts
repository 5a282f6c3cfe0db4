import type { SqlRunner } from '../kernel/db/sql'
import { insertAdmin } from '../operator/admin/admin.repo'
import type { AdminIdentity } from '../operator/admin/admin-session'
import { actorOfAdmin, type AdminRole, type ConsoleActor } from '../operator/admin/roles'

/**
 * The administrator of `email` to create API keys as, made (invited: no password, so no hashing) if there is none
 * yet: a key acts at most with its creator's current role, and not at all without one (docs/security.md, "API keys
 * answer to their creator").
 */
export async function keyCreator(sql: SqlRunner, email = 'setup@example.com', role: AdminRole = 'admin'): Promise<ConsoleActor> {
  const [found] = await sql.all<AdminIdentity>(`SELECT "id", "email", "role" FROM "Admin" WHERE "email" = $1`, [email])
  return actorOfAdmin(found ?? (await insertAdmin(sql, { email, passwordHash: null, role, now: new Date() })))
}
