import { describe, expect, it } from 'vitest'
import { createOwner } from '../owner/create-owner'
import { DEMO_OWNER } from '../owner/demo-owner'
import { signInOwner } from '../owner/sign-in-owner'
import { useTestDeps } from '../../testing/use-test-deps'
import { createAdmin } from './create-admin'
import { DEMO_ADMIN } from './demo-admin'
import { findDemoState, removeDemoState } from './demo-state'
import { ensureFirstAdmin } from './ensure-first-admin'
import { signInAdmin } from './sign-in-admin'

// docs/protocol.md §7: a production start refuses a database holding accounts whose credentials are published.
const t = useTestDeps()

const REAL_ADMIN = { email: 'ops@example.org', password: 'a long and private password' }
const REAL_OWNER = { email: 'bob@example.org', name: 'Bob', password: 'bob-private-password', walletAddresses: ['https://wallet.example.org/bob'] }
const seedDemo = async () => {
  await ensureFirstAdmin(t.sql, { isProduction: false })
  await createOwner(t.sql, { ...DEMO_OWNER, walletAddresses: [...DEMO_OWNER.walletAddresses] })
}
const kinds = async () => (await findDemoState(t.sql)).map((i) => i.kind).sort()

describe('findDemoState and removeDemoState', () => {
  it('finds nothing in a database without demo accounts', async () => {
    await createAdmin(t.sql, REAL_ADMIN)
    await createOwner(t.sql, REAL_OWNER)
    expect(await findDemoState(t.sql)).toEqual([])
  })

  it('finds the demo administrator and the demo owner a non-production start seeds', async () => {
    await seedDemo()
    expect(await findDemoState(t.sql)).toEqual([
      expect.objectContaining({ kind: 'admin', description: expect.stringContaining(DEMO_ADMIN.email) }),
      expect.objectContaining({ kind: 'owner', description: expect.stringContaining(DEMO_OWNER.email) }),
    ])
  })

  it('finds an administrator of another email whose password is the demo password', async () => {
    await createAdmin(t.sql, { email: 'renamed@example.org', password: DEMO_ADMIN.password })
    expect(await findDemoState(t.sql)).toEqual([
      expect.objectContaining({ kind: 'admin', description: expect.stringContaining('renamed@example.org') }),
    ])
  })

  it('finds the demo wallet address given to another owner', async () => {
    await createOwner(t.sql, { ...REAL_OWNER, walletAddresses: [...REAL_OWNER.walletAddresses, ...DEMO_OWNER.walletAddresses] })
    expect(await kinds()).toEqual(['wallet-address'])
  })

  it('removes the demo accounts and their sessions, and leaves the real ones', async () => {
    await seedDemo()
    await createAdmin(t.sql, REAL_ADMIN)
    await createOwner(t.sql, { ...REAL_OWNER, walletAddresses: [...REAL_OWNER.walletAddresses, ...DEMO_OWNER.walletAddresses.map((u) => `${u}-2`)] })
    await signInAdmin(t.deps, { ...DEMO_ADMIN, ip: null })
    await signInOwner(t.deps, { email: DEMO_OWNER.email, password: DEMO_OWNER.password, ip: null })
    expect(await t.db.session.count()).toBe(2)

    expect((await removeDemoState(t.sql)).map((i) => i.kind)).toEqual(['admin', 'owner'])
    expect(await findDemoState(t.sql)).toEqual([])
    expect(await t.db.session.count()).toBe(0)
    expect(await signInAdmin(t.deps, { ...DEMO_ADMIN, ip: null })).toBeNull()
    expect(await signInAdmin(t.deps, { ...REAL_ADMIN, ip: null })).not.toBeNull()
    expect(await t.db.owner.findMany({ select: { email: true } })).toEqual([{ email: REAL_OWNER.email }])
    expect(await t.db.ownerWalletAddress.count()).toBe(2)
  })
})
