import type { Sql, SqlRunner } from '../../kernel/db/sql'
import { DEMO_OWNER } from '../owner/demo-owner'
import { deleteOwner, deleteOwnerWalletAddress, findOwnerByEmail, findOwnerOfWalletAddress } from '../owner/owner.repo'
import { verifyPassword } from '../sign-in/password'
import { deletePasswordLinksOf } from '../password-link/password-link.repo'
import { deleteSessionsOf } from '../../kernel/session/session.repo'
import { deleteAdmin, listAdminsWithHashes } from './admin.repo'
import { DEMO_ADMIN } from './demo-admin'

/** One piece of demo state in a database: what it is, in words an operator reads. */
export interface DemoStateItem {
  kind: 'admin' | 'owner' | 'wallet-address'
  id: string
  description: string
}

/**
 * The accounts whose credentials are published (docs/protocol.md §7): the demo administrator's email, any
 * administrator whose password is the demo password, the demo resource owner's email, and the demo wallet address.
 * A production start refuses a database that holds any of them.
 */
export async function findDemoState(db: SqlRunner): Promise<DemoStateItem[]> {
  const found: DemoStateItem[] = []
  for (const admin of await listAdminsWithHashes(db)) {
    if (admin.email === DEMO_ADMIN.email) {
      found.push({ kind: 'admin', id: admin.id, description: `the demo administrator ${admin.email}` })
    } else if (await verifyPassword(admin.passwordHash, DEMO_ADMIN.password)) {
      found.push({ kind: 'admin', id: admin.id, description: `the administrator ${admin.email}, whose password is the public demo password` })
    }
  }
  const owner = await findOwnerByEmail(db, DEMO_OWNER.email)
  if (owner) found.push({ kind: 'owner', id: owner.id, description: `the demo resource owner ${DEMO_OWNER.email}` })
  for (const url of DEMO_OWNER.walletAddresses) {
    const holder = await findOwnerOfWalletAddress(db, url)
    if (holder && holder.id !== owner?.id) {
      found.push({ kind: 'wallet-address', id: url, description: `the demo wallet address ${url}, owned by ${holder.email}` })
    }
  }
  return found
}

/**
 * Removes what `findDemoState` finds, in one transaction, with the sessions and password links of the removed accounts. Grants and the
 * audit log are kept. Returns what was removed. With no administrator left, the next start creates one from
 * ADMIN_EMAIL and ADMIN_PASSWORD.
 */
export async function removeDemoState(db: Sql): Promise<DemoStateItem[]> {
  // The password checks (argon2) run before the transaction: nothing slow holds the write lock.
  const found = await findDemoState(db)
  if (found.length === 0) return []
  await db.transaction(async (tx) => {
    for (const item of found) {
      if (item.kind === 'admin') {
        await deleteSessionsOf(tx, 'admin', item.id)
        await deletePasswordLinksOf(tx, 'admin', item.id)
        await deleteAdmin(tx, item.id)
      } else if (item.kind === 'owner') {
        await deleteSessionsOf(tx, 'owner', item.id)
        await deletePasswordLinksOf(tx, 'owner', item.id)
        await deleteOwner(tx, item.id)
      } else {
        await deleteOwnerWalletAddress(tx, item.id)
      }
    }
  })
  return found
}
