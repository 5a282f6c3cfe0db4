import { revokeGrant } from '@gnap/domain/protocol'
import type { AccessItem } from '@gnap/domain/protocol'
import {
  grantRequest,
  incomingAccess,
  interact,
  issueInteractiveGrant,
  issueNonInteractiveGrant,
  outgoingAccess,
  quoteAccess,
  requestPendingGrant,
  approvedGrant,
  type TestDeps,
} from '@gnap/domain/testing'

// Grants of every state, access type and several clients whose wallet addresses share prefixes, one minute
// apart, written through the use cases. `truth` is what the database holds, for computing expected answers.

export const CLIENT_A = 'https://wallet.example/app-a'
export const CLIENT_AB = 'https://wallet.example/app-ab'
/** `_` would be a LIKE wildcard matching `-`. */
export const CLIENT_U = 'https://wallet.example/app_b'
/** Paths are case-sensitive: not under the `app-a` prefix. */
export const CLIENT_UPPER = 'https://wallet.example/APP-A'

export interface TruthRow {
  id: string
  continueId: string
  state: string
  finalizedReason: string | null
  client: string
  types: string[]
  createdAt: Date
  updatedAt: Date
}

export async function seedVariety(t: TestDeps) {
  const step = () => t.clock.advance(60)
  const made: { continueId: string; managementId?: string }[] = []

  const issue = async (client: string, access: AccessItem[] = [incomingAccess()]) => {
    const g = await issueNonInteractiveGrant(t, { client, access })
    made.push({ continueId: g.continueId, managementId: g.managementId })
    return g
  }
  const outgoing = (client: string) => grantRequest({ client, access: [outgoingAccess()] })

  await issue(CLIENT_A)
  step()
  await issue(CLIENT_AB, [quoteAccess()])
  step()
  await issue(CLIENT_U, [incomingAccess(), quoteAccess()])
  step()
  made.push(await requestPendingGrant(t, outgoing(CLIENT_A)))
  step()
  made.push(await approvedGrant(t, outgoing(CLIENT_AB)))
  step()
  made.push(await interact(t, await requestPendingGrant(t, outgoing(CLIENT_A)), 'reject'))
  step()
  const toRevoke = await issue(CLIENT_U)
  step()
  const cancelled = await requestPendingGrant(t, outgoing(CLIENT_UPPER))
  made.push(cancelled)
  step()
  const interactive = await issueInteractiveGrant(t, grantRequest({ client: CLIENT_A, access: [outgoingAccess(), quoteAccess()] }))
  made.push({ continueId: interactive.continueId, managementId: interactive.managementId })
  step()
  await issue(CLIENT_UPPER, [quoteAccess()])
  step()
  // Revocations change updatedAt, so the two sort orders differ.
  await revokeGrant(t.deps, (await t.db.grant.findUniqueOrThrow({ where: { continueId: toRevoke.continueId } })).id)
  step()
  await revokeGrant(t.deps, (await t.db.grant.findUniqueOrThrow({ where: { continueId: cancelled.continueId } })).id)

  return { truth: await readTruth(t), made, interactive }
}

export async function readTruth(t: TestDeps): Promise<TruthRow[]> {
  const rows = await t.db.grant.findMany({ include: { accessItems: { orderBy: { position: 'asc' } } } })
  return rows.map((g) => ({
    id: g.id,
    continueId: g.continueId,
    state: g.state,
    finalizedReason: g.finalizedReason,
    client: g.client,
    types: g.accessItems.map((i) => i.type),
    createdAt: g.createdAt,
    updatedAt: g.updatedAt,
  }))
}

/** Rows in the console's order: by the field, then id, both in the direction. */
export function ordered(rows: TruthRow[], field: 'createdAt' | 'updatedAt', direction: 'asc' | 'desc'): TruthRow[] {
  const sign = direction === 'asc' ? 1 : -1
  return [...rows].sort((a, b) => sign * (a[field].getTime() - b[field].getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)))
}
