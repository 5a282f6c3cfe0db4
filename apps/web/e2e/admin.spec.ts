// The admin console in a real browser (Debian's chromium) against the production build: an administrator signs
// in, reads the overview's counts of the seeded grants, filters and searches the grants table, opens the grant the
// real Open Payments client rotated twice, follows its rotation chain, revokes it (after confirming) and sees the
// client's next rotation fail, finds the revocation in the audit log, and signs out. Each page is photographed and
// scanned with axe. Also: no console page without a session, CSRF refusals, the keyboard alone, and a revocation
// whose request fails.
import type { Locator } from '@playwright/test'
import { OpenPaymentsClientError } from '@interledger/open-payments'
import { openStore } from '@gnap/domain/kernel'
import { ADMIN, OWNER_WALLET, SEEDED_COUNTS, SHOP, expect, screenshot, seriousViolations, signInAsAdmin, test } from './support/admin-world'

const statTexts = (counts: Record<string, number>, labels: Record<string, string>) =>
  Object.entries(labels).map(([key, label]) => `${counts[key]} ${label}`)

/** The words (runs of letters) shown split over two lines inside `locator`: a word wrapped whole has one line box. */
function brokenWords(locator: Locator): Promise<string[]> {
  return locator.evaluate((root) => {
    const broken: string[] = []
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT)
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const word of (node.textContent ?? '').matchAll(/\p{L}+/gu)) {
        const range = document.createRange()
        range.setStart(node, word.index)
        range.setEnd(node, word.index + word[0].length)
        if (new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1) broken.push(word[0])
      }
    }
    return broken
  })
}

