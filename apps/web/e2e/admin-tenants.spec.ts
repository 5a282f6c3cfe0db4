// Tenants in the admin console, in a real browser (Debian's chromium) against the production build (docs/protocol.md
// §2.21): an administrator opens the Tenants page (identity provider, state, grant counts, never a secret), follows a
// tenant's grant count from the keyboard to the grants list filtered by that tenant, changes the tenant filter from
// the keyboard, sees the tenant on a grant's page, and binds a new API key to a tenant. Pages are scanned with axe
// and photographed at desktop and phone width (390 px).
import { openStore } from '@gnap/domain/kernel'
import { PAYROLL, SHOP, checkPage, expect, signInAsAdmin, startAdminWorld, type AdminWorld } from './support/admin-world'
import { worldTest } from './support/fixtures'

const A = '6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'
const B = '0e2d4c6b-8a9f-4e1d-9c3b-5a7f9e1d3c5b'
const A_IDP = 'https://idp-a.example/consent'

/** The console's world, with tenant A (its own identity provider) holding the corner shop's grants and tenant B (deleted) the payroll's. */
async function startTenantsWorld(): Promise<AdminWorld> {
  const world = await startAdminWorld()
  const store = await openStore(`file:${world.server.dbFile}`)
  try {
    await store.prisma.tenant.create({ data: { id: A, idpConsentUrl: A_IDP, idpSecretHash: 'f'.repeat(64), apiSecret: 'tenant-a-api-secret' } })
    await store.prisma.tenant.create({ data: { id: B, apiSecret: 'tenant-b-api-secret', deletedAt: new Date() } })
    await store.prisma.grant.updateMany({ where: { client: SHOP }, data: { tenantId: A } })
    await store.prisma.grant.updateMany({ where: { client: PAYROLL }, data: { tenantId: B } })
  } finally {
    await store.close()
  }
  return world
}

const test = worldTest<AdminWorld>(startTenantsWorld)

test.describe('tenants in the admin console', () => {
  test('an administrator reads the tenants, filters grants by tenant from the keyboard, and binds a key to one', async ({
    page,
    world,
  }, testInfo) => {
    const url = world.server.url
    await signInAsAdmin(page, url)
    await expect(page).toHaveURL(`${url}admin`)

    await test.step('the Tenants page: identity provider, state and grant counts, never a secret', async () => {
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Tenants' }).click()
      await expect(page).toHaveURL(`${url}admin/tenants`)
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Tenants')
      const rows = page.getByRole('table').getByRole('row')
      await expect(rows).toHaveCount(3)
      await expect(rows.filter({ hasText: A })).toContainText(A_IDP)
      await expect(rows.filter({ hasText: A })).toContainText('Live')
      await expect(rows.filter({ hasText: B })).toContainText('Built-in consent screen')
      await expect(rows.filter({ hasText: B })).toContainText('Deleted')
      expect(await page.content()).not.toMatch(/api-secret|f{64}/)
      await checkPage(page, testInfo, 'admin-tenants')
    })

    await test.step("a tenant's grant count leads, from the keyboard, to its grants", async () => {
      await page.getByRole('link', { name: `3 grants of ${A}` }).focus()
      await page.keyboard.press('Enter')
      await expect(page).toHaveURL(`${url}admin/grants?tenant=${A}`)
      const rows = page.getByRole('table').getByRole('row')
      await expect(rows).toHaveCount(4)
      for (const row of await rows.all()) if (!(await row.getByRole('columnheader').count())) await expect(row).toContainText(A)
    })

    await test.step('the tenant filter, changed from the keyboard', async () => {
      const filter = page.getByLabel('Tenant', { exact: true })
      await expect(filter).toHaveValue(A)
      await filter.focus()
      await page.keyboard.press('ArrowDown')
      await expect(filter).toHaveValue(B)
      await page.getByRole('button', { name: 'Apply' }).focus()
      await page.keyboard.press('Enter')
      await expect(page).toHaveURL(new RegExp(`tenant=${B}`))
      const rows = page.getByRole('table').getByRole('row')
      await expect(rows).toHaveCount(4)
      await expect(rows.nth(1)).toContainText(B)
      await expect(rows.filter({ hasText: 'Corner Shop' })).toHaveCount(0)
      await checkPage(page, testInfo, 'admin-grants-by-tenant')
    })

    await test.step("a grant's page names its tenant", async () => {
      await page.getByRole('table').getByRole('row').nth(1).getByRole('link').first().click()
      await expect(page.getByRole('heading', { level: 1 })).toContainText('Grant')
      const summary = page.getByRole('region', { name: 'Summary' })
      await expect(summary.getByRole('term').filter({ hasText: 'Tenant' })).toHaveCount(1)
      await expect(summary).toContainText(B)
    })

    await test.step('a new API key bound to a live tenant, shown in the keys list', async () => {
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'API keys' }).click()
      await page.getByLabel('Name').fill('tenant-a-sync')
      const tenant = page.getByLabel('Tenant', { exact: true })
      // Only live tenants: B was deleted.
      await expect(tenant.getByRole('option')).toHaveText(['Every tenant', A])
      await tenant.focus()
      await page.keyboard.press('ArrowDown')
      await expect(tenant).toHaveValue(A)
      await page.getByRole('button', { name: 'Create key' }).click()
      await page.getByRole('button', { name: 'I have stored the key' }).click()
      await expect(page.getByRole('table').getByRole('row').filter({ hasText: 'tenant-a-sync' })).toContainText(A)
    })
  })
})
