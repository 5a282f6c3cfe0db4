import { describe, expect, it } from 'vitest'
import { databaseText } from '../../testing/deps'
import { useTestDeps } from '../../testing/use-test-deps'
import { checkPasswordLink, setPasswordWithLink } from '../password-link/set-password-with-link'
import { adminFromSession } from './admin-from-session'
import { createAdmin } from './create-admin'
import {
  ADMIN_LINK_TTL_SECONDS,
  changeAdminRole,
  disableAdmin,
  enableAdmin,
  inviteAdmin,
  listAdmins,
  resetAdminPassword,
  signOutAdminEverywhere,
} from './manage-admins'
import { actorOfAdmin, type AdminRole } from './roles'
import { signInAdmin } from './sign-in-admin'

const t = useTestDeps()

const ROOT = { email: 'root@example.com', password: 'root password for tests' }
const NEW_PASSWORD = 'violet kettle under stairs'
const conflict = { name: 'ConsoleError', code: 'conflict' }

/** An administrator with a password, and the console actor they act as. */
async function anAdmin(email = ROOT.email, role: AdminRole = 'admin') {
  const admin = await createAdmin(t.sql, { email, password: ROOT.password, role })
  return { ...admin, actor: actorOfAdmin(admin) }
}

/** A session of the administrator (no two-step sign-in here), or null for refused credentials. */
async function signIn(email: string, password = ROOT.password) {
  const out = await signInAdmin(t.deps, { email, password, ip: '192.0.2.1' })
  if (out && out.step !== 'signed-in') throw new Error('expected a session, not a code step')
  return out
}
const secretOf = (url: string) => url.split('/').pop() ?? ''
const use = (url: string, password = NEW_PASSWORD) =>
  setPasswordWithLink(t.deps, { subject: 'admin', secret: secretOf(url), password, confirm: password })
const liveSessions = async (adminId: string) => t.db.session.count({ where: { kind: 'admin', subjectId: adminId } })
const auditOf = async (action: string) => t.db.auditLog.findMany({ where: { action }, orderBy: { createdAt: 'asc' } })

describe('inviteAdmin', () => {
  it('creates an administrator with the role and no password, and a link that lets them sign in with that role', async () => {
    const root = await anAdmin()
    const { id, email, url, expiresAt } = await inviteAdmin(t.deps, { invite: { email: 'Bob@Example.COM', role: 'operator' }, actor: root.actor })
    expect(email).toBe('bob@example.com')
    expect(url).toMatch(/^https:\/\/auth\.example\/admin\/set-password\/[A-Za-z0-9_-]{43}$/)
    expect(expiresAt).toEqual(new Date(t.clock.now.getTime() + ADMIN_LINK_TTL_SECONDS * 1000))
    expect(await t.db.admin.findUniqueOrThrow({ where: { id } })).toMatchObject({ email: 'bob@example.com', role: 'operator', passwordHash: null })
    // Not signed in before the link is used, whatever the password.
    for (const password of ['', 'null', NEW_PASSWORD]) expect(await signIn('bob@example.com', password)).toBeNull()
    expect(await checkPasswordLink(t.deps, 'admin', secretOf(url))).toEqual({
      kind: 'usable',
      accountName: 'bob@example.com',
      linkKind: 'invitation',
    })
    // An administrator's link opens nothing on the owners' page.
    expect(await checkPasswordLink(t.deps, 'owner', secretOf(url))).toEqual({ kind: 'problem', problem: 'unknown' })
    expect(await use(url)).toEqual({ kind: 'done' })
    const session = await signIn('bob@example.com', NEW_PASSWORD)
    expect(session?.admin).toEqual({ id, email: 'bob@example.com', role: 'operator' })
    expect(await auditOf('admin.invite')).toMatchObject([
      { actor: ROOT.email, target: 'admin:bob@example.com', detail: expect.stringContaining('as operator') },
    ])
    expect(await auditOf('admin.set-password')).toMatchObject([{ actor: 'bob@example.com', target: 'admin:bob@example.com', detail: 'invitation' }])
    const text = await databaseText(t)
    expect(text).not.toContain(secretOf(url))
    expect(text).not.toContain(NEW_PASSWORD)
  })

  it('works once, and not after it expires', async () => {
    const root = await anAdmin()
    const first = await inviteAdmin(t.deps, { invite: { email: 'bob@example.com', role: 'viewer' }, actor: root.actor })
    expect(await use(first.url)).toEqual({ kind: 'done' })
    expect(await use(first.url, 'another long password here')).toEqual({ kind: 'problem', problem: 'used' })
    expect(await signIn('bob@example.com', NEW_PASSWORD)).not.toBeNull()
    const late = await inviteAdmin(t.deps, { invite: { email: 'carol@example.com', role: 'viewer' }, actor: root.actor })
    t.clock.advance(ADMIN_LINK_TTL_SECONDS)
    expect(await use(late.url)).toEqual({ kind: 'problem', problem: 'expired' })
    expect(await t.db.admin.findUniqueOrThrow({ where: { id: late.id } })).toMatchObject({ passwordHash: null })
  })

  it('refuses an email another administrator has, in any case, and writes nothing', async () => {
    const root = await anAdmin()
    await expect(inviteAdmin(t.deps, { invite: { email: 'ROOT@example.com', role: 'viewer' }, actor: root.actor })).rejects.toMatchObject(conflict)
    expect(await t.db.admin.count()).toBe(1)
    expect(await t.db.passwordLink.count()).toBe(0)
  })

  it("a disabled administrator's link sets nothing: disabling deleted it", async () => {
    const root = await anAdmin()
    const bob = await inviteAdmin(t.deps, { invite: { email: 'bob@example.com', role: 'operator' }, actor: root.actor })
    await disableAdmin(t.deps, { change: { adminId: bob.id }, actor: root.actor })
    expect(await use(bob.url)).toEqual({ kind: 'problem', problem: 'unknown' })
    expect(await t.db.admin.findUniqueOrThrow({ where: { id: bob.id } })).toMatchObject({ passwordHash: null })
    await enableAdmin(t.deps, { change: { adminId: bob.id }, actor: root.actor })
    expect(await signIn('bob@example.com', NEW_PASSWORD)).toBeNull()
  })
})

