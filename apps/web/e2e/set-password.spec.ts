// An invited owner sets a password through their one-time link (docs/protocol.md §7), keyboard only, then signs in on
// the consent screen with it and approves a real SDK grant; and the whole way from an empty Owners page: an
// administrator creates the owner in the console, copies the invitation link it shows once, and the owner uses it.
import fs from 'node:fs'
import path from 'node:path'
import AxeBuilder from '@axe-core/playwright'
import type { Page, TestInfo } from '@playwright/test'
import { openStore } from '@gnap/domain/kernel'
import { createAdmin, importOwners } from '@gnap/domain/operator'
import { ADMIN, signInAsAdmin } from './support/admin-world'
import { continueAtClient, expect, signIn, test } from './support/fixtures'
import type { ConsentWorld } from './support/consent-world'

const SCREENSHOTS = path.resolve(import.meta.dirname, '../test-results/screenshots')
const PHONE = { width: 390, height: 844 }
const PASSWORD = 'paper lantern over the bay'

async function seriousViolations(page: Page) {
  const { violations } = await new AxeBuilder({ page }).analyze()
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }))
}

async function screenshot(page: Page, testInfo: TestInfo, name: string) {
  fs.mkdirSync(SCREENSHOTS, { recursive: true })
  const body = await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true })
  await testInfo.attach(name, { body, contentType: 'image/png' })
}

/** Imports one owner into the server's database as `pnpm owners import` does; their invitation link. */
async function invite(world: ConsentWorld, owner: { email: string; name: string; walletAddress: string }): Promise<string> {
  const store = await openStore(`file:${world.server.dbFile}`)
  try {
    const report = await importOwners(
      { sql: store.sql, clock: () => new Date(), config: { authServerUrl: world.server.url, ownerLinkExpiryDays: 7 } },
      [{ line: 1, email: owner.email, name: owner.name, walletAddresses: [owner.walletAddress] }],
    )
    const link = report.invitations[0]?.url
    if (!link) throw new Error(`expected an invitation, got ${JSON.stringify(report.rows)}`)
    return link
  } finally {
    await store.close()
  }
}

test('an invited owner sets a password with the keyboard on a phone, then approves a grant with it', async ({ page, world }, testInfo) => {
  const carol = { email: 'carol@example.com', name: 'Carol Invited', walletAddress: 'https://wallet.example/carol' }
  const link = await invite(world, carol)
  await page.setViewportSize(PHONE)

  await page.goto(link)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Choose your password')
  await expect(page.getByText('For Carol Invited.')).toBeVisible()
  await expect(page.getByText('At least 12 characters')).toBeVisible()
  expect(await seriousViolations(page), 'set-password form').toEqual([])
  await screenshot(page, testInfo, 'set-password-phone')

  // Keyboard only: a first attempt with a common password, refused in words, then the real one.
  await page.keyboard.press('Tab')
  await expect(page.getByLabel('New password')).toBeFocused()
  await page.keyboard.type('qwerty123456')
  await page.keyboard.press('Tab')
  await expect(page.getByLabel('Type it again')).toBeFocused()
  await page.keyboard.type('qwerty123456')
  await page.keyboard.press('Enter')
  const common = 'This password is on a list of commonly used passwords: choose another one.'
  await expect(page.getByRole('alert')).toHaveText(common)
  await expect(page.getByLabel('New password')).toHaveAttribute('aria-invalid', 'true')
  await expect(page.getByLabel('New password')).toHaveAccessibleDescription(new RegExp(common.replace(/[.:]/g, '\\$&')))
  // Under the field it is about, above "Type it again".
  const alertBox = (await page.getByRole('alert').boundingBox())!
  expect(alertBox.y).toBeLessThan((await page.getByLabel('Type it again').boundingBox())!.y)
  await expect(page.getByLabel('Type it again')).not.toHaveAttribute('aria-invalid', 'true')
  expect(await seriousViolations(page), 'set-password form with an error').toEqual([])

  await page.keyboard.press('Tab')
  await expect(page.getByLabel('New password')).toBeFocused()
  await page.keyboard.type(PASSWORD)
  await page.keyboard.press('Tab')
  await page.keyboard.type(PASSWORD)
  await page.keyboard.press('Tab')
  await expect(page.getByRole('button', { name: 'Set password' })).toBeFocused()
  await page.keyboard.press('Enter')
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Password set')
  await expect(page.getByText('Password set — you can now sign in')).toBeVisible()
  await expect(page.getByRole('link', { name: 'Go to your account' })).toHaveAttribute('href', `${world.server.url}account`)
  expect(await seriousViolations(page), 'password set page').toEqual([])
  await screenshot(page, testInfo, 'set-password-done-phone')

  // The link is spent.
  await page.goto(link)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('This link was already used')
  expect(await seriousViolations(page), 'used link page').toEqual([])

  // Carol signs in on the consent screen with the password she chose and approves the SDK's grant.
  const { pending } = await world.requestGrant({ identifier: carol.walletAddress })
  await page.goto(pending.interact.redirect)
  await signIn(page, carol.email, PASSWORD)
  await expect(page.getByText(`Signed in as ${carol.name}.`)).toBeVisible()
  await page.getByRole('button', { name: 'Approve' }).click()
  await page.waitForURL((url) => url.href.startsWith(`${world.finish.uri}?`))
  expect(new URL(page.url()).searchParams.get('interact_ref')).toMatch(/^[0-9a-f-]{36}$/)
})

