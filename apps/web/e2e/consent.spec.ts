// The built-in consent screen in a real browser (Debian's chromium): the owner follows the client's
// interact.redirect link, signs in, reads the request in plain words, approves or denies, and the browser lands on
// the client's finish URI; the real Open Payments SDK then continues the grant (docs/protocol.md §2.7, §2.8, §5).
import fs from 'node:fs'
import path from 'node:path'
import AxeBuilder from '@axe-core/playwright'
import { isFinalizedGrant, OpenPaymentsClientError, type PendingGrant } from '@interledger/open-payments'
import type { Page, TestInfo } from '@playwright/test'
import { expectedHash, introspect, sleep } from '../test/support/world'
import { ALICE, ALICE_WALLET, BOB, interactionExpiry, startConsentWorld, type ConsentWorld } from './support/consent-world'
import { expect, signIn, test } from './support/fixtures'

const SCREENSHOTS = path.resolve(import.meta.dirname, '../test-results/screenshots')
const DESKTOP = { width: 1280, height: 800 }
const PHONE = { width: 390, height: 844 }

const SIGN_IN_FAILED = 'The email or password is not right. Try again.'

/** `/interact/{id}/{nonce}` of an interact.redirect link, on the server's origin. */
const interactionBase = (pending: PendingGrant) => {
  const url = new URL(pending.interact.redirect)
  return `${url.origin}${url.pathname}`
}

async function screenshot(page: Page, testInfo: TestInfo, name: string, size: { width: number; height: number }) {
  await page.setViewportSize(size)
  fs.mkdirSync(SCREENSHOTS, { recursive: true })
  const body = await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true })
  await testInfo.attach(name, { body, contentType: 'image/png' })
}

/** Opens the client's link: the server sets the interaction cookie and shows the sign-in form. */
async function openLink(page: Page, pending: PendingGrant) {
  await page.goto(pending.interact.redirect)
  await expect(page).toHaveURL(`${interactionBase(pending)}/consent`)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sign in to review what Test App asks for')
}

/** Waits until the browser is back at the client's finish endpoint; returns the query it brought. */
async function landedAtClient(page: Page, world: ConsentWorld): Promise<URLSearchParams> {
  await page.waitForURL((url) => url.href.startsWith(`${world.finish.uri}?`))
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Back at the client')
  return new URL(page.url()).searchParams
}

async function approveInBrowser(page: Page, world: ConsentWorld, pending: PendingGrant): Promise<URLSearchParams> {
  await openLink(page, pending)
  await signIn(page, ALICE.email, ALICE.password)
  await page.getByRole('button', { name: 'Approve' }).click()
  return landedAtClient(page, world)
}

async function rejection(p: Promise<unknown>): Promise<OpenPaymentsClientError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  )
  if (!(e instanceof OpenPaymentsClientError)) throw new Error(`expected the client to reject, got ${String(e)}`)
  return e
}

/** Accessibility violations that block or seriously hinder someone (axe impact serious or critical). */
async function seriousViolations(page: Page) {
  const { violations } = await new AxeBuilder({ page }).analyze()
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }))
}