/** Two connections open and idle (PostgreSQL), so the two transactions of a race start together. */
const warmPool = () => Promise.all([1, 2].map(() => t.sql.transaction((tx) => tx.all('SELECT 1'))))

describe('the last active admin', () => {
  it('cannot be demoted, disabled or reset while no other active admin exists; can once one does', async () => {
    const root = await anAdmin()
    const other = await anAdmin('other@example.com', 'operator')
    await expect(changeAdminRole(t.deps, { change: { adminId: root.id, role: 'operator' }, actor: root.actor })).rejects.toMatchObject({
      ...conflict,
      message: expect.stringContaining('no active admin would be left'),
    })
    await expect(disableAdmin(t.deps, { change: { adminId: root.id }, actor: other.actor })).rejects.toMatchObject(conflict)
    await expect(resetAdminPassword(t.deps, { change: { adminId: root.id }, actor: { ...other.actor, role: 'admin' } })).rejects.toMatchObject(
      conflict,
    )
    // An invited admin who has not set a password yet cannot sign in, so does not count.
    await inviteAdmin(t.deps, { invite: { email: 'new@example.com', role: 'admin' }, actor: root.actor })
    await expect(changeAdminRole(t.deps, { change: { adminId: root.id, role: 'viewer' }, actor: root.actor })).rejects.toMatchObject(conflict)
    expect(await t.db.admin.findUniqueOrThrow({ where: { id: root.id } })).toMatchObject({ role: 'admin', disabledAt: null })
    expect(await signIn(ROOT.email)).not.toBeNull()
    // With a second active admin, the first may step down.
    await changeAdminRole(t.deps, { change: { adminId: other.id, role: 'admin' }, actor: root.actor })
    await expect(changeAdminRole(t.deps, { change: { adminId: root.id, role: 'viewer' }, actor: root.actor })).resolves.toEqual({
      id: root.id,
      role: 'viewer',
    })
    expect((await auditOf('admin.role')).map((a) => a.detail)).toEqual(['operator → admin', 'admin → viewer'])
  })

  it('survives two admins demoting each other at the same moment: exactly one demotion happens', async () => {
    const a = await anAdmin('a@example.com')
    const b = await anAdmin('b@example.com')
    await warmPool()
    const results = await Promise.allSettled([
      changeAdminRole(t.deps, { change: { adminId: b.id, role: 'viewer' }, actor: a.actor }),
      changeAdminRole(t.deps, { change: { adminId: a.id, role: 'viewer' }, actor: b.actor }),
    ])
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected'])
    expect(await t.db.admin.count({ where: { role: 'admin' } })).toBe(1)
    expect(await auditOf('admin.role')).toHaveLength(1)
  })

  it('survives two admins disabling each other at the same moment: one admin stays active', async () => {
    const a = await anAdmin('a@example.com')
    const b = await anAdmin('b@example.com')
    await warmPool()
    const results = await Promise.allSettled([
      disableAdmin(t.deps, { change: { adminId: b.id }, actor: a.actor }),
      disableAdmin(t.deps, { change: { adminId: a.id }, actor: b.actor }),
    ])
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected'])
    expect(await t.db.admin.count({ where: { disabledAt: null } })).toBe(1)
  })
})

