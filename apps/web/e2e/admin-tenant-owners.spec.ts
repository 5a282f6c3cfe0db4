// Owners, webhook endpoints and the audit log per tenant in the admin console (docs/protocol.md §2.21), in a real
// browser against the production build: an administrator creates an owner in tenant A with the keyboard alone (the
// tenant field included), is refused an unknown tenant in words, filters the owners and the audit log by tenant and
// adds an endpoint bound to A. Each page is scanned with axe and photographed at desktop and phone width (390 px).
import { createLogger, openStore } from '@gnap/domain/kernel'
import { createTenant, parseCreateTenant, type Deps } from '@gnap/domain/protocol'
import { checkPage, expect, signInAsAdmin, test } from './support/admin-world'

const A = '6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'
const B = '0e2d4c6b-8a9f-4e1d-9c3b-5a7f9e1d3c5b'

test.describe('owners, webhooks and the audit log per tenant in the admin console', () => {
  test('an administrator creates an owner in a tenant by keyboard, filters owners and the audit log by it, and binds an endpoint to it', async ({
    page,
    world,
  }, testInfo) => {
    const url = world.server.url
    // Tenants A and B, as the service API writes them, in the server's own database.
    const store = await openStore(`file:${world.server.dbFile}`)
    try {
      const deps = { sql: store.sql, clock: () => new Date(), log: createLogger('silent') } as unknown as Deps
      for (const id of [A, B]) await createTenant(deps, parseCreateTenant({ id, apiSecret: `api-secret-${id}` }))
    } finally {
      await store.close()
    }
    await signInAsAdmin(page, url)
    await expect(page).toHaveURL(`${url}admin`)

    await test.step('the create form’s tenant field, keyboard only: an unknown tenant is refused in words', async () => {
      await page.goto(`${url}admin/owners/new`)
      await page.getByLabel('Email').focus()
      await page.keyboard.type('dora@tenant-a.example')
      await page.keyboard.press('Tab')
      await page.keyboard.type('Dora of A')
      await page.keyboard.press('Tab')
      await page.keyboard.type('https://wallet.example/dora')
      await page.keyboard.press('Tab')
      await expect(page.getByLabel('Tenant (optional)')).toBeFocused()
      await page.keyboard.type('7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d')
      await checkPage(page, testInfo, 'admin-tenants-owner-create')
      await page.getByLabel('Tenant (optional)').focus()
      await page.keyboard.press('Enter')
      await expect(page.getByRole('main').getByRole('alert')).toContainText(
        'Unknown or deleted tenant 7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d: name a live tenant.',
      )
      await expect(page).toHaveURL(`${url}admin/owners/new`)
    })

    await test.step('with tenant A the owner is created, and their page names the tenant', async () => {
      await page.getByLabel('Tenant (optional)').fill(A)
      await page.getByLabel('Tenant (optional)').press('Enter')
      await expect(page).toHaveURL(new RegExp(`^${url}admin/owners/[0-9a-f-]{36}\\?created=1$`))
      await expect(page.getByRole('region', { name: 'Account', exact: true })).toContainText(A)
    })

    await test.step('the owners list shows the tenant and filters by it', async () => {
      await page.goto(`${url}admin/owners`)
      await expect(page.getByRole('columnheader', { name: 'Tenant' })).toBeVisible()
      await page.getByLabel('Tenant', { exact: true }).fill(B)
      await page.getByRole('button', { name: 'Search' }).click()
      await expect(page).toHaveURL(`${url}admin/owners?tenant=${B}`)
      await expect(page.getByText(`Tenant ${B} has no owners.`)).toBeVisible()
      await page.getByLabel('Tenant', { exact: true }).fill(A)
      await page.getByLabel('Tenant', { exact: true }).press('Enter')
      await expect(page.getByRole('row')).toHaveCount(2)
      await expect(page.getByRole('row').nth(1)).toContainText('dora@tenant-a.example')
      await expect(page.getByRole('row').nth(1)).toContainText(A)
      await checkPage(page, testInfo, 'admin-tenants-owners')
    })

    await test.step('an endpoint bound to tenant A', async () => {
      await page.goto(`${url}admin/webhooks`)
      // A literal address the server's rules accept without resolving a name.
      await page.getByLabel('URL').fill('https://93.184.215.14/tenant-a')
      await page.getByRole('checkbox', { name: /grant\.revoked/ }).check()
      await page.getByLabel('Tenant (optional)').fill(A)
      await checkPage(page, testInfo, 'admin-tenants-webhook-create')
      await page.getByRole('button', { name: 'Add endpoint' }).click()
      await expect(page.getByRole('heading', { name: 'Endpoint added' })).toBeVisible()
    })

    await test.step('the audit log shows the tenant and filters by it', async () => {
      await page.goto(`${url}admin/audit?tenant=${A}`)
      await expect(page.getByRole('columnheader', { name: 'Tenant' })).toBeVisible()
      const rows = page.getByRole('row')
      await expect(rows).toHaveCount(3)
      await expect(rows.nth(1)).toContainText(A)
      await expect(rows.nth(2)).toContainText(A)
      await expect(page.getByLabel('Tenant', { exact: true })).toHaveValue(A)
      await checkPage(page, testInfo, 'admin-tenants-audit')
    })
  })
})
