// Clients in the admin console, in a real browser (Debian's chromium) against the production build: an
// administrator finds the real Open Payments client on the clients page, opens its page (grants, tokens, last
// activity), blocks it with a reason from the keyboard alone, and the SDK's next rotation is refused; then unblocks
// it. A viewer sees the client but no block button. Both new pages are scanned with axe and photographed at desktop
// and phone width (390 px).
import type { Page, TestInfo } from '@playwright/test'
import { OpenPaymentsClientError } from '@interledger/open-payments'
import { openStore } from '@gnap/domain/kernel'
import { createAdmin } from '@gnap/domain/operator'
import { PAYROLL, SHOP, expect, screenshot, seriousViolations, signInAsAdmin, startAdminWorld, type AdminWorld } from './support/admin-world'
import { worldTest } from './support/fixtures'

// A world of its own (its own server and database): blocking revokes the SDK client's grant, which the other console
// specs, sharing theirs, expect to find issued.
const test = worldTest<AdminWorld>(startAdminWorld)

const PHONE = { width: 390, height: 844 }
const DESKTOP = { width: 1280, height: 800 }
const VIEWER = { email: 'viewer@example.com', password: 'viewer-console-password' }

/** axe-clean, photographed, and at phone width still axe-clean, photographed and without sideways scrolling. */
async function checkPage(page: Page, testInfo: TestInfo, name: string) {
  expect(await seriousViolations(page), name).toEqual([])
  await screenshot(page, testInfo, `admin-clients-${name}`)
  await page.setViewportSize(PHONE)
  expect(await seriousViolations(page), `${name} on a phone`).toEqual([])
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width)
  await screenshot(page, testInfo, `admin-clients-${name}-phone`)
  await page.setViewportSize(DESKTOP)
}

