// Administrators and roles in the admin console, in a real browser (Debian's chromium) against the production
// build (docs/protocol.md §2.14): an admin invites an operator, who sets a password with the link and signs in with
// that role; a viewer sees no revoke button and no owner form, and a revocation forged from the viewer's page with
// their CSRF token is refused FORBIDDEN by the server. The administrators pages are scanned with axe, photographed
// at desktop and phone width, and work with the keyboard alone.
import type { Page, TestInfo } from '@playwright/test'
import { openStore } from '@gnap/domain/kernel'
import { createAdmin, type AdminRole } from '@gnap/domain/operator'
import {
  ADMIN,
  checkPage as checkConsolePage,
  expect,
  screenshot,
  seriousViolations,
  signInAsAdmin,
  test,
  type AdminWorld,
} from './support/admin-world'

const NEW_PASSWORD = 'violet kettle under stairs'

/** The shared axe, screenshot and phone-width check, under this spec's names. */
const checkPage = (page: Page, testInfo: TestInfo, name: string) => checkConsolePage(page, testInfo, `admin-administrators-${name}`)

/** An administrator of `role` written into the server's database. */
async function addAdmin(world: AdminWorld, email: string, role: AdminRole) {
  const store = await openStore(`file:${world.server.dbFile}`)
  try {
    await createAdmin(store.sql, { email, password: ADMIN.password, role })
  } finally {
    await store.close()
  }
}

