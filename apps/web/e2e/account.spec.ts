// The owner's own page, /account, in a real browser (Debian's chromium): the owner approves a real SDK grant on the
// consent screen, opens /account with the same session, reads the app's access in plain words, and revokes it after
// a confirmation; the client's next rotation then fails. Another owner never sees it (docs/protocol.md §2.12).
import fs from 'node:fs'
import path from 'node:path'
import AxeBuilder from '@axe-core/playwright'
import { OpenPaymentsClientError, isFinalizedGrant } from '@interledger/open-payments'
import type { Page, TestInfo } from '@playwright/test'
import { introspect } from '../test/support/world'
import { ALICE, ALICE_WALLET, BOB, type ConsentWorld } from './support/consent-world'
import { approvedGrant, expect, signIn, test } from './support/fixtures'

const SCREENSHOTS = path.resolve(import.meta.dirname, '../test-results/screenshots')
const PHONE = { width: 390, height: 844 }

async function phoneScreenshot(page: Page, testInfo: TestInfo, name: string) {
  await page.setViewportSize(PHONE)
  fs.mkdirSync(SCREENSHOTS, { recursive: true })
  const body = await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true })
  await testInfo.attach(name, { body, contentType: 'image/png' })
  // Nothing wider than the phone: no sideways scrolling.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width)
}

/** Accessibility violations that block or seriously hinder someone (axe impact serious or critical). */
async function seriousViolations(page: Page) {
  const { violations } = await new AxeBuilder({ page }).analyze()
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }))
}

async function rotationError(world: ConsentWorld, token: { manage: string; value: string }) {
  const e = await world.client.token.rotate({ url: token.manage, accessToken: token.value }).then(
    () => null,
    (err: unknown) => err,
  )
  if (!(e instanceof OpenPaymentsClientError)) throw new Error('expected the rotation to fail')
  return [e.status, e.code]
}

const accountUrl = (world: ConsentWorld) => `${world.server.url}account`

