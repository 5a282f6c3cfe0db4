// The audit log in the admin console, in a real browser (Debian's chromium) against the production build: an
// administrator filters the log (filters in the URL), exports the filtered entries as CSV and finds exactly
// those rows in the file, with a formula cell quoted, and does it all again with the keyboard alone. The page is
// scanned with axe and photographed at desktop and phone width.
import fs from 'node:fs'
import type { Page, TestInfo } from '@playwright/test'
import { openStore } from '@gnap/domain/kernel'
import { ADMIN, expect, screenshot, seriousViolations, signInAsAdmin, test } from './support/admin-world'

const PHONE = { width: 390, height: 844 }
const DESKTOP = { width: 1280, height: 800 }

async function checkPage(page: Page, testInfo: TestInfo, name: string) {
  expect(await seriousViolations(page), name).toEqual([])
  await screenshot(page, testInfo, `admin-audit-${name}`)
  await page.setViewportSize(PHONE)
  expect(await seriousViolations(page), `${name} on a phone`).toEqual([])
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width)
  await screenshot(page, testInfo, `admin-audit-${name}-phone`)
  await page.setViewportSize(DESKTOP)
}

/** Entries other administrators left, older than anything the test does (once: the tests share a server). */
async function seedEntries(dbFile: string) {
  const store = await openStore(`file:${dbFile}`)
  try {
    if ((await store.prisma.auditLog.count({ where: { actor: 'other@example.com' } })) > 0) return
    const at = (minute: number) => new Date(Date.UTC(2026, 0, 10, 9, minute))
    const rows = [
      ['support@example.com', 'owner.create', 'owner:o-carol', 0, 'created Carol'],
      ['support@example.com', 'owner.edit', 'owner:o-carol', 1, '=HYPERLINK("https://evil.example","x")'],
      ['support@example.com', 'owner.disable', 'owner:o-dan', 2, null],
      ['other@example.com', 'owner.enable', 'owner:o-dan', 3, null],
    ] as const
    for (const [actor, action, target, minute, detail] of rows) {
      await store.prisma.auditLog.create({ data: { id: crypto.randomUUID(), actor, action, target, detail, createdAt: at(minute) } })
    }
  } finally {
    await store.close()
  }
}

test.describe('the audit log in the admin console', () => {
  test('filter the log, export what the filters keep, and clear them', async ({ page, world }, testInfo) => {
    const url = world.server.url
    await seedEntries(world.server.dbFile)
    await signInAsAdmin(page, url)
    await expect(page).toHaveURL(`${url}admin`)

    await test.step('the whole log, newest first', async () => {
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Audit log' }).click()
      await expect(page).toHaveURL(`${url}admin/audit`)
      // The page says whose actions it lists: not administrators alone.
      await expect(page.getByText(/^Who changed what, newest first/)).toContainText('API keys, owners')
      await expect(page.getByRole('row').filter({ hasText: 'Signed in' }).first()).toContainText(ADMIN.email)
      await expect(page.getByRole('link', { name: 'Export CSV', exact: true })).toHaveAttribute('href', '/admin/audit/export.csv')
      await checkPage(page, testInfo, 'log')
    })

    await test.step('filter: who starts with “support@”, any owner action, on 10 January 2026', async () => {
      await page.getByRole('combobox', { name: 'How who matches' }).selectOption('prefix')
      await page.getByLabel('Who', { exact: true }).fill('support@')
      await page.getByLabel('What').selectOption({ label: 'Any owner action' })
      await page.getByLabel('From').fill('2026-01-10')
      await page.getByLabel('Until').fill('2026-01-10')
      await page.getByRole('button', { name: 'Apply' }).click()
      await expect(page).toHaveURL(`${url}admin/audit?actor=support%40&actorMatch=prefix&action=owner.&from=2026-01-10&to=2026-01-10`)
      const rows = page.getByRole('table').getByRole('row')
      // The header row and three entries, newest first.
      await expect(rows).toHaveCount(4)
      await expect(rows.nth(1)).toContainText('Disabled an owner')
      await expect(rows.nth(2)).toContainText('Edited an owner')
      await expect(rows.nth(3)).toContainText('Created an owner')
      await expect(page.getByRole('table')).not.toContainText('other@example.com')
      await checkPage(page, testInfo, 'filtered')
    })

    await test.step('the filters survive a reload, and Export CSV downloads exactly those rows', async () => {
      await page.reload()
      await expect(page.getByLabel('Who', { exact: true })).toHaveValue('support@')
      const link = page.getByRole('link', { name: 'Export CSV (filtered)' })
      await expect(link).toHaveAttribute(
        'href',
        '/admin/audit/export.csv?actor=support%40&actorMatch=prefix&action=owner.&from=2026-01-10&to=2026-01-10',
      )
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()])
      expect(download.suggestedFilename()).toMatch(/^audit-log-\d{8}T\d{6}Z\.csv$/)
      const csv = fs.readFileSync(await download.path(), 'utf8')
      expect(csv.split('\r\n')).toEqual([
        'time,actor,action,target,detail',
        '2026-01-10T09:02:00.000Z,support@example.com,owner.disable,owner:o-dan,',
        `2026-01-10T09:01:00.000Z,support@example.com,owner.edit,owner:o-carol,"'=HYPERLINK(""https://evil.example"",""x"")"`,
        '2026-01-10T09:00:00.000Z,support@example.com,owner.create,owner:o-carol,created Carol',
        '',
      ])
    })

    await test.step('filters that keep nothing say so; Clear filters shows the whole log again', async () => {
      await page.getByLabel('Who', { exact: true }).fill('nobody@')
      await page.getByRole('button', { name: 'Apply' }).click()
      await expect(page.getByText('No entry matches these filters.')).toBeVisible()
      await checkPage(page, testInfo, 'empty')
      await page.getByRole('link', { name: 'Clear filters' }).click()
      await expect(page).toHaveURL(`${url}admin/audit`)
      await expect(page.getByRole('table')).toContainText('other@example.com')
    })
  })

  test('filtering and exporting work with the keyboard alone', async ({ page, world }) => {
    const url = world.server.url
    await seedEntries(world.server.dbFile)
    await signInAsAdmin(page, url)
    await expect(page).toHaveURL(`${url}admin`)
    await page.goto(`${url}admin/audit`)
    // The match select comes before the field it qualifies.
    await page.getByRole('combobox', { name: 'How who matches' }).focus()
    await page.keyboard.press('Tab')
    await expect(page.getByLabel('Who', { exact: true })).toBeFocused()
    await page.keyboard.type('other@example.com')
    await page.keyboard.press('Enter')
    await expect(page).toHaveURL(`${url}admin/audit?actor=other%40example.com`)
    const rows = page.getByRole('table').getByRole('row')
    await expect(rows).toHaveCount(2)
    await expect(rows.nth(1)).toContainText('Enabled an owner')

    const link = page.getByRole('link', { name: 'Export CSV (filtered)' })
    await link.focus()
    const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')])
    const csv = fs.readFileSync(await download.path(), 'utf8')
    expect(csv).toBe('time,actor,action,target,detail\r\n2026-01-10T09:03:00.000Z,other@example.com,owner.enable,owner:o-dan,\r\n')
  })
})
