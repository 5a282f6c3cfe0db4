import { describe, expect, it } from 'vitest'
import { databaseText } from '../../testing/deps'
import { createOwner } from './create-owner'
import { useTestDeps } from '../../testing/use-test-deps'

const t = useTestDeps()

const ALICE = {
  email: 'alice@example.com',
  name: 'Alice',
  password: 'correct horse battery staple',
  walletAddresses: ['https://wallet.example/alice'],
}

describe('createOwner', () => {
  it('stores the email in lower case, the wallet addresses without a trailing slash and only an argon2id hash of the password', async () => {
    const { id } = await createOwner(t.sql, { ...ALICE, email: 'Alice@Example.COM', walletAddresses: ['https://wallet.example/alice/'] })
    const owner = await t.db.owner.findUniqueOrThrow({ where: { id }, include: { walletAddresses: true } })
    expect(owner.email).toBe('alice@example.com')
    expect(owner.walletAddresses.map((w) => w.url)).toEqual(['https://wallet.example/alice'])
    expect(owner.passwordHash).toMatch(/^\$argon2id\$/)
    expect(await databaseText(t)).not.toContain(ALICE.password)
  })

  it.each([
    ['an invalid email', { email: 'not-an-email' }],
    ['a short password', { password: 'short' }],
    ['no wallet address', { walletAddresses: [] }],
    ['a wallet address that is not http(s)', { walletAddresses: ['ftp://wallet.example/alice'] }],
  ])('refuses %s and writes nothing', async (_name, override) => {
    await expect(createOwner(t.sql, { ...ALICE, ...override })).rejects.toThrow()
    expect(await t.db.owner.count()).toBe(0)
    expect(await t.db.ownerWalletAddress.count()).toBe(0)
  })
})
