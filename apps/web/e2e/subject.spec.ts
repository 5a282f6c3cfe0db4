// Subject requests on the built-in consent screen, in a real browser (Debian's chromium): the SDK client asks the owner
// to confirm that they control a wallet address, alone or with access; the owner reads it in words, approves from the
// keyboard, and the SDK continues the grant (docs/protocol.md §2.1, §2.2, §2.9, §2.11; RFC 9635 §2.2, §3.4). Every
// answer the SDK and these tests get from the server is checked against auth-server.yaml and id-provider.yaml (the
// fixtures' contract check). Also: the refusal when the signed-in owner does not own the wallet address, and the
// console's grant page listing it.
import fs from 'node:fs'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import AxeBuilder from '@axe-core/playwright'
import { isFinalizedGrantWithAccessToken, isFinalizedGrantWithSubject, isPendingGrant, type PendingGrant } from '@interledger/open-payments'
import type { Page, TestInfo } from '@playwright/test'
import { IDP_SECRET } from '@gnap/test-support'
import { openStore } from '@gnap/domain/kernel'
import { createAdmin } from '@gnap/domain/operator'
import { ADMIN, checkPage, signInAsAdmin } from './support/admin-world'
import { ALICE, ALICE_WALLET, BOB, outgoingGrantAccess, type ConsentWorld } from './support/consent-world'
import { continueAtClient, expect, signIn, test } from './support/fixtures'

/** An administrator of this spec only: other specs on the same server create the shared one. */
const SUBJECT_ADMIN = { email: 'subject-spec@example.com', password: ADMIN.password }

const SCREENSHOTS = path.resolve(import.meta.dirname, '../test-results/screenshots')
const PHONE = { width: 390, height: 844 }

/** A grant request with `subject` by the SDK client (its own request types), with access too when given. */
async function requestSubjectGrant(world: ConsentWorld, subject: string, access?: ReturnType<typeof outgoingGrantAccess>[]): Promise<PendingGrant> {
  const interact = { start: ['redirect' as const], finish: { method: 'redirect' as const, uri: world.finish.uri, nonce: randomUUID() } }
  const sub_ids = [{ id: subject, format: 'uri' as const }]
  const grant = await world.client.grant.request(
    { url: world.server.url },
    access ? { access_token: { access }, subject: { sub_ids }, interact } : { subject: { sub_ids }, interact },
  )
  if (!isPendingGrant(grant)) throw new Error('expected a pending grant')
  return grant
}

/** `/interact/{id}/{nonce}` of an interact.redirect link, and the identity-provider path of the same interaction. */
function paths(pending: PendingGrant) {
  const url = new URL(pending.interact.redirect)
  const [, , id, nonce] = url.pathname.split('/')
  return { interaction: `${url.origin}${url.pathname}`, idp: `${url.origin}/grant/${id}/${nonce}` }
}

/** What an identity provider is shown of the grant (id-provider.yaml get-grant), checked against the contract. */
async function idpView(pending: PendingGrant): Promise<{ access: unknown[]; subject?: unknown; state: string }> {
  const res = await fetch(paths(pending).idp, { headers: { 'x-idp-secret': IDP_SECRET } })
  expect(res.status).toBe(200)
  return (await res.json()) as { access: unknown[]; subject?: unknown; state: string }
}

async function phoneScreenshot(page: Page, testInfo: TestInfo, name: string) {
  await page.setViewportSize(PHONE)
  fs.mkdirSync(SCREENSHOTS, { recursive: true })
  const body = await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true })
  await testInfo.attach(name, { body, contentType: 'image/png' })
}

async function seriousViolations(page: Page) {
  const { violations } = await new AxeBuilder({ page }).analyze()
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({ id: v.id, help: v.help }))
}

/** Opens the client's link and signs in on the consent screen's form. */
async function openAndSignIn(page: Page, pending: PendingGrant, owner: { email: string; password: string }) {
  await page.goto(pending.interact.redirect)
  await expect(page).toHaveURL(`${paths(pending).interaction}/consent`)
  await signIn(page, owner.email, owner.password)
}