test.describe('clients in the admin console', () => {
  test('an administrator finds the SDK client, blocks it from the keyboard, its rotation is refused, and unblocks it', async ({
    page,
    world,
  }, testInfo) => {
    const url = world.server.url
    await signInAsAdmin(page, url)
    await expect(page).toHaveURL(`${url}admin`)

    await test.step('the clients page lists every client, allowed, and none blocked', async () => {
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Clients' }).click()
      await expect(page).toHaveURL(`${url}admin/clients`)
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Clients')
      const rows = page.getByRole('table').getByRole('row')
      await expect(rows).toHaveCount(4)
      for (const address of [world.walletAddress, SHOP, PAYROLL]) await expect(rows.filter({ hasText: address })).toContainText('Allowed')
      // Named by its wallet address's publicName, though its latest grant was non-interactive (a quote).
      await expect(rows.filter({ hasText: PAYROLL })).toContainText('Payroll Runner')
      await expect(page.getByRole('region', { name: 'Blocked clients' })).toContainText('No client is blocked.')
      await checkPage(page, testInfo, 'list')
    })

    await test.step('search by the start of the wallet address', async () => {
      await page.getByLabel('Wallet address', { exact: true }).fill('https://wallet.example/c')
      await page.getByRole('button', { name: 'Search' }).click()
      await expect(page).toHaveURL(`${url}admin/clients?q=https%3A%2F%2Fwallet.example%2Fc`)
      const rows = page.getByRole('table').getByRole('row')
      await expect(rows).toHaveCount(2)
      await expect(rows.nth(1)).toContainText('Corner Shop')
      await page.getByLabel('Wallet address', { exact: true }).fill('https://nowhere.example/')
      await page.getByRole('button', { name: 'Search' }).click()
      await expect(page.getByText('No client found.')).toBeVisible()
      await page.getByRole('link', { name: 'Clear' }).click()
      await expect(page.getByRole('table').getByRole('row')).toHaveCount(4)
    })

    await test.step("the SDK client's page shows its grant, its three tokens and its last activity", async () => {
      await page.getByRole('link', { name: 'Test App' }).click()
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Test App')
      const summary = page.getByRole('region', { name: 'Summary' })
      await expect(summary).toContainText(world.walletAddress)
      await expect(summary).toContainText('1 issued')
      await expect(summary.getByRole('time')).toHaveCount(1)
      await expect(page.getByRole('region', { name: 'Grants' }).getByRole('link', { name: world.rotated.grantId })).toBeVisible()
      const tokens = page.getByRole('region', { name: 'Tokens' }).getByRole('row')
      await expect(tokens).toHaveCount(4)
      await expect(tokens.nth(1)).toContainText('Active')
      await checkPage(page, testInfo, 'client')
    })

    await test.step('blocking needs a reason', async () => {
      await page.getByRole('button', { name: 'Block client' }).click()
      await expect(page.getByText('Give a reason before blocking.')).toBeVisible()
      await expect(page.getByLabel('Reason')).toBeFocused()
      await expect(page.getByRole('dialog')).toBeHidden()
    })

    await test.step('block from the keyboard alone: reason, button, confirmation', async () => {
      await page.keyboard.type('Its signing key was published in a public repository')
      await page.keyboard.press('Tab')
      await expect(page.getByRole('button', { name: 'Block client' })).toBeFocused()
      await page.keyboard.press('Enter')
      const dialog = page.getByRole('dialog', { name: 'Block this client?' })
      await expect(dialog).toContainText('1 grant still pending, approved or in use will be revoked')
      // Cancel has the focus: Enter never confirms by accident.
      await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused()
      expect(await seriousViolations(page)).toEqual([])
      await screenshot(page, testInfo, 'admin-clients-block-confirm')
      await page.keyboard.press('Tab')
      await expect(dialog.getByRole('button', { name: 'Block client' })).toBeFocused()
      await page.keyboard.press('Enter')
      await expect(page.getByRole('status')).toHaveText('Client blocked. 1 grant and 1 live token revoked.')
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Test App')
      const block = page.getByRole('region', { name: 'Blocked' })
      await expect(block).toContainText('Its signing key was published in a public repository')
      await expect(block).toContainText('ops@example.com')
      await expect(page.getByRole('region', { name: 'Tokens' }).getByRole('row').nth(1)).toContainText('Revoked')
      await expect(page.getByRole('region', { name: 'Audit entries about this client' })).toContainText('Blocked a client by ops@example.com')
      await checkPage(page, testInfo, 'client-blocked')
    })

    await test.step("the real client's next rotation is refused: 401 invalid_client, blocked", async () => {
      const { value, manage } = world.rotated.current
      const refused = await world.client.token.rotate({ url: manage, accessToken: value }).then(
        () => null,
        (e: unknown) => e,
      )
      expect(refused).toBeInstanceOf(OpenPaymentsClientError)
      const e = refused as OpenPaymentsClientError
      expect([e.status, e.code]).toEqual([401, 'invalid_client'])
      expect(e.description).toContain('blocked')
    })

    await test.step('the clients page shows it blocked; unblocking from its page lets it in again', async () => {
      await page.getByRole('link', { name: '← Clients' }).click()
      await expect(page.getByRole('table').getByRole('row').filter({ hasText: world.walletAddress }).first()).toContainText('Blocked')
      await expect(page.getByRole('region', { name: 'Blocked clients' })).toContainText('Its signing key was published')
      await page.getByRole('region', { name: 'Blocked clients' }).getByRole('link', { name: world.walletAddress }).click()
      await page.getByRole('button', { name: 'Unblock client' }).click()
      const dialog = page.getByRole('dialog', { name: 'Unblock this client?' })
      await expect(dialog).toContainText('stay revoked')
      await dialog.getByRole('button', { name: 'Unblock client' }).click()
      await expect(page.getByRole('status')).toHaveText('Client unblocked: it may ask for grants again.')
      await expect(page.getByRole('region', { name: 'Block this client' })).toBeVisible()
    })
  })

  test('the clients pages redirect to sign-in without a session', async ({ page, world }) => {
    const url = world.server.url
    for (const path of ['admin/clients', `admin/clients/view?address=${encodeURIComponent(SHOP)}`]) {
      await page.goto(`${url}${path}`)
      await expect(page, path).toHaveURL(`${url}admin/sign-in`)
    }
  })

  test('a viewer sees a client but no block button', async ({ page, world }) => {
    const store = await openStore(`file:${world.server.dbFile}`)
    try {
      await createAdmin(store.sql, { ...VIEWER, role: 'viewer' })
    } finally {
      await store.close()
    }
    const url = world.server.url
    await signInAsAdmin(page, url, VIEWER)
    await expect(page).toHaveURL(`${url}admin`)
    await page.goto(`${url}admin/clients/view?address=${encodeURIComponent(SHOP)}`)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Corner Shop')
    await expect(page.getByText('Only an operator or an administrator can block a client.')).toBeVisible()
    await expect(page.getByRole('button', { name: 'Block client' })).toHaveCount(0)
  })
})