test('an administrator creates an owner and copies the invitation link; the owner sets a password and approves a real SDK grant', async ({
  page,
  world,
}) => {
  const dave = { email: 'dave@example.com', name: 'Dave Console', walletAddress: 'https://wallet.example/dave' }
  const store = await openStore(`file:${world.server.dbFile}`)
  try {
    await createAdmin(store.sql, ADMIN)
  } finally {
    await store.close()
  }

  // The administrator: create the owner, then an invitation link, shown once on the owner's page.
  await signInAsAdmin(page, world.server.url)
  await expect(page).toHaveURL(`${world.server.url}admin`)
  await page.goto(`${world.server.url}admin/owners/new`)
  await page.getByLabel('Email').fill(dave.email)
  await page.getByLabel('Name').fill(dave.name)
  await page.getByLabel('Wallet addresses').fill(dave.walletAddress)
  await page.getByRole('button', { name: 'Create owner' }).click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(dave.name)
  await page.getByRole('button', { name: 'Create invitation link' }).click()
  const shown = page.getByRole('region', { name: `Invitation for ${dave.name}` })
  await expect(shown).toBeFocused()
  const field = shown.getByLabel('Invitation link', { exact: true })
  await expect(field).toHaveValue(new RegExp(`^${world.server.url}account/set-password/[A-Za-z0-9_-]{43}$`))
  const link = await field.inputValue()
  // A Copy button, as for API keys: the very link goes on the clipboard.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(world.server.url).origin })
  await shown.getByRole('button', { name: 'Copy link' }).click()
  await expect(shown.getByRole('status')).toHaveText('Copied to the clipboard.')
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link)

  // The owner, in a browser of their own: set a password with the link, then approve the SDK client's request.
  const ownerPage = await page.context().browser()!.newPage()
  try {
    await ownerPage.goto(link)
    await expect(ownerPage.getByRole('heading', { level: 1 })).toHaveText('Choose your password')
    await ownerPage.getByLabel('New password').fill(PASSWORD)
    await ownerPage.getByLabel('Type it again').fill(PASSWORD)
    await ownerPage.getByRole('button', { name: 'Set password' }).click()
    await expect(ownerPage.getByRole('heading', { level: 1 })).toHaveText('Password set')

    const { pending } = await world.requestGrant({ identifier: dave.walletAddress })
    await ownerPage.goto(pending.interact.redirect)
    await signIn(ownerPage, dave.email, PASSWORD)
    await expect(ownerPage.getByText(`Signed in as ${dave.name}.`)).toBeVisible()
    await ownerPage.getByRole('button', { name: 'Approve' }).click()
    const granted = await continueAtClient(ownerPage, world, pending)
    expect(granted).toMatchObject({ access_token: { value: expect.any(String) } })
  } finally {
    await ownerPage.close()
  }

  // The audit log names the owner as /account's revocations do: `owner:<email>`, not a bare email.
  await page.goto(`${world.server.url}admin/audit`)
  await expect(page.getByRole('cell', { name: `owner:${dave.email}`, exact: true })).toHaveCount(1)
  await expect(page.getByRole('cell', { name: dave.email, exact: true })).toHaveCount(0)
})
