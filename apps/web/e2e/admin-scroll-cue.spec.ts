// The console's wide tables at phone width (390 px), in a real browser (Debian's chromium) against the production
// build: a table whose columns do not fit (the audit log, the API keys) says so under it, shades the side that has
// more, keeps the column that names the row in view, and is a labelled region the keyboard scrolls. At desktop width
// the same tables fit and say nothing.
import type { Locator, Page } from '@playwright/test'
import { expect, signInAsAdmin, test } from './support/admin-world'

const PHONE = { width: 390, height: 844 }
const DESKTOP = { width: 1280, height: 800 }

/** The table's frame on the page (each of these pages has one table). */
const frame = (page: Page) => page.locator('.table-frame')

/**
 * Whether a column header's right edge lies within the window's width. Only across: focusing a long table's region
 * may scroll the page down past its header row, which says nothing about the sideways scroll.
 */
const acrossInView = (header: Locator) =>
  header.evaluate((th) => {
    const r = th.getBoundingClientRect()
    return r.right > 0 && r.right <= window.innerWidth
  })

/**
 * At phone width: the cue under the table and the shade on its right, a labelled region that takes the focus, the
 * arrow keys scroll it until the last column (`lastHeader`) is in view, and the cue then points back; the column
 * naming the row (`stickyHeader`) stays in view throughout.
 */
async function expectScrollCue(page: Page, { stickyHeader, lastHeader }: { stickyHeader: string; lastHeader: string }) {
  await page.setViewportSize(PHONE)
  const region = page.getByRole('region', { name: 'Table, scrolls sideways' })
  await expect(region).toBeVisible()
  await expect(frame(page).locator('.scroll-cue')).toHaveText('Scroll sideways for more columns →')
  await expect(frame(page)).toHaveAttribute('data-more-right', 'true')
  const last = page.getByRole('columnheader', { name: lastHeader })
  expect(await acrossInView(last)).toBe(false)

  // The keyboard alone: Tab reaches the region (it is in the tab order), the arrow keys scroll it.
  await region.focus()
  await expect(region).toBeFocused()
  await expect(region).toHaveAttribute('tabindex', '0')
  for (let i = 0; i < 200 && !(await acrossInView(last)); i++) await page.keyboard.press('ArrowRight')
  await expect.poll(() => acrossInView(last)).toBe(true)
  expect(await region.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0)
  expect(await acrossInView(page.getByRole('columnheader', { name: stickyHeader }))).toBe(true)
  await expect(frame(page)).toHaveAttribute('data-more-left', 'true')
  await page.keyboard.press('End')
  await expect(frame(page).locator('.scroll-cue')).toHaveText('← Scroll back for the first columns')

  // Wide enough for the whole table: no cue, no region, nothing to tab to.
  await page.setViewportSize(DESKTOP)
  await expect(frame(page).locator('.scroll-cue')).toHaveCount(0)
  await expect(page.getByRole('region', { name: 'Table, scrolls sideways' })).toHaveCount(0)
  await expect(frame(page).locator('.table-wrap')).not.toHaveAttribute('tabindex')
}

test.describe('wide tables at phone width', () => {
  test('the audit log and the API keys say they scroll sideways, and the keyboard scrolls them', async ({ page, world }) => {
    const url = world.server.url
    await signInAsAdmin(page, url)
    await expect(page).toHaveURL(`${url}admin`)

    await test.step('the audit log: When stays, Details is off-screen until scrolled to', async () => {
      await page.goto(`${url}admin/audit`)
      await expect(page.getByRole('row').filter({ hasText: 'Signed in' }).first()).toBeVisible()
      await expectScrollCue(page, { stickyHeader: 'When', lastHeader: 'Details' })
    })

    await test.step('the API keys: Name stays, Actions is off-screen until scrolled to', async () => {
      await page.goto(`${url}admin/api-keys`)
      await page.getByLabel('Name').fill('scroll-cue-check')
      await page.getByRole('button', { name: 'Create key' }).click()
      await page.getByRole('button', { name: 'I have stored the key' }).click()
      await expect(page.getByRole('row', { name: /scroll-cue-check/ })).toBeVisible()
      await expectScrollCue(page, { stickyHeader: 'Name', lastHeader: 'Actions' })
    })
  })
})
