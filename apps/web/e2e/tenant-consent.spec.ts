// A tenant's built-in consent screen in a real browser (Debian's chromium), on a server with an operator tenant: tenant
// A has no identity provider of its own, so its owners consent on our screen (docs/protocol.md §2.21). Only A's owners
// sign in there: B's owner, and the operator tenant's, are told the email or password is not right. A's owner approves
// from the keyboard, the client gets its token with the finish hash over AUTH_SERVER_URL/A, and /account shows the
// grant to A's owner.
import fs from 'node:fs'
import path from 'node:path'
import AxeBuilder from '@axe-core/playwright'
import { isFinalizedGrant, isPendingGrant } from '@interledger/open-payments'
import type { Page, TestInfo } from '@playwright/test'
import { openStore } from '@gnap/domain/kernel'
import { createAdmin } from '@gnap/domain/operator'
import { freePort } from '@gnap/test-support'
import {
  addTenantOwners,
  createTenantThroughServiceApi,
  incomingGrantAt,
  TENANT_A as A,
  TENANT_B as B,
  tenantSettings,
} from '../test/support/tenant-owners'
import { expectedHash, introspect } from '../test/support/world'
import { signInAsAdmin } from './support/admin-world'
import { ALICE, outgoingGrantAccess, startConsentWorld, type ConsentWorld } from './support/consent-world'
import { continueAtClient, expect, worldTest } from './support/fixtures'

const SCREENSHOTS = path.resolve(import.meta.dirname, '../test-results/screenshots')
const PHONE = { width: 390, height: 844 }
const SIGN_IN_FAILED = 'The email or password is not right. Try again.'

const ADA_WALLET = 'https://wallet.example/ada-of-a'
/** An owner of tenant A, and one of tenant B. */
const ADA = { email: 'ada@a.example', name: 'Ada of A', password: 'ada-of-a-password', walletAddresses: [ADA_WALLET] }
/** The console's administrator, to see where the grant shows. */
const ADMIN = { email: 'tenants-admin@example.com', password: 'tenants-admin-password', role: 'admin' as const }
const BEN = { email: 'ben@b.example', name: 'Ben of B', password: 'ben-of-b-password', walletAddresses: ['https://wallet.example/ben-of-b'] }

/** The consent world with an operator tenant, tenants A and B made through the service API (neither has an identity provider), and their owners. */
async function startTenantWorld(): Promise<ConsentWorld> {
  const port = await freePort()
  const world = await startConsentWorld(tenantSettings(port))
  for (const id of [A, B]) await createTenantThroughServiceApi(port, { id })
  const store = await openStore(`file:${world.server.dbFile}`)
  try {
    await addTenantOwners(store.sql, [
      [ADA, A],
      [BEN, B],
    ])
    await createAdmin(store.sql, ADMIN)
  } finally {
    await store.close()
  }
  return world
}

const test = worldTest<ConsentWorld>(startTenantWorld)

/** An interactive grant at `{AUTH_SERVER_URL}/{tenantId}` on `identifier`, by the SDK, finishing at the client. */
async function requestAt(world: ConsentWorld, tenantId: string, identifier = ADA_WALLET) {
  const clientNonce = crypto.randomUUID()
  const authServer = `${world.server.url}${tenantId}`
  const pending = await world.client.grant.request(
    { url: authServer },
    {
      access_token: { access: [outgoingGrantAccess(identifier)] },
      interact: { start: ['redirect'], finish: { method: 'redirect', uri: world.finish.uri, nonce: clientNonce } },
    },
  )
  if (!isPendingGrant(pending)) throw new Error('expected a pending grant')
  return { pending, clientNonce, authServer }
}

/** Signs in on the form in `page` from the keyboard alone: the email field, Tab to the password, Enter to submit. */
async function signInByKeyboard(page: Page, owner: { email: string; password: string }) {
  await page.getByLabel('Email').fill('')
  await page.getByLabel('Email').focus()
  await page.keyboard.type(owner.email)
  await page.keyboard.press('Tab')
  await expect(page.getByLabel('Password')).toBeFocused()
  await page.keyboard.type(owner.password)
  await page.keyboard.press('Enter')
}

async function checkPage(page: Page, testInfo: TestInfo, name: string) {
  const { violations } = await new AxeBuilder({ page }).analyze()
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([])
  await page.setViewportSize(PHONE)
  fs.mkdirSync(SCREENSHOTS, { recursive: true })
  const body = await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true })
  await testInfo.attach(name, { body, contentType: 'image/png' })
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width)
}

