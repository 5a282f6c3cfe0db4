import fs from 'node:fs'
import path from 'node:path'
import AxeBuilder from '@axe-core/playwright'
import { expect, type Page, type TestInfo } from '@playwright/test'
import { isFinalizedGrant, isPendingGrant } from '@interledger/open-payments'
import { createLogger, noMetrics, openStore, type Store } from '@gnap/domain/kernel'
import { revokeGrant, type Deps, type WalletAddressResolver } from '@gnap/domain/protocol'
import { createAdmin } from '@gnap/domain/operator'
import {
  approvedGrant,
  fakeClock,
  grantRequest,
  incomingAccess,
  interact,
  issueNonInteractiveGrant,
  lastSegment,
  quoteAccess,
  requestPendingGrant,
  testConfig,
  type TestDeps,
} from '@gnap/domain/testing'
import { approvedOutgoingGrant, startWorld, type World } from '../../test/support/world'
import { worldTest } from './fixtures'

// The world of the admin console's browser tests: the production build (identity-provider mode, so the SDK's
// interactive grant is approved through the identity-provider API, not by clicks), an administrator, and grants of
// every state written into the server's SQLite file through the domain's use cases.

export const ADMIN = { email: 'ops@example.com', password: 'ops-console-password' }

/** The seeded clients: wallet addresses are only names here (the use cases' signature check is stubbed). */
export const SHOP = 'https://wallet.example/corner-shop'
export const PAYROLL = 'https://wallet.example/payroll'
/** The resource owner of the SDK's outgoing-payment grant. */
export const OWNER_WALLET = 'https://wallet.example/alice'

const DAY_S = 86_400

/** What `seedConsole` wrote, as the overview must count it (grants requested in the last 30 days, by state now). */
export const SEEDED_COUNTS = {
  grants: { total: 7, pending: 1, approved: 1, issued: 3, revoked: 1, rejected: 1, expired: 0 },
  // Issued: 2 incoming + 1 quote + the SDK's first token and its 2 rotations. Expired: the two incoming tokens,
  // issued three days ago and never rotated or revoked.
  tokens: { issued: 6, rotated: 2, revoked: 1, expired: 2 },
} as const

/** The SDK client's grant: issued through consent, its token rotated twice. */
export interface RotatedGrant {
  grantId: string
  continueId: string
  /** Management ids of its tokens, first to current. */
  chain: string[]
  /** The current token, as the client holds it. */
  current: { value: string; manage: string }
}

/**
 * Grants through the use cases, three days to one day ago on a fake clock: two non-interactive incoming-payment
 * grants, a pending, an approved and a denied outgoing-payment grant, and a revoked quote grant.
 */
async function seedConsole(store: Store, serverUrl: string): Promise<void> {
  const clock = fakeClock(new Date(Date.now() - 3 * DAY_S * 1000))
  const names: Record<string, string> = { [SHOP]: 'Corner Shop', [PAYROLL]: 'Payroll Runner' }
  const walletAddresses: WalletAddressResolver = {
    getKey: () => Promise.resolve(null),
    getWalletAddress: (url) =>
      Promise.resolve({
        id: url,
        publicName: names[url] ?? 'Seeded App',
        assetCode: 'USD',
        assetScale: 2,
        authServer: serverUrl,
        resourceServer: 'https://rs.example',
      }),
  }
  const deps: Deps = {
    sql: store.sql,
    reads: store.reads,
    // Interactions live for a month: the pending grant, requested two days ago, is still waiting for its owner (a
    // grant whose interaction ran out is finalized as expired at the console's first look, docs/protocol.md §3).
    config: testConfig({ authServerUrl: serverUrl, waitSeconds: 1, interactionExpirySeconds: 30 * DAY_S }),
    clock: () => new Date(clock.now.getTime()),
    log: createLogger('silent'),
    walletAddresses,
    metrics: noMetrics,
  }
  const t: TestDeps = { deps, db: store.prisma, sql: store.sql, provider: store.provider, clock, walletAddresses, cleanup: () => Promise.resolve() }
  const outgoing = (client: string) => grantRequest({ client })

  await issueNonInteractiveGrant(t, { client: SHOP, access: [incomingAccess()] })
  clock.advance(60)
  await issueNonInteractiveGrant(t, { client: SHOP, access: [incomingAccess()] })
  clock.advance(DAY_S)
  await requestPendingGrant(t, outgoing(SHOP))
  clock.advance(60)
  await approvedGrant(t, outgoing(PAYROLL))
  clock.advance(60)
  await interact(t, await requestPendingGrant(t, outgoing(PAYROLL)), 'reject')
  clock.advance(DAY_S)
  const quote = await issueNonInteractiveGrant(t, { client: PAYROLL, access: [quoteAccess()] })
  clock.advance(60)
  const { id } = await store.prisma.grant.findUniqueOrThrow({ where: { continueId: quote.continueId }, select: { id: true } })
  await revokeGrant(deps, id)
}

