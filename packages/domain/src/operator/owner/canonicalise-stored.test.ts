import { describe, expect, it } from 'vitest'
import { incomingAccess, introspect } from '../../testing/deps'
import { issueNonInteractiveGrant } from '../../testing/grant-flows'
import { useTestDeps } from '../../testing/use-test-deps'
import { listUnapprovedClients } from '../account/account'
import { canonicaliseStoredWalletAddresses } from './canonicalise-stored'
import { createOwner } from './create-owner'
import { disableOwner } from './manage-owners'
import type { ConsoleActor } from '../admin/roles'

// The start-time rewrite (docs/protocol.md §6, "Wallet address identifiers"; docs/security.md): what the SQL
// migration could not make canonical, dot segments and percent-encoding, stored before the canonical form.

const t = useTestDeps()
const ADMIN: ConsoleActor = { kind: 'admin', id: 'admin-1', label: 'ops@example.com', role: 'admin', tenantId: null }

const active = async (token: string) => ((await introspect(t.deps, { access_token: token })) as { active: boolean }).active
const owner = (email: string, walletAddresses: string[]) => createOwner(t.sql, { email, name: email, password: 'a-long-password-1', walletAddresses })

async function storedAs(identifier: string) {
  const g = await issueNonInteractiveGrant(t, { access: [incomingAccess({ identifier: 'https://wallet.example/alice' })] })
  const grant = await t.db.grant.findUniqueOrThrow({ where: { continueId: g.continueId } })
  await t.sql.run(`UPDATE "AccessItem" SET "identifier" = $1 WHERE "grantId" = $2`, [identifier, grant.id])
  expect(await active(g.tokenValue)).toBe(true)
  return g.tokenValue
}

describe('canonicaliseStoredWalletAddresses', () => {
  it('rewrites identifiers with dot segments or percent-encoding, so the owner sees and can revoke them', async () => {
    const alice = await owner('alice@example.com', ['https://wallet.example/alice'])
    const dots = await storedAs('https://wallet.example/x/../alice')
    const percent = await storedAs('https://wallet.example/%61lice/incoming-payments/%7e1')
    expect((await listUnapprovedClients(t.deps, alice.id)).totalGrants).toBe(0)

    expect(await canonicaliseStoredWalletAddresses(t.sql)).toEqual({ rewritten: 2, collisions: [] })
    expect((await listUnapprovedClients(t.deps, alice.id)).totalGrants).toBe(2)

    const identifiers = (await t.db.accessItem.findMany({ orderBy: { identifier: 'asc' } })).map((a) => a.identifier)
    expect(identifiers).toEqual(['https://wallet.example/alice', 'https://wallet.example/alice/incoming-payments/~1'])
    const disabled = await disableOwner(t.deps, { ownerId: alice.id, revokeGrants: true, actor: ADMIN })
    expect(disabled.revokedGrants).toBe(2)
    for (const token of [dots, percent]) expect(await active(token)).toBe(false)
    // A second start finds nothing left to do.
    expect(await canonicaliseStoredWalletAddresses(t.sql)).toEqual({ rewritten: 0, collisions: [] })
  })

  it('rewrites an owner address, but leaves two that would become one as they were', async () => {
    const bob = await owner('bob@example.com', ['https://wallet.example/bob'])
    await t.sql.run(`UPDATE "OwnerWalletAddress" SET "url" = $1 WHERE "ownerId" = $2`, ['https://wallet.example/./bob', bob.id])
    const carol = await owner('carol@example.com', ['https://wallet.example/carol'])
    const dave = await owner('dave@example.com', ['https://wallet.example/dave'])
    await t.sql.run(`UPDATE "OwnerWalletAddress" SET "url" = $1 WHERE "ownerId" = $2`, ['https://wallet.example/%63arol', dave.id])

    const result = await canonicaliseStoredWalletAddresses(t.sql)

    expect(result.collisions).toEqual(['https://wallet.example/%63arol'])
    const urlsOf = async (id: string) => (await t.db.ownerWalletAddress.findMany({ where: { ownerId: id } })).map((w) => w.url)
    expect(await urlsOf(bob.id)).toEqual(['https://wallet.example/bob'])
    expect(await urlsOf(carol.id)).toEqual(['https://wallet.example/carol'])
    expect(await urlsOf(dave.id)).toEqual(['https://wallet.example/%63arol'])
  })
})
