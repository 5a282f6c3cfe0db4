import { test as base, expect, type Page, type TestInfo } from '@playwright/test'
import { startConsentWorld, type ConsentWorld } from './consent-world'

// One server per worker (each spec file runs in one worker), shared by its tests: every test makes its own grant
// and runs in a fresh browser context, so tests do not see each other's cookies.
export const test = base.extend<{ checks: void }, { world: ConsentWorld }>({
  world: [
    async ({}, use) => {
      const world = await startConsentWorld()
      await use(world)
      await world.stop()
    },
    { scope: 'worker', timeout: 120_000 },
  ],
  // After each test: every answer the SDK and the helpers got from the server met the contract; on a failure the
  // server's log is attached to the report.
  checks: [
    async ({ world }, use, testInfo) => {
      const seen = world.spec.failures.length
      await use()
      if (testInfo.status !== testInfo.expectedStatus) await attachLogs(testInfo, 'server log', world.server.logs())
      expect(world.spec.failures.slice(seen), 'answers that do not meet the contract').toEqual([])
    },
    { auto: true },
  ],
})

export { expect }

export async function attachLogs(testInfo: TestInfo, name: string, text: string): Promise<void> {
  await testInfo.attach(name, { body: text, contentType: 'text/plain' })
}

/** Fills the consent screen's sign-in form and submits it. */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
}
