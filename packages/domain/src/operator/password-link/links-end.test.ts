import { describe, expect, it } from 'vitest'
import { useTestDeps } from '../../testing/use-test-deps'
import { hashSecret, newId } from '../../kernel/secrets'
import { changeOwnerPassword } from '../account/account'
import { createOwner } from '../owner/create-owner'
import { signInOwner } from '../owner/sign-in-owner'
import { disableOwner, enableOwner } from '../owner/manage-owners'
import { createAdmin } from '../admin/create-admin'
import { disableAdmin, enableAdmin } from '../admin/manage-admins'
import { changeAdminPassword } from '../admin/my-account'
import { actorOfAdmin } from '../admin/roles'
import { signInAdmin, type AdminSignIn } from '../admin/sign-in-admin'
import { issuePasswordLink, newLinkSecret } from './password-link'
import { insertPasswordLink, type LinkKind, type LinkSubject } from './password-link.repo'
import { checkPasswordLink, setPasswordWithLink } from './set-password-with-link'

// A password link ends with the password it was for (docs/security.md, "Password links"): setting or changing the
// password, disabling, enabling or deleting the account deletes every unused link of the account, of either kind, for
// owners and administrators alike. Each test holds a live link, does the change, and finds the link gone.
const t = useTestDeps()

const DAY = 86_400
const PASSWORD = 'an old long password'
const NEW_PASSWORD = 'violet kettle under stairs'
const IP = '192.0.2.1'

async function anOwner(): Promise<string> {
  return (
    await createOwner(t.sql, { email: 'alice@example.com', name: 'Alice', password: PASSWORD, walletAddresses: ['https://wallet.example/alice'] })
  ).id
}
async function anAdmin(email: string): Promise<string> {
  return (await createAdmin(t.sql, { email, password: PASSWORD })).id
}

/** A link as issued now; its secret. */
async function link(subject: LinkSubject, subjectId: string, kind: LinkKind): Promise<string> {
  const { url } = await issuePasswordLink(t.sql, {
    subject,
    subjectId,
    kind,
    now: t.clock.now,
    ttlSeconds: 7 * DAY,
    baseUrl: 'https://auth.example/',
  })
  return url.split('/').pop()!
}

/** A second unused link of the other kind beside the first, as a database written before links replaced each other holds. */
async function olderLink(subject: LinkSubject, subjectId: string, kind: LinkKind): Promise<string> {
  const secret = newLinkSecret()
  const expiresAt = new Date(t.clock.now.getTime() + 7 * DAY * 1000)
  await insertPasswordLink(t.sql, { id: newId(), subject, subjectId, kind, tokenHash: hashSecret(secret), createdAt: t.clock.now, expiresAt })
  return secret
}

const state = async (subject: LinkSubject, secret: string) => (await checkPasswordLink(t.deps, subject, secret)).kind
const gone = { kind: 'problem', problem: 'unknown' }

describe('issuing a link', () => {
  it.each(['owner', 'admin'] as const)('replaces every earlier unused link of the %s, of either kind', async (subject) => {
    const id = subject === 'owner' ? await anOwner() : await anAdmin('ops@example.com')
    const invitation = await link(subject, id, 'invitation')
    const reset = await link(subject, id, 'reset')
    expect(await checkPasswordLink(t.deps, subject, invitation)).toEqual(gone)
    const again = await link(subject, id, 'invitation')
    expect(await checkPasswordLink(t.deps, subject, reset)).toEqual(gone)
    expect(await state(subject, again)).toBe('usable')
  })
})

describe('an owner’s links end', () => {
  const ADMIN = { kind: 'admin', id: 'admin-1', label: 'root@example.com', role: 'admin', tenantId: null } as const

  it('when a link sets the password: the other unused link goes too', async () => {
    const id = await anOwner()
    const reset = await link('owner', id, 'reset')
    const invitation = await olderLink('owner', id, 'invitation')
    expect(await setPasswordWithLink(t.deps, { subject: 'owner', secret: reset, password: NEW_PASSWORD, confirm: NEW_PASSWORD })).toEqual({
      kind: 'done',
    })
    expect(await checkPasswordLink(t.deps, 'owner', invitation)).toEqual(gone)
    expect(await checkPasswordLink(t.deps, 'owner', reset)).toEqual({ kind: 'problem', problem: 'used' })
  })

  it('when the owner changes their password on /account', async () => {
    const id = await anOwner()
    const reset = await link('owner', id, 'reset')
    const session = (await signInOwner(t.deps, { email: 'alice@example.com', password: PASSWORD }))!
    const changed = await changeOwnerPassword(t.deps, {
      ownerId: id,
      sessionId: hashSecret(session.value),
      currentPassword: PASSWORD,
      newPassword: NEW_PASSWORD,
      confirmPassword: NEW_PASSWORD,
      ip: IP,
    })
    expect(changed).toMatchObject({ ok: true })
    expect(await checkPasswordLink(t.deps, 'owner', reset)).toEqual(gone)
  })

  it('when the owner is disabled, and a link issued while disabled does not come back when enabled', async () => {
    const id = await anOwner()
    const invitation = await link('owner', id, 'invitation')
    await disableOwner(t.deps, { ownerId: id, revokeGrants: false, actor: ADMIN })
    const whileDisabled = await link('owner', id, 'reset')
    await enableOwner(t.deps, { ownerId: id, actor: ADMIN })
    expect(await checkPasswordLink(t.deps, 'owner', invitation)).toEqual(gone)
    expect(await checkPasswordLink(t.deps, 'owner', whileDisabled)).toEqual(gone)
  })
})

describe('an administrator’s links end', () => {
  it('when a link sets the password: the other unused link goes too', async () => {
    const id = await anAdmin('ops@example.com')
    const reset = await link('admin', id, 'reset')
    const invitation = await olderLink('admin', id, 'invitation')
    expect(await setPasswordWithLink(t.deps, { subject: 'admin', secret: reset, password: NEW_PASSWORD, confirm: NEW_PASSWORD })).toEqual({
      kind: 'done',
    })
    expect(await checkPasswordLink(t.deps, 'admin', invitation)).toEqual(gone)
  })

  it('when the administrator changes their password on My account', async () => {
    const id = await anAdmin('ops@example.com')
    const reset = await link('admin', id, 'reset')
    const session = (await signInAdmin(t.deps, { email: 'ops@example.com', password: PASSWORD, ip: IP })) as AdminSignIn
    await changeAdminPassword(t.deps, {
      admin: session.admin,
      sessionValue: session.value,
      ip: IP,
      currentPassword: PASSWORD,
      newPassword: NEW_PASSWORD,
      confirmPassword: NEW_PASSWORD,
    })
    expect(await checkPasswordLink(t.deps, 'admin', reset)).toEqual(gone)
  })

  it('when the administrator is disabled, and a link issued while disabled does not come back when enabled', async () => {
    const root = await createAdmin(t.sql, { email: 'root@example.com', password: PASSWORD })
    const id = await anAdmin('ops@example.com')
    const invitation = await link('admin', id, 'invitation')
    await disableAdmin(t.deps, { change: { adminId: id }, actor: actorOfAdmin(root) })
    const whileDisabled = await link('admin', id, 'reset')
    await enableAdmin(t.deps, { change: { adminId: id }, actor: actorOfAdmin(root) })
    expect(await checkPasswordLink(t.deps, 'admin', invitation)).toEqual(gone)
    expect(await checkPasswordLink(t.deps, 'admin', whileDisabled)).toEqual(gone)
  })
})
