// Who may do what in the console and the operator API (docs/protocol.md §2.14). One ladder: each role may do
// everything the roles below it may.

/** `viewer` reads; `operator` also revokes grants and tokens and blocks clients; `admin` also manages people and keys. */
export const ADMIN_ROLES = ['viewer', 'operator', 'admin'] as const

export type AdminRole = (typeof ADMIN_ROLES)[number]

/** Whether `role` may do what `needed` may. An unknown stored role allows nothing. */
export function roleAllows(role: string, needed: AdminRole): boolean {
  const have = ADMIN_ROLES.indexOf(role as AdminRole)
  return have >= 0 && have >= ADMIN_ROLES.indexOf(needed)
}

/**
 * Who calls a console procedure: a signed-in administrator, or a back end with an API key. `label` names them in
 * the audit log (an administrator's email, a key's name).
 */
export interface ConsoleActor {
  kind: 'admin' | 'apiKey' | 'adminApi'
  id: string
  label: string
  role: AdminRole
  /**
   * The one tenant the caller is bound to (docs/protocol.md §2.21): it sees and changes only that tenant's grants,
   * owners and clients. Null: every tenant (administrators, and keys bound to none).
   */
  tenantId: string | null
}

/** The actor of an administrator's own session. */
export const actorOfAdmin = (admin: { id: string; email: string; role: AdminRole }): ConsoleActor => ({
  kind: 'admin',
  id: admin.id,
  label: admin.email,
  role: admin.role,
  tenantId: null,
})
