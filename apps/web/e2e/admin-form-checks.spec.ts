// The console's input forms check their fields with the domain's own input schemas (@gnap/domain/console-inputs),
// in a real browser (Debian's chromium) against the production build: a field the server would refuse says why
// under it, in the server's words, when it loses the focus, and on submit the first refused field takes the focus
// and nothing is sent.
import type { Locator, Page } from '@playwright/test'
import { expect, signInAsAdmin, test } from './support/admin-world'

const EMAIL_ISSUE = 'Give an email address, such as name@example.com.'

/** The field's issue under it, tied to it by aria-describedby, and the field marked invalid. */
async function expectIssue(page: Page, field: Locator, text: string) {
  await expect(field).toHaveAttribute('aria-invalid', 'true')
  const issueId = `${await field.getAttribute('id')}-issue`
  await expect(field).toHaveAttribute('aria-describedby', new RegExp(`\\b${issueId}\\b`))
  await expect(page.locator(`#${issueId}`)).toHaveText(text)
  await expect(page.locator(`#${issueId}`)).toHaveRole('alert')
}

test.describe('input forms checked by the domain schemas', () => {
  test('the owner and invitation forms say what the server would refuse, before sending it', async ({ page, world }) => {
    const url = world.server.url
    await signInAsAdmin(page, url)
    await expect(page).toHaveURL(`${url}admin`)

    await test.step('a new owner: an email without its domain, a name of spaces', async () => {
      await page.goto(`${url}admin/owners/new`)
      const email = page.getByLabel('Email')
      const name = page.getByLabel('Name')
      await email.fill('alice@example')
      await name.focus()
      await expectIssue(page, email, EMAIL_ISSUE)
      await name.fill('   ')
      await page.getByLabel('Wallet addresses').fill('https://wallet.example/alice-form-check')
      await page.getByRole('button', { name: 'Create owner' }).click()
      // The browser's own check lets both pass (an email's domain needs no dot there, a required field may be
      // spaces): the schema does not, so the first refused field takes the focus and nothing is sent.
      await expect(email).toBeFocused()
      await expectIssue(page, name, 'Give the owner a name.')
      await expect(page).toHaveURL(`${url}admin/owners/new`)

      // Corrected, each issue goes as it is typed away.
      await email.fill('alice.form@example.com')
      await expect(email).not.toHaveAttribute('aria-invalid')
      await name.fill('Alice Form')
      await expect(name).not.toHaveAttribute('aria-invalid')
      await page.getByRole('button', { name: 'Create owner' }).click()
      await expect(page).toHaveURL(/\/admin\/owners\/[^/]+\?created=1$/)

      // Editing the owner: the same schemas.
      await page.getByRole('button', { name: 'Edit name and email' }).click()
      const edit = page.getByRole('form', { name: 'Edit name and email' })
      await edit.getByLabel('Name').fill(' ')
      // From the keyboard: leaving the field shows its issue (and moves Save down), Enter on Save is refused.
      await edit.getByRole('button', { name: 'Save' }).focus()
      await page.keyboard.press('Enter')
      await expect(edit.getByLabel('Name')).toBeFocused()
      await expectIssue(page, edit.getByLabel('Name'), 'Give the owner a name.')
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Alice Form')
    })

    await test.step('an invitation: the same words for an administrator’s email', async () => {
      await page.goto(`${url}admin/administrators`)
      const email = page.getByLabel('Email')
      await email.fill('olga@example')
      await page.getByLabel('Role').focus()
      await expectIssue(page, email, EMAIL_ISSUE)
      await page.getByRole('button', { name: 'Invite' }).click()
      await expect(email).toBeFocused()
      await expect(page.getByRole('region', { name: /^Invitation for/ })).toHaveCount(0)
    })
  })
})