/** Tabs through the page until Approve has the focus, then presses Enter: the decision from the keyboard alone. */
async function approveWithKeyboard(page: Page) {
  const approve = page.getByRole('button', { name: 'Approve' })
  for (let i = 0; i < 12 && !(await approve.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab')
  await expect(approve).toBeFocused()
  await page.keyboard.press('Enter')
}

/** Approves from the keyboard, then the client continues the grant with the interact_ref the browser brought back. */
async function approveAndContinue(page: Page, world: ConsentWorld, pending: PendingGrant) {
  await approveWithKeyboard(page)
  return continueAtClient(page, world, pending)
}

test.describe('subject requests on the built-in consent screen', () => {
  test('subject only: the owner confirms their wallet address, and the client gets the subject and no token', async ({ page, world }, testInfo) => {
    const pending = await requestSubjectGrant(world, ALICE_WALLET)
    expect(await idpView(pending)).toMatchObject({ access: [], subject: { sub_ids: [{ id: ALICE_WALLET, format: 'uri' }] }, state: 'PENDING' })

    await openAndSignIn(page, pending, ALICE)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Test App asks you to confirm your wallet address')
    await expect(page.getByText(`Test App asks you to confirm that you control ${ALICE_WALLET}`)).toBeVisible()
    await expect(page.getByText('It gets no access to your account from this.')).toBeVisible()
    await expect(page.getByRole('heading', { name: 'If you approve, Test App can:' })).toHaveCount(0)
    await phoneScreenshot(page, testInfo, 'subject-consent-phone')
    await expect(page.getByRole('button', { name: 'Approve' })).toBeInViewport({ ratio: 1 })
    expect(await seriousViolations(page)).toEqual([])

    const grant = await approveAndContinue(page, world, pending)
    if (!isFinalizedGrantWithSubject(grant)) throw new Error('expected the subject in the answer')
    expect(grant.subject).toEqual({ sub_ids: [{ id: ALICE_WALLET, format: 'uri' }] })
    expect(isFinalizedGrantWithAccessToken(grant)).toBe(false)
  })

  test('subject and access: the consent screen says both, and the client gets the subject and a token', async ({ page, world }, testInfo) => {
    const pending = await requestSubjectGrant(world, ALICE_WALLET, [outgoingGrantAccess(ALICE_WALLET)])
    expect(await idpView(pending)).toMatchObject({
      access: [expect.objectContaining({ type: 'outgoing-payment', identifier: ALICE_WALLET })],
      subject: { sub_ids: [{ id: ALICE_WALLET, format: 'uri' }] },
    })

    await openAndSignIn(page, pending, ALICE)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Test App asks for access to your account')
    await expect(page.getByText(`Test App asks you to confirm that you control ${ALICE_WALLET}`)).toBeVisible()
    await expect(page.getByRole('heading', { name: 'If you approve, Test App can:' })).toBeVisible()
    await expect(page.getByRole('region', { name: `Send payments from ${ALICE_WALLET}` })).toBeVisible()
    await phoneScreenshot(page, testInfo, 'subject-and-access-consent-phone')
    expect(await seriousViolations(page)).toEqual([])

    const grant = await approveAndContinue(page, world, pending)
    if (!isFinalizedGrantWithSubject(grant) || !isFinalizedGrantWithAccessToken(grant)) throw new Error('expected the subject and a token')
    expect(grant.subject).toEqual({ sub_ids: [{ id: ALICE_WALLET, format: 'uri' }] })
    expect(grant.access_token.access).toEqual([expect.objectContaining({ type: 'outgoing-payment', identifier: ALICE_WALLET })])
  })

  test('another owner is told the wallet address is not theirs, and an Approve they post is refused', async ({ page, world }, testInfo) => {
    const pending = await requestSubjectGrant(world, ALICE_WALLET)
    await openAndSignIn(page, pending, BOB)

    await expect(page.getByRole('heading', { level: 1 })).toHaveText('This request is for another account')
    await expect(page.getByText(`Test App asks you to confirm that you control ${ALICE_WALLET}`)).toBeVisible()
    await expect(page.getByText('so you cannot approve this request. Sign out and sign in with the account that owns them')).toBeVisible()
    await expect(page.getByRole('button', { name: 'Approve' })).toHaveCount(0)
    await phoneScreenshot(page, testInfo, 'subject-not-yours-phone')
    expect(await seriousViolations(page)).toEqual([])

    // A hand-made Approve, with Bob's cookies and the CSRF token of his sign-out form, is refused on the server.
    const csrf = await page.locator('input[name="csrf"]').inputValue()
    const forged = await page.request.post(`${paths(pending).interaction}/decision`, { form: { csrf, choice: 'approve' }, maxRedirects: 0 })
    expect(forged.status()).toBe(403)
    expect(await forged.text()).toContain('Not your account')
    expect(await idpView(pending)).toMatchObject({ state: 'PENDING' })

    // Keyboard only: Sign out is reachable, and the owner of the wallet address can then approve.
    const signOut = page.getByRole('button', { name: 'Sign out' })
    for (let i = 0; i < 12 && !(await signOut.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab')
    await expect(signOut).toBeFocused()
    await page.keyboard.press('Enter')
    await signIn(page, ALICE.email, ALICE.password)
    await expect(page.getByText(`Test App asks you to confirm that you control ${ALICE_WALLET}`)).toBeVisible()
    await expect(page.getByRole('button', { name: 'Approve' })).toBeVisible()
  })

  test('the console grant page lists the wallet address the client asked the owner to confirm', async ({ page, world }, testInfo) => {
    const pending = await requestSubjectGrant(world, ALICE_WALLET)
    const continueId = new URL(pending.continue.uri).pathname.split('/').pop() ?? ''
    const store = await openStore(`file:${world.server.dbFile}`)
    let grantId: string
    try {
      await createAdmin(store.sql, SUBJECT_ADMIN)
      grantId = (await store.prisma.grant.findUniqueOrThrow({ where: { continueId } })).id
    } finally {
      await store.close()
    }

    await signInAsAdmin(page, world.server.url, SUBJECT_ADMIN)
    await expect(page).toHaveURL(`${world.server.url}admin`)
    await page.goto(`${world.server.url}admin/grants/${grantId}`)
    const subjects = page.getByRole('region', { name: 'Wallet addresses to confirm (1)' })
    await expect(subjects).toContainText('The client asked the owner to confirm that they control this wallet address:')
    await expect(subjects.getByRole('listitem')).toHaveText([ALICE_WALLET])
    await expect(page.getByRole('region', { name: 'Access (0)' })).toContainText(
      'No access: this grant only asks the owner to confirm a wallet address',
    )
    await checkPage(page, testInfo, 'admin-grant-subject')
  })
})
