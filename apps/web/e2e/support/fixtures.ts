import { isFinalizedGrant, type PendingGrant } from '@interledger/open-payments'
import { test as base, expect, type Page, type TestInfo } from '@playwright/test'
import { openStore } from '@gnap/domain/kernel'
import { lastSegment } from '@gnap/domain/testing'
import { sleep } from '../../test/support/world'
import { ALICE, startConsentWorld, type ConsentWorld } from './consent-world'

/** What a spec file's world offers the fixtures: its server's log, the contract check and a stop. */
interface FixtureWorld {
  server: { logs(): string }
  spec: { failures: unknown[] }
  stop(): Promise<void>
}

/**
 * The `test` of a spec file over the world `start` makes: one server per spec file, shared by its tests; every test
 * makes its own data and runs in a fresh browser context, so tests do not see each other's cookies. A worker runs
 * several spec files one after the other, so the world is made afresh when a test of another file asks for it (a
 * worker-scoped world would carry one file's owners and grants into the next file's counts) and stopped with the
 * worker. After each test, every answer the SDK and the helpers got from the server met the contract; on a failure
 * the server's log is attached to the report.
 */
export function worldTest<W extends FixtureWorld>(start: () => Promise<W>) {
  let current: { file: string; world: W } | null = null
  const stopCurrent = async () => {
    const ending = current
    current = null
    await ending?.world.stop()
  }
  return base.extend<{ checks: void; world: W }, { worlds: void }>({
    worlds: [
      async ({}, use) => {
        await use()
        await stopCurrent()
      },
      { scope: 'worker', auto: true, timeout: 120_000 },
    ],
    world: [
      async ({}, use, testInfo) => {
        if (current?.file !== testInfo.file) {
          await stopCurrent()
          current = { file: testInfo.file, world: await start() }
        }
        await use(current.world)
      },
      { timeout: 120_000 },
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

/**
 * Once the owner has decided in `page`: waits until the browser is back at the client's finish endpoint, then
 * continues the grant with the SDK (after the protocol's wait) with the interact_ref it brought.
 */
export async function continueAtClient(page: Page, world: ConsentWorld, pending: PendingGrant) {
  await page.waitForURL((url) => url.href.startsWith(`${world.finish.uri}?`))
  const interactRef = new URL(page.url()).searchParams.get('interact_ref')
  if (!interactRef) throw new Error('no interact_ref at the finish URI')
  await sleep((pending.continue.wait ?? 0) * 1000)
  return world.client.grant.continue({ url: pending.continue.uri, accessToken: pending.continue.access_token.value }, { interact_ref: interactRef })
}

/**
 * Alice approves a fresh SDK grant on the consent screen in `page` (signing in if it asks), and the SDK continues it
 * to a token: the grant's id (read from the database) and its access token.
 */
export async function approvedGrant(page: Page, world: ConsentWorld) {
  const { pending } = await world.requestGrant()
  await page.goto(pending.interact.redirect)
  if (await page.getByLabel('Email').isVisible()) await signIn(page, ALICE.email, ALICE.password)
  await page.getByRole('button', { name: 'Approve' }).click()
  const grant = await continueAtClient(page, world, pending)
  if (!isFinalizedGrant(grant) || !grant.access_token) throw new Error('expected an issued grant')
  const store = await openStore(`file:${world.server.dbFile}`)
  try {
    const { id } = await store.prisma.grant.findUniqueOrThrow({ where: { continueId: lastSegment(pending.continue.uri) }, select: { id: true } })
    return { grantId: id, token: grant.access_token }
  } finally {
    await store.close()
  }
}