test.describe('built-in consent screen', () => {
  test('Approve: the owner reads the request in plain words, approves, and the client gets a token', async ({ page, world }, testInfo) => {
    const { pending, clientNonce } = await world.requestGrant()
    await openLink(page, pending)
    await signIn(page, ALICE.email, ALICE.password)

    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Test App asks for access to your account')
    const item = page.getByRole('region', { name: `Send payments from ${ALICE_WALLET}` })
    await expect(item.getByRole('listitem')).toHaveText([
      'Send up to 25.00 USD every month from 1 December 2026, for 12 months',
      'See outgoing payments it created',
    ])
    await expect(page.getByText('25.00 USD')).toBeVisible()
    await expect(page.getByText('every month from 1 December 2026, for 12 months')).toBeVisible()
    await expect(page.getByText(`Signed in as ${ALICE.name}.`)).toBeVisible()

    await screenshot(page, testInfo, 'consent-desktop', DESKTOP)
    await screenshot(page, testInfo, 'consent-phone', PHONE)
    // Both buttons stay on screen, side by side or stacked, on a phone.
    await expect(page.getByRole('button', { name: 'Approve' })).toBeInViewport({ ratio: 1 })
    await expect(page.getByRole('button', { name: 'Deny' })).toBeInViewport({ ratio: 1 })

    await page.getByRole('button', { name: 'Approve' }).click()
    const back = await landedAtClient(page, world)
    const interactRef = back.get('interact_ref') ?? ''
    expect(interactRef).toMatch(/^[0-9a-f-]{36}$/)
    expect(back.get('hash')).toBe(expectedHash(clientNonce, pending.interact.finish, interactRef, world.server.url))

    // The protocol's wait before continuing (docs/protocol.md §2.2: too_fast otherwise).
    await sleep((pending.continue.wait ?? 0) * 1000)
    const grant = await world.client.grant.continue(
      { url: pending.continue.uri, accessToken: pending.continue.access_token.value },
      { interact_ref: interactRef },
    )
    if (!isFinalizedGrant(grant) || !grant.access_token) throw new Error('expected an issued grant')
    // As the resource server asks before creating an outgoing payment from Alice's wallet address.
    const seen = await introspect(world.server, grant.access_token.value, [
      { type: 'outgoing-payment', actions: ['create'], identifier: ALICE_WALLET },
    ])
    expect(seen.body).toMatchObject({ active: true, client: { walletAddress: world.walletAddress } })
    expect(seen.body.access).toEqual([expect.objectContaining({ type: 'outgoing-payment', identifier: ALICE_WALLET })])
  })

  test('Deny: the browser lands with result=grant_rejected and continuing answers user_denied', async ({ page, world }) => {
    const { pending } = await world.requestGrant()
    await openLink(page, pending)
    await signIn(page, ALICE.email, ALICE.password)
    await page.getByRole('button', { name: 'Deny' }).click()

    const back = await landedAtClient(page, world)
    expect(back.get('result')).toBe('grant_rejected')
    expect(back.has('hash')).toBe(false)
    expect(back.has('interact_ref')).toBe(false)

    await sleep((pending.continue.wait ?? 0) * 1000)
    const e = await rejection(
      world.client.grant.continue(
        { url: pending.continue.uri, accessToken: pending.continue.access_token.value },
        { interact_ref: 'not-sent-on-deny' },
      ),
    )
    expect(e.status).toBe(401)
    expect(e.code).toBe('user_denied')
  })

  test('a replayed finish URL after the grant was issued shows an error page and redirects nobody', async ({ page, world }) => {
    const { pending } = await world.requestGrant()
    await approveInBrowser(page, world, pending)
    const landings = world.finish.hits.length

    const finishUrl = `${interactionBase(pending)}/finish`
    const replay = await page.goto(finishUrl)
    expect(replay?.status()).toBe(404)
    await expect(page).toHaveURL(finishUrl)
    await expect(page).toHaveTitle('Request already handled')
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Request already handled')
    await expect(page.getByText('This request has already been completed or cancelled.')).toBeVisible()

    // The client's link itself is spent too.
    const again = await page.goto(pending.interact.redirect)
    expect(again?.status()).toBe(403)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Request already handled')
    expect(world.finish.hits).toHaveLength(landings)
  })

  test('an expired link opened in a fresh browser shows a page with a link back to the client, not a redirect, or the expired page', async ({
    page,
  }, testInfo) => {
    const short = await startConsentWorld({ INTERACTION_EXPIRY_SECONDS: '1' })
    try {
      const withFinish = await short.requestGrant()
      const withoutFinish = await short.requestGrant({ finish: false })
      // A clock condition, not UI state: wait until the server's stored expiry of both interactions has passed.
      const expiry = await interactionExpiry(short.server.dbFile, withoutFinish.pending.interact.redirect)
      await sleep(Math.max(0, expiry.getTime() - Date.now()) + 250)

      // This browser never opened the link, so it holds no session of the interaction: no redirect (docs/protocol.md §2.7).
      const stale = await page.goto(withFinish.pending.interact.redirect)
      expect(stale?.status()).toBe(403)
      await expect(page).toHaveURL(withFinish.pending.interact.redirect)
      await expect(page).toHaveTitle('Request expired')
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Request expired')
      await expect(page.getByText('This request has expired. Go back to the app and start again.')).toBeVisible()
      const back = page.getByRole('link', { name: `Go back to ${new URL(short.finish.uri).host}` })
      await expect(back).toBeVisible()
      expect(short.finish.hits).toHaveLength(0)
      expect(await seriousViolations(page), 'expired page with a link').toEqual([])
      await screenshot(page, testInfo, 'expired-link-phone', PHONE)
      expect(await seriousViolations(page), 'expired page with a link on a phone').toEqual([])

      // Keyboard only: Tab reaches the link, Enter follows it to the client's finish URI.
      await page.keyboard.press('Tab')
      await expect(back).toBeFocused()
      await page.keyboard.press('Enter')
      const landed = await landedAtClient(page, short)
      expect(landed.get('result')).toBe('invalid_interaction')
      expect(landed.get('message')).toBe('interaction expired')
      expect(landed.has('hash')).toBe(false)

      const expired = await page.goto(withoutFinish.pending.interact.redirect)
      expect(expired?.status()).toBe(403)
      await expect(page).toHaveTitle('Request expired')
      await expect(page.getByText('This request has expired. Go back to the app and start again.')).toBeVisible()
      expect(short.spec.failures).toEqual([])
    } finally {
      await short.stop()
    }
  })

  test('another owner signing in sees that the request is for another account, with no Approve button', async ({ page, world }) => {
    const { pending } = await world.requestGrant({ identifier: ALICE_WALLET })
    await openLink(page, pending)
    await signIn(page, BOB.email, BOB.password)

    await expect(page.getByRole('heading', { level: 1 })).toHaveText('This request is for another account')
    await expect(page.getByText(`Signed in as ${BOB.name}.`)).toBeVisible()
    await expect(page.getByRole('button', { name: 'Approve' })).toHaveCount(0)
    await expect(page.getByRole('button', { name: 'Deny' })).toHaveCount(0)

    // A hand-made Approve, with Bob's cookies and the CSRF token of his sign-out form, is refused too.
    const csrf = await page.locator('input[name="csrf"]').inputValue()
    const forged = await page.request.post(`${interactionBase(pending)}/decision`, { form: { csrf, choice: 'approve' }, maxRedirects: 0 })
    expect(forged.status()).toBe(403)
    expect(await forged.text()).toContain('Not your account')

    // Signing out and in as the owner of the wallet address brings the request back, still undecided.
    await page.getByRole('button', { name: 'Sign out' }).click()
    await expect(page.getByLabel('Email')).toBeVisible()
    await signIn(page, ALICE.email, ALICE.password)
    await expect(page.getByRole('button', { name: 'Approve' })).toBeVisible()
  })

  test('a wrong password and an unknown email get the same message on the sign-in form', async ({ page, world }) => {
    const { pending } = await world.requestGrant()
    await openLink(page, pending)

    await signIn(page, ALICE.email, 'not-alice-password')
    await expect(page.getByRole('alert')).toHaveText(SIGN_IN_FAILED)
    await expect(page.getByRole('button', { name: 'Approve' })).toHaveCount(0)
    const wrongPassword = await page.locator('main').innerText()

    await signIn(page, 'nobody@example.com', ALICE.password)
    await expect(page.getByRole('alert')).toHaveText(SIGN_IN_FAILED)
    const unknownEmail = await page.locator('main').innerText()
    // Nothing on the page tells whether the email belongs to an account.
    expect(unknownEmail).toBe(wrongPassword)
  })

  test('keyboard only: Tab reaches the fields and buttons, Enter signs in, Approve works from the keyboard', async ({ page, world }) => {
    const { pending, clientNonce } = await world.requestGrant()
    await openLink(page, pending)

    await page.keyboard.press('Tab')
    await expect(page.getByLabel('Email')).toBeFocused()
    await page.keyboard.type(ALICE.email)
    await page.keyboard.press('Tab')
    await expect(page.getByLabel('Password')).toBeFocused()
    await page.keyboard.type(ALICE.password)
    await page.keyboard.press('Tab')
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeFocused()
    await page.keyboard.press('Shift+Tab')
    await expect(page.getByLabel('Password')).toBeFocused()
    await page.keyboard.press('Enter')

    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Test App asks for access to your account')
    await page.keyboard.press('Tab')
    await expect(page.getByRole('button', { name: 'Approve' })).toBeFocused()
    await page.keyboard.press('Tab')
    await expect(page.getByRole('button', { name: 'Deny' })).toBeFocused()
    await page.keyboard.press('Tab')
    await expect(page.getByRole('button', { name: 'Sign out' })).toBeFocused()
    await page.keyboard.press('Shift+Tab')
    await page.keyboard.press('Shift+Tab')
    await expect(page.getByRole('button', { name: 'Approve' })).toBeFocused()
    await page.keyboard.press('Enter')

    const back = await landedAtClient(page, world)
    const interactRef = back.get('interact_ref') ?? ''
    expect(back.get('hash')).toBe(expectedHash(clientNonce, pending.interact.finish, interactRef, world.server.url))
  })

  test('axe finds no serious or critical violation on the sign-in, consent and error pages', async ({ page, world }) => {
    const { pending } = await world.requestGrant()
    await openLink(page, pending)
    expect(await seriousViolations(page), 'sign-in page').toEqual([])

    await signIn(page, ALICE.email, 'not-alice-password')
    await expect(page.getByRole('alert')).toBeVisible()
    expect(await seriousViolations(page), 'sign-in page with its error').toEqual([])

    await signIn(page, ALICE.email, ALICE.password)
    await expect(page.getByRole('button', { name: 'Approve' })).toBeVisible()
    expect(await seriousViolations(page), 'consent page').toEqual([])

    await page.setViewportSize(PHONE)
    expect(await seriousViolations(page), 'consent page on a phone').toEqual([])

    const unknown = await page.goto(`${world.server.url}interact/00000000-0000-4000-8000-000000000000/0000000000000000`)
    expect(unknown?.status()).toBe(400)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Unknown request')
    expect(await seriousViolations(page), 'error page').toEqual([])
  })
})
