// Two-step sign-in and My account in a real browser (Debian's chromium) against the production build: an
// administrator enrols with a code computed here from the key the page shows, signs out, signs in with password and
// code, then with a recovery code; ends another session of theirs and changes their password with the keyboard
// alone. Every new page is scanned with axe and photographed at desktop and phone width.
import type { Browser, Page } from '@playwright/test'
import { freshTotpCode } from '@gnap/test-support'
import { openStore } from '@gnap/domain/kernel'
import { createAdmin } from '@gnap/domain/operator'
import { checkPage, expect, signInAsAdmin, test } from './support/admin-world'

/**
 * An administrator of this spec only: the spec files of the admin world share its server, and this one turns on
 * two-step sign-in and changes the password.
 */
const ME = { email: 'me@example.com', password: 'my own console password' }

/** The code step of the sign-in page, filled in with the keyboard. */
async function typeCode(page: Page, code: string) {
  await expect(page.getByRole('heading', { name: 'Two-step sign-in' })).toBeVisible()
  // The code field has the focus: the keyboard (or a phone's keypad) goes straight on.
  await page.keyboard.type(code)
  await page.keyboard.press('Enter')
}

async function signOut(page: Page, url: string) {
  await page.getByRole('button', { name: 'Sign out' }).click()
  await expect(page).toHaveURL(`${url}admin/sign-in?signed-out=1`)
}

/** A second browser (its own cookies) signed in with password and code. */
async function otherBrowser(browser: Browser, url: string, secret: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage()
  await signInAsAdmin(page, url, ME)
  await typeCode(page, await freshTotpCode(secret))
  await expect(page).toHaveURL(`${url}admin`)
  return page
}

