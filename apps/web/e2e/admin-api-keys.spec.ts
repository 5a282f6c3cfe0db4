// API keys in the admin console, in a real browser (Debian's chromium) against the production build
// (docs/protocol.md §2.18): an administrator creates a key with the keyboard alone, sees it once with a warning and
// a copy button, a back end calls the REST form with it, the list shows its prefix and last use, and revoking it
// (confirmed from the keyboard) stops the back end's next call. The page is scanned with axe and photographed at
// desktop and phone width.
import type { Page, TestInfo } from '@playwright/test'
import { expect, screenshot, seriousViolations, signInAsAdmin, test } from './support/admin-world'

const PHONE = { width: 390, height: 844 }
const DESKTOP = { width: 1280, height: 800 }

/** axe-clean, photographed, and at phone width still axe-clean, photographed and without sideways scrolling. */
async function checkPage(page: Page, testInfo: TestInfo, name: string) {
  expect(await seriousViolations(page), name).toEqual([])
  await screenshot(page, testInfo, `admin-api-keys-${name}`)
  await page.setViewportSize(PHONE)
  expect(await seriousViolations(page), `${name} on a phone`).toEqual([])
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width)
  await screenshot(page, testInfo, `admin-api-keys-${name}-phone`)
  await page.setViewportSize(DESKTOP)
}

test.describe('API keys in the admin console', () => {
  test('an administrator creates a key with the keyboard, a back end uses it, and revoking it stops the back end', async ({
    page,
    world,
    context,
    request,
  }, testInfo) => {
    const url = world.server.url
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url).origin })
    await signInAsAdmin(page, url)
    await expect(page).toHaveURL(`${url}admin`)
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'API keys' }).click()
    await expect(page).toHaveURL(`${url}admin/api-keys`)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('API keys')
    await expect(page.getByText('No API keys yet.')).toBeVisible()
    await checkPage(page, testInfo, 'empty')

    // Keyboard only: name, role (the arrow keys choose operator), no expiry, create.
    await page.getByLabel('Name').focus()
    await page.keyboard.type('billing-sync')
    await page.keyboard.press('Tab')
    await expect(page.getByLabel('Role')).toBeFocused()
    await page.keyboard.press('ArrowDown')
    await expect(page.getByLabel('Role')).toHaveValue('operator')
    await page.getByRole('button', { name: 'Create key' }).focus()
    await page.keyboard.press('Enter')

    const shown = page.getByRole('region', { name: 'The key “billing-sync”' })
    await expect(shown).toBeFocused()
    await expect(shown).toContainText('Copy the key now: this is the only time it is shown.')
    const key = await shown.getByLabel('API key', { exact: true }).inputValue()
    expect(key).toMatch(/^gnap_ak_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/)
    await checkPage(page, testInfo, 'created')
    await shown.getByRole('button', { name: 'Copy key' }).focus()
    await page.keyboard.press('Enter')
    await expect(shown.getByRole('status')).toHaveText('Copied to the clipboard.')
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key)

    // A back end calls the REST form with it (a request context of its own: no browser cookie).
    const call = async () => (await request.post(`${url}api/v1/clients/search`, { headers: { authorization: `Bearer ${key}` } })).status()
    expect(await call()).toBe(200)

    await shown.getByRole('button', { name: 'I have stored the key' }).focus()
    await page.keyboard.press('Enter')
    await expect(page.getByRole('status').filter({ hasText: 'ready to use' })).toBeFocused()
    await expect(page.getByLabel('API key', { exact: true })).toHaveCount(0)
    await page.reload()
    const row = page.getByRole('row', { name: /billing-sync/ })
    await expect(row).toContainText(key.slice(0, 'gnap_ak_'.length + 16))
    await expect(row).not.toContainText(key.slice('gnap_ak_'.length + 17))
    await expect(row).toContainText('operator')
    await expect(row).toContainText('Active')
    await expect(row).not.toContainText('Not used yet')
    await checkPage(page, testInfo, 'list')

    // Revoke, confirmed from the keyboard: Cancel has the focus first.
    await row.getByRole('button', { name: 'Revoke' }).focus()
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('dialog', { name: 'Revoke the key “billing-sync”?' })
    await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused()
    await page.keyboard.press('Tab')
    await expect(dialog.getByRole('button', { name: 'Revoke' })).toBeFocused()
    await page.keyboard.press('Enter')
    await expect(dialog).toBeHidden()
    await expect(row).toContainText('Revoked')
    expect(await call()).toBe(401)
    await expect(page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Audit log' })).toBeVisible()
  })
})
