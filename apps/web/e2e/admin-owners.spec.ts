// Owners in the admin console, in a real browser (Debian's chromium) against the production build: an
// administrator creates an owner for the wallet address the real Open Payments client holds a grant on, sees that
// grant on the owner's page, is refused an address another owner has, edits the owner, adds and removes a wallet
// address (the removal asks about the grants), disables and enables them, and finds them by name and by wallet
// address. Every new page is scanned with axe and photographed at desktop and phone width; the create form and
// the confirmations work with the keyboard alone.
import { OWNER_WALLET, checkPage, expect, screenshot, seriousViolations, signInAsAdmin, test } from './support/admin-world'

test.describe('owners in the admin console', () => {
  test('an administrator creates, edits, readdresses, disables and enables an owner, and finds them', async ({ page, world }, testInfo) => {
    const url = world.server.url
    await signInAsAdmin(page, url)
    await expect(page).toHaveURL(`${url}admin`)

    await test.step('the Owners section starts empty and says what to do', async () => {
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Owners' }).click()
      await expect(page).toHaveURL(`${url}admin/owners`)
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Owners')
      await expect(page.getByText('No owners yet.')).toBeVisible()
    })

    let ownerUrl = ''
    await test.step('create an owner: their page shows the SDK client’s grant on their wallet address', async () => {
      await page.getByRole('link', { name: 'Create owner' }).click()
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Create owner')
      await checkPage(page, testInfo, 'admin-owners-create')
      await page.getByLabel('Email').fill('Alice@Example.com')
      await page.getByLabel('Name').fill('Alice')
      await page.getByLabel('Wallet addresses').fill(`${OWNER_WALLET}/`)
      await page.getByRole('button', { name: 'Create owner' }).click()
      await expect(page).toHaveURL(new RegExp(`^${url}admin/owners/[0-9a-f-]{36}\\?created=1$`))
      ownerUrl = page.url().replace('?created=1', '')
      await expect(page.getByRole('status')).toHaveText('Owner created. Create an invitation link below and pass it on, so they can set a password.')
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Alice')
      const account = page.getByRole('region', { name: 'Account', exact: true })
      await expect(account).toContainText('alice@example.com')
      await expect(account).toContainText('Not set yet')
      await expect(page.getByRole('region', { name: /^Wallet addresses/ }).getByRole('listitem')).toHaveText([OWNER_WALLET])
      const grants = page.getByRole('region', { name: /^Grants on these wallet addresses/ })
      await expect(grants.getByRole('link', { name: world.rotated.grantId })).toHaveAttribute('href', `/admin/grants/${world.rotated.grantId}`)
      await expect(grants).toContainText('Issued')
      await expect(page.getByRole('region', { name: 'Audit entries about this owner' })).toContainText('Created an owner by ops@example.com')
      await checkPage(page, testInfo, 'admin-owners-owner')
    })

    await test.step('the same wallet address, written differently, is refused for another owner', async () => {
      await page.goto(`${url}admin/owners/new`)
      await page.getByLabel('Email').fill('mallory@example.com')
      await page.getByLabel('Name').fill('Mallory')
      await page.getByLabel('Wallet addresses').fill('https://WALLET.example/alice/')
      await page.getByRole('button', { name: 'Create owner' }).click()
      await expect(page.getByRole('main').getByRole('alert')).toContainText(
        'The wallet address https://wallet.example/alice already belongs to another owner.',
      )
      await expect(page).toHaveURL(`${url}admin/owners/new`)
    })

    await test.step('edit the name and email', async () => {
      await page.goto(ownerUrl)
      await page.getByRole('button', { name: 'Edit name and email' }).click()
      await page.getByLabel('Name', { exact: true }).fill('Alice Liddell')
      await page.getByLabel('Email', { exact: true }).fill('alice.l@example.com')
      await page.getByRole('button', { name: 'Save' }).click()
      await expect(page.getByRole('status')).toHaveText('Name and email saved.')
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Alice Liddell')
    })

    await test.step('add a wallet address, then remove it: the confirmation asks about its grants', async () => {
      await page.getByRole('textbox', { name: 'Add a wallet address' }).fill('https://wallet.example/alice-savings')
      await page.getByRole('button', { name: 'Add', exact: true }).click()
      await expect(page.getByRole('status')).toHaveText('Wallet address added.')
      const addresses = page.getByRole('region', { name: /^Wallet addresses/ }).getByRole('listitem')
      await expect(addresses).toHaveCount(2)
      await addresses.filter({ hasText: 'alice-savings' }).getByRole('button', { name: 'Remove' }).click()
      const dialog = page.getByRole('dialog', { name: 'Remove this wallet address?' })
      await expect(dialog.getByRole('checkbox', { name: /Also revoke the grants that name it \(0 still live\)/ })).toBeChecked()
      expect(await seriousViolations(page)).toEqual([])
      await screenshot(page, testInfo, 'admin-owners-remove-address')
      await dialog.getByRole('button', { name: 'Remove' }).click()
      await expect(page.getByRole('status')).toHaveText('Wallet address removed. 0 grants revoked.')
      await expect(addresses).toHaveText([OWNER_WALLET])
    })

    await test.step('disable (keeping the grants), then enable', async () => {
      await page.getByRole('button', { name: 'Disable owner' }).click()
      const dialog = page.getByRole('dialog', { name: 'Disable this owner?' })
      await expect(dialog.getByRole('checkbox', { name: /Also revoke their 3 grants still live/ })).not.toBeChecked()
      await dialog.getByRole('button', { name: 'Disable owner' }).click()
      await expect(page.getByRole('status')).toHaveText('Owner disabled: they can no longer sign in.')
      await expect(page.getByRole('region', { name: 'Account', exact: true })).toContainText('Cannot sign in')
      await expect(page.getByRole('region', { name: /^Grants on these wallet addresses/ })).toContainText('Issued')
      await page.getByRole('button', { name: 'Enable owner' }).click()
      await expect(page.getByRole('status')).toHaveText('Owner enabled: they can sign in again.')
      await expect(page.getByRole('region', { name: 'Account', exact: true })).toContainText('Can sign in')
    })

    await test.step('find the owner by name and by wallet address', async () => {
      await page.getByRole('link', { name: '← Owners' }).click()
      await page.getByLabel('Email, name or wallet address').fill('alice l')
      await page.getByRole('button', { name: 'Search' }).click()
      await expect(page).toHaveURL(`${url}admin/owners?q=alice+l`)
      const rows = page.getByRole('table').getByRole('row')
      await expect(rows).toHaveCount(2)
      await expect(rows.nth(1)).toContainText('alice.l@example.com')
      await page.getByLabel('Email, name or wallet address').fill('https://wallet.example/al')
      await page.getByRole('button', { name: 'Search' }).click()
      await expect(rows).toHaveCount(2)
      await expect(rows.nth(1)).toContainText(OWNER_WALLET)
      await page.getByLabel('Email, name or wallet address').fill('nobody@')
      await page.getByRole('button', { name: 'Search' }).click()
      await expect(page.getByText('No owner found.')).toBeVisible()
      await page.getByRole('link', { name: 'Clear' }).click()
      await expect(rows).toHaveCount(2)
      await checkPage(page, testInfo, 'admin-owners-list')
    })
  })

  test('creating an owner and the confirmations work with the keyboard alone', async ({ page, world }) => {
    const url = world.server.url
    await signInAsAdmin(page, url)
    await expect(page).toHaveURL(`${url}admin`)
    await page.goto(`${url}admin/owners/new`)
    await page.getByLabel('Email').focus()
    await page.keyboard.type('bob@example.com')
    await page.keyboard.press('Tab')
    await page.keyboard.type('Bob')
    await page.keyboard.press('Tab')
    await page.keyboard.type('https://wallet.example/bob')
    await page.keyboard.press('Tab')
    await expect(page.getByRole('button', { name: 'Create owner' })).toBeFocused()
    await page.keyboard.press('Enter')
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Bob')

    // Escape cancels the confirmation: the owner stays active.
    await page.getByRole('button', { name: 'Disable owner' }).focus()
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('dialog', { name: 'Disable this owner?' })
    await expect(dialog).toBeVisible()
    // The focus is in the dialog, on its question (revoke the grants as well?), never on the confirm button.
    await expect(dialog.getByRole('checkbox')).toBeFocused()
    await page.keyboard.press('Escape')
    await expect(dialog).toBeHidden()
    await expect(page.getByRole('region', { name: 'Account', exact: true })).toContainText('Can sign in')

    // Delete, confirmed from the keyboard: back to the list, where Bob is gone.
    await page.getByRole('button', { name: 'Delete owner' }).focus()
    await page.keyboard.press('Enter')
    const del = page.getByRole('dialog', { name: 'Delete this owner?' })
    await expect(del).toBeVisible()
    await page.keyboard.press('Tab')
    await expect(del.getByRole('button', { name: 'Delete owner' })).toBeFocused()
    await page.keyboard.press('Enter')
    await expect(page).toHaveURL(`${url}admin/owners`)
    await page.getByLabel('Email, name or wallet address').focus()
    await page.keyboard.type('bob@')
    await page.keyboard.press('Enter')
    await expect(page.getByText('No owner found.')).toBeVisible()
  })
})