test.describe('two-step sign-in and my account', () => {
  test.setTimeout(240_000)

  test('enrol, sign in with a code and with a recovery code, end a session, change the password', async ({ page, browser, world }, testInfo) => {
    const url = world.server.url
    const store = await openStore(`file:${world.server.dbFile}`)
    try {
      await createAdmin(store.sql, ME)
    } finally {
      await store.close()
    }
    await signInAsAdmin(page, url, ME)
    await expect(page).toHaveURL(`${url}admin`)

    await test.step('My account says two-step sign-in is off and lists this session', async () => {
      await page.getByRole('link', { name: 'My account' }).click()
      await expect(page).toHaveURL(`${url}admin/account`)
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('My account')
      await expect(page.getByRole('region', { name: 'Two-step sign-in' })).toContainText('Off: your password alone signs you in.')
      await expect(page.getByRole('region', { name: 'Where you are signed in' }).getByRole('row')).toHaveCount(2)
      await expect(page.getByText('This session')).toBeVisible()
      await checkPage(page, testInfo, 'admin-account-account')
    })

    let secret = ''
    let recoveryCodes: string[] = []
    await test.step('enrol: the QR code and the key, a wrong code leaves it off, the right one turns it on', async () => {
      await page.getByRole('button', { name: 'Set up two-step sign-in' }).click()
      const qr = page.getByRole('img', { name: /QR code for your authenticator app/ })
      await expect(qr).toBeVisible()
      expect(await qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/)
      secret = (await page.getByLabel('Key for manual entry').textContent()) ?? ''
      expect(secret).toMatch(/^[A-Z2-7]{32}$/)
      const field = page.getByLabel('Code from the app')
      await expect(field).toHaveAttribute('autocomplete', 'one-time-code')
      await expect(field).toHaveAttribute('inputmode', 'numeric')
      await checkPage(page, testInfo, 'admin-account-enrol')

      await field.fill('000000')
      await page.getByRole('button', { name: 'Turn on two-step sign-in' }).click()
      await expect(page.getByRole('main').getByRole('alert')).toContainText('Two-step sign-in is still off.')

      await field.fill(await freshTotpCode(secret))
      await page.keyboard.press('Enter')
      await expect(page.getByText('Two-step sign-in is on. From now on')).toBeVisible()
      // Only the new state: not "Off" above it.
      await expect(page.getByRole('region', { name: 'Two-step sign-in' })).not.toContainText('Off: your password alone signs you in.')
      recoveryCodes = await page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem').allTextContents()
      expect(recoveryCodes).toHaveLength(10)
      await checkPage(page, testInfo, 'admin-account-recovery-codes')
      await page.getByRole('button', { name: 'I have saved them' }).click()
      await expect(page.getByRole('region', { name: 'Two-step sign-in' })).toContainText('Unused recovery codes: 10')
    })

    await test.step('sign out, then sign in with the password and a code from the app', async () => {
      await signOut(page, url)
      await signInAsAdmin(page, url, ME)
      const field = page.getByLabel('Code from your authenticator app')
      await expect(field).toBeFocused()
      await expect(field).toHaveAttribute('autocomplete', 'one-time-code')
      await expect(field).toHaveAttribute('inputmode', 'numeric')
      await checkPage(page, testInfo, 'admin-account-sign-in-code')
      await page.keyboard.type('123 456')
      await page.keyboard.press('Enter')
      await expect(page.getByRole('main').getByRole('alert')).toHaveText('That code is not right. Type the code your app shows now.')
      await field.fill('')
      await typeCode(page, await freshTotpCode(secret))
      await expect(page).toHaveURL(`${url}admin`)
    })

    await test.step('sign out, then sign in with a recovery code: it works once', async () => {
      await signOut(page, url)
      await signInAsAdmin(page, url, ME)
      await page.getByRole('button', { name: 'Lost your phone? Use a recovery code' }).click()
      await expect(page.getByLabel('Recovery code')).toBeFocused()
      await typeCode(page, recoveryCodes[0]!)
      await expect(page).toHaveURL(`${url}admin`)
      await signOut(page, url)
      await signInAsAdmin(page, url, ME)
      await page.getByRole('button', { name: 'Lost your phone? Use a recovery code' }).click()
      await typeCode(page, recoveryCodes[0]!)
      await expect(page.getByRole('main').getByRole('alert')).toContainText('not right')
      await page.getByLabel('Recovery code').fill('')
      await typeCode(page, recoveryCodes[1]!)
      await expect(page).toHaveURL(`${url}admin`)
    })

    await test.step('see a second browser’s session and end it: that browser is signed out', async () => {
      const other = await otherBrowser(browser, url, secret)
      await page.goto(`${url}admin/account`)
      const sessions = page.getByRole('region', { name: 'Where you are signed in' })
      await expect(sessions.getByRole('row')).toHaveCount(3)
      await sessions.getByRole('button', { name: 'End session' }).click()
      await expect(sessions.getByRole('status')).toHaveText('Session ended.')
      await expect(sessions.getByRole('row')).toHaveCount(2)
      await other.goto(`${url}admin`)
      await expect(other).toHaveURL(`${url}admin/sign-in`)
      await other.context().close()
    })

    await test.step('change the password with the keyboard alone: a wrong current one is refused', async () => {
      await page.getByLabel('Current password').focus()
      await page.keyboard.type('not my password')
      await page.keyboard.press('Tab')
      await page.keyboard.type('a brand new console password')
      await page.keyboard.press('Tab')
      await page.keyboard.type('a brand new console password')
      await page.keyboard.press('Enter')
      const password = page.getByRole('region', { name: 'Password' })
      await expect(password.getByRole('alert')).toContainText('Your current password is not right.')
      await page.getByLabel('Current password').focus()
      await page.keyboard.press('ControlOrMeta+A')
      await page.keyboard.type(ME.password)
      await page.keyboard.press('Enter')
      await expect(password.getByRole('status')).toHaveText('Password changed.')
      await checkPage(page, testInfo, 'admin-account-password-changed')
    })

    await test.step('the audit log tells what happened', async () => {
      await page.goto(`${url}admin/audit`)
      for (const words of ['Turned on two-step sign-in', 'Ended a session', 'Changed their password']) {
        await expect(page.getByRole('main')).toContainText(words)
      }
    })

    await test.step('lost phone and recovery codes: another admin turns it off, and the password alone signs in', async () => {
      const admin = await (await browser.newContext()).newPage()
      await signInAsAdmin(admin, url)
      await expect(admin).toHaveURL(`${url}admin`)
      await admin.goto(`${url}admin/administrators`)
      await admin.getByRole('link', { name: ME.email }).click()
      await expect(admin.getByRole('region', { name: 'Account' })).toContainText('On: they sign in with a password and a code from their app.')
      await admin.getByRole('button', { name: 'Turn off two-step sign-in' }).click()
      const dialog = admin.getByRole('dialog', { name: 'Turn off two-step sign-in?' })
      await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused()
      await dialog.getByRole('button', { name: 'Turn off two-step sign-in' }).click()
      await expect(admin.getByRole('main')).toContainText('Two-step sign-in turned off: 1 session ended.')
      await expect(admin.getByRole('region', { name: 'Account' })).toContainText('Off: they sign in with a password alone.')
      await expect(admin.getByRole('button', { name: 'Turn off two-step sign-in' })).toHaveCount(0)
      await checkPage(admin, testInfo, 'admin-administrator-two-step-off')
      await admin.context().close()

      await page.goto(`${url}admin`)
      await expect(page).toHaveURL(`${url}admin/sign-in`)
      await signInAsAdmin(page, url, { email: ME.email, password: 'a brand new console password' })
      await expect(page).toHaveURL(`${url}admin`)
    })
  })
})
