// ADMIN_REQUIRE_TOTP=true in a real browser (Debian's chromium) against the production build: an administrator
// without two-step sign-in signs in with their password and is sent to the enrolment page wherever they go in the
// console; they enrol with the keyboard alone, then use the console. The page is scanned with axe and photographed
// at desktop and phone width.
import { openStore } from '@gnap/domain/kernel'
import { createAdmin } from '@gnap/domain/operator'
import { freshTotpCode } from '@gnap/test-support'
import { startWorld, type World } from '../test/support/world'
import { worldTest } from './support/fixtures'
import { ADMIN, expect, screenshot, seriousViolations, signInAsAdmin } from './support/admin-world'

const PHONE = { width: 390, height: 844 }
const DESKTOP = { width: 1280, height: 800 }

async function startRequireTotpWorld(): Promise<World> {
  const world = await startWorld({ ADMIN_REQUIRE_TOTP: 'true' })
  const store = await openStore(`file:${world.server.dbFile}`)
  try {
    await createAdmin(store.sql, ADMIN)
  } finally {
    await store.close()
  }
  return world
}

const test = worldTest<World>(startRequireTotpWorld)

test.describe('ADMIN_REQUIRE_TOTP', () => {
  test.setTimeout(120_000)

  test('an administrator without two-step sign-in can only enrol, with the keyboard alone, then uses the console', async ({
    page,
    world,
  }, testInfo) => {
    const url = world.server.url
    await signInAsAdmin(page, url)
    await expect(page).toHaveURL(`${url}admin/enrol`)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Turn on two-step sign-in')

    for (const path of ['admin', 'admin/grants', 'admin/account', 'admin/audit']) {
      await page.goto(`${url}${path}`)
      await expect(page, path).toHaveURL(`${url}admin/enrol`)
    }

    expect(await seriousViolations(page)).toEqual([])
    await screenshot(page, testInfo, 'admin-enrol-required')

    // Keyboard only: the set-up button, then the code field and Enter.
    await page.getByRole('button', { name: 'Set up two-step sign-in' }).focus()
    await page.keyboard.press('Enter')
    const secret = (await page.getByLabel('Key for manual entry').textContent()) ?? ''
    expect(secret).toMatch(/^[A-Z2-7]{32}$/)
    await page.setViewportSize(PHONE)
    expect(await seriousViolations(page)).toEqual([])
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width)
    await screenshot(page, testInfo, 'admin-enrol-required-phone')
    await page.setViewportSize(DESKTOP)
    await expect(page.getByLabel('Code from the app')).toBeFocused()
    await page.keyboard.type(await freshTotpCode(secret))
    await page.keyboard.press('Enter')
    await expect(page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem')).toHaveCount(10)
    await page.getByRole('button', { name: 'I have saved them: continue to the console' }).focus()
    await page.keyboard.press('Enter')
    await expect(page).toHaveURL(`${url}admin`)
    await page.goto(`${url}admin/grants`)
    await expect(page).toHaveURL(`${url}admin/grants`)
    // The enrolment page is for those who must enrol only.
    await page.goto(`${url}admin/enrol`)
    await expect(page).toHaveURL(`${url}admin/account`)
  })
})
