// The whole operator story in a real browser (Debian's chromium) against the production build
// (docs/protocol.md §2.14, §2.16, §2.17): an admin invites an operator; the operator sets a password with the link,
// turns on two-step sign-in, signs in again with password and code, blocks the client that holds a live token, and
// the real Open Payments client's next rotation is refused.
import type { Page } from '@playwright/test'
import { OpenPaymentsClientError } from '@interledger/open-payments'
import { freshTotpCode } from '@gnap/test-support'
import { expect, signInAsAdmin, startAdminWorld, type AdminWorld } from './support/admin-world'
import { worldTest } from './support/fixtures'

// A world of its own: blocking revokes the SDK client's grant, which the other console specs expect to find issued.
const test = worldTest<AdminWorld>(startAdminWorld)

const OPERATOR = { email: 'oscar@example.com', password: 'oscar operator password 2026' }

async function signInWithCode(page: Page, url: string, secret: string) {
  await signInAsAdmin(page, url, OPERATOR)
  await expect(page.getByRole('heading', { name: 'Two-step sign-in' })).toBeVisible()
  // The code field has the focus.
  await page.keyboard.type(await freshTotpCode(secret))
  await page.keyboard.press('Enter')
  await expect(page).toHaveURL(`${url}admin`)
}

test.describe('an operator invited by an admin', () => {
  test.setTimeout(150_000)

  test('sets a password, signs in with a code, blocks a client holding a live token, and the SDK’s rotation is refused', async ({
    page,
    browser,
    world,
  }) => {
    const url = world.server.url
    let link = ''
    await test.step('the admin invites an operator', async () => {
      await signInAsAdmin(page, url)
      await expect(page).toHaveURL(`${url}admin`)
      await page.goto(`${url}admin/administrators`)
      await page.getByLabel('Email').fill(OPERATOR.email)
      await page.getByLabel('Role').selectOption('operator')
      await page.getByRole('button', { name: 'Invite' }).click()
      const shown = page.getByRole('region', { name: `Invitation for ${OPERATOR.email}` })
      await expect(shown).toContainText(`${OPERATOR.email} was invited as operator.`)
      link = await shown.getByLabel('Invitation link', { exact: true }).inputValue()
    })

    const operator = await (await browser.newContext()).newPage()
    await test.step('the operator sets a password with the link and signs in', async () => {
      await operator.goto(link)
      await operator.getByLabel('New password').fill(OPERATOR.password)
      await operator.getByLabel('Type it again').fill(OPERATOR.password)
      await operator.getByRole('button', { name: 'Set password' }).click()
      await expect(operator.getByRole('heading', { level: 1 })).toHaveText('Password set')
      await signInAsAdmin(operator, url, OPERATOR)
      await expect(operator).toHaveURL(`${url}admin`)
      await expect(operator.getByRole('banner')).toContainText(`Signed in as ${OPERATOR.email} (operator)`)
    })

    let secret = ''
    await test.step('the operator turns on two-step sign-in, signs out, and signs in with password and code', async () => {
      await operator.getByRole('link', { name: 'My account' }).click()
      await operator.getByRole('button', { name: 'Set up two-step sign-in' }).click()
      secret = (await operator.getByLabel('Key for manual entry').textContent()) ?? ''
      expect(secret).toMatch(/^[A-Z2-7]{32}$/)
      await operator.getByLabel('Code from the app').fill(await freshTotpCode(secret))
      await operator.getByRole('button', { name: 'Turn on two-step sign-in' }).click()
      await operator.getByRole('button', { name: 'I have saved them' }).click()
      await expect(operator.getByRole('region', { name: 'Two-step sign-in' })).toContainText('Unused recovery codes: 10')
      await operator.getByRole('button', { name: 'Sign out' }).click()
      await expect(operator).toHaveURL(`${url}admin/sign-in?signed-out=1`)
      await signInWithCode(operator, url, secret)
    })

    await test.step('the operator blocks the client that holds a live token', async () => {
      await operator.goto(`${url}admin/clients/view?address=${encodeURIComponent(world.walletAddress)}`)
      await expect(operator.getByRole('region', { name: 'Tokens' }).getByRole('row').nth(1)).toContainText('Active')
      await operator.getByLabel('Reason').fill('Its key leaked')
      await operator.getByRole('button', { name: 'Block client' }).click()
      await operator.getByRole('dialog', { name: 'Block this client?' }).getByRole('button', { name: 'Block client' }).click()
      await expect(operator.getByRole('status')).toHaveText('Client blocked. 1 grant and 1 live token revoked.')
      await expect(operator.getByRole('region', { name: 'Blocked' })).toContainText(OPERATOR.email)
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

    await test.step('the audit log names the operator for the block', async () => {
      await operator.goto(`${url}admin/audit?action=client.block`)
      await expect(operator.getByRole('table').getByRole('row').nth(1)).toContainText(OPERATOR.email)
    })
  })
})