test.describe('admin console', () => {
  test('an administrator walks through grants, a rotation chain, a revocation and the audit log', async ({ page, world }, testInfo) => {
    const { rotated } = world
    const url = world.server.url

    await test.step('the root and the console send a visitor without a session to sign-in', async () => {
      await page.goto(url)
      await expect(page).toHaveURL(`${url}admin/sign-in`)
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sign in to the admin console')
      expect(await seriousViolations(page)).toEqual([])
      await screenshot(page, testInfo, 'admin-sign-in')
    })

    await test.step('a wrong password is refused in words', async () => {
      await signInAsAdmin(page, url, { ...ADMIN, password: 'not-the-password' })
      await expect(page.getByRole('main').getByRole('alert')).toHaveText('The email or password is not right. Try again.')
      await expect(page).toHaveURL(`${url}admin/sign-in`)
    })

    await test.step('sign in: the overview counts the seeded grants and tokens', async () => {
      await signInAsAdmin(page, url)
      await expect(page).toHaveURL(`${url}admin`)
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Overview')
      await expect(page.getByText(`Signed in as ${ADMIN.email}`)).toBeVisible()
      const grants = page.getByRole('region', { name: 'Grants', exact: true })
      await expect(grants.getByRole('listitem')).toHaveText(
        statTexts(SEEDED_COUNTS.grants, {
          total: 'Total',
          pending: 'Pending',
          approved: 'Approved',
          issued: 'Issued',
          revoked: 'Revoked',
          rejected: 'Rejected',
          expired: 'Expired',
        }),
      )
      const tokens = page.getByRole('region', { name: 'Access tokens', exact: true })
      await expect(tokens.getByRole('listitem')).toHaveText(
        statTexts(SEEDED_COUNTS.tokens, { issued: 'Issued', rotated: 'Rotated', revoked: 'Revoked', expired: 'Expired' }),
      )
      // The chart draws its bars; its numbers are also in a table.
      const activity = page.getByRole('region', { name: 'Grants and rotations per day', exact: true })
      await expect(activity.locator('.recharts-bar-rectangle').first()).toBeVisible()
      await activity.getByText('Show the numbers').click()
      const rows = activity.getByRole('table').getByRole('row')
      await expect(rows).toHaveCount(31)
      // Today: the client's grant and its two rotations.
      await expect(rows.last()).toHaveText(/1\s*2$/)
      await activity.getByText('Show the numbers').click()
      await expect(rows.first()).toBeHidden()
      expect(await seriousViolations(page)).toEqual([])
      await screenshot(page, testInfo, 'admin-overview')
    })

    await test.step('filter the grants by state, kept in the URL', async () => {
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Grants' }).click()
      await expect(page).toHaveURL(`${url}admin/grants`)
      const table = page.getByRole('table')
      await expect(table.getByRole('row')).toHaveCount(1 + SEEDED_COUNTS.grants.total)

      await page.getByLabel('State').selectOption('pending')
      await page.getByRole('button', { name: 'Apply' }).click()
      await expect(page).toHaveURL(`${url}admin/grants?state=pending`)
      await expect(table.getByRole('row')).toHaveCount(2)
      await expect(table.getByRole('row').nth(1)).toContainText('Pending')
      await expect(table.getByRole('row').nth(1)).toContainText('Corner Shop')

      await page.getByLabel('State').selectOption('finalized')
      await page.getByLabel('Finalization reason').selectOption('issued')
      await page.getByRole('button', { name: 'Apply' }).click()
      await expect(page).toHaveURL(`${url}admin/grants?state=finalized&reason=issued`)
      await expect(table.getByRole('row')).toHaveCount(1 + SEEDED_COUNTS.grants.issued)
      // A reload (or a shared link) shows the same filtered table.
      await page.reload()
      await expect(page.getByLabel('State')).toHaveValue('finalized')
      await expect(table.getByRole('row')).toHaveCount(1 + SEEDED_COUNTS.grants.issued)
      expect(await seriousViolations(page)).toEqual([])
      await screenshot(page, testInfo, 'admin-grants')
    })

    await test.step('find the client’s grant by a token management id, then by its id', async () => {
      await page.getByRole('link', { name: 'Clear filters' }).click()
      await expect(page).toHaveURL(`${url}admin/grants`)
      await page.getByLabel('Search by id').fill(rotated.chain[0]!)
      await page.getByRole('button', { name: 'Apply' }).click()
      await expect(page.getByRole('table').getByRole('row')).toHaveCount(2)
      await expect(page.getByRole('link', { name: rotated.grantId })).toBeVisible()

      await page.getByLabel('Search by id').fill(rotated.grantId)
      await page.getByRole('button', { name: 'Apply' }).click()
      await expect(page).toHaveURL(`${url}admin/grants?q=${rotated.grantId}`)
      // The previous search found the same grant, so its row is on screen before this search answers: the link is
      // followed once the table shows this search's answer (no longer busy), not while it is replaced.
      await expect(page.getByRole('table')).toHaveAttribute('aria-busy', 'false')
      await expect(page.getByRole('table').getByRole('row')).toHaveCount(2)
      await page.getByRole('link', { name: rotated.grantId }).click()
    })

    await test.step('the grant: its client, access in plain words, consent and history', async () => {
      await expect(page).toHaveURL(`${url}admin/grants/${rotated.grantId}`)
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Grant ${rotated.grantId}`)
      const summary = page.getByRole('region', { name: 'Summary', exact: true })
      await expect(summary).toContainText('Test App')
      await expect(summary).toContainText(world.walletAddress)
      await expect(summary).toContainText('Issued')

      const item = page.getByRole('article', { name: `Send payments from ${OWNER_WALLET}` })
      await expect(item.getByRole('list').first().getByRole('listitem')).toHaveText([
        'Send up to 25.00 USD every month from 1 December 2026, for 13 months',
        'See outgoing payments it created',
      ])
      await expect(item).toContainText('Debit at most 25.00 USD (value 2500, scale 2)')
      await expect(item).toContainText('R12/2026-12-01T00:00:00Z/P1M')

      await expect(page.getByRole('region', { name: "Owner's consent", exact: true })).toContainText('Approved')
      const history = page.getByRole('region', { name: 'History', exact: true }).getByRole('listitem')
      await expect(history.first()).toContainText('The client requested the grant')
      await expect(history.filter({ hasText: 'The access token was rotated' })).toHaveCount(2)
    })

    await test.step('its rotation chain: first to current token, each linked to the next', async () => {
      const chain = page
        .getByRole('list', { name: 'Rotation chain' })
        .getByRole('listitem')
        .filter({ has: page.getByRole('heading', { level: 3 }) })
      await expect(chain).toHaveCount(3)
      await expect(chain.nth(0)).toContainText('Rotated')
      await expect(chain.nth(0)).toContainText(`into ${rotated.chain[1]}`)
      await expect(chain.nth(1)).toContainText(`by the rotation request POST /token/${rotated.chain[0]}`)
      await expect(chain.nth(1)).toContainText(`into ${rotated.chain[2]}`)
      await expect(chain.nth(2)).toContainText('Active')
      await expect(chain.nth(0)).toContainText(`by the continuation request POST /continue/${rotated.continueId}`)
      expect(await seriousViolations(page)).toEqual([])
      await screenshot(page, testInfo, 'admin-grant')

      // Follow the chain on the token pages: the current token, then back to the one it replaced.
      await page.getByRole('link', { name: `Token 3: ${rotated.chain[2]}` }).click()
      await expect(page).toHaveURL(`${url}admin/tokens/${rotated.chain[2]}`)
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Access token ${rotated.chain[2]}`)
      await expect(page.getByRole('button', { name: 'Revoke token' })).toBeVisible()
      expect(await seriousViolations(page)).toEqual([])
      await screenshot(page, testInfo, 'admin-token')
      await page.getByRole('region', { name: 'Token', exact: true }).getByRole('link', { name: rotated.chain[1] }).click()
      await expect(page).toHaveURL(`${url}admin/tokens/${rotated.chain[1]}`)
      await expect(page.getByText('Replaced by a newer token')).toBeVisible()
      await expect(page.getByRole('button', { name: 'Revoke token' })).toHaveCount(0)
      await page.getByRole('link', { name: `← Grant ${rotated.grantId}` }).click()
      await expect(page).toHaveURL(`${url}admin/grants/${rotated.grantId}`)
    })

    await test.step('revoke the grant after confirming; the client’s next rotation fails', async () => {
      await page.getByRole('button', { name: 'Revoke grant' }).click()
      const dialog = page.getByRole('dialog', { name: 'Revoke this grant?' })
      await expect(dialog).toBeVisible()
      await expect(dialog).toContainText('its 1 live token will stop working')
      // Cancel is the safe default: focus starts there.
      await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused()
      expect(await seriousViolations(page)).toEqual([])
      // The modal and its backdrop as a person sees them: the viewport.
      await screenshot(page, testInfo, 'admin-revoke-dialog', { fullPage: false })
      await dialog.getByRole('button', { name: 'Revoke grant' }).click()
      await expect(dialog).toBeHidden()
      await expect(page.getByRole('status').filter({ hasText: 'Grant revoked' })).toHaveText('Grant revoked. 1 live token stopped working.')
      await expect(page.getByRole('region', { name: 'Summary', exact: true })).toContainText('Revoked')
      await expect(page.getByRole('button', { name: 'Revoke grant' })).toHaveCount(0)
      const chain = page
        .getByRole('list', { name: 'Rotation chain' })
        .getByRole('listitem')
        .filter({ has: page.getByRole('heading', { level: 3 }) })
      await expect(chain.nth(2)).toContainText('Revoked')

      // auth-server.yaml post-token: 404 invalid_rotation once the token is gone with its grant.
      const failure = await world.client.token.rotate({ url: rotated.current.manage, accessToken: rotated.current.value }).then(
        () => null,
        (e: unknown) => e,
      )
      expect(failure).toBeInstanceOf(OpenPaymentsClientError)
      expect(failure).toMatchObject({ status: 404, code: 'invalid_rotation' })
    })

    await test.step('the audit log shows who revoked what, and when', async () => {
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Audit log' }).click()
      await expect(page).toHaveURL(`${url}admin/audit`)
      const revoke = page.getByRole('row').filter({ hasText: 'Revoked a grant' })
      await expect(revoke).toHaveCount(1)
      await expect(revoke).toContainText(ADMIN.email)
      await expect(revoke).toContainText(`Grant ${rotated.grantId}`)
      await expect(revoke).toContainText('1 live token revoked')
      await expect(revoke.locator('time')).toHaveAttribute('datetime', /^\d{4}-\d{2}-\d{2}T/)
      await expect(page.getByRole('row').filter({ hasText: 'Signed in' }).first()).toContainText(ADMIN.email)
      expect(await seriousViolations(page)).toEqual([])
      await screenshot(page, testInfo, 'admin-audit')
    })

    await test.step('sign out: back to sign-in, and the console is closed again', async () => {
      await page.getByRole('button', { name: 'Sign out' }).click()
      await expect(page).toHaveURL(`${url}admin/sign-in?signed-out=1`)
      await expect(page.getByRole('status')).toHaveText('You are signed out.')
      await page.goto(`${url}admin/grants`)
      await expect(page).toHaveURL(`${url}admin/sign-in`)
    })
  })

  test('at phone width the grant page wraps its words whole; only ids break', async ({ page, world }, testInfo) => {
    const url = world.server.url
    const store = await openStore(`file:${world.server.dbFile}`)
    let grantId = ''
    try {
      // A non-interactive grant of the shop: incoming payments, its token issued in answer to the grant request.
      const grant = await store.prisma.grant.findFirstOrThrow({ where: { client: SHOP, finalizedReason: 'issued' }, select: { id: true } })
      grantId = grant.id
    } finally {
      await store.close()
    }
    await page.setViewportSize({ width: 390, height: 844 })
    await signInAsAdmin(page, url)
    await expect(page).toHaveURL(`${url}admin`)
    await page.goto(`${url}admin/grants/${grantId}`)
    const type = page.getByText('(incoming-payment)')
    const issued = page.getByText('with the grant, in answer to the grant request')
    await expect(type).toBeVisible()
    await expect(issued).toBeVisible()
    expect(await brokenWords(type)).toEqual([])
    expect(await brokenWords(issued)).toEqual([])
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    await screenshot(page, testInfo, 'admin-grant-non-interactive-phone')
  })

  test('the console and the server-rendered pages show the icon, and nothing the browser asks for is missing', async ({ page, world }) => {
    const url = world.server.url
    const missing: string[] = []
    page.on('response', (r) => {
      if (r.status() === 404 && r.request().resourceType() !== 'document') missing.push(r.url())
    })
    const errors: string[] = []
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text())
    })
    const iconOf = async (path: string) => {
      await page.goto(`${url}${path}`)
      const href = await page.locator('link[rel="icon"]').getAttribute('href')
      const icon = await page.request.get(new URL(href ?? '/favicon.ico', url).href)
      expect(icon.status(), path).toBe(200)
      expect(icon.headers()['content-type']).toContain('image/svg+xml')
    }
    // The console's sign-in (React): nothing missing, nothing in the browser console.
    await iconOf('admin/sign-in')
    expect(missing).toEqual([])
    expect(errors).toEqual([])
    // A server-rendered page: a set-password link that is not valid (its own answer is the 404 it means).
    await iconOf(`admin/set-password/${'A'.repeat(43)}`)
    expect(missing).toEqual([])
  })

  test('every console page redirects to sign-in without a session', async ({ page, world }) => {
    const url = world.server.url
    for (const path of [
      'admin',
      'admin/grants?state=pending',
      `admin/grants/${world.rotated.grantId}`,
      `admin/tokens/${world.rotated.chain[0]}`,
      'admin/audit',
    ]) {
      await page.goto(`${url}${path}`)
      await expect(page, path).toHaveURL(`${url}admin/sign-in`)
    }
    // The API answers nothing either.
    const res = await page.request.get(`${url}api/trpc/grants.list?input=${encodeURIComponent(JSON.stringify({ json: {} }))}`)
    expect(res.status()).toBe(401)
  })

  test('signing out while the page still loads says "signed out", not "your session has ended"', async ({ page, world }) => {
    const url = world.server.url
    await signInAsAdmin(page, url)
    await expect(page).toHaveURL(`${url}admin`)
    // The overview's queries are held on their way to the server. The sign-out goes through; then they reach the
    // server after it, are answered UNAUTHORIZED, and those answers come back just after the sign-out's own.
    const held: { resume: () => Promise<void> }[] = []
    await page.route('**/api/trpc/**', async (route) => {
      const request = route.request()
      if (request.method() === 'GET') {
        held.push({
          resume: async () => {
            const answer = await route.fetch()
            expect(answer.status()).toBe(401)
            await route.fulfill({ response: answer })
          },
        })
        return
      }
      const answer = await route.fetch()
      await route.fulfill({ response: answer })
      if (request.url().includes('auth.signOut')) for (const query of held) await query.resume()
    })
    await page.reload()
    await expect.poll(() => held.length).toBeGreaterThan(0)
    await page.getByRole('button', { name: 'Sign out' }).click()
    await expect(page).toHaveURL(`${url}admin/sign-in?signed-out=1`)
    await expect(page.getByRole('status')).toHaveText('You are signed out.')
  })

  test('a mutation without the CSRF header, or a cross-site sign-in, is refused', async ({ page, world }) => {
    const url = world.server.url
    await signInAsAdmin(page, url)
    await expect(page).toHaveURL(`${url}admin`)
    // The browser context's session cookie goes along; the x-csrf-token header does not.
    const pendingRow = await page.request.get(
      `${url}api/trpc/grants.list?input=${encodeURIComponent(JSON.stringify({ json: { filters: { state: 'pending' } } }))}`,
    )
    expect(pendingRow.status()).toBe(200)
    const pendingId = ((await pendingRow.json()) as { result: { data: { json: { items: { id: string }[] } } } }).result.data.json.items[0]?.id
    expect(pendingId).toBeTruthy()

    const refused = await page.request.post(`${url}api/trpc/grants.revoke`, { data: { json: { id: pendingId } } })
    expect(refused.status()).toBe(403)
    expect(await refused.json()).toMatchObject({ error: { json: { data: { code: 'FORBIDDEN' } } } })
    const wrongToken = await page.request.post(`${url}api/trpc/grants.revoke`, {
      data: { json: { id: pendingId } },
      headers: { 'x-csrf-token': 'forged' },
    })
    expect(wrongToken.status()).toBe(403)

    // The grant is untouched.
    await page.goto(`${url}admin/grants/${pendingId}`)
    await expect(page.getByRole('region', { name: 'Summary', exact: true })).toContainText('Pending')
    await expect(page.getByRole('button', { name: 'Revoke grant' })).toBeVisible()

    // Login CSRF: another site cannot sign a browser in.
    const crossSite = await page.request.post(`${url}api/trpc/auth.signIn`, {
      data: { json: ADMIN },
      headers: { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
    })
    expect(crossSite.status()).toBe(403)
  })

  test('the console works with the keyboard alone', async ({ page, world }) => {
    const url = world.server.url
    await page.goto(`${url}admin/sign-in`)
    await page.getByLabel('Email').focus()
    await page.keyboard.type(ADMIN.email)
    await page.keyboard.press('Tab')
    await page.keyboard.type(ADMIN.password)
    await page.keyboard.press('Enter')
    await expect(page).toHaveURL(`${url}admin`)

    // The first Tab reaches the skip link, which is visible while focused and moves focus to the content.
    await page.keyboard.press('Tab')
    const skip = page.getByRole('link', { name: 'Skip to content' })
    await expect(skip).toBeFocused()
    await expect(skip).toBeInViewport()
    await page.keyboard.press('Tab')
    await page.keyboard.press('Tab')
    await page.keyboard.press('Tab')
    await expect(page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Grants' })).toBeFocused()
    // A visible focus indicator: an outline is drawn.
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)
    expect(outline).not.toBe('none')
    await page.keyboard.press('Enter')
    await expect(page).toHaveURL(`${url}admin/grants`)

    // The confirmation dialog: Escape cancels, nothing is revoked.
    await page.goto(`${url}admin/grants?state=approved`)
    await page.getByRole('table').getByRole('row').nth(1).getByRole('link').focus()
    await page.keyboard.press('Enter')
    await expect(page).toHaveURL(new RegExp(`^${url}admin/grants/[0-9a-f-]{36}$`))
    await page.getByRole('button', { name: 'Revoke grant' }).focus()
    await page.keyboard.press('Enter')
    await expect(page.getByRole('dialog')).toBeVisible()
    await page.keyboard.press('Escape')
    await expect(page.getByRole('dialog')).toBeHidden()
    await expect(page.getByRole('region', { name: 'Summary', exact: true })).toContainText('Approved')
  })

  test('a revocation that fails says why in its dialog, which stays open; opened again, it starts clean', async ({ page, world }) => {
    const url = world.server.url
    await signInAsAdmin(page, url)
    await expect(page).toHaveURL(`${url}admin`)
    await page.goto(`${url}admin/grants?state=finalized&reason=issued`)
    await page.getByRole('table').getByRole('row').filter({ hasText: SHOP }).first().getByRole('link').first().click()
    await expect(page).toHaveURL(new RegExp(`^${url}admin/grants/[0-9a-f-]{36}$`))
    await page.getByRole('link', { name: /^Token 1: / }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(/^Access token /)
    const revokeButton = page.getByRole('button', { name: 'Revoke token' })
    const dialog = page.getByRole('dialog', { name: 'Revoke this token?' })

    // The connection drops as the administrator confirms: the dialog stays, and says what happened.
    const isRevoke = (u: URL) => u.pathname.includes('tokens.revoke')
    await page.route(isRevoke, (route) => route.abort('connectionreset'))
    await revokeButton.click()
    await dialog.getByRole('button', { name: 'Revoke token' }).click()
    await expect(dialog.getByRole('alert')).toHaveText(
      'The server could not be reached. Check that it is running and that you are online, then try again.',
    )
    await expect(dialog).toBeVisible()
    expect(await seriousViolations(page)).toEqual([])
    await page.unroute(isRevoke)

    // Cancelled and opened again: the old failure is gone, and this time the revocation goes through.
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await expect(dialog).toBeHidden()
    await revokeButton.click()
    await expect(dialog).toBeVisible()
    await expect(dialog.getByRole('alert')).toHaveCount(0)
    await dialog.getByRole('button', { name: 'Revoke token' }).click()
    await expect(dialog).toBeHidden()
    await expect(page.getByRole('status').filter({ hasText: 'Token revoked' })).toHaveText(
      'Token revoked. It no longer works and cannot be rotated; its grant is unchanged.',
    )
    await expect(revokeButton).toHaveCount(0)
  })
})
