import { test as base, expect, type Page, type TestInfo } from '@playwright/test'
import { startConsentWorld, type ConsentWorld } from './consent-world'

/** What a spec file's world offers the fixtures: its server's log, the contract check and a stop. */
interface FixtureWorld {
  server: { logs(): string }
  spec: { failures: unknown[] }
  stop(): Promise<void>
}

/**
 * The `test` of a spec file over the world `start` makes: one server per worker (each spec file runs in one worker),
 * shared by its tests; every test makes its own data and runs in a fresh browser context, so tests do not see each
 * other's cookies. After each test, every answer the SDK and the helpers got from the server met the contract; on a
 * failure the server's log is attached to the report.
 */
export function worldTest<W extends FixtureWorld>(start: () => Promise<W>) {
  return base.extend<{ checks: void }, { world: W }>({
    world: [
      async ({}, use) => {
        const world = await start()
        await use(world)
        await world.stop()
      },
      { scope: 'worker', timeout: 120_000 },
    ],
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
}

export const test = worldTest<ConsentWorld>(startConsentWorld)

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