test.describe("a tenant's built-in consent screen", () => {
  test("signs in A's owner only; she approves from the keyboard, the client gets its token, and /account shows the grant", async ({
    page,
    world,
  }, testInfo) => {
    const { pending, clientNonce, authServer } = await requestAt(world, A)
    await page.goto(pending.interact.redirect)
    // Tenant A has no identity provider: our screen, not the operator's IDENTITY_SERVER_URL (unset here anyway).
    await expect(page).toHaveURL(/\/consent$/)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sign in to review what Test App asks for')

    // B's owner, and the operator tenant's, with their right passwords: answered as a wrong password.
    for (const other of [BEN, ALICE]) {
      await signInByKeyboard(page, other)
      await expect(page.getByRole('alert')).toHaveText(SIGN_IN_FAILED)
    }
    await checkPage(page, testInfo, 'tenant-consent-refused')

    await signInByKeyboard(page, ADA)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Test App asks for access to your account')
    await expect(page.getByText(`Signed in as ${ADA.name}.`)).toBeVisible()
    await expect(page.getByRole('region', { name: `Send payments from ${ADA_WALLET}` })).toBeVisible()
    await checkPage(page, testInfo, 'tenant-consent')
    await page.getByRole('button', { name: 'Approve' }).focus()
    await page.keyboard.press('Enter')

    const grant = await continueAtClient(page, world, pending)
    const back = new URL(page.url()).searchParams
    expect(back.get('hash')).toBe(expectedHash(clientNonce, pending.interact.finish, back.get('interact_ref') ?? '', authServer))
    if (!isFinalizedGrant(grant) || !grant.access_token) throw new Error('expected an issued grant')
    expect((await introspect(world.server, grant.access_token.value)).body.active).toBe(true)

    // The same session on /account: the grant is there, under A's owner.
    await page.goto(`${world.server.url}account`)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Apps connected to your wallet')
    await expect(page.getByText(`Signed in as ${ADA.name}`)).toBeVisible()
    await expect(page.getByRole('region', { name: 'Test App' }).first().getByText(`Send payments from ${ADA_WALLET}`)).toBeVisible()
    await checkPage(page, testInfo, 'tenant-account')

    // The console: the grant is under tenant A, and not under B.
    await page.setViewportSize({ width: 1280, height: 800 })
    await signInAsAdmin(page, world.server.url, ADMIN)
    for (const [tenant, count] of [
      [A, 1],
      [B, 0],
    ] as const) {
      await page.goto(`${world.server.url}admin/grants?tenant=${tenant}`)
      await expect(page.getByLabel('Tenant', { exact: true })).toHaveValue(tenant)
      await expect(page.getByRole('table').getByRole('row').filter({ hasText: 'Test App' })).toHaveCount(count)
    }
  })

  test("B's owner, signed in on /account, is asked to sign in on A's screen, and B's grant on A's wallet address is not on A's /account", async ({
    page,
    world,
    browser,
  }) => {
    await page.goto(`${world.server.url}account`)
    await signInByKeyboard(page, BEN)
    await expect(page.getByText(`Signed in as ${BEN.name}`)).toBeVisible()
    const { pending } = await requestAt(world, A, BEN.walletAddresses[0])
    await page.goto(pending.interact.redirect)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sign in to review what Test App asks for')
    await expect(page.getByText(BEN.name)).toHaveCount(0)

    // Another app's grant at B on Ada's wallet address, needing no approval: not Ada's to see.
    const other = await world.newClient('tenant-b')
    await incomingGrantAt(other.client, `${world.server.url}${B}`, `${ADA_WALLET}/incoming-payments`)
    const ada = await browser.newContext()
    try {
      const adaPage = await ada.newPage()
      await adaPage.goto(`${world.server.url}account`)
      await signInByKeyboard(adaPage, ADA)
      await expect(adaPage.getByText(`Signed in as ${ADA.name}`)).toBeVisible()
      await expect(adaPage.getByRole('heading', { name: 'Apps you never approved' })).toBeVisible()
      await expect(adaPage.getByText('None.')).toBeVisible()
      await expect(adaPage.getByText('tenant-b app')).toHaveCount(0)
    } finally {
      await ada.close()
    }
  })
})