/** The real client asks for an outgoing-payment grant, the owner approves (identity-provider API), it continues and rotates twice. */
async function rotatedGrant(world: World): Promise<RotatedGrant> {
  const { pending, lookup, token: issuedToken } = await approvedOutgoingGrant(world, OWNER_WALLET)
  let token = issuedToken
  const chain = [lastSegment(token.manage)]
  for (let i = 0; i < 2; i++) {
    token = (await world.client.token.rotate({ url: token.manage, accessToken: token.value })).access_token
    chain.push(lastSegment(token.manage))
  }
  return { grantId: lookup.grantId, continueId: lastSegment(pending.continue.uri), chain, current: { value: token.value, manage: token.manage } }
}

export interface AdminWorld extends World {
  rotated: RotatedGrant
}

export async function startAdminWorld(): Promise<AdminWorld> {
  const world = await startWorld()
  try {
    const store = await openStore(`file:${world.server.dbFile}`)
    try {
      await createAdmin(store.sql, ADMIN)
      await seedConsole(store, world.server.url)
    } finally {
      await store.close()
    }
    return { ...world, rotated: await rotatedGrant(world) }
  } catch (e) {
    await world.stop()
    throw e
  }
}

export const test = worldTest<AdminWorld>(startAdminWorld)

export { expect }

const SCREENSHOTS = path.resolve(import.meta.dirname, '../../test-results/screenshots')

/** A screenshot (the whole page unless told otherwise) kept as an artifact (`test-results/screenshots/<name>.png`) and attached to the report. */
export async function screenshot(page: Page, testInfo: TestInfo, name: string, { fullPage = true } = {}): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true })
  const body = await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage })
  await testInfo.attach(name, { body, contentType: 'image/png' })
}

/** Accessibility violations that block or seriously hinder someone (axe impact serious or critical). */
export async function seriousViolations(page: Page) {
  const { violations } = await new AxeBuilder({ page }).analyze()
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }))
}

const PHONE = { width: 390, height: 844 }
const DESKTOP = { width: 1280, height: 800 }

/**
 * A console page axe-clean and photographed (`<name>.png`), and at phone width (390 px) still axe-clean,
 * photographed (`<name>-phone.png`) and without sideways scrolling.
 */
export async function checkPage(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  // After a client-side navigation (a filter's URL), Next puts the page's <title> back a moment after the content:
  // axe runs once the page has settled, and a page that never gets its title still fails here.
  await expect(page).toHaveTitle(/\S/)
  expect(await seriousViolations(page), name).toEqual([])
  await screenshot(page, testInfo, name)
  await page.setViewportSize(PHONE)
  expect(await seriousViolations(page), `${name} on a phone`).toEqual([])
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width)
  await screenshot(page, testInfo, `${name}-phone`)
  await page.setViewportSize(DESKTOP)
}

/** The sign-in form of the console. */
export async function signInAsAdmin(page: Page, serverUrl: string, credentials = ADMIN): Promise<void> {
  await page.goto(`${serverUrl}admin/sign-in`)
  await page.getByLabel('Email').fill(credentials.email)
  await page.getByLabel('Password').fill(credentials.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
}