test.describe('/account', () => {
  test('the owner sees the app they approved in plain words and revokes it; the client’s next rotation fails', async ({ page, world }, testInfo) => {
    const token = (await approvedGrant(page, world)).token
    // Same owner session as the consent screen: no second sign-in.
    await page.goto(accountUrl(world))
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Apps connected to your wallet')
    const app = page.getByRole('region', { name: 'Test App' }).first()
    await expect(app.getByText(`Send payments from ${ALICE_WALLET}`)).toBeVisible()
    await expect(app.getByText('Send up to 25.00 USD every month from 1 December 2026, for 12 months')).toBeVisible()
    await expect(app.getByText('1 December 2027 at 00:00 UTC')).toBeVisible()
    await expect(page.getByText(/You approved Test App/).first()).toBeVisible()
    expect(await seriousViolations(page)).toEqual([])
    await phoneScreenshot(page, testInfo, 'account-apps')

    await app.getByRole('link', { name: 'Revoke access' }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Revoke access for Test App?')
    // What is about to stop, with the amounts /account showed.
    await expect(page.getByText(`Send payments from ${ALICE_WALLET}`)).toBeVisible()
    await expect(page.getByText('Send up to 25.00 USD every month from 1 December 2026, for 12 months')).toBeVisible()
    expect(await seriousViolations(page)).toEqual([])
    await phoneScreenshot(page, testInfo, 'account-revoke-confirm')
    expect((await introspect(world.server, token.value)).body.active).toBe(true)

    await page.getByRole('button', { name: 'Revoke access' }).click()
    await expect(page.getByRole('status')).toHaveText('Access revoked. The app can no longer use your wallet.')
    await expect(page.getByText(/Access revoked for Test App by you/).first()).toBeVisible()
    await phoneScreenshot(page, testInfo, 'account-revoked')
    expect((await introspect(world.server, token.value)).body).toEqual({ active: false })
    expect(await rotationError(world, token)).toEqual([404, 'invalid_rotation'])
  })

  test('a second owner signed in on /account does not see the first one’s app, and its revoke page is refused', async ({
    page,
    world,
    browser,
  }, testInfo) => {
    const token = (await approvedGrant(page, world)).token
    await page.goto(accountUrl(world))
    const revokeHref = (await page.getByRole('link', { name: 'Revoke access' }).first().getAttribute('href')) ?? ''
    expect(revokeHref).toMatch(/^\/account\/apps\/.+\/revoke$/)

    const bobContext = await browser.newContext()
    try {
      const bob = await bobContext.newPage()
      await bob.goto(accountUrl(world))
      await expect(bob.getByRole('heading', { level: 1 })).toHaveText('Sign in to see the apps connected to your wallet')
      expect(await seriousViolations(bob)).toEqual([])
      await phoneScreenshot(bob, testInfo, 'account-sign-in')
      await signIn(bob, BOB.email, BOB.password)
      await expect(bob.getByText(`Signed in as ${BOB.name}`)).toBeVisible()
      await expect(bob.getByText('You have not approved any app that still has access.')).toBeVisible()
      await expect(bob.getByText('Test App')).toHaveCount(0)

      const refused = await bob.goto(`${world.server.url}${revokeHref.slice(1)}`)
      expect(refused?.status()).toBe(404)
      await expect(bob.getByRole('heading', { level: 1 })).toHaveText('App not found')
      await expect(bob.getByRole('button', { name: 'Revoke access' })).toHaveCount(0)
    } finally {
      await bobContext.close()
    }
    expect((await introspect(world.server, token.value)).body.active).toBe(true)
  })

  test('grants the owner never approved are counted per app below the approved one, and revoked per app from the keyboard', async ({
    page,
    world,
  }, testInfo) => {
    const approved = (await approvedGrant(page, world)).token
    // Another client names Alice's wallet address with access that needs no approval, three times.
    const flood = await world.newClient('flood')
    const tokens: string[] = []
    for (let i = 0; i < 3; i++) {
      const grant = await flood.client.grant.request(
        { url: world.server.url },
        { access_token: { access: [{ type: 'incoming-payment', actions: ['create', 'read'], identifier: ALICE_WALLET }] } },
      )
      if (!isFinalizedGrant(grant) || !grant.access_token) throw new Error('expected an issued grant')
      tokens.push(grant.access_token.value)
    }
    await page.goto(accountUrl(world))
    await expect(page.getByRole('region', { name: 'Test App' }).first()).toBeVisible()
    await expect(page.getByRole('heading', { name: 'Apps you never approved' })).toBeVisible()
    const group = page.getByRole('region', { name: 'flood app' })
    await expect(group.getByText('3 grants')).toBeVisible()
    await expect(group.getByText(flood.walletAddress)).toBeVisible()
    expect(await seriousViolations(page)).toEqual([])
    await phoneScreenshot(page, testInfo, 'account-unapproved')

    // After the last approved app's Revoke access, the next stop is the group's.
    await page.getByRole('link', { name: 'Revoke access' }).last().focus()
    await page.keyboard.press('Tab')
    await expect(group.getByRole('link', { name: 'Revoke all 3 from this app' })).toBeFocused()
    await page.keyboard.press('Enter')
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Revoke all 3 from flood app?')
    await expect(page.getByText('3 grants to receive payments into your wallet')).toBeVisible()
    expect(await seriousViolations(page)).toEqual([])
    await phoneScreenshot(page, testInfo, 'account-revoke-client-confirm')
    await page.keyboard.press('Tab')
    await expect(page.getByRole('button', { name: 'Revoke all 3' })).toBeFocused()
    await page.keyboard.press('Tab')
    await expect(page.getByRole('link', { name: 'Keep them' })).toBeFocused()
    await page.keyboard.press('Shift+Tab')
    await page.keyboard.press('Enter')
    await expect(page.getByRole('status')).toHaveText(
      'Access revoked for every grant of that app you had not approved. Its other access is unchanged.',
    )
    await expect(page.getByRole('region', { name: 'flood app' })).toHaveCount(0)
    await expect(page.getByRole('region', { name: 'Test App' }).first()).toBeVisible()
    for (const token of tokens) expect((await introspect(world.server, token)).body).toEqual({ active: false })
    expect((await introspect(world.server, approved.value)).body.active).toBe(true)
  })

  test('keyboard only: sign in, reach Revoke access, confirm, and change the password page is axe-clean', async ({ page, world }, testInfo) => {
    const token = (await approvedGrant(page, world)).token
    // Start signed out, as someone arriving later would.
    await page.context().clearCookies()
    await page.goto(accountUrl(world))
    await page.keyboard.press('Tab')
    await expect(page.getByLabel('Email')).toBeFocused()
    await page.keyboard.type(ALICE.email)
    await page.keyboard.press('Tab')
    await expect(page.getByLabel('Password')).toBeFocused()
    await page.keyboard.type(ALICE.password)
    await page.keyboard.press('Enter')
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Apps connected to your wallet')

    // The newest app comes first: its Revoke access is the first stop.
    await page.keyboard.press('Tab')
    await expect(page.getByRole('link', { name: 'Revoke access' }).first()).toBeFocused()
    await page.keyboard.press('Enter')
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Revoke access for Test App?')
    await page.keyboard.press('Tab')
    await expect(page.getByRole('button', { name: 'Revoke access' })).toBeFocused()
    await page.keyboard.press('Tab')
    await expect(page.getByRole('link', { name: 'Keep access' })).toBeFocused()
    await page.keyboard.press('Shift+Tab')
    await page.keyboard.press('Enter')
    await expect(page.getByRole('status')).toHaveText('Access revoked. The app can no longer use your wallet.')
    expect((await introspect(world.server, token.value)).body).toEqual({ active: false })

    await page.getByRole('link', { name: 'Change your password' }).focus()
    await page.keyboard.press('Enter')
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Change your password')
    await page.keyboard.press('Tab')
    await expect(page.getByLabel('Current password')).toBeFocused()
    expect(await seriousViolations(page)).toEqual([])
    await phoneScreenshot(page, testInfo, 'account-password')

    // A common new password: the error shows under "New password", not under its second typing.
    await page.getByLabel('Current password').fill(ALICE.password)
    await page.getByLabel('New password', { exact: true }).fill('qwerty123456')
    await page.getByLabel('New password again').fill('qwerty123456')
    await page.getByRole('button', { name: 'Change password' }).click()
    await expect(page.getByRole('alert')).toContainText('commonly used')
    await expect(page.getByLabel('New password', { exact: true })).toHaveAttribute('aria-invalid', 'true')
    expect((await page.getByRole('alert').boundingBox())!.y).toBeLessThan((await page.getByLabel('New password again').boundingBox())!.y)
    expect(await seriousViolations(page)).toEqual([])
  })
})