test.describe('administrators and roles', () => {
  test('an admin invites an operator, who sets a password with the link and signs in as an operator', async ({ page, world }, testInfo) => {
    const url = world.server.url
    await signInAsAdmin(page, url)
    await expect(page).toHaveURL(`${url}admin`)

    let link = ''
    await test.step('the Administrators section lists the admin; the invitation shows its link once', async () => {
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Administrators' }).click()
      await expect(page).toHaveURL(`${url}admin/administrators`)
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Administrators')
      const rows = page.getByRole('table').getByRole('row')
      await expect(rows.filter({ hasText: ADMIN.email })).toContainText('You')
      await checkPage(page, testInfo, 'list')
      await page.getByLabel('Email').fill('Olga@Example.com')
      await page.getByLabel('Role').selectOption('operator')
      await page.getByRole('button', { name: 'Invite' }).click()
      const shown = page.getByRole('region', { name: 'Invitation for olga@example.com' })
      await expect(shown).toBeFocused()
      await expect(shown).toContainText('olga@example.com was invited as operator.')
      const field = shown.getByLabel('Invitation link', { exact: true })
      await expect(field).toHaveValue(new RegExp(`^${url}admin/set-password/[A-Za-z0-9_-]{43}$`))
      link = await field.inputValue()
      await expect(rows.filter({ hasText: 'olga@example.com' })).toContainText('Waiting for a password')
      await checkPage(page, testInfo, 'invited')
      // Copied like an API key: the button puts the very link on the clipboard.
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url).origin })
      await shown.getByRole('button', { name: 'Copy link' }).click()
      await expect(shown.getByRole('status')).toHaveText('Copied to the clipboard.')
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link)
    })

    await test.step('the invitee’s page shows their role and status', async () => {
      await page.getByRole('link', { name: 'olga@example.com' }).click()
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('olga@example.com')
      await expect(page.getByRole('region', { name: 'Account' })).toContainText('Cannot sign in until they set a password with their link.')
      await checkPage(page, testInfo, 'detail')
    })

    await test.step('the invitee sets a password with the link and signs in as an operator', async () => {
      const invitee = await page.context().browser()!.newPage()
      try {
        await invitee.goto(link)
        await expect(invitee.getByRole('heading', { level: 1 })).toHaveText('Choose your password')
        await expect(invitee.getByText('For olga@example.com.')).toBeVisible()
        await invitee.getByLabel('New password').fill(NEW_PASSWORD)
        await invitee.getByLabel('Type it again').fill(NEW_PASSWORD)
        await invitee.getByRole('button', { name: 'Set password' }).click()
        await expect(invitee.getByRole('heading', { level: 1 })).toHaveText('Password set')
        // The admin's console, seconds after it showed the invitee, without a reload: the list and the page say what
        // is true now, not what they had before.
        await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Administrators' }).click()
        await expect(page.getByRole('table').getByRole('row').filter({ hasText: 'olga@example.com' })).toContainText('Active')
        await page.getByRole('link', { name: 'olga@example.com' }).click()
        await expect(page.getByRole('region', { name: 'Account' })).toContainText('Can sign in.')
        await invitee.getByRole('link', { name: 'Sign in to the console' }).click()
        await signInAsAdmin(invitee, url, { email: 'olga@example.com', password: NEW_PASSWORD })
        await expect(invitee).toHaveURL(`${url}admin`)
        await expect(invitee.getByRole('banner')).toContainText('Signed in as olga@example.com (operator)')
        // An operator revokes grants, but manages neither owners nor administrators.
        await invitee.goto(`${url}admin/grants/${world.rotated.grantId}`)
        await expect(invitee.getByRole('button', { name: 'Revoke grant' })).toBeVisible()
        await invitee.goto(`${url}admin/owners`)
        await expect(invitee.getByRole('heading', { level: 1 })).toHaveText('Owners')
        await expect(invitee.getByRole('link', { name: 'Create owner' })).toHaveCount(0)
        await invitee.goto(`${url}admin/administrators`)
        await expect(invitee.getByRole('table').getByRole('row').filter({ hasText: 'olga@example.com' })).toContainText('You')
        await expect(invitee.getByRole('heading', { name: 'Invite an administrator' })).toHaveCount(0)
        // The link worked once.
        await invitee.goto(link)
        await expect(invitee.getByRole('heading', { level: 1 })).toHaveText('This link was already used')
      } finally {
        await invitee.close()
      }
    })

    await test.step('the admin sees the operator as active, and signs them out everywhere', async () => {
      await page.reload()
      await expect(page.getByRole('region', { name: 'Account' })).toContainText('Can sign in.')
      await page.getByRole('button', { name: 'Sign out everywhere' }).click()
      const dialog = page.getByRole('dialog', { name: 'Sign out everywhere?' })
      expect(await seriousViolations(page)).toEqual([])
      await screenshot(page, testInfo, 'admin-administrators-sign-out-everywhere')
      await dialog.getByRole('button', { name: 'Sign out everywhere' }).click()
      await expect(page.getByRole('status')).toHaveText('Signed out everywhere: 1 session ended.')
    })
  })

  test('an admin who signs themselves out everywhere is told they are signed out; their other browser, trying the same, that its session ended', async ({
    page,
    browser,
    world,
  }) => {
    const url = world.server.url
    const me = { email: 'leaving@example.com', password: ADMIN.password }
    await addAdmin(world, me.email, 'admin')
    const other = await (await browser.newContext()).newPage()
    const signOutEverywhere = async (p: typeof page) => {
      await p.getByRole('button', { name: 'Sign out everywhere' }).click()
      await p.getByRole('dialog', { name: 'Sign out everywhere?' }).getByRole('button', { name: 'Sign out everywhere' }).click()
    }
    try {
      for (const p of [page, other]) {
        await signInAsAdmin(p, url, me)
        await expect(p).toHaveURL(`${url}admin`)
        await p.goto(`${url}admin/administrators`)
        await p.getByRole('link', { name: me.email }).click()
        await expect(p.getByRole('button', { name: 'Sign out everywhere' })).toBeVisible()
      }
      await signOutEverywhere(page)
      await expect(page).toHaveURL(`${url}admin/sign-in?signed-out=1`)
      await expect(page.getByRole('status')).toHaveText('You are signed out.')
      // The other browser still shows the page; its session ended with the first one's sign-out.
      await signOutEverywhere(other)
      await expect(other).toHaveURL(`${url}admin/sign-in?ended=1`)
      await expect(other.getByRole('status')).toHaveText('Your session has ended. Sign in again to continue.')
    } finally {
      await other.context().close()
    }
  })

  test('a viewer sees no revoke button and no owner form, and a forged revocation is FORBIDDEN', async ({ page, world }, testInfo) => {
    const url = world.server.url
    await addAdmin(world, 'viewer@example.com', 'viewer')
    await signInAsAdmin(page, url, { email: 'viewer@example.com', password: ADMIN.password })
    await expect(page).toHaveURL(`${url}admin`)
    await expect(page.getByRole('banner')).toContainText('(viewer)')

    await page.goto(`${url}admin/grants/${world.rotated.grantId}`)
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
    await expect(page.getByText('Issued').first()).toBeVisible()
    await expect(page.getByRole('button', { name: /Revoke/ })).toHaveCount(0)
    await page.goto(`${url}admin/tokens/${world.rotated.chain.at(-1)}`)
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
    await expect(page.getByRole('button', { name: /Revoke/ })).toHaveCount(0)
    await page.goto(`${url}admin/owners/new`)
    await expect(page.getByText('Only an administrator with the admin role can create owners.')).toBeVisible()
    await expect(page.getByRole('button', { name: 'Create owner' })).toHaveCount(0)
    await page.goto(`${url}admin/administrators`)
    await expect(page.getByRole('table').getByRole('row').filter({ hasText: 'viewer@example.com' })).toContainText('You')
    await expect(page.getByRole('heading', { name: 'Invite an administrator' })).toHaveCount(0)
    await page.getByRole('link', { name: ADMIN.email }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(ADMIN.email)
    await expect(page.getByRole('button')).toHaveText(['Sign out'])
    await checkPage(page, testInfo, 'viewer-detail')

    // A revocation forged from the viewer's page, with the session's own CSRF token: the server refuses it.
    const forged = await page.evaluate(async (grantId) => {
      const session = await (await fetch('/api/trpc/auth.session')).json()
      const csrf = session.result.data.json.csrfToken as string
      const res = await fetch('/api/trpc/grants.revoke', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
        body: JSON.stringify({ json: { id: grantId } }),
      })
      return { status: res.status, body: await res.json() }
    }, world.rotated.grantId)
    expect(forged.status).toBe(403)
    expect(forged.body.error.json.data.code).toBe('FORBIDDEN')
    expect(forged.body.error.json.message).toBe('this needs the operator role; yours is viewer')
    await page.goto(`${url}admin/grants/${world.rotated.grantId}`)
    await expect(page.getByText('Issued').first()).toBeVisible()
  })

  test('inviting, and the confirmations, work with the keyboard alone', async ({ page, world }) => {
    const url = world.server.url
    await signInAsAdmin(page, url)
    await expect(page).toHaveURL(`${url}admin`)
    await page.goto(`${url}admin/administrators`)
    await page.getByLabel('Email').focus()
    await page.keyboard.type('kim@example.com')
    await page.keyboard.press('Tab')
    await expect(page.getByLabel('Role')).toBeFocused()
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Tab')
    await expect(page.getByRole('button', { name: 'Invite' })).toBeFocused()
    await page.keyboard.press('Enter')
    await expect(page.getByRole('region', { name: 'Invitation for kim@example.com' })).toContainText('kim@example.com was invited as operator.')

    await page.getByRole('link', { name: 'kim@example.com' }).focus()
    await page.keyboard.press('Enter')
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('kim@example.com')

    // Escape cancels: Kim stays enabled.
    await page.getByRole('button', { name: 'Disable' }).focus()
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('dialog', { name: 'Disable this administrator?' })
    await expect(dialog).toBeVisible()
    await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused()
    await page.keyboard.press('Escape')
    await expect(dialog).toBeHidden()
    await expect(page.getByRole('button', { name: 'Enable' })).toHaveCount(0)

    // Confirmed from the keyboard: disabled, then enabled.
    await page.getByRole('button', { name: 'Disable' }).focus()
    await page.keyboard.press('Enter')
    await expect(dialog).toBeVisible()
    await page.keyboard.press('Tab')
    await expect(dialog.getByRole('button', { name: 'Disable' })).toBeFocused()
    await page.keyboard.press('Enter')
    await expect(page.getByRole('status')).toHaveText('Disabled: they can no longer sign in; 0 sessions ended.')
    await page.getByRole('button', { name: 'Enable' }).focus()
    await page.keyboard.press('Enter')
    await expect(page.getByRole('status')).toHaveText('Enabled: they can sign in again with their password.')
  })
})
