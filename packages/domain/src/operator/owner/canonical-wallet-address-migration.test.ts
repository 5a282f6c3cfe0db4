import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { incomingAccess } from '../../testing/deps'
import { issueNonInteractiveGrant } from '../../testing/grant-flows'
import { useTestDeps } from '../../testing/use-test-deps'
import { createOwner } from './create-owner'
import { listUnapprovedClients } from '../account/account'

// The migration 20261127210000_canonical_wallet_addresses (docs/security.md, "One written form of a wallet address"),
// run again on rows written as the server stored them before: the access item identifiers, the grants' clients and
// the owners' wallet addresses come out canonical, and two owner addresses that would become one are left alone.

const t = useTestDeps()

const repoRoot = path.resolve(import.meta.dirname, '../../../../..')
const MIGRATION = '20261127210000_canonical_wallet_addresses'

/** The migration's statements for the database under test, as `prisma migrate deploy` runs them. */
async function runMigration(): Promise<void> {
  const folder = t.sql.dialect === 'postgresql' ? 'prisma/postgres/migrations' : 'prisma/migrations'
  const text = fs.readFileSync(path.join(repoRoot, folder, MIGRATION, 'migration.sql'), 'utf8')
  const statements = text
    .split('\n')
    .filter((line) => !line.startsWith('--'))
    .join('\n')
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s !== '')
  for (const statement of statements) await t.sql.run(statement)
}

const owner = (email: string, walletAddresses: string[]) => createOwner(t.sql, { email, name: email, password: 'a-long-password-1', walletAddresses })

describe(MIGRATION, () => {
  it('rewrites stored identifiers, clients and owner addresses to the canonical form, so /account finds the grant', async () => {
    const alice = await owner('alice@example.com', ['https://wallet.example/alice'])
    const g = await issueNonInteractiveGrant(t, { access: [incomingAccess({ identifier: 'https://wallet.example/alice' })] })
    const grant = await t.db.grant.findUniqueOrThrow({ where: { continueId: g.continueId } })
    // As the server stored them before: the spellings the request carried.
    await t.sql.run(`UPDATE "AccessItem" SET "identifier" = $1 WHERE "grantId" = $2`, ['HTTPS://WALLET.Example:443/alice/', grant.id])
    await t.sql.run(`UPDATE "Grant" SET "client" = $1 WHERE "id" = $2`, ['https://Wallet.Example/test-app/', grant.id])
    await t.sql.run(`UPDATE "OwnerWalletAddress" SET "url" = $1 WHERE "ownerId" = $2`, ['https://WALLET.example:443/alice', alice.id])
    const bob = await owner('bob@example.com', ['http://wallet.example/bob'])
    await t.sql.run(`UPDATE "OwnerWalletAddress" SET "url" = $1 WHERE "ownerId" = $2`, ['HTTP://Wallet.Example:80/bob/', bob.id])
    expect((await listUnapprovedClients(t.deps, alice.id)).totalGrants).toBe(0)

    await runMigration()

    expect((await t.db.accessItem.findFirstOrThrow({ where: { grantId: grant.id } })).identifier).toBe('https://wallet.example/alice')
    expect((await t.db.grant.findUniqueOrThrow({ where: { id: grant.id } })).client).toBe('https://wallet.example/test-app')
    const urls = (await t.db.ownerWalletAddress.findMany({ orderBy: { url: 'asc' } })).map((w) => w.url)
    expect(urls).toEqual(['http://wallet.example/bob', 'https://wallet.example/alice'])
    expect((await listUnapprovedClients(t.deps, alice.id)).clients).toMatchObject([
      { clientWalletAddress: 'https://wallet.example/test-app', grants: 1 },
    ])
  })

  it('leaves two owner addresses that would become one as they were, and what it cannot rewrite in SQL untouched', async () => {
    const carol = await owner('carol@example.com', ['https://wallet.example/carol'])
    const dave = await owner('dave@example.com', ['https://wallet.example/dave'])
    await t.sql.run(`UPDATE "OwnerWalletAddress" SET "url" = $1 WHERE "ownerId" = $2`, ['https://WALLET.example/carol', dave.id])
    const erin = await owner('erin@example.com', ['https://wallet.example/erin'])
    const frank = await owner('frank@example.com', ['https://wallet.example/frank'])
    await t.sql.run(`UPDATE "OwnerWalletAddress" SET "url" = $1 WHERE "ownerId" = $2`, ['https://Wallet.example/erin/', erin.id])
    await t.sql.run(`UPDATE "OwnerWalletAddress" SET "url" = $1 WHERE "ownerId" = $2`, ['https://WALLET.EXAMPLE:443/erin', frank.id])
    const gina = await owner('gina@example.com', ['https://wallet.example/gina'])
    await t.sql.run(`UPDATE "OwnerWalletAddress" SET "url" = $1 WHERE "ownerId" = $2`, ['https://WALLET.example/gina/', gina.id])
    const g = await issueNonInteractiveGrant(t, { access: [incomingAccess({ identifier: 'https://wallet.example/carol' })] })
    const grant = await t.db.grant.findUniqueOrThrow({ where: { continueId: g.continueId } })
    await t.sql.run(`UPDATE "AccessItem" SET "identifier" = $1 WHERE "grantId" = $2`, ['https://user@WALLET.example/carol?x=1', grant.id])

    await runMigration()

    const byOwner = async (id: string) => (await t.db.ownerWalletAddress.findMany({ where: { ownerId: id } })).map((w) => w.url)
    expect(await byOwner(carol.id)).toEqual(['https://wallet.example/carol'])
    expect(await byOwner(dave.id)).toEqual(['https://WALLET.example/carol'])
    expect(await byOwner(erin.id)).toEqual(['https://Wallet.example/erin/'])
    expect(await byOwner(frank.id)).toEqual(['https://WALLET.EXAMPLE:443/erin'])
    // The same run still rewrites an address nobody else's becomes.
    expect(await byOwner(gina.id)).toEqual(['https://wallet.example/gina'])
    expect((await t.db.accessItem.findFirstOrThrow({ where: { grantId: grant.id } })).identifier).toBe('https://user@WALLET.example/carol?x=1')
  })
})