describe('disableAdmin and enableAdmin', () => {
  it('ends the sessions and sign-in of a disabled administrator, and enabling gives sign-in back', async () => {
    const root = await anAdmin()
    const bob = await anAdmin('bob@example.com', 'operator')
    const session = await signIn('bob@example.com')
    await signIn('bob@example.com')
    expect(await disableAdmin(t.deps, { change: { adminId: bob.id }, actor: root.actor })).toEqual({ id: bob.id, endedSessions: 2, revokedKeys: 0 })
    expect(await liveSessions(bob.id)).toBe(0)
    expect(await adminFromSession(t.deps, session!.value)).toBeNull()
    expect(await signIn('bob@example.com')).toBeNull()
    await expect(disableAdmin(t.deps, { change: { adminId: bob.id }, actor: root.actor })).rejects.toMatchObject(conflict)
    await enableAdmin(t.deps, { change: { adminId: bob.id }, actor: root.actor })
    expect((await signIn('bob@example.com'))?.admin.role).toBe('operator')
    expect(await auditOf('admin.disable')).toMatchObject([{ actor: ROOT.email, target: 'admin:bob@example.com', detail: '2 sessions ended' }])
    expect(await auditOf('admin.enable')).toHaveLength(1)
  })

  it('does not let an administrator disable themselves', async () => {
    const root = await anAdmin()
    await anAdmin('other@example.com')
    await expect(disableAdmin(t.deps, { change: { adminId: root.id }, actor: root.actor })).rejects.toMatchObject({
      ...conflict,
      message: expect.stringContaining('your own account'),
    })
    expect(await signIn(ROOT.email)).not.toBeNull()
  })

  it('answers not_found for an unknown administrator', async () => {
    const root = await anAdmin()
    await expect(disableAdmin(t.deps, { change: { adminId: 'nobody' }, actor: root.actor })).rejects.toMatchObject({ code: 'not_found' })
  })
})

describe('resetAdminPassword', () => {
  it('stops the old password, ends the sessions, and gives a link that sets a new one', async () => {
    const root = await anAdmin()
    const bob = await anAdmin('bob@example.com', 'viewer')
    const session = await signIn('bob@example.com')
    const reset = await resetAdminPassword(t.deps, { change: { adminId: bob.id }, actor: root.actor })
    expect(reset.endedSessions).toBe(1)
    expect(await adminFromSession(t.deps, session!.value)).toBeNull()
    expect(await signIn('bob@example.com')).toBeNull()
    expect(await checkPasswordLink(t.deps, 'admin', secretOf(reset.url))).toMatchObject({ kind: 'usable', linkKind: 'reset' })
    expect(await use(reset.url)).toEqual({ kind: 'done' })
    expect((await signIn('bob@example.com', NEW_PASSWORD))?.admin.role).toBe('viewer')
    expect(await auditOf('admin.reset-password')).toMatchObject([{ actor: ROOT.email, detail: expect.stringContaining('1 session ended') }])
    expect(JSON.stringify(await t.db.auditLog.findMany())).not.toContain(secretOf(reset.url))
  })

  it('refuses one’s own password (changed with the current one instead)', async () => {
    const root = await anAdmin()
    await anAdmin('other@example.com')
    await expect(resetAdminPassword(t.deps, { change: { adminId: root.id }, actor: root.actor })).rejects.toMatchObject(conflict)
    expect(await signIn(ROOT.email)).not.toBeNull()
  })
})

describe('signOutAdminEverywhere', () => {
  it('ends every session of the administrator, who can sign in again', async () => {
    const root = await anAdmin()
    const bob = await anAdmin('bob@example.com', 'operator')
    const sessions = [await signIn('bob@example.com'), await signIn('bob@example.com')]
    const mine = await signIn(ROOT.email)
    expect(await signOutAdminEverywhere(t.deps, { change: { adminId: bob.id }, actor: root.actor })).toEqual({ id: bob.id, endedSessions: 2 })
    for (const s of sessions) expect(await adminFromSession(t.deps, s!.value)).toBeNull()
    expect(await adminFromSession(t.deps, mine!.value)).not.toBeNull()
    expect(await signIn('bob@example.com')).not.toBeNull()
    expect(await auditOf('admin.sign-out-everywhere')).toMatchObject([
      { actor: ROOT.email, target: 'admin:bob@example.com', detail: '2 sessions ended' },
    ])
  })
})

describe('listAdmins', () => {
  it('lists every administrator with role, status and last sign-in', async () => {
    const root = await anAdmin()
    const bob = await inviteAdmin(t.deps, { invite: { email: 'bob@example.com', role: 'operator' }, actor: root.actor })
    const carol = await anAdmin('carol@example.com', 'viewer')
    await disableAdmin(t.deps, { change: { adminId: carol.id }, actor: root.actor })
    await signIn(ROOT.email)
    expect(await listAdmins(t.deps)).toEqual([
      {
        id: bob.id,
        email: 'bob@example.com',
        role: 'operator',
        status: 'invited',
        twoStep: false,
        createdAt: expect.any(Date),
        lastSignInAt: null,
        liveApiKeys: 0,
      },
      {
        id: carol.id,
        email: 'carol@example.com',
        role: 'viewer',
        status: 'disabled',
        twoStep: false,
        createdAt: expect.any(Date),
        lastSignInAt: null,
        liveApiKeys: 0,
      },
      {
        id: root.id,
        email: ROOT.email,
        role: 'admin',
        status: 'active',
        twoStep: false,
        createdAt: expect.any(Date),
        lastSignInAt: t.clock.now,
        liveApiKeys: 0,
      },
    ])
  })
})
