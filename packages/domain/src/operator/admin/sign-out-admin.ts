import type { Deps } from '../../protocol/deps'
import { endSession } from '../../kernel/session/end-session'
import { insertAuditEntry } from '../audit/audit.repo'
import type { AdminIdentity } from './admin-session'

/** Ends an administrator's session (the cookie's value); signing out twice is harmless. Throws nothing. */
export async function signOutAdmin(deps: Deps, input: { sessionValue: string | null; admin: AdminIdentity | null }): Promise<void> {
  const now = deps.clock()
  await deps.sql.transaction(async (tx) => {
    await endSession(tx, input.sessionValue)
    if (input.admin) await insertAuditEntry(tx, { actor: input.admin.email, action: 'admin.sign-out', target: `admin:${input.admin.email}`, now })
  })
}
